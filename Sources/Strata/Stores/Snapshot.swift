import Foundation
internal import GRDB

/// The committed values of one row: what a store returns for an object and what the
/// coordinator's row cache holds. Immutable, shared between contexts and threads.
///
/// A value of three words, not an object: a fetch returns one for every row and holds them all
/// until its objects are made (an object each took 48 bytes of a fetch's peak).
///
/// `values` follows the layout of the object's entity (`EntityLayout`): attribute values
/// as Swift values, to-one destinations as `NSManagedObjectID?`, to-many destinations as
/// `[NSManagedObjectID]` in order when the store supplies them, or `nil` when they are
/// loaded on demand.
struct Snapshot: @unchecked Sendable {
    let objectID: NSManagedObjectID
    /// The row's optimistic-locking version (`Z_OPT`).
    let version: Int64
    let values: ValueRow

    init(objectID: NSManagedObjectID, version: Int64, values: ValueRow) {
        self.objectID = objectID
        self.version = version
        self.values = values
    }

    /// Whether the other is this snapshot (the same values' storage, of one row and version),
    /// not only an equal one.
    func isSame(as other: Snapshot) -> Bool {
        values.storage === other.values.storage && version == other.version && objectID === other.objectID
    }
}

/// What a store is asked to fetch: the objects of an entity, ordered and paged.
struct FetchPlan {
    struct SortKey {
        /// A property name or a key path through to-one relationships (`author.name`).
        var key: String
        var ascending: Bool
        var comparison: SortComparison = .compare
    }

    /// How a sort key's values compare: the selectors Core Data accepts in sort descriptors.
    enum SortComparison: String, Sendable {
        /// `compare:`: numbers by value, strings by their Unicode scalars.
        case compare = "compare:"
        /// `caseInsensitiveCompare:`.
        case caseInsensitiveCompare = "caseInsensitiveCompare:"
        /// `localizedCompare:`.
        case localizedCompare = "localizedCompare:"
        /// `localizedCaseInsensitiveCompare:`.
        case localizedCaseInsensitiveCompare = "localizedCaseInsensitiveCompare:"
        /// `localizedStandardCompare:` (Finder order: case- and diacritic-insensitive, with
        /// numbers in strings compared by value).
        case localizedStandardCompare = "localizedStandardCompare:"
    }

    var entity: NSEntityDescription
    var includesSubentities: Bool
    var sortKeys: [SortKey]
    var limit: Int
    var offset: Int
    /// The filter, with its variables already substituted; `nil` for all objects.
    var predicate: PredicateNode? = nil

    /// The concrete entities whose rows match.
    var entities: [NSEntityDescription] {
        (includesSubentities ? entity.selfAndDescendants : [entity]).filter { !$0.isAbstract || $0 === entity }
    }
}

/// One object's part of a save, as a store receives it.
struct RowChange {
    var objectID: NSManagedObjectID
    /// Values in the entity's layout, in store form (`Snapshot.values`, with every to-many
    /// that changed given in full).
    var values: ValueRow
    /// Positions of the properties to write (all stored properties for an insert).
    var changed: [Int]
    /// The version the context last saw (`Z_OPT`); 0 for an insert.
    var expectedVersion: Int64
}

/// Everything one store must write in one save, in one transaction.
struct StoreSaveRequest {
    var inserts: [RowChange] = []
    var updates: [RowChange] = []
    var deletes: [RowChange] = []
    /// The saving context's `transactionAuthor`, which persistent history records.
    var author: String?
    /// The saving context's `name`, which persistent history records.
    var contextName: String?
    /// More writes for a SQLite store's save transaction (see
    /// `NSManagedObjectContext.attachedStoreWrite`).
    var attachedWrite: ((Database) throws -> Void)?

    var isEmpty: Bool { inserts.isEmpty && updates.isEmpty && deletes.isEmpty }
}

/// What a store reports back from a save.
///
/// The rows of the request's own changes come back by position, in the request's order: the
/// context pairs each with its object without hashing (a save of 100,000 inserts built,
/// searched and freed two 100,000-entry dictionaries before, a sixth of the save's own time).
struct StoreSaveResult {
    /// Each insert's row as saved, in the order of the request's inserts; its ID is the
    /// permanent one.
    var inserted: [Snapshot] = []
    /// Each update's row as saved (its new version), in the order of the request's updates.
    var updated: [Snapshot] = []
    /// Rows the save changed besides the request's own: derived values a store recomputed.
    var refreshed = ObjectIDDictionary<Snapshot>()

    /// Calls `body` with the ID of every row the save wrote or recomputed.
    func forEachRowID(_ body: (NSManagedObjectID) -> Void) {
        for row in inserted { body(row.objectID) }
        for row in updated { body(row.objectID) }
        for id in refreshed.keys { body(id) }
    }

    /// Puts rows read back after the save in the result: a row of the request's own replaces
    /// its saved row (`combine` gets the fresh row and the saved one), any other row goes to
    /// `refreshed` (`combine` gets the row it replaces there, if any).
    mutating func replaceRows(_ rows: [Snapshot], combine: (Snapshot, Snapshot?) -> Snapshot) {
        guard !rows.isEmpty else { return }
        var positions: [ObjectKey: (inserted: Bool, position: Int)] = [:]
        for (position, row) in inserted.enumerated() { positions[ObjectKey(row.objectID)] = (true, position) }
        for (position, row) in updated.enumerated() { positions[ObjectKey(row.objectID)] = (false, position) }
        for row in rows {
            switch positions[ObjectKey(row.objectID)] {
            case (true, let position)?: inserted[position] = combine(row, inserted[position])
            case (false, let position)?: updated[position] = combine(row, updated[position])
            case nil: refreshed[row.objectID] = combine(row, refreshed[row.objectID])
            }
        }
    }
}

/// A row whose version in the store is not the one the context last saw.
struct VersionConflict: Sendable {
    var objectID: NSManagedObjectID
    var expectedVersion: Int64
    /// The store's version, 0 when the row was deleted.
    var storedVersion: Int64
    var storedSnapshot: Snapshot?
}

/// Thrown by a store when optimistic locking fails; nothing of the save was written.
struct VersionConflictError: Error {
    var conflicts: [VersionConflict]
}
