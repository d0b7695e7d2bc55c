import ArgumentParser
import TodoKit

/// `todo edit 3f2a --title "Buy oat milk"`
struct EditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "edit", abstract: "Change a to-do's title.")

    @ParentCommand var root: TodoCommand

    @Argument(help: "The to-do's id, or its start.")
    var id: String

    @Option(help: "The new title.")
    var title: String?

    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard title != nil else { throw ValidationError("Nothing to change: give --title.") }
    }

    func run() async throws {
        try await Session.run(root) { session in
            let id = try await session.services.todos.resolve(id)
            let todo = try await session.services.todos.rename(id: id, to: title ?? "")
            try await Printer.changed("Edited", todo, output, session)
        }
    }
}
