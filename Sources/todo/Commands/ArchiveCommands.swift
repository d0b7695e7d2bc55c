import ArgumentParser
import Foundation
import TodoKit

/// `todo export --output todos.json`
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Write every to-do, tag and location as JSON.")

    @ParentCommand var root: TodoCommand

    @Option(help: ArgumentHelp("The file to write (default: standard output).", valueName: "path"))
    var output: String?

    func run() async throws {
        try await Session.run(root) { session in
            let archive = try await session.services.archive.exportArchive()
            let data = try archive.jsonData() + Data("\n".utf8)
            guard let output else {
                FileHandle.standardOutput.write(data)
                return
            }
            do {
                try data.write(to: URL(fileURLWithPath: output), options: .atomic)
            } catch {
                throw CommandFailure("\(output) could not be written: \(CommandFailure.describe(error))")
            }
            print("Exported \(summary(archive.todos.count, archive.tags.count, archive.locations.count)) to \(output).")
        }
    }
}

/// `todo import todos.json`
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Add the to-dos, tags and locations of an export (all or nothing).",
        discussion: "Objects whose ids are already in the store take the file's values; others are added."
    )

    @ParentCommand var root: TodoCommand

    @Argument(help: ArgumentHelp("The file `todo export` wrote; - reads standard input.", valueName: "path"))
    var path: String

    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await Session.run(root) { session in
            let data: Data
            do {
                data =
                    path == "-"
                    ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw CommandFailure("\(path) could not be read: \(CommandFailure.describe(error))")
            }
            let imported = try await session.services.archive.importArchive(try TodoArchive(jsonData: data))
            if output.json {
                try Printer.json(imported)
            } else {
                print("Imported \(summary(imported.todos, imported.tags, imported.locations)) from \(path).")
            }
        }
    }
}

/// "3 to-dos, 1 tag and 2 locations".
private func summary(_ todos: Int, _ tags: Int, _ locations: Int) -> String {
    "\(Printer.count(todos, "to-do")), \(Printer.count(tags, "tag")) and \(Printer.count(locations, "location"))"
}
