import ArgumentParser
import Foundation
import TodoKit

/// `todo sync`: sync the store with the sync server now, or show where its sync stands.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync", abstract: "Sync with the sync server now, or show sync status.",
        subcommands: [SyncNowCommand.self, SyncStatusCommand.self], defaultSubcommand: SyncNowCommand.self)
}

/// `todo sync now`: what every command does around its work, alone; fails when offline.
struct SyncNowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "now", abstract: "Send local changes and fetch the server's (needs --sync-server).")

    @ParentCommand var root: TodoCommand

    func run() async throws {
        guard root.syncSettings() != nil else {
            throw CommandFailure("No sync server: give --sync-server URL or set TODO_SYNC_SERVER.")
        }
        try await Session.run(root) { session in
            try await session.services.persistence.syncNow()
            print("Synced.")
        }
    }
}

/// `todo sync status`: pending changes, last import and export, last failure.
struct SyncStatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show pending changes and the last import and export.")

    @ParentCommand var root: TodoCommand
    @OptionGroup var output: OutputOptions

    /// What `--json` prints.
    struct Status: Codable {
        var syncing: Bool
        var server: String?
        var clientID: String?
        var pendingChanges: Int
        var lastImport: String?
        var lastExport: String?
        var lastError: String?
    }

    func run() async throws {
        let server = root.syncSettings()?.serverURL.absoluteString
        // The status reads the store only: a local session, whatever the sync options.
        try await Session.run(root, sync: false) { session in
            let status = try session.services.persistence.syncStatus()
            let format = ISO8601DateFormatter()
            let report = Status(
                syncing: status != nil, server: server, clientID: status?.clientID,
                pendingChanges: status?.pendingChanges ?? 0, lastImport: status?.lastImport.map(format.string(from:)),
                lastExport: status?.lastExport.map(format.string(from:)), lastError: status?.lastError)
            if output.json {
                try Printer.json(report)
            } else if status == nil {
                print("This store has never synced.")
            } else {
                print("Pending changes: \(report.pendingChanges)")
                print("Last import: \(report.lastImport ?? "never")")
                print("Last export: \(report.lastExport ?? "never")")
                if let error = report.lastError { print("Last error: \(error)") }
            }
        }
    }
}
