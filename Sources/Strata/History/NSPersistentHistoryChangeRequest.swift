import Foundation

/// What a persistent history request returns.
@objc public enum NSPersistentHistoryResultType: Int, Sendable {
    /// `true` when the request ran.
    case statusOnly = 0
    /// The IDs of the objects the transactions changed.
    case objectIDs = 1
    /// The number of transactions (of changes, for a fetch request of changes; of deleted
    /// transactions, for a delete).
    case count = 2
    /// The transactions, without their changes.
    case transactionsOnly = 3
    /// The changes, without their transactions grouped.
    case changesOnly = 4
    /// The transactions, each with its changes.
    case transactionsAndChanges = 5
}

/// A request that fetches or deletes persistent history, executed by a context or a
/// coordinator.
///
/// ```swift
/// let request = NSPersistentHistoryChangeRequest.fetchHistory(after: lastToken)
/// let result = try context.execute(request) as? NSPersistentHistoryResult
/// let transactions = result?.result as? [NSPersistentHistoryTransaction] ?? []
/// try context.execute(NSPersistentHistoryChangeRequest.deleteHistory(before: lastToken))
/// ```
///
/// A token of a store the coordinator does not have, or older than history already deleted,
/// fails with `NSPersistentHistoryTokenExpiredError` (134301).
open class NSPersistentHistoryChangeRequest: NSPersistentStoreRequest, @unchecked Sendable {
    enum Operation {
        case fetch
        case delete
    }

    /// What the request returns; transactions with their changes by default.
    open var resultType: NSPersistentHistoryResultType = .transactionsAndChanges
    /// The token the request was made with, if any.
    open private(set) var token: NSPersistentHistoryToken?
    /// A fetch request of `NSPersistentHistoryTransaction.fetchRequest` or
    /// `NSPersistentHistoryChange.fetchRequest` whose predicate filters the history.
    open var fetchRequest: NSFetchRequest<NSFetchRequestResult>?

    private(set) var operation = Operation.fetch
    /// Where the request starts (fetch) or stops (delete), as the factory methods said.
    private(set) var date: Date?
    private(set) var transactionNumber: (storeID: String, number: Int64)?

    public required override init() { super.init() }

    /// The history recorded after a moment.
    open class func fetchHistory(after date: Date) -> Self {
        let request = Self()
        request.date = date
        return request
    }

    /// The history recorded after a token (all of it for `nil`).
    open class func fetchHistory(after token: NSPersistentHistoryToken?) -> Self {
        let request = Self()
        request.token = token
        return request
    }

    /// The history recorded after a transaction (all of it for `nil`).
    open class func fetchHistory(after transaction: NSPersistentHistoryTransaction?) -> Self {
        let request = Self()
        request.transactionNumber = transaction.map { ($0.storeID, $0.transactionNumber) }
        return request
    }

    /// The history a fetch request of transactions or of changes selects.
    open class func fetchHistory(withFetch fetchRequest: NSFetchRequest<NSFetchRequestResult>) -> Self {
        let request = Self()
        request.fetchRequest = fetchRequest
        return request
    }

    /// Deletes the history recorded before a moment.
    open class func deleteHistory(before date: Date) -> Self {
        let request = Self()
        request.operation = .delete
        request.date = date
        return request
    }

    /// Deletes the history a token covers (all of it for `nil`).
    open class func deleteHistory(before token: NSPersistentHistoryToken?) -> Self {
        let request = Self()
        request.operation = .delete
        request.token = token
        return request
    }

    /// Deletes the history up to and including a transaction (all of it for `nil`).
    open class func deleteHistory(before transaction: NSPersistentHistoryTransaction?) -> Self {
        let request = Self()
        request.operation = .delete
        request.transactionNumber = transaction.map { ($0.storeID, $0.transactionNumber) }
        return request
    }
}

/// The result of a persistent history request.
open class NSPersistentHistoryResult: NSPersistentStoreResult, @unchecked Sendable {
    /// `true`, the object IDs, a count, the transactions or the changes, as `resultType` says.
    open private(set) var result: Any?
    /// The request's result type.
    open private(set) var resultType: NSPersistentHistoryResultType

    init(result: Any?, resultType: NSPersistentHistoryResultType) {
        self.result = result
        self.resultType = resultType
        super.init()
    }
}
