import ArgumentParser
import TodoKit

/// `todo show 3f2a`
struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show everything about a to-do.")

    @ParentCommand var root: TodoCommand

    @Argument(help: "The to-do's id, or its start.")
    var id: String

    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await Session.run(root) { session in
            let todo = try await session.todo(id)
            if output.json {
                try Printer.json(todo)
            } else {
                print(TodoText.detail(todo))
            }
        }
    }
}
