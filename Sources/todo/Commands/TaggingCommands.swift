import ArgumentParser
import TodoKit

/// `todo tag 3f2a home errands`
struct TagCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tag", abstract: "Give a to-do tags, by title (new titles make new tags).")

    @ParentCommand var root: TodoCommand

    @Argument(help: "The to-do's id, or its start.")
    var id: String

    @Argument(help: "Tag titles.")
    var tags: [String]

    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await Session.run(root) { session in
            let id = try await session.services.todos.resolve(id)
            var models: [TagModel] = []
            for title in tags {
                models.append(try await session.services.tags.tag(titled: title))
            }
            let todo = try await session.services.todos.tag(id: id, with: models)
            try await Printer.changed("Tagged", todo, output, session)
        }
    }
}

/// `todo untag 3f2a home`
struct UntagCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "untag", abstract: "Take tags off a to-do.")

    @ParentCommand var root: TodoCommand

    @Argument(help: "The to-do's id, or its start.")
    var id: String

    @Argument(help: "Tags, by title or id.")
    var tags: [String]

    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await Session.run(root) { session in
            let todo = try await session.todo(id)
            var models: [TagModel] = []
            for reference in tags {
                let tag = try await session.services.tags.resolve(reference)
                guard todo.tags.contains(where: { $0.id == tag.id }) else {
                    throw CommandFailure("The to-do does not carry the tag '\(tag.title)'.")
                }
                models.append(tag)
            }
            let untagged = try await session.services.todos.untag(id: todo.id, removing: models)
            try await Printer.changed("Untagged", untagged, output, session)
        }
    }
}
