import Foundation

/// Option (beyond Apple): with `NSPersistentHistoryTrackingKey`, update changes also record
/// the old and new values of the properties they wrote (`NSPersistentHistoryChange.updatedValues`
/// and `previousValues`), so that an audit log or a sync engine needs no second read.
public let StrataPersistentHistoryValuesKey = "StrataPersistentHistoryValues"

/// A store that records persistent history: SQLite in Core Data's tables, the in-memory and
/// binary stores beside their rows.
protocol HistoryStore: NSPersistentStore {
    /// The transactions after (or within) the bound, oldest first, with their changes when
    /// `withChanges`.
    func historyTransactions(after bound: HistoryBound, withChanges: Bool) throws -> [HistoryTransactionRecord]
    /// Deletes the transactions up to the bound (a number: up to and including it; a date:
    /// before it) and their changes; returns how many transactions went.
    func deleteHistory(through bound: HistoryBound) throws -> Int
    /// The number of the store's last transaction (0 before the first).
    func lastHistoryNumber() throws -> Int64
    /// The last transaction number whose history was deleted (0 when none was).
    func deletedHistoryNumber() throws -> Int64
}

extension NSPersistentStore {
    /// Whether the store records persistent history (`NSPersistentHistoryTrackingKey`).
    var tracksHistory: Bool { Self.flag(options?[NSPersistentHistoryTrackingKey]) }
    /// Whether update changes record old and new values (`StrataPersistentHistoryValuesKey`).
    var recordsHistoryValues: Bool { tracksHistory && Self.flag(options?[StrataPersistentHistoryValuesKey]) }

    /// An option's value as a flag: `true`, a number, or (as apps write it) an `NSNumber`.
    static func flag(_ value: Any?) -> Bool {
        switch value {
        case let flag as Bool: flag
        case let number as NSNumber: number.boolValue
        case let text as String: text == "1" || text.lowercased() == "yes" || text.lowercased() == "true"
        default: false
        }
    }
}

extension StoreSaveRequest {
    /// The saving context's author and name, for the transaction persistent history records.
    var historyAuthor: HistoryAuthor { HistoryAuthor(author: author, contextName: contextName) }
}
