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
            SyncCommand.self,
        ],
        defaultSubcommand: ListCommand.self
    )

    @Option(help: ArgumentHelp("The SQLite store to use, made if absent.", valueName: "path"))
    var store: String?

    @Flag(help: "Keep the store in memory: nothing outlives the command.")
    var inMemory = false

    @Flag(help: "Add sample to-dos to a store that has none.")
    var sample = false

    @Option(
        help: ArgumentHelp(
            "A Strata sync server to sync the store with (else $TODO_SYNC_SERVER).", valueName: "url"))
    var syncServer: String?

    @Option(help: ArgumentHelp("The sync server's bearer token, a JWT (else $TODO_SYNC_TOKEN).", valueName: "jwt"))
    var syncToken: String?

    func validate() throws {
        if store != nil && inMemory {
            throw ValidationError("Give --store or --in-memory, not both.")
        }
        if let server = syncServer ?? environment["TODO_SYNC_SERVER"], URL(string: server)?.scheme == nil {
            throw ValidationError("The sync server must be a URL such as http://localhost:8080, not \(server).")
        }
    }

    private var environment: [String: String] { ProcessInfo.processInfo.environment }

    /// The sync server and token the options (or the environment) name; nil keeps the store
    /// local. `live` keeps the store syncing while it is open (`todo serve`).
    func syncSettings(live: Bool = false) -> PersistenceController.SyncSettings? {
        guard let server = syncServer ?? environment["TODO_SYNC_SERVER"], !server.isEmpty, !inMemory,
            let url = URL(string: server)
        else { return nil }
        return PersistenceController.SyncSettings(
            serverURL: url, token: syncToken ?? environment["TODO_SYNC_TOKEN"], live: live)
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
