import ArgumentParser
import Foundation
import TodoKit

/// `todo tags list|rename|delete`
struct TagsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tags", abstract: "List, rename and delete tags.",
        subcommands: [ListTags.self, RenameTag.self, DeleteTag.self], defaultSubcommand: ListTags.self)

    /// A tag with the number of to-dos that carry it, for `tags list --json`: the tag's
    /// fields and `todoCount` in one object.
    struct Row: Encodable {
        let tag: TagModel
        let todoCount: Int

        private enum CodingKeys: String, CodingKey {
            case todoCount
        }

        func encode(to encoder: any Encoder) throws {
            try tag.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(todoCount, forKey: .todoCount)
        }
    }

    struct ListTags: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List tags by title.")

        @ParentCommand var root: TodoCommand

        @OptionGroup var output: OutputOptions

        func run() async throws {
            try await Session.run(root) { session in
                let tags = try await session.services.tags.allTags()
                let counts = try await session.services.tags.todoCounts()
                if output.json {
                    try Printer.json(tags.map { Row(tag: $0, todoCount: counts[$0.id] ?? 0) })
                } else if tags.isEmpty {
                    print("No tags yet: give a to-do one with `todo tag`.")
                } else {
                    let length = IdReference.shortLength(for: tags.map(\.id))
                    var table = Table("ID", "TITLE", "TO-DOS")
                    for tag in tags {
                        table.append(IdReference.short(tag.id, length: length), tag.title, String(counts[tag.id] ?? 0))
                    }
                    print(table.text)
                }
            }
        }
    }

    struct RenameTag: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rename", abstract: "Give a tag a new title.")

        @ParentCommand var root: TodoCommand

        @Argument(help: "The tag, by title or id.")
        var tag: String

        @Argument(help: "The new title.")
        var title: String

        @OptionGroup var output: OutputOptions

        func run() async throws {
            try await Session.run(root) { session in
                let old = try await session.services.tags.resolve(tag)
                let renamed = try await session.services.tags.rename(id: old.id, to: title)
                if output.json {
                    try Printer.json(renamed)
                } else {
                    print("Renamed '\(old.title)' to '\(renamed.title)'.")
                }
            }
        }
    }

    struct DeleteTag: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete", abstract: "Delete a tag; the to-dos that carried it stay.")

        @ParentCommand var root: TodoCommand

        @Argument(help: "The tag, by title or id.")
        var tag: String

        @OptionGroup var output: OutputOptions

        func run() async throws {
            try await Session.run(root) { session in
                let deleted = try await session.services.tags.resolve(tag)
                try await session.services.tags.delete(id: deleted.id)
                if output.json {
                    try Printer.json(["deleted": deleted.id])
                } else {
                    print("Deleted the tag '\(deleted.title)'.")
                }
            }
        }
    }
}
