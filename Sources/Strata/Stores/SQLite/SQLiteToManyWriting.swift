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

extension SQLiteStore {
    /// Writes the changed to-many relationships of a row: join-table links, the order keys
    /// of ordered relationships, and hidden columns of relationships without inverse.
    ///
    /// `isNew` says the row was inserted by this save: it has no links yet, so none are read
    /// (in B11, a `SELECT` per to-do that found nothing).
    func writeToMany(
        _ change: RowChange, as id: NSManagedObjectID, isNew: Bool, db: Database, mapping: SQLiteStoreMapping,
        writers: JoinLinkWriters, resolve: (NSManagedObjectID) -> NSManagedObjectID
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
                    orderColumn: orderColumn, deferred: deferred, db: db)
            case .inverseForeignKey(_, let orderColumn?):
                let statement = try db.cachedStatement(sql: "UPDATE \(destination.table) SET \(orderColumn) = ? WHERE Z_PK = ?")
                for (position, key) in keys.enumerated() {
                    try statement.execute(arguments: [Self.orderKey(at: position), key])
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
    /// it had to others, adds the missing ones, and for an ordered side sets every link's order
    /// key. Links to the objects in `deferred` are theirs to write (`JoinSide`).
    private func writeLinks(
        _ keys: [Int64], of owner: Int64, isNew: Bool, table: String, selfColumn: String, otherColumn: String,
        orderColumn: String?, deferred: Set<Int64>?, db: Database
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
        let insert: String
        if let orderColumn {
            insert = """
                INSERT INTO \(table) (\(selfColumn), \(otherColumn), \(orderColumn)) VALUES (?, ?, ?) \
                ON CONFLICT DO UPDATE SET \(orderColumn) = excluded.\(orderColumn)
                """
        } else {
            insert = "INSERT INTO \(table) (\(selfColumn), \(otherColumn)) VALUES (?, ?) ON CONFLICT DO NOTHING"
        }
        var statement: Statement?
        for (position, key) in keys.enumerated() {
            // An ordered side writes each link's order key, new or not (positions move); an
            // unordered one only the links it did not have.
            guard orderColumn != nil || !existing.contains(key), deferred?.contains(key) != true else { continue }
            let prepared = try statement ?? Self.cleared(db.cachedStatement(sql: insert))
            statement = prepared
            let raw = prepared.sqliteStatement
            sqlite3_reset(raw)
            sqlite3_bind_int64(raw, 1, owner)
            sqlite3_bind_int64(raw, 2, key)
            if orderColumn != nil { sqlite3_bind_int64(raw, 3, Self.orderKey(at: position)) }
            try Self.run(prepared, db)
        }
    }
}
