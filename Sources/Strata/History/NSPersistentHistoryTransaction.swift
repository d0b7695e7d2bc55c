import Foundation

/// One save (or batch request) as persistent history recorded it: when, by whom, in which
/// store, and the changes it made.
///
/// ```swift
/// for transaction in transactions where transaction.author != "app" {
///     context.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
/// }
/// ```
open class NSPersistentHistoryTransaction: NSObject, NSCopying, PredicateKeyValueReading, @unchecked Sendable {
    /// When the transaction was committed.
    open private(set) var timestamp: Date
    /// The transaction's changes; `nil` when the request asked for transactions only.
    open internal(set) var changes: [NSPersistentHistoryChange]?
    /// The transaction's number in its store: later transactions have larger numbers.
    open private(set) var transactionNumber: Int64
    /// The identifier (UUID) of the store the transaction changed.
    open private(set) var storeID: String
    /// The bundle identifier of the app that saved (the process name where there is none).
    open private(set) var bundleID: String
    /// The name of the process that saved.
    open private(set) var processID: String
    /// The saving context's `name`.
    open private(set) var contextName: String?
    /// The saving context's `transactionAuthor`.
    open private(set) var author: String?
    /// The token that covers this transaction and its store's earlier ones.
    open private(set) var token: NSPersistentHistoryToken

    init(record: HistoryTransactionRecord, storeID: String) {
        timestamp = record.timestamp
        transactionNumber = record.number
        self.storeID = storeID
        bundleID = record.bundleID ?? ""
        processID = record.processID ?? ""
        contextName = record.contextName
        author = record.author
        token = NSPersistentHistoryToken(transactionNumbers: [storeID: record.number])
        super.init()
    }

    /// A `NSManagedObjectContextDidSave` notification whose user info holds the IDs of the
    /// objects the transaction inserted, updated and deleted (under `NSInsertedObjectsKey`,
    /// `NSUpdatedObjectsKey`, `NSDeletedObjectsKey`), for `mergeChanges(fromContextDidSave:)`.
    open func objectIDNotification() -> Notification {
        var inserted = Set<NSManagedObjectID>()
        var updated = Set<NSManagedObjectID>()
        var deleted = Set<NSManagedObjectID>()
        for change in changes ?? [] {
            switch change.changeType {
            case .insert: inserted.insert(change.changedObjectID)
            case .update: updated.insert(change.changedObjectID)
            case .delete: deleted.insert(change.changedObjectID)
            }
        }
        // An object inserted and changed again within the history of one transaction is new.
        updated.subtract(inserted)
        return Notification(
            name: .NSManagedObjectContextDidSave, object: self,
            userInfo: [NSInsertedObjectsKey: inserted, NSUpdatedObjectsKey: updated, NSDeletedObjectsKey: deleted])
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    open override var description: String {
        "<NSPersistentHistoryTransaction \(transactionNumber) at \(timestamp) by \(author ?? "nil") "
            + "(context \(contextName ?? "nil")), \(changes?.count ?? 0) changes>"
    }

    func predicateValue(forKey key: String) -> Any? {
        switch key {
        case "timestamp": timestamp
        case "changes": changes ?? []
        case "transactionNumber": transactionNumber
        case "storeID": storeID
        case "bundleID": bundleID
        case "processID": processID
        case "contextName": contextName
        case "author": author
        case "token": token
        default: nil
        }
    }

    // MARK: The entity fetch requests name

    /// The description of transactions, for `fetchHistory(withFetch:)` requests.
    open class var entityDescription: NSEntityDescription? { HistoryEntities.transaction }

    /// The description of transactions in a context's coordinator (the same for every one).
    open class func entityDescription(with context: NSManagedObjectContext) -> NSEntityDescription? {
        HistoryEntities.transaction
    }

    /// A fetch request of transactions: its predicate filters by `author`, `contextName`,
    /// `timestamp`, `bundleID`, `processID`, `transactionNumber` or `storeID`.
    ///
    /// ```swift
    /// let fetch = NSPersistentHistoryTransaction.fetchRequest!
    /// fetch.predicate = NSPredicate(format: "author != %@", "app")
    /// let request = NSPersistentHistoryChangeRequest.fetchHistory(withFetch: fetch)
    /// ```
    open class var fetchRequest: NSFetchRequest<NSFetchRequestResult>? {
        let request = NSFetchRequest<NSFetchRequestResult>()
        request.entity = HistoryEntities.transaction
        return request
    }
}

/// The entity descriptions of history transactions and changes: fetch requests name them, the
/// history request reads which one a request is about.
enum HistoryEntities {
    static let transactionName = "NSPersistentHistoryTransaction"
    static let changeName = "NSPersistentHistoryChange"

    static let transaction: NSEntityDescription = entity(
        transactionName,
        [
            ("timestamp", .dateAttributeType), ("transactionNumber", .integer64AttributeType),
            ("storeID", .stringAttributeType), ("bundleID", .stringAttributeType), ("processID", .stringAttributeType),
            ("contextName", .stringAttributeType), ("author", .stringAttributeType),
        ])

    static let change: NSEntityDescription = entity(
        changeName,
        [
            ("changeID", .integer64AttributeType), ("changeType", .integer64AttributeType),
            ("changedEntity", .stringAttributeType), ("changedObjectID", .objectIDAttributeType),
        ])

    private static func entity(_ name: String, _ attributes: [(String, NSAttributeType)]) -> NSEntityDescription {
        let entity = NSEntityDescription()
        entity.name = name
        entity.properties = attributes.map { name, type in
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            return attribute
        }
        return entity
    }
}
