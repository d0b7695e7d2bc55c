import ArgumentParser
import Foundation

/// `strata model describe MODEL`: what a model holds — entities, their attributes and
/// relationships, inheritance, indexes, constraints, configurations and version hashes.
struct ModelDescribeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "describe",
        abstract: "Show a model's entities, properties, indexes, constraints and version hashes.",
        discussion: """
            Entities and properties are listed in name order; an entity shows only the \
            properties it declares (its parent's are listed under the parent). Version hashes \
            are base64, as a store's metadata holds them (NSStoreModelVersionHashes).

            Examples:
              strata model describe Todos.xcdatamodeld
              strata model describe Todos.xcdatamodeld --version "Todos 2"
              strata model describe App.sqlite --json | jq '.entities[].name'
            """
    )

    @OptionGroup var arguments: ModelArguments

    @Flag(help: "Print JSON for scripts.")
    var json = false

    /// Reads the model and prints its description as text or JSON.
    func run() throws {
        try ModelSupportOutput.run {
            let source = try ModelSource.load(arguments.model, version: arguments.version)
            let description = ModelDescription(source)
            if json {
                try ModelSupportOutput.printJSON(description)
            } else {
                print(ModelDescriptionText.render(description), terminator: "")
            }
        }
    }
}
