import ArgumentParser
import Foundation
import TodoKit

/// `todo add Buy milk --tag errands`
struct AddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a to-do.")

    @ParentCommand var root: TodoCommand

    @Argument(help: "The title; several words need no quotes.")
    var title: [String]

    @Option(name: .customLong("tag"), help: ArgumentHelp("A tag to give it, made if new (repeatable).", valueName: "title"))
    var tags: [String] = []

    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await Session.run(root) { session in
            var tagIds: [UUID] = []
            for title in tags {
                tagIds.append(try await session.services.tags.tag(titled: title).id)
            }
            let todo = try await session.services.todos.add(title: title.joined(separator: " "), tagIds: tagIds)
            try await Printer.changed("Added", todo, output, session)
        }
    }
}
