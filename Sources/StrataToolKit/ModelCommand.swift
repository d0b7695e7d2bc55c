import ArgumentParser

/// `strata model …`: a model file (`.xcdatamodeld`, `.xcdatamodel`, `.momd`, `.mom`) or a
/// store's cached model described, validated, drawn, or turned into the classes the build
/// plugin would generate.
struct ModelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Describe, validate, draw or generate code from a Core Data model.",
        discussion: """
            MODEL is an .xcdatamodeld bundle (its current version, or --version NAME), an \
            .xcdatamodel folder, a compiled .momd or .mom (Strata's or Xcode's), or a SQLite \
            store, whose own copy of its model (Z_MODELCACHE) is read from a copy of the store: \
            the store itself is never opened, so it is never changed.

            Examples:
              strata model describe Todos.xcdatamodeld
              strata model validate --cloudkit Todos.xcdatamodeld
              strata model diagram Todos.xcdatamodeld --format svg --output todos.svg
              strata model generate Todos.xcdatamodeld --output Generated/
            """,
        subcommands: [
            ModelDescribeCommand.self, ModelValidateCommand.self, ModelDiagramCommand.self, ModelGenerateCommand.self,
        ]
    )
}

/// The MODEL argument and `--version`, shared by the `model` subcommands that read one model.
struct ModelArguments: ParsableArguments {
    @Argument(help: "The model: .xcdatamodeld, .xcdatamodel, .momd, .mom, or a SQLite store.")
    var model: String

    @Option(help: "The version of an .xcdatamodeld or .momd to read (default: the current one).")
    var version: String?
}
