import ArgumentParser
import Foundation
import TodoKit

/// `todo`: the reference application's command line. Every subcommand opens the store the
/// options name, does its work through the repositories and closes it.
@main
struct TodoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "todo",
        abstract: "A to-do list kept with Core Data (Strata) in SQLite.",
        discussion: """
            To-dos are named by the start of their id, as `list` shows it (any unambiguous \
            start works). The store is Todos.sqlite in the user's data directory unless \
            --store or --in-memory says otherwise; `todo --in-memory --sample` is a demo. \
            `todo serve` serves the list as a web page with a JSON API. With no subcommand, \
            `todo` lists.
            """,
        subcommands: [
            AddCommand.self, ListCommand.self, ShowCommand.self, EditCommand.self, CompleteCommand.self,
            ReopenCommand.self, TagCommand.self, UntagCommand.self, LocateCommand.self, DeleteCommand.self,
            ExportCommand.self, ImportCommand.self, TagsCommand.self, LogCommand.self, ServeCommand.self,
        ],
        defaultSubcommand: ListCommand.self
    )

    @Option(help: ArgumentHelp("The SQLite store to use, made if absent.", valueName: "path"))
    var store: String?

    @Flag(help: "Keep the store in memory: nothing outlives the command.")
    var inMemory = false

    @Flag(help: "Add sample to-dos to a store that has none.")
    var sample = false

    func validate() throws {
        if store != nil && inMemory {
            throw ValidationError("Give --store or --in-memory, not both.")
        }
    }

    /// Where the options put the store.
    var storeLocation: PersistenceController.Store {
        if inMemory { return .inMemory }
        if let store { return .sqlite(URL(fileURLWithPath: store)) }
        return .standard
    }
}

/// The `--json` flag of the commands that print to-dos.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print JSON for scripts instead of text for people.")
    var json = false
}
