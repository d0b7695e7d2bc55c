import ArgumentParser
import Foundation
import TodoKit

/// `todo list --search cafe --tag home --page 2`
struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List to-dos, most recently updated first.")

    @ParentCommand var root: TodoCommand

    @Option(help: "Only titles containing this text (ignoring case and accents: 'cafe' finds 'Café').")
    var search: String?

    @Option(help: ArgumentHelp("Only to-dos with this tag (its title or id).", valueName: "tag"))
    var tag: String?

    @Option(help: "The page to show, from 1.")
    var page = 1

    @Option(help: "To-dos per page.")
    var pageSize = TodoQuery.defaultPageSize

    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard page >= 1 else { throw ValidationError("--page counts from 1.") }
        guard (1...1000).contains(pageSize) else { throw ValidationError("--page-size must be between 1 and 1000.") }
    }

    func run() async throws {
        try await Session.run(root) { session in
            var tagId: UUID?
            if let tag {
                tagId = try await session.services.tags.resolve(tag).id
            }
            let query = TodoQuery(search: search, tagId: tagId, page: page, pageSize: pageSize)
            let result = try await session.services.todos.todos(matching: query)
            if output.json {
                try Printer.json(result)
            } else if result.total == 0 {
                print(search == nil && tag == nil ? "No to-dos yet: add one with `todo add`." : "No to-dos match.")
            } else {
                print(TodoText.table(result.todos, ids: try await session.todoIds()))
                print("\nPage \(result.page) of \(result.pageCount), \(Printer.count(result.total, "to-do")).")
            }
        }
    }
}
