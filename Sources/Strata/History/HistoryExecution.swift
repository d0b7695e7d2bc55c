import Foundation

/// Running persistent history requests: each store that records history is asked for its
/// transactions (or to delete them), and the records become Core Data's history objects.
extension NSPersistentStoreCoordinator {
    /// A token covering every transaction recorded so far in the stores (all of the
    /// coordinator's when `nil`); `nil` when none of them records history.
    public func currentPersistentHistoryToken(fromStores stores: [Any]?) -> NSPersistentHistoryToken? {
        var numbers: [String: Int64] = [:]
        for store in historyStores(stores?.compactMap { $0 as? NSPersistentStore }) {
            guard let identifier = store.identifier, let number = try? store.lastHistoryNumber() else { continue }
            numbers[identifier] = number
        }
        return numbers.isEmpty ? nil : NSPersistentHistoryToken(transactionNumbers: numbers)
    }

    /// The stores of the list (or of the coordinator) that record history.
    func historyStores(_ stores: [NSPersistentStore]? = nil) -> [any HistoryStore] {
        (stores ?? persistentStores).compactMap { store in
            guard store.tracksHistory, store.persistentStoreCoordinator === self else { return nil }
            return store as? any HistoryStore
        }
    }

    func execute(_ request: NSPersistentHistoryChangeRequest) throws -> NSPersistentHistoryResult {
        let stores = historyStores(request.fetchRequest?.affectedStores)
        try checkToken(of: request, stores: stores)
        switch request.operation {
        case .delete:
            var deleted = 0
            for store in stores { deleted += try store.deleteHistory(through: bound(of: request, in: store, deleting: true)) }
            switch request.resultType {
            case .count: return NSPersistentHistoryResult(result: deleted, resultType: .count)
            default: return NSPersistentHistoryResult(result: true, resultType: request.resultType)
            }
        case .fetch:
            return try fetchHistory(request, stores: stores)
        }
    }

    /// Where a request starts (or stops) in one store.
    private func bound(of request: NSPersistentHistoryChangeRequest, in store: any HistoryStore, deleting: Bool) -> HistoryBound {
        if let date = request.date { return .date(date) }
        if let token = request.token {
            return token.transactionNumber(for: store).map(HistoryBound.number) ?? (deleting ? .number(0) : .all)
        }
        if let (storeID, number) = request.transactionNumber {
            guard storeID == store.identifier else { return deleting ? .number(0) : .all }
            // "Before a transaction" keeps the transaction itself.
            return .number(deleting ? number - 1 : number)
        }
        return deleting ? .all : .number(0)
    }

    /// A token (or transaction) must name one of the coordinator's stores, and not be older
    /// than the history deleted since.
    private func checkToken(of request: NSPersistentHistoryChangeRequest, stores: [any HistoryStore]) throws {
        var numbers: [String: Int64] = request.token?.transactionNumbers ?? [:]
        if let (storeID, number) = request.transactionNumber { numbers[storeID] = number }
        guard !numbers.isEmpty else { return }
        let known = stores.filter { store in store.identifier.map { numbers[$0] != nil } ?? false }
        guard !known.isEmpty else {
            throw CoreDataError.make(
                NSPersistentHistoryTokenExpiredError,
                "The persistent history token names no store of this coordinator (\(numbers.keys.sorted().joined(separator: ", "))).",
                userInfo: [NSPersistentHistoryTokenKey: request.token as Any])
        }
        guard request.operation == .fetch else { return }
        for store in known {
            guard let identifier = store.identifier, let number = numbers[identifier] else { continue }
            let deleted = try store.deletedHistoryNumber()
            if number < deleted {
                throw CoreDataError.make(
                    NSPersistentHistoryTokenExpiredError,
                    "The persistent history token is older than the history the store keeps "
                        + "(transaction \(number); history was deleted through \(deleted)).",
                    userInfo: [NSPersistentHistoryTokenKey: request.token as Any, NSAffectedStoresErrorKey: [store]])
            }
        }
    }

    private func fetchHistory(
        _ request: NSPersistentHistoryChangeRequest, stores: [any HistoryStore]
    ) throws -> NSPersistentHistoryResult {
        let fetch = request.fetchRequest
        let isChangeFetch = fetch?.entityName == HistoryEntities.changeName
        if let predicate = fetch?.predicate { try HistoryFetchPredicates.check(predicate, changes: isChangeFetch) }
        let needsChanges = request.resultType != .transactionsOnly || isChangeFetch
        var transactions: [NSPersistentHistoryTransaction] = []
        for store in stores {
            let storeID: String = store.identifier ?? ""
            // The store's reference, taken once: asking for it per ID takes a lock each time.
            let origin = store.idOrigin
            for record in try store.historyTransactions(
                after: bound(of: request, in: store, deleting: false), withChanges: needsChanges)
            {
                let transaction = NSPersistentHistoryTransaction(record: record, storeID: storeID)
                if needsChanges {
                    // One copy of the transaction's fields for all its changes to share.
                    let header = HistoryTransactionHeader(record: record, storeID: storeID)
                    header.transaction = transaction
                    transaction.changes = record.changes.map { change in
                        NSPersistentHistoryChange(
                            record: change,
                            objectID: NSManagedObjectID(entity: change.entity, primaryKey: change.primaryKey, origin: origin),
                            header: header)
                    }
                }
                transactions.append(transaction)
            }
        }
        // Stores' histories interleave by time.
        if stores.count > 1 { transactions.sort { ($0.timestamp, $0.transactionNumber) < ($1.timestamp, $1.transactionNumber) } }
        var changes: [NSPersistentHistoryChange]?
        if let fetch, let stated = fetch.predicate {
            let predicate = HistoryFetchPredicates.prepared(stated)
            if isChangeFetch {
                changes = transactions.flatMap { $0.changes ?? [] }.filter { predicate.evaluate(with: $0) }
                let matching = Set((changes ?? []).map(ObjectIdentifier.init))
                for transaction in transactions {
                    transaction.changes = transaction.changes?.filter { matching.contains(ObjectIdentifier($0)) }
                }
                transactions = transactions.filter { !($0.changes?.isEmpty ?? true) }
            } else {
                transactions = transactions.filter { predicate.evaluate(with: $0) }
            }
        }
        if let fetch, fetch.fetchOffset > 0 || fetch.fetchLimit > 0 {
            let limit = fetch.fetchLimit > 0 ? fetch.fetchLimit : Int.max
            if isChangeFetch {
                changes = Array((changes ?? transactions.flatMap { $0.changes ?? [] }).dropFirst(fetch.fetchOffset).prefix(limit))
            } else {
                transactions = Array(transactions.dropFirst(fetch.fetchOffset).prefix(limit))
            }
        }
        if request.resultType == .transactionsOnly {
            for transaction in transactions { transaction.changes = nil }
        }
        let allChanges = { changes ?? transactions.flatMap { $0.changes ?? [] } }
        switch request.resultType {
        case .statusOnly: return NSPersistentHistoryResult(result: true, resultType: .statusOnly)
        case .count:
            return NSPersistentHistoryResult(result: isChangeFetch ? allChanges().count : transactions.count, resultType: .count)
        case .objectIDs:
            var seen = Set<NSManagedObjectID>()
            let ids = allChanges().map(\.changedObjectID).filter { seen.insert($0).inserted }
            return NSPersistentHistoryResult(result: ids, resultType: .objectIDs)
        case .transactionsOnly, .transactionsAndChanges:
            return NSPersistentHistoryResult(result: transactions, resultType: request.resultType)
        case .changesOnly:
            return NSPersistentHistoryResult(result: allChanges(), resultType: .changesOnly)
        }
    }
}

/// User-info key of `.NSPersistentStoreRemoteChange`: the store's history token after the change.
public let NSPersistentHistoryTokenKey = "historyToken"
