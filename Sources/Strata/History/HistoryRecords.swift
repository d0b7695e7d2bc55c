import Foundation

/// A transaction of persistent history as a store keeps it, before it becomes an
/// `NSPersistentHistoryTransaction`: the same record for SQLite, in-memory and binary stores.
struct HistoryTransactionRecord: @unchecked Sendable {
    var number: Int64
    var timestamp: Date
    var author: String?
    var contextName: String?
    var bundleID: String?
    var processID: String?
    var changes: [HistoryChangeRecord] = []
}

/// One object's change as a store keeps it. What only updates and deletes have is kept in a
/// box of its own, so that a record is five words: reading 100k changes copies records several
/// times, and each copy retained and released three optional collections (B1r).
struct HistoryChangeRecord: @unchecked Sendable {
    var id: Int64
    var type: NSPersistentHistoryChangeType
    var entity: NSEntityDescription
    var primaryKey: Int64
    /// Updated properties, tombstone and values; nil for an insert (and a change without them).
    let detail: HistoryChangeDetail?

    init(
        id: Int64, type: NSPersistentHistoryChangeType, entity: NSEntityDescription, primaryKey: Int64,
        updatedIndexes: [Int]? = nil, tombstone: [String: Any]? = nil, values: HistoryChangeValues? = nil
    ) {
        self.id = id
        self.type = type
        self.entity = entity
        self.primaryKey = primaryKey
        detail = HistoryChangeDetail.make(updatedIndexes: updatedIndexes, tombstone: tombstone, values: values)
    }

    /// Layout positions of the properties an update wrote.
    var updatedIndexes: [Int]? { detail?.updatedIndexes }
    /// A delete's preserved attribute values, by name.
    var tombstone: [String: Any]? { detail?.tombstone }
    /// An update's values, when the store records them (beyond Apple).
    var values: HistoryChangeValues? { detail?.values }
}

/// The parts of a change record only some changes have, made with the record and never changed.
final class HistoryChangeDetail: @unchecked Sendable {
    let updatedIndexes: [Int]?
    let tombstone: [String: Any]?
    let values: HistoryChangeValues?

    private init(updatedIndexes: [Int]?, tombstone: [String: Any]?, values: HistoryChangeValues?) {
        self.updatedIndexes = updatedIndexes
        self.tombstone = tombstone
        self.values = values
    }

    static func make(updatedIndexes: [Int]?, tombstone: [String: Any]?, values: HistoryChangeValues?) -> HistoryChangeDetail? {
        guard updatedIndexes != nil || tombstone != nil || values != nil else { return nil }
        return HistoryChangeDetail(updatedIndexes: updatedIndexes, tombstone: tombstone, values: values)
    }
}

/// Who saves: what every transaction a process records carries besides its changes.
struct HistoryAuthor {
    var author: String?
    var contextName: String?

    /// The app's bundle identifier, or the process name where there is none (a Linux
    /// executable has no bundle); Apple's own stores show `com.apple.dt.xctest.tool` here.
    static let bundleID: String = Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName
    /// The process name, as Apple's stores show it (`xctest`).
    static let processID: String = ProcessInfo.processInfo.processName

    func record(number: Int64, timestamp: Date = Date()) -> HistoryTransactionRecord {
        HistoryTransactionRecord(
            number: number, timestamp: timestamp, author: author, contextName: contextName, bundleID: Self.bundleID,
            processID: Self.processID)
    }
}

/// Where a fetch or a delete of history starts or stops.
enum HistoryBound {
    /// Transactions after (for a fetch) or up to and including (for a delete) this number.
    case number(Int64)
    /// Transactions after (fetch) or before (delete) this moment.
    case date(Date)
    /// All of the store's history.
    case all
}

/// The changes of one save or batch request, in the terms of a store's layout, made before the
/// store writes them: the same for every store type.
enum HistoryChanges {
    /// The changes a save request makes: each insert (with its permanent ID), each update with
    /// the properties it writes, each delete with its tombstone (`tombstones` gives the values
    /// the store read before deleting).
    static func of(
        _ request: StoreSaveRequest, inserted: [Snapshot], tombstones: (RowChange) -> [String: Any]?,
        values: ((RowChange) -> HistoryChangeValues?)? = nil
    ) -> [HistoryChangeRecord] {
        var changes: [HistoryChangeRecord] = []
        changes.reserveCapacity(request.inserts.count + request.updates.count + request.deletes.count)
        for row in inserted {
            changes.append(
                HistoryChangeRecord(id: 0, type: .insert, entity: row.objectID.entity, primaryKey: row.objectID.primaryKey))
        }
        for change in request.updates {
            changes.append(
                HistoryChangeRecord(
                    id: 0, type: .update, entity: change.objectID.entity, primaryKey: change.objectID.primaryKey,
                    updatedIndexes: change.changed, values: values?(change)))
        }
        for change in request.deletes {
            changes.append(
                HistoryChangeRecord(
                    id: 0, type: .delete, entity: change.objectID.entity, primaryKey: change.objectID.primaryKey,
                    tombstone: tombstones(change)))
        }
        return changes
    }

    /// The attributes of an entity whose values a delete keeps, in the order Core Data gives
    /// their `ZTOMBSTONE<n>` columns (by name).
    static func preservedAttributes(of entity: NSEntityDescription) -> [(index: Int, attribute: NSAttributeDescription)] {
        let layout = entity.layout
        return layout.persistentIndexes.compactMap { index -> (Int, NSAttributeDescription)? in
            guard let attribute = layout.properties[index] as? NSAttributeDescription,
                attribute.preservesValueInHistoryOnDeletion, !attribute.isTransient
            else { return nil }
            return (index, attribute)
        }.sorted { $0.1.name < $1.1.name }
    }

    /// The values an update changed, old and new, by property name; relationships as IDs. Old
    /// to-many members come from `toManyBefore` (by property index) where the row lacks them.
    static func values(
        of change: RowChange, before old: Snapshot?, toManyBefore: [Int: [NSManagedObjectID]]? = nil,
        resolve: (NSManagedObjectID) -> NSManagedObjectID = { $0 }
    ) -> HistoryChangeValues {
        let properties = change.objectID.entity.layout.properties
        var previous: [String: Any] = [:]
        var updated: [String: Any] = [:]
        for index in change.changed where index < properties.count {
            let name = properties[index].name
            if let value = change.values[index] { updated[name] = resolveIDs(value, resolve) }
            if let members = toManyBefore?[index] {
                previous[name] = members
            } else if let old, index < old.values.count, let value = old.values[index] {
                previous[name] = value
            }
        }
        return HistoryChangeValues(previous: previous, updated: updated)
    }

    private static func resolveIDs(_ value: Any, _ resolve: (NSManagedObjectID) -> NSManagedObjectID) -> Any {
        switch value {
        case let id as NSManagedObjectID: resolve(id)
        case let ids as [NSManagedObjectID]: ids.map(resolve)
        default: value
        }
    }
}
