import Foundation

/// What a change of persistent history did to its object.
@objc public enum NSPersistentHistoryChangeType: Int, Sendable {
    case insert = 0
    case update = 1
    case delete = 2
}

/// One object's change within a transaction of persistent history: inserted, updated (with
/// the properties the save wrote) or deleted (with the values of the attributes the model
/// keeps after deletion, its tombstone).
///
/// ```swift
/// for change in transaction.changes ?? [] where change.changeType == .delete {
///     print(change.tombstone?["title"] ?? "?")
/// }
/// ```
open class NSPersistentHistoryChange: NSObject, NSCopying, PredicateKeyValueReading, @unchecked Sendable {
    // What a change holds is set once, at its making, and read through computed properties: a
    // stored `var` is checked for exclusive access at every read and write, which cost a
    // tenth of reading 100k changes (B1r).
    private let record: HistoryChangeRecord
    private let objectID: NSManagedObjectID

    /// The change's number in its store.
    open var changeID: Int64 { record.id }
    /// The ID of the object changed (of a deleted object, the ID it had).
    open var changedObjectID: NSManagedObjectID { objectID }
    /// Whether the object was inserted, updated or deleted.
    open var changeType: NSPersistentHistoryChangeType { record.type }
    /// A deleted object's values of the attributes marked `preservesValueInHistoryOnDeletion`,
    /// by name; `nil` for inserts and updates.
    open var tombstone: [AnyHashable: Any]? {
        guard record.type == .delete else { return nil }
        var values: [AnyHashable: Any] = [:]
        for (name, value) in record.tombstone ?? [:] { values[name] = value }
        return values
    }
    /// The properties an update wrote; `nil` for inserts and deletes.
    open var updatedProperties: Set<NSPropertyDescription>? {
        guard record.type == .update, let indexes = record.updatedIndexes else { return nil }
        let properties = objectID.entity.layout.properties
        return Set(indexes.compactMap { $0 < properties.count ? properties[$0] : nil })
    }
    /// Beyond Apple (`StrataPersistentHistoryValuesKey`): the values an update wrote, by
    /// property name (relationships as object IDs, to-many ones as arrays of IDs); `nil` when
    /// the store does not record values, and for inserts and deletes.
    open var updatedValues: [String: Any]? { record.values?.updated }
    /// Beyond Apple: the values the updated properties had before the update, as
    /// `updatedValues` gives the new ones.
    open var previousValues: [String: Any]? { record.values?.previous }

    /// The transaction's fields and, while it is alive, the transaction itself (a change never
    /// keeps its transaction alive, the transaction keeps its changes).
    private let header: HistoryTransactionHeader

    /// The transaction the change belongs to: the one read with it while it lives, else one
    /// made again from its fields.
    open var transaction: NSPersistentHistoryTransaction? {
        header.transaction ?? NSPersistentHistoryTransaction(record: header.record, storeID: header.storeID)
    }

    init(record: HistoryChangeRecord, objectID: NSManagedObjectID, header: HistoryTransactionHeader) {
        self.record = record
        self.objectID = objectID
        self.header = header
        super.init()
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    open override var description: String {
        let kind = ["insert", "update", "delete"][changeType.rawValue]
        return "<NSPersistentHistoryChange \(changeID) \(kind) \(changedObjectID)>"
    }

    func predicateValue(forKey key: String) -> Any? {
        switch key {
        case "changeID": changeID
        case "changeType": Int64(changeType.rawValue)
        case "changedObjectID": changedObjectID
        // The entity compares by name: in a history fetch request, `changedEntity == %@` takes an
        // entity description too (`HistoryFetchPredicates.prepared`).
        case "changedEntity": changedObjectID.entity.name
        case "transaction": transaction
        case "tombstone": tombstone
        case "updatedProperties": updatedProperties.map { Set($0.map(\.name)) }
        default: nil
        }
    }

    // MARK: The entity fetch requests name

    /// The description of changes, for `fetchHistory(withFetch:)` requests.
    open class var entityDescription: NSEntityDescription? { HistoryEntities.change }

    /// The description of changes in a context's coordinator (the same for every one).
    open class func entityDescription(with context: NSManagedObjectContext) -> NSEntityDescription? {
        HistoryEntities.change
    }

    /// A fetch request of changes: its predicate filters by `changeType`, `changedEntity`,
    /// `changedObjectID`, `changeID` or the transaction's keys (`transaction.author`).
    ///
    /// ```swift
    /// let fetch = NSPersistentHistoryChange.fetchRequest!
    /// fetch.predicate = NSPredicate(format: "changedEntity == %@", "Todo")
    /// ```
    open class var fetchRequest: NSFetchRequest<NSFetchRequestResult>? {
        let request = NSFetchRequest<NSFetchRequestResult>()
        request.entity = HistoryEntities.change
        return request
    }
}

/// A transaction's fields, shared by its changes, to make the transaction again when only a
/// change was kept. Its record's change list is left out: a transaction made again from it has
/// no changes.
///
/// The one weak reference to the transaction is here rather than in each change: a weakly
/// referenced object counts its references the slow way (in a side table), so that a weak
/// reference per change made every retain of the transaction slow (a tenth of reading 100k
/// changes, B1r).
final class HistoryTransactionHeader: @unchecked Sendable {
    let record: HistoryTransactionRecord
    let storeID: String
    weak var transaction: NSPersistentHistoryTransaction?

    init(record: HistoryTransactionRecord, storeID: String) {
        var fields = record
        fields.changes = []
        self.record = fields
        self.storeID = storeID
    }
}

/// The values an update change carries when the store records them (beyond Apple).
struct HistoryChangeValues {
    var previous: [String: Any]
    var updated: [String: Any]
}
