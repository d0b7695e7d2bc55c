import ArgumentParser
import Foundation
import TodoKit

/// `todo log`: the store's recent changes in plain words, from its persistent history.
struct LogCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log", abstract: "Show recent changes: when, by which interface, what.")

    @ParentCommand var root: TodoCommand

    @Option(help: "How many changes to show, newest last.")
    var limit = 20

    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await Session.run(root) { session in
            let entries = try await session.services.persistence.recentHistory(limit: limit)
            if output.json {
                try Printer.json(entries)
            } else if entries.isEmpty {
                print("No changes recorded yet.")
            } else {
                for entry in entries { print(entry.line) }
            }
        }
    }
}
