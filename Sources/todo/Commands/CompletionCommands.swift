import ArgumentParser
import TodoKit

/// `todo complete 3f2a`
struct CompleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "complete", abstract: "Mark a to-do done.")

    @ParentCommand var root: TodoCommand

    @Argument(help: "The to-do's id, or its start.")
    var id: String

    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await Session.run(root) { session in
            let todo = try await session.services.todos.complete(id: session.services.todos.resolve(id))
            try await Printer.changed("Completed", todo, output, session)
        }
    }
}

/// `todo reopen 3f2a`
struct ReopenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "reopen", abstract: "Mark a done to-do open again.")

    @ParentCommand var root: TodoCommand

    @Argument(help: "The to-do's id, or its start.")
    var id: String

    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await Session.run(root) { session in
            let todo = try await session.services.todos.reopen(id: session.services.todos.resolve(id))
            try await Printer.changed("Reopened", todo, output, session)
        }
    }
}
