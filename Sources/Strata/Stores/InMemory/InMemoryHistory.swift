import Foundation

/// The persistent history of an in-memory or binary store: its transactions kept beside its
/// rows (and, in the binary store, written to its file with them), changed with them under
/// the store's lock, so that rows and history always agree.
struct InMemoryHistory {
    var transactions: [HistoryTransactionRecord] = []
    var lastTransaction: Int64 = 0
    var lastChange: Int64 = 0
    /// The last transaction number whose history was deleted.
    var deletedThrough: Int64 = 0

    /// Appends a transaction of the changes (none when there are no changes).
    mutating func record(_ changes: [HistoryChangeRecord], author: HistoryAuthor) {
        guard !changes.isEmpty else { return }
        lastTransaction += 1
        var transaction = author.record(number: lastTransaction)
        transaction.changes = changes.map { change in
            var numbered = change
            lastChange += 1
            numbered.id = lastChange
            return numbered
        }
        transactions.append(transaction)
    }

    /// The changes of a save, read against the rows as they were before it (`before`).
    static func changes(
        of request: StoreSaveRequest, result: StoreSaveResult, before: [NSManagedObjectID: Snapshot], recordsValues: Bool,
        resolve: @escaping (NSManagedObjectID) -> NSManagedObjectID
    ) -> [HistoryChangeRecord] {
        HistoryChanges.of(
            request, inserted: result.inserted,
            tombstones: { change in tombstone(of: before[change.objectID]) },
            values: recordsValues ? { HistoryChanges.values(of: $0, before: before[$0.objectID], resolve: resolve) } : nil)
    }

    /// A deleted row's preserved attribute values.
    static func tombstone(of row: Snapshot?) -> [String: Any]? {
        guard let row else { return nil }
        var values: [String: Any] = [:]
        for (index, attribute) in HistoryChanges.preservedAttributes(of: row.objectID.entity) where index < row.values.count {
            if let value = row.values[index] { values[attribute.name] = value }
        }
        return values
    }

    // MARK: In a property list (the binary store's file)

    func plist() throws -> [[String: Any]] {
        try transactions.map { transaction in
            var stored: [String: Any] = [
                "number": NSNumber(value: transaction.number), "timestamp": transaction.timestamp,
                "changes": try transaction.changes.map { change -> [String: Any] in
                    var stored: [String: Any] = [
                        "id": NSNumber(value: change.id), "type": NSNumber(value: change.type.rawValue),
                        "entity": change.entity.name ?? "", "key": NSNumber(value: change.primaryKey),
                    ]
                    if let indexes = change.updatedIndexes {
                        let properties = change.entity.layout.properties
                        stored["updated"] = indexes.compactMap { $0 < properties.count ? properties[$0].name : nil }
                    }
                    if let tombstone = change.tombstone {
                        stored["tombstone"] = try HistoryValueCoding.plist(tombstone, entity: change.entity)
                    }
                    if let values = change.values {
                        stored["previous"] = try HistoryValueCoding.plist(values.previous, entity: change.entity)
                        stored["new"] = try HistoryValueCoding.plist(values.updated, entity: change.entity)
                    }
                    return stored
                },
            ]
            stored["author"] = transaction.author
            stored["contextName"] = transaction.contextName
            stored["bundleID"] = transaction.bundleID
            stored["processID"] = transaction.processID
            return stored
        }
    }

    init() {}

    /// History read back from `plist()`'s form; rows it cannot read (an entity the model no
    /// longer has) are left out.
    init(
        plist: [[String: Any]], last: (transaction: Int64, change: Int64, deleted: Int64),
        entities: [String: NSEntityDescription], objectID: @escaping (NSEntityDescription, Int64) -> NSManagedObjectID
    ) {
        lastTransaction = last.transaction
        lastChange = last.change
        deletedThrough = last.deleted
        transactions = plist.compactMap { stored in
            guard let number = (stored["number"] as? NSNumber)?.int64Value, let timestamp = stored["timestamp"] as? Date else {
                return nil
            }
            var transaction = HistoryTransactionRecord(
                number: number, timestamp: timestamp, author: stored["author"] as? String,
                contextName: stored["contextName"] as? String, bundleID: stored["bundleID"] as? String,
                processID: stored["processID"] as? String)
            transaction.changes = ((stored["changes"] as? [[String: Any]]) ?? []).compactMap { stored in
                guard let id = (stored["id"] as? NSNumber)?.int64Value,
                    let type = ((stored["type"] as? NSNumber)?.intValue).flatMap(NSPersistentHistoryChangeType.init),
                    let entity = (stored["entity"] as? String).flatMap({ entities[$0] }),
                    let key = (stored["key"] as? NSNumber)?.int64Value
                else { return nil }
                var values: HistoryChangeValues?
                if let previous = stored["previous"] as? [String: Any], let updated = stored["new"] as? [String: Any] {
                    values = HistoryChangeValues(
                        previous: HistoryValueCoding.values(previous, entity: entity, objectID: objectID),
                        updated: HistoryValueCoding.values(updated, entity: entity, objectID: objectID))
                }
                return HistoryChangeRecord(
                    id: id, type: type, entity: entity, primaryKey: key,
                    updatedIndexes: (stored["updated"] as? [String]).map { names in
                        names.compactMap { entity.layout.indexByName[$0] }
                    },
                    tombstone: (stored["tombstone"] as? [String: Any]).map {
                        HistoryValueCoding.values($0, entity: entity, objectID: objectID)
                    },
                    values: values)
            }
            return transaction
        }
    }
}

extension InMemoryStore: HistoryStore {
    func historyTransactions(after bound: HistoryBound, withChanges: Bool) throws -> [HistoryTransactionRecord] {
        let transactions = state.withLock { $0.history.transactions }
        let selected: [HistoryTransactionRecord]
        switch bound {
        case .number(let number): selected = transactions.filter { $0.number > number }
        case .date(let date): selected = transactions.filter { $0.timestamp > date }
        case .all: selected = transactions
        }
        guard !withChanges else { return selected }
        return selected.map { transaction in
            var bare = transaction
            bare.changes = []
            return bare
        }
    }

    func deleteHistory(through bound: HistoryBound) throws -> Int {
        try state.withLock { state in
            var working = state
            let doomed: Int
            switch bound {
            case .number(let number): doomed = working.history.transactions.prefix { $0.number <= number }.count
            case .date(let date): doomed = working.history.transactions.prefix { $0.timestamp < date }.count
            case .all: doomed = working.history.transactions.count
            }
            guard doomed > 0 else { return 0 }
            working.history.deletedThrough = working.history.transactions[doomed - 1].number
            working.history.transactions.removeFirst(doomed)
            try persist(working)
            state = working
            return doomed
        }
    }

    func lastHistoryNumber() throws -> Int64 { state.withLock { $0.history.lastTransaction } }

    func deletedHistoryNumber() throws -> Int64 { state.withLock { $0.history.deletedThrough } }
}
