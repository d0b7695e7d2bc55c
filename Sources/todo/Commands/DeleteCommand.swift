import ArgumentParser
import Foundation
import TodoKit

/// `todo delete 3f2a`
struct DeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete", abstract: "Delete a to-do (its tags stay; its place goes if no other to-do is there).")

    @ParentCommand var root: TodoCommand

    @Argument(help: "The to-do's id, or its start.")
    var id: String

    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await Session.run(root) { session in
            let todo = try await session.todo(id)
            let ids = try await session.todoIds()
            try await session.services.todos.delete(id: todo.id)
            if output.json {
                try Printer.json(["deleted": todo.id])
            } else {
                print(TodoText.line("Deleted", todo, ids: ids))
            }
        }
    }
}
