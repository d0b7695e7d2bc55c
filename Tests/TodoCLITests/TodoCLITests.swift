import Foundation
import Testing
import TodoKit

/// The `todo` program end to end: each test runs the built executable on a store of its own.
@Suite("todo command line", .enabled(if: TodoProgram.isAvailable, "the built todo program is needed"))
struct TodoCLITests {
    @Test("add, then list --json shows the to-do with its tags")
    func addAndList() throws {
        let todo = try TodoProgram()
        let added = try todo.json(TodoModel.self, "add", "Buy", "coffee", "--tag", "errands", "--tag", "home")
        #expect(added.title == "Buy coffee" && added.tags.map(\.title) == ["errands", "home"])
        let page = try todo.json(TodoPage.self, "list")
        #expect(page.todos == [added] && page.total == 1 && page.page == 1)
    }

    @Test("log tells recent changes in plain words, by the interface that made them; --json for scripts")
    func log() throws {
        let todo = try TodoProgram()
        _ = try todo.json(TodoModel.self, "add", "Buy", "oat", "milk", "--tag", "errands")
        let log = try todo.run("log")
        #expect(log.status == 0)
        #expect(log.output.contains("  cli  added the tag 'errands'\n"))
        #expect(log.output.contains("  cli  added 'Buy oat milk'\n"))
        let entries = try todo.json([TodoHistoryEntry].self, "log")
        #expect(entries.map(\.words) == ["added the tag 'errands'", "added 'Buy oat milk'"])
        #expect(entries.allSatisfy { $0.author == "cli" })
    }

    @Test("list prints a table with short ids that the other commands accept")
    func tableAndShortIds() throws {
        let todo = try TodoProgram()
        let added = try todo.json(TodoModel.self, "add", "Water the plants")
        let short = IdReference.short(added.id)
        let list = try todo.run("list")
        #expect(list.status == 0)
        #expect(list.output.hasPrefix("ID "))
        #expect(list.output.contains("\(short)  [ ]   Water the plants"))
        #expect(list.output.contains("Page 1 of 1, 1 to-do."))
        let shown = try todo.run("show", String(short.prefix(5)))
        #expect(shown.status == 0 && shown.output.contains(added.id.uuidString.lowercased()))
    }

    @Test("list --search ignores accents, --tag filters, --page pages")
    func listFilters() throws {
        let todo = try TodoProgram()
        _ = try todo.json(TodoModel.self, "add", "Coffee at the Café", "--tag", "out")
        _ = try todo.json(TodoModel.self, "add", "Tea at home")
        _ = try todo.json(TodoModel.self, "add", "Cafeteria", "--tag", "out")
        #expect(
            try todo.json(TodoPage.self, "list", "--search", "cafe").todos.map(\.title) == ["Cafeteria", "Coffee at the Café"])
        #expect(try todo.json(TodoPage.self, "list", "--tag", "OUT").total == 2)
        let second = try todo.json(TodoPage.self, "list", "--page", "2", "--page-size", "2")
        #expect(second.todos.map(\.title) == ["Coffee at the Café"] && second.total == 3)
    }

    @Test("tag, untag, locate (negative coordinates), complete, reopen and edit")
    func changes() throws {
        let todo = try TodoProgram()
        let id = try todo.json(TodoModel.self, "add", "See the opera").id.uuidString
        #expect(try todo.json(TodoModel.self, "tag", id, "travel", "culture").tags.map(\.title) == ["culture", "travel"])
        #expect(try todo.json(TodoModel.self, "untag", id, "travel").tags.map(\.title) == ["culture"])
        let located = try todo.json(
            TodoModel.self, "locate", id, "-33.8568", "151.2153", "--altitude", "-2.5", "--place", "Sydney Opera House")
        #expect(located.location?.latitude == -33.8568 && located.location?.longitude == 151.2153)
        #expect(located.location?.altitude == -2.5 && located.location?.placeName == "Sydney Opera House")
        #expect(try todo.json(TodoModel.self, "complete", id).completedAt != nil)
        #expect(try todo.json(TodoModel.self, "reopen", id).completedAt == nil)
        #expect(try todo.json(TodoModel.self, "edit", id, "--title", "See an opera").title == "See an opera")
        #expect(try todo.json(TodoModel.self, "locate", id, "--clear").location == nil)
        let shown = try todo.run("show", id)
        #expect(shown.output.hasPrefix("See an opera\n") && shown.output.contains("tags      culture"))
    }

    @Test("delete removes the to-do; its tag stays in tags list")
    func delete() throws {
        let todo = try TodoProgram()
        let added = try todo.json(TodoModel.self, "add", "Temporary", "--tag", "keep")
        let deleted = try todo.run("delete", added.id.uuidString)
        #expect(deleted.status == 0 && deleted.output.hasPrefix("Deleted \(IdReference.short(added.id))"))
        #expect(try todo.json(TodoPage.self, "list").total == 0)
        let tags = try todo.run("tags", "list")
        #expect(tags.output.contains("keep") && tags.output.contains("TO-DOS"))
    }

    @Test("tags rename and delete")
    func tags() throws {
        let todo = try TodoProgram()
        let added = try todo.json(TodoModel.self, "add", "Sweep", "--tag", "hom")
        #expect(try todo.run("tags", "rename", "hom", "home").output == "Renamed 'hom' to 'home'.\n")
        #expect(try todo.json(TodoModel.self, "show", added.id.uuidString).tags.map(\.title) == ["home"])
        #expect(try todo.run("tags", "delete", "home").status == 0)
        #expect(try todo.json(TodoModel.self, "show", added.id.uuidString).tags.isEmpty)
    }

    @Test("export to a file, import into another store: the same to-dos")
    func exportImport() throws {
        let first = try TodoProgram()
        let added = try first.json(TodoModel.self, "add", "Crème brûlée", "--tag", "dessert")
        _ = try first.json(TodoModel.self, "locate", added.id.uuidString, "48.854", "2.3325", "--place", "Café de Flore")
        let file = first.folder.appendingPathComponent("export.json")
        let exported = try first.run("export", "--output", file.path)
        #expect(exported.status == 0)
        #expect(exported.output == "Exported 1 to-do, 1 tag and 1 location to \(file.path).\n")
        let printed = try first.run("export")
        #expect(printed.output == (try String(contentsOf: file, encoding: .utf8)))

        let second = try TodoProgram()
        let imported = try second.run("import", file.path)
        #expect(imported.status == 0 && imported.output.hasPrefix("Imported 1 to-do, 1 tag and 1 location"))
        #expect(try second.json(TodoPage.self, "list") == (try first.json(TodoPage.self, "list")))
        #expect(try second.run("export").output == printed.output)
    }

    @Test("a bad import file imports nothing and says why")
    func badImport() throws {
        let todo = try TodoProgram()
        _ = try todo.json(TodoModel.self, "add", "Already here")
        let file = todo.folder.appendingPathComponent("bad.json")
        let ghost = "3F2A9C1D-0000-4000-8000-000000000001"
        let text =
            #"{"version": 1, "tags": [], "locations": [], "todos": [{"id": "\#(UUID())", "title": "x", "createdAt": 0, "updatedAt": 0, "tagIds": ["\#(ghost)"]}]}"#
        try Data(text.utf8).write(to: file)
        let result = try todo.run("import", file.path)
        #expect(result.status == 1)
        #expect(result.error.contains("nothing was changed") && result.error.contains(ghost.lowercased()))
        #expect(try todo.json(TodoPage.self, "list").total == 1)
        let missing = try todo.run("import", todo.folder.appendingPathComponent("absent.json").path)
        #expect(missing.status == 1 && missing.error.contains("could not be read"))
    }

    @Test("unknown ids fail with status 1 and a message on standard error")
    func unknownIds() throws {
        let todo = try TodoProgram()
        _ = try todo.json(TodoModel.self, "add", "Only one")
        for command in ["show", "complete", "delete", "reopen"] {
            let result = try todo.run(command, "0000")
            #expect(result.status == 1, "\(command)")
            #expect(result.error == "Error: No to-do matches '0000'.\n", "\(command)")
            #expect(result.output.isEmpty)
        }
        let notHex = try todo.run("show", "milk")
        #expect(notHex.status == 1 && notHex.error.contains("'milk' is not an id"))
        let tag = try todo.run("list", "--tag", "nowhere")
        #expect(tag.status == 1 && tag.error == "Error: No tag matches 'nowhere'.\n")
    }

    @Test("bad arguments fail with status 64 and the usage")
    func badArguments() throws {
        let todo = try TodoProgram()
        let cases: [([String], String)] = [
            (["list", "--page", "0"], "--page counts from 1."),
            (["list", "--page-size", "many"], "'many' is invalid for '--page-size"),
            (["locate", "abc", "91", "0"], "latitude 91.0 is not between -90 and 90"),
            (["locate", "abc", "north", "0"], "'north' is not a number of degrees."),
            (["locate", "abc", "1"], "Give a latitude and a longitude"),
            (["edit", "abc"], "Nothing to change: give --title."),
            (["frobnicate"], "Unexpected argument 'frobnicate'"),
            (["add"], "Missing expected argument '<title> ...'"),
        ]
        for (arguments, message) in cases {
            let result = try todo.runBare(["--store", todo.store.path] + arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.error.contains(message), "\(arguments): \(result.error)")
        }
        let both = try todo.runBare(["--in-memory", "--store", todo.store.path, "list"])
        #expect(both.status == 64 && both.error.contains("Give --store or --in-memory, not both."))
    }

    @Test("--in-memory --sample lists the demo, and leaves nothing behind")
    func sample() throws {
        let todo = try TodoProgram()
        let page = try todo.runBare(["--in-memory", "--sample", "list", "--search", "cafe", "--json"])
        #expect(page.status == 0)
        let decoded = try TodoJSON.decoder().decode(TodoPage.self, from: Data(page.output.utf8))
        #expect(decoded.todos.map(\.title) == ["Buy coffee beans at the café"])
        let bare = try todo.runBare(["--in-memory", "--sample"])
        #expect(bare.status == 0 && bare.output.contains("Renew the passport"), "with no subcommand, todo lists")
        let empty = try todo.runBare(["--in-memory", "list"])
        #expect(empty.output == "No to-dos yet: add one with `todo add`.\n")
        #expect(!FileManager.default.fileExists(atPath: todo.folder.appendingPathComponent("data").path))
    }

    @Test("without --store the store is Todos.sqlite in the user's data directory")
    func defaultStore() throws {
        let todo = try TodoProgram()
        #expect(try todo.runBare(["add", "Default place"]).status == 0)
        let file = todo.folder.appendingPathComponent("data/todo/Todos.sqlite")
        #expect(FileManager.default.fileExists(atPath: file.path))
        #expect(try todo.runBare(["list"]).output.contains("Default place"))
    }
}
