import ArgumentParser
import Foundation
import Strata

/// `strata store history STORE [--after TOKEN] [--limit N]`: the transactions of persistent
/// history and their changes.
struct StoreHistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List the transactions and changes of a store's persistent history.",
        discussion: """
            A transaction's token is its number: --after N lists the transactions after it. \
            Changes name their objects by id (Entity/pN) and updates list the properties written.

            Examples:
              strata store history Todos.sqlite --limit 20
              strata store history Todos.sqlite --after 41 --json
            """
    )

    @OptionGroup var arguments: StoreArguments

    @Option(help: ArgumentHelp("Only transactions after this one (its number, the token printed).", valueName: "token"))
    var after: Int64?

    @Option(help: ArgumentHelp("At most this many transactions.", valueName: "n"))
    var limit: Int?

    @Flag(help: "Print JSON for scripts.")
    var json = false

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more") }
        if let after, after < 0 { throw ValidationError("--after must be a transaction number (0 or more)") }
    }

    func run() throws {
        try StoreTool.run {
            let opened = try StoreOpening.openReadOnly(arguments.store, modelPath: arguments.model, history: true)
            defer { opened.close() }
            guard StoreOpening.hasHistoryTables(opened.url) else {
                throw StoreToolFailure(
                    "\(arguments.store) has no persistent history (it was never opened with NSPersistentHistoryTrackingKey)")
            }
            let request: NSPersistentHistoryChangeRequest
            if let after {
                let tokenJSON = "{\"transactionNumbers\":{\(JSONText.string(opened.store.identifier ?? "")):\(after)}}"
                let token = try JSONDecoder().decode(NSPersistentHistoryToken.self, from: Data(tokenJSON.utf8))
                request = NSPersistentHistoryChangeRequest.fetchHistory(after: token)
            } else {
                request = NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)
            }
            let context = opened.newContext()
            var transactions = try context.performAndWait {
                let result = try context.execute(request) as? NSPersistentHistoryResult
                return (result?.result as? [NSPersistentHistoryTransaction]) ?? []
            }
            if let limit { transactions = Array(transactions.prefix(limit)) }
            print(json ? try JSONText.document(transactions.map(Self.dictionary)) : Self.text(transactions))
        }
    }

    static func changeType(_ type: NSPersistentHistoryChangeType) -> String {
        switch type {
        case .insert: "insert"
        case .update: "update"
        case .delete: "delete"
        }
    }

    static func dictionary(_ transaction: NSPersistentHistoryTransaction) -> [String: Any] {
        var item: [String: Any] = [
            "token": transaction.transactionNumber,
            "timestamp": QueryValues.dates.string(from: transaction.timestamp),
            "bundleID": transaction.bundleID, "processID": transaction.processID,
        ]
        if let author = transaction.author { item["author"] = author }
        if let contextName = transaction.contextName { item["contextName"] = contextName }
        item["changes"] = (transaction.changes ?? []).map { change -> [String: Any] in
            var entry: [String: Any] = [
                "change": change.changeID, "type": changeType(change.changeType),
                "object": change.changedObjectID.toolIdentifier,
            ]
            if let updated = change.updatedProperties { entry["updated"] = updated.map(\.name).sorted() }
            if let tombstone = change.tombstone, !tombstone.isEmpty {
                var values: [String: String] = [:]
                for (key, value) in tombstone { values["\(key)"] = QueryValues.text(value) }
                entry["tombstone"] = values
            }
            return entry
        }
        return item
    }

    static func text(_ transactions: [NSPersistentHistoryTransaction]) -> String {
        var lines: [String] = []
        for transaction in transactions {
            var head = "transaction \(transaction.transactionNumber)  \(QueryValues.dates.string(from: transaction.timestamp))"
            if let author = transaction.author { head += "  author \(author)" }
            if let contextName = transaction.contextName { head += "  context \(contextName)" }
            head += "  \(transaction.processID)"
            lines.append(head)
            for change in (transaction.changes ?? []).sorted(by: { $0.changeID < $1.changeID }) {
                var line =
                    "  \(changeType(change.changeType).padding(toLength: 6, withPad: " ", startingAt: 0)) "
                    + change.changedObjectID.toolIdentifier
                if let updated = change.updatedProperties, !updated.isEmpty {
                    line += "  (" + updated.map(\.name).sorted().joined(separator: ", ") + ")"
                }
                lines.append(line)
            }
        }
        lines.append("(\(transactions.count) \(transactions.count == 1 ? "transaction" : "transactions"))")
        return lines.joined(separator: "\n")
    }
}
