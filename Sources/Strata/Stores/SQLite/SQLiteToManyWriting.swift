import Foundation
internal import GRDB
internal import GRDBSQLite

/// The objects of a save that write their side of a many-to-many relationship in full, by
/// the key of that side (`JoinSide.key`): the other side leaves their links to them, so that
/// each link a save adds or removes is written once.
///
/// Only sides another side defers to are noted (`SQLiteEntityMapping.reliedOnJoinSides`):
/// in B11, the 20 tags of `Tag.todos`, not the 100,000 to-dos of `Todo.tags`.
struct JoinLinkWriters {
    private var keys: [String: Set<Int64>] = [:]

    /// The writers among `request`'s inserts (saved as `inserted`, with their permanent IDs)
    /// and updates: objects whose relationship is changed and loaded.
    init(_ request: StoreSaveRequest, inserted: [Snapshot], mapping: SQLiteStoreMapping) {
        func note(_ change: RowChange, as id: NSManagedObjectID) {
            guard let entity = mapping.mapping(for: id.entity), !entity.reliedOnJoinSides.isEmpty else { return }
            for index in entity.reliedOnJoinSides
            where change.changed.contains(index) && change.values[index] is [NSManagedObjectID] {
                guard let side = entity.joinSides[index] else { continue }
                keys[side.key, default: []].insert(id.primaryKey)
            }
        }
        for (change, row) in zip(request.inserts, inserted) { note(change, as: row.objectID) }
        for change in request.updates { note(change, as: change.objectID) }
    }

    /// The keys of the objects that write the side named `key`; `nil` when none does.
    func writers(of key: String) -> Set<Int64>? { keys[key] }
}

/// The join-table links a save adds, gathered while its rows' relationships are looked at and
/// inserted at the end in the order SQLite inserts quickest.
///
/// A join table has two indexes, one per column order. Links inserted grouped by the column
/// with more distinct keys go to the end of one index and to a few places of the other (one per
/// key of the other column): in B11, by to-do, the tags' 20. Grouped the other way (each tag's
/// to-dos, as side A writes them), the other index is swept once per tag: 14.8k instructions a
/// link instead of 13k.
final class JoinLinkInserts {
    struct Link {
        var owner: Int64
        var other: Int64
        var order: Int64
    }

    /// The links of each `INSERT` statement (one per table side), in the order they came.
    private var links: [String: [Link]] = [:]
    private var statements: [String] = []

    /// Adds one object's links, to be inserted by `sql`.
    func add(_ added: [Link], with sql: String) {
        guard !added.isEmpty else { return }
        if links[sql] == nil { statements.append(sql) }
        links[sql, default: []].append(contentsOf: added)
    }

    /// Runs every statement over its links, sorted, and forgets them.
    func write(to db: Database) throws {
        for sql in statements {
            guard var pending = links[sql], !pending.isEmpty else { continue }
            let owners = Set(pending.map(\.owner)).count
            let others = Set(pending.map(\.other)).count
            if others > owners {
                pending.sort { ($0.other, $0.owner) < ($1.other, $1.owner) }
            } else {
                pending.sort { ($0.owner, $0.other) < ($1.owner, $1.other) }
            }
            let statement = try SQLiteStore.cleared(db.cachedStatement(sql: sql))
            let raw = statement.sqliteStatement
            let ordered = sqlite3_bind_parameter_count(raw) == 3
            for link in pending {
                sqlite3_reset(raw)
                sqlite3_bind_int64(raw, 1, link.owner)
                sqlite3_bind_int64(raw, 2, link.other)
                if ordered { sqlite3_bind_int64(raw, 3, link.order) }
                try SQLiteStore.run(statement, db)
            }
        }
        links = [:]
        statements = []
    }
}

extension SQLiteStore {
    /// Writes the changed to-many relationships of a row: join-table links, the order keys
    /// of ordered relationships, and hidden columns of relationships without inverse.
    ///
    /// `isNew` says the row was inserted by this save: it has no links yet, so none are read
    /// (in B11, a `SELECT` per to-do that found nothing).
    func writeToMany(
        _ change: RowChange, as id: NSManagedObjectID, isNew: Bool, db: Database, mapping: SQLiteStoreMapping,
        writers: JoinLinkWriters, inserts: JoinLinkInserts, orderKeys: OrderedInsertKeys? = nil,
        resolve: (NSManagedObjectID) -> NSManagedObjectID
    ) throws {
        guard let entity = mapping.mapping(for: id.entity) else { return }
        for index in change.changed {
            guard let storage = entity.toMany[index], let targets = change.values[index] as? [NSManagedObjectID],
                let relationship = entity.entity.layout.properties[index] as? NSRelationshipDescription,
                let destination = relationship.destinationEntity.flatMap({ mapping.mapping(for: $0) })
            else { continue }
            let keys = try targets.map { target -> Int64 in
                let target = resolve(target)
                guard !target.isTemporaryID, target.persistentStore === self else {
                    throw CoreDataError.make(
                        NSManagedObjectExternalRelationshipError, "\(id) refers to \(target), which is not in the same store.")
                }
                return target.primaryKey
            }
            switch storage {
            case .joinTable(let table, let selfColumn, let otherColumn, let orderColumn):
                let side = entity.joinSides[index]
                let deferred = side.flatMap { $0.defers ? writers.writers(of: $0.otherKey) : nil }
                try writeLinks(
                    keys, of: id.primaryKey, isNew: isNew, table: table, selfColumn: selfColumn, otherColumn: otherColumn,
                    orderColumn: orderColumn, deferred: deferred, inserts: inserts, db: db)
            case .inverseForeignKey(_, let orderColumn?):
                // In the order of the rows' keys, not of the relationship: the rows are then
                // visited as they lie in the table (B11o at 100k: each update in the
                // relationship's order found its row in another page).
                let statement = try Self.cleared(
                    db.cachedStatement(sql: "UPDATE \(destination.table) SET \(orderColumn) = ? WHERE Z_PK = ?"))
                let raw = statement.sqliteStatement
                for (key, position) in zip(keys, keys.indices).sorted(by: { $0.0 < $1.0 }) {
                    let order = Self.orderKey(at: position)
                    // A row this save inserted with this very key needs no update.
                    if orderKeys?.wasInserted(targets[position], with: order, table: destination.table, column: orderColumn)
                        == true
                    {
                        continue
                    }
                    sqlite3_reset(raw)
                    sqlite3_bind_int64(raw, 1, order)
                    sqlite3_bind_int64(raw, 2, key)
                    try Self.run(statement, db)
                }
            case .inverseForeignKey(_, nil):
                continue
            case .hiddenColumn(let column):
                let existing = try Int64.fetchAll(
                    db, sql: "SELECT Z_PK FROM \(destination.table) WHERE \(column) = ?", arguments: [id.primaryKey])
                let wanted = Set(keys)
                for key in existing where !wanted.contains(key) {
                    try db.cachedStatement(sql: "UPDATE \(destination.table) SET \(column) = NULL WHERE Z_PK = ?")
                        .execute(arguments: [key])
                }
                for key in keys {
                    try db.cachedStatement(sql: "UPDATE \(destination.table) SET \(column) = ? WHERE Z_PK = ?")
                        .execute(arguments: [id.primaryKey, key])
                }
            }
        }
    }

    /// Makes the join-table links of one object (`owner`) those to `keys`: removes the links
    /// it had to others, and adds the missing ones (to `inserts`, written at the end of the
    /// save), for an ordered side with every link's order key. Links to the objects in
    /// `deferred` are theirs to write (`JoinSide`).
    private func writeLinks(
        _ keys: [Int64], of owner: Int64, isNew: Bool, table: String, selfColumn: String, otherColumn: String,
        orderColumn: String?, deferred: Set<Int64>?, inserts: JoinLinkInserts, db: Database
    ) throws {
        // Prepared once per connection (the statement cache) and stepped directly with keys
        // bound by position: a save of 100k tagged objects runs these 100k times
        // (`fetchAll(sql:)` compiled its query at each, and `execute(arguments:)` costs 1,500
        // instructions a row; see `run(_:_:)`).
        var existing: Set<Int64> = []
        if !isNew {
            let select = try Self.cleared(db.cachedStatement(sql: "SELECT \(otherColumn) FROM \(table) WHERE \(selfColumn) = ?"))
            existing = Set(try Self.keys(from: select, for: owner, db))
        }
        if !existing.isEmpty {
            let wanted = Set(keys)
            let delete = try Self.cleared(
                db.cachedStatement(sql: "DELETE FROM \(table) WHERE \(selfColumn) = ? AND \(otherColumn) = ?"))
            let raw = delete.sqliteStatement
            for key in existing where !wanted.contains(key) && deferred?.contains(key) != true {
                sqlite3_reset(raw)
                sqlite3_bind_int64(raw, 1, owner)
                sqlite3_bind_int64(raw, 2, key)
                try Self.run(delete, db)
            }
        }
        var added: [JoinLinkInserts.Link] = []
        for (position, key) in keys.enumerated() {
            // An ordered side writes each link's order key, new or not (positions move); an
            // unordered one only the links it did not have.
            guard orderColumn != nil || !existing.contains(key), deferred?.contains(key) != true else { continue }
            added.append(JoinLinkInserts.Link(owner: owner, other: key, order: Self.orderKey(at: position)))
        }
        guard !added.isEmpty else { return }
        let insert: String
        if let orderColumn {
            insert = """
                INSERT INTO \(table) (\(selfColumn), \(otherColumn), \(orderColumn)) VALUES (?, ?, ?) \
                ON CONFLICT DO UPDATE SET \(orderColumn) = excluded.\(orderColumn)
                """
        } else {
            insert = "INSERT INTO \(table) (\(selfColumn), \(otherColumn)) VALUES (?, ?) ON CONFLICT DO NOTHING"
        }
        inserts.add(added, with: insert)
    }
}

/// The order keys a save gives the rows it inserts into ordered to-many relationships whose
/// order the destination rows hold (a `Z_FOK_` column beside the to-one's key): each new row
/// is inserted with its key, and the owner's write of the order (`writeToMany`) then skips it.
/// B11o's 10k new tracks each took an `UPDATE` after their `INSERT`, a tenth of its instructions.
///
/// Only a row inserted with the very key the owner's write would give it is skipped: any other
/// row (an existing one, one whose key is not known here, one that two owners list) is updated
/// as before, so the stored order is the same either way.
final class OrderedInsertKeys {
    private struct Column {
        let table: String
        let name: String
        /// The key of each destination the save's owners list, by the ID the request names it
        /// with; `listedTwice` for one listed twice (an inconsistent graph: its updates decide).
        /// A key its row was inserted with carries `inserted`: one table, looked up once by the
        /// insert and once by the owner's write (a second table by `Z_PK` made B11o 3–5% slower
        /// at 100k rows, each lookup a cache miss).
        var keys: [ObjectKey: Int64] = [:]
    }

    private var columns: [Column] = []
    /// No order key is this (they are 2048 and up).
    private static let listedTwice = Int64.min
    /// Marks a key its row was inserted with (order keys stay far below it).
    private static let inserted: Int64 = 1 << 62

    /// The keys of the destinations of every ordered, foreign-key stored to-many relationship the
    /// request's inserted and updated objects changed; nothing when the save inserts no row.
    init(_ request: StoreSaveRequest, mapping: SQLiteStoreMapping) {
        guard !request.inserts.isEmpty else { return }
        // The entity of the last change and whether any of its to-manys is ordered so: a save's
        // changes come mostly an entity at a time.
        var last: (entity: NSEntityDescription, mapping: SQLiteEntityMapping?)?
        for changes in [request.inserts, request.updates] {
            for change in changes {
                let objectEntity = change.objectID.entity
                if last?.entity !== objectEntity {
                    let found = mapping.mapping(for: objectEntity)
                    last = (objectEntity, found.flatMap { $0.orderedByDestination.isEmpty ? nil : $0 })
                }
                guard let entity = last?.mapping else { continue }
                for index in entity.orderedByDestination where change.changed.contains(index) {
                    guard case .inverseForeignKey(_, let orderColumn?)? = entity.toMany[index],
                        let targets = change.values[index] as? [NSManagedObjectID],
                        let relationship = entity.entity.layout.properties[index] as? NSRelationshipDescription,
                        let destination = relationship.destinationEntity.flatMap({ mapping.mapping(for: $0) })
                    else { continue }
                    let column = position(table: destination.table, column: orderColumn, adding: true) ?? 0
                    // Taken out while it is filled, so that it is changed in place.
                    var keys = columns[column].keys
                    columns[column].keys = [:]
                    keys.reserveCapacity(keys.count + targets.count)
                    for (position, target) in targets.enumerated() {
                        let key = ObjectKey(target)
                        if keys.updateValue(SQLiteStore.orderKey(at: position), forKey: key) != nil {
                            keys[key] = Self.listedTwice
                        }
                    }
                    columns[column].keys = keys
                }
            }
        }
    }

    private func position(table: String, column: String, adding: Bool = false) -> Int? {
        if let found = columns.firstIndex(where: { $0.name == column && $0.table == table }) { return found }
        guard adding else { return nil }
        columns.append(Column(table: table, name: column))
        return columns.count - 1
    }

    /// The key the row of `id` goes in with, if an owner lists it (and only one does); the row
    /// is then noted as inserted with it.
    func insertionKey(for id: NSManagedObjectID, table: String, column: String) -> Int64? {
        guard !columns.isEmpty, let found = position(table: table, column: column),
            let slot = columns[found].keys.index(forKey: ObjectKey(id))
        else { return nil }
        let key = columns[found].keys.values[slot]
        guard key != Self.listedTwice else { return nil }
        columns[found].keys.values[slot] = key | Self.inserted
        return key & ~Self.inserted
    }

    /// Whether this save inserted the row of `target` (named as the owner's change names it)
    /// with `key`.
    func wasInserted(_ target: NSManagedObjectID, with key: Int64, table: String, column: String) -> Bool {
        guard !columns.isEmpty, let found = position(table: table, column: column) else { return false }
        return columns[found].keys[ObjectKey(target)] == key | Self.inserted
    }
}
