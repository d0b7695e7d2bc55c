import Foundation
internal import GRDB

/// Recording what saves and batch requests change, in their own transactions.
///
/// A save knows its changes (the context's inserts, updates with the properties written,
/// deletes): they are recorded from its request, with the values deleted rows preserve read
/// just before they go. A batch request changes rows in SQL (cascades included), so the rows
/// it touches are caught by temporary triggers on the store's writing connection, which exist
/// only while a batch runs, within its transaction: saves pay nothing for them. (Triggers kept
/// for good and armed by a condition cost every row a save wrote a trigger program's run: a
/// third of SQLite's work in B1h.)
extension SQLiteHistory {
    /// The temporary table the batch triggers note rows in (a trigger's statements may not
    /// name its schema).
    private static let rowsTable = "STRATA_HISTORY_ROWS"

    /// Per table: the columns whose old values a batch delete keeps (the union over the
    /// table's entities of their preserved attributes), in the order of the `V<n>` columns.
    func tombstoneColumns(of table: String, mapping: SQLiteStoreMapping) -> [String] {
        var names = Set<String>()
        for entity in mapping.schema.orderedEntities {
            guard let entityMapping = mapping.mapping(for: entity), entityMapping.table == table else { continue }
            for preserved in layouts[ObjectIdentifier(entity)]?.tombstones ?? [] {
                // A composite attribute keeps all its leaves' columns.
                for column in entityMapping.columns where column.index == preserved.index {
                    names.insert(column.name)
                    guard case .compositeLeaf = column.binding else { break }
                }
            }
        }
        return names.sorted()
    }

    /// Creates, on the writing connection, the table batch rows are noted in.
    func installBatchTable(in db: Database, mapping: SQLiteStoreMapping) throws {
        let width = batchTables(mapping).map { tombstoneColumns(of: $0, mapping: mapping).count }.max() ?? 0
        let values = (0..<width).map { ", V\($0)" }.joined()
        try db.execute(sql: "CREATE TEMP TABLE IF NOT EXISTS \(Self.rowsTable) (KIND INTEGER, ENT INTEGER, PK INTEGER\(values))")
    }

    /// The tables of the store's entities.
    private func batchTables(_ mapping: SQLiteStoreMapping) -> [String] {
        Array(Set(mapping.schema.orderedEntities.compactMap { mapping.mapping(for: $0)?.table })).sorted()
    }

    /// Creates the triggers that note the rows a batch inserts, updates and deletes, in the
    /// batch's transaction (temporary triggers are part of it: a rollback removes them too).
    func createBatchTriggers(in db: Database, mapping: SQLiteStoreMapping) throws {
        for table in batchTables(mapping) {
            let columns = tombstoneColumns(of: table, mapping: mapping)
            let names = columns.indices.map { ", V\($0)" }.joined()
            let old = columns.map { ", OLD.\($0)" }.joined()
            let prefix = "CREATE TEMP TRIGGER IF NOT EXISTS STRATA_HISTORY_\(table)"
            let on = "ON main.\(table) FOR EACH ROW BEGIN INSERT INTO \(Self.rowsTable)"
            try db.execute(sql: "\(prefix)_INSERT AFTER INSERT \(on) (KIND, ENT, PK) VALUES (0, NEW.Z_ENT, NEW.Z_PK); END")
            try db.execute(sql: "\(prefix)_UPDATE AFTER UPDATE \(on) (KIND, ENT, PK) VALUES (1, NEW.Z_ENT, NEW.Z_PK); END")
            try db.execute(
                sql: "\(prefix)_DELETE BEFORE DELETE \(on) (KIND, ENT, PK\(names)) VALUES (2, OLD.Z_ENT, OLD.Z_PK\(old)); END")
        }
    }

    /// Removes the batch triggers, before the batch's history is written.
    func dropBatchTriggers(in db: Database, mapping: SQLiteStoreMapping) throws {
        for table in batchTables(mapping) {
            for kind in ["INSERT", "UPDATE", "DELETE"] {
                try db.execute(sql: "DROP TRIGGER IF EXISTS temp.STRATA_HISTORY_\(table)_\(kind)")
            }
        }
    }

    /// The changes the batch triggers noted, in the order they happened: each object once
    /// (an insert or a delete wins over updates of the same row), updates with `updated`'s
    /// positions for their entity.
    func notedBatchChanges(
        in db: Database, mapping: SQLiteStoreMapping, updated: (NSEntityDescription) -> [Int]?
    ) throws -> [HistoryChangeRecord] {
        var changes: [HistoryChangeRecord] = []
        var positions: [ObjectKey: Int] = [:]
        let rows = try Row.fetchCursor(db, sql: "SELECT * FROM \(Self.rowsTable) ORDER BY rowid")
        var tableColumns: [String: [String]] = [:]
        while let row = try rows.next() {
            let kind: Int = row[0]
            guard let type = NSPersistentHistoryChangeType(rawValue: kind), let number: Int = row[1],
                let entityMapping = mapping.mapping(number: number)
            else { continue }
            let entity = entityMapping.entity
            var tombstone: [String: Any]?
            if type == .delete {
                let columns =
                    tableColumns[entityMapping.table]
                    ?? {
                        let made = tombstoneColumns(of: entityMapping.table, mapping: mapping)
                        tableColumns[entityMapping.table] = made
                        return made
                    }()
                var preservedValues: [String: Any] = [:]
                for preserved in layouts[ObjectIdentifier(entity)]?.tombstones ?? [] {
                    if preserved.attribute is NSCompositeAttributeDescription {
                        let leaves = entityMapping.columns.compactMap { column -> (path: [String], value: Any)? in
                            guard column.index == preserved.index, case .compositeLeaf(_, let leaf) = column.binding,
                                let position = columns.firstIndex(of: column.name)
                            else { return nil }
                            let value = row[3 + position] as DatabaseValue
                            return SQLiteValueCodec.decode(value, attribute: leaf.attribute, externalData: { _ in nil })
                                .map { (leaf.path, $0) }
                        }
                        if let value = CompositeValues.assemble(leaves) { preservedValues[preserved.attribute.name] = value }
                        continue
                    }
                    guard let name = entityMapping.columns.first(where: { $0.index == preserved.index })?.name,
                        let position = columns.firstIndex(of: name)
                    else { continue }
                    let value = row[3 + position] as DatabaseValue
                    if let decoded = SQLiteValueCodec.decode(value, attribute: preserved.attribute, externalData: { _ in nil }) {
                        preservedValues[preserved.attribute.name] = decoded
                    }
                }
                tombstone = preservedValues
            }
            let change = HistoryChangeRecord(
                id: 0, type: type, entity: entity, primaryKey: row[2],
                updatedIndexes: type == .update ? updated(entity) ?? [] : nil, tombstone: tombstone)
            let key = ObjectKey(entity: entityMapping.rootNumber, primaryKey: change.primaryKey)
            if let position = positions[key] {
                // Inserted then updated stays an insert; anything then deleted becomes the delete.
                if type == .delete { changes[position] = change }
                continue
            }
            positions[key] = changes.count
            changes.append(change)
        }
        try db.execute(sql: "DELETE FROM \(Self.rowsTable)")
        return changes
    }

    /// A row of a table, whichever entity of the hierarchy it is.
    private struct ObjectKey: Hashable {
        var entity: Int
        var primaryKey: Int64
    }
}

extension SQLiteStore {
    /// Runs a batch request's writes (inside its transaction) and records the rows they
    /// changed as one transaction of history; `updated` gives an update's written positions.
    func recordingBatchHistory<Result>(
        _ db: Database, mapping: SQLiteStoreMapping, author: HistoryAuthor,
        updated: @escaping (NSEntityDescription) -> [Int]? = { _ in nil }, _ body: () throws -> Result
    ) throws -> Result {
        guard let history else { return try body() }
        try history.createBatchTriggers(in: db, mapping: mapping)
        let result: Result
        do {
            result = try body()
        } catch {
            // The transaction's rollback removes them too; this covers a caller that goes on.
            try? history.dropBatchTriggers(in: db, mapping: mapping)
            throw error
        }
        try history.dropBatchTriggers(in: db, mapping: mapping)
        let changes = try history.notedBatchChanges(in: db, mapping: mapping, updated: updated)
        try history.record(changes, author: author, db: db, mapping: mapping)
        return result
    }

    /// What a save's history needs from rows before the save changes them: the preserved
    /// values of deleted rows, and (when values are recorded) the old values of updated ones,
    /// with the old members of the to-many relationships an update writes.
    func rowsBeforeSave(
        _ request: StoreSaveRequest, history: SQLiteHistory, db: Database, mapping: SQLiteStoreMapping
    ) throws -> (
        tombstones: ObjectIDDictionary<[String: Any]>, previous: ObjectIDDictionary<Snapshot>,
        previousToMany: ObjectIDDictionary<[Int: [NSManagedObjectID]]>
    ) {
        var tombstones = ObjectIDDictionary<[String: Any]>()
        var previous = ObjectIDDictionary<Snapshot>()
        var previousToMany = ObjectIDDictionary<[Int: [NSManagedObjectID]]>()
        for change in request.deletes {
            guard let preserved = history.layouts[ObjectIdentifier(change.objectID.entity)]?.tombstones, !preserved.isEmpty,
                let row = try storedRow(change.objectID, db: db, mapping: mapping)
            else { continue }
            var values: [String: Any] = [:]
            for (index, attribute) in preserved where index < row.values.count {
                if let value = row.values[index] { values[attribute.name] = value }
            }
            tombstones[change.objectID] = values
        }
        if history.recordsValues {
            for change in request.updates {
                if let row = try storedRow(change.objectID, db: db, mapping: mapping) { previous[change.objectID] = row }
                let members = try storedToMany(of: change, db: db, mapping: mapping)
                if !members.isEmpty { previousToMany[change.objectID] = members }
            }
        }
        return (tombstones, previous, previousToMany)
    }

    /// The members, before the save, of the to-many relationships an update writes (they live
    /// in the destination's rows or a join table, not in the object's row), by property index.
    private func storedToMany(
        of change: RowChange, db: Database, mapping: SQLiteStoreMapping
    ) throws -> [Int: [NSManagedObjectID]] {
        let entity = change.objectID.entity
        let properties = entity.layout.properties
        var members: [Int: [NSManagedObjectID]] = [:]
        for index in change.changed where index < properties.count {
            guard let relationship = properties[index] as? NSRelationshipDescription, relationship.isToMany,
                let (sql, destination) = relatedRowsSQL(of: entity, relationship: relationship, mapping: mapping)
            else { continue }
            let decoder = SQLiteRowDecoder(store: self, mapping: mapping, expected: destination)
            members[index] = try readRows(db, sql: sql, arguments: [change.objectID.primaryKey.databaseValue]) {
                decoder.decode($0).objectID
            }
        }
        return members
    }

    private func storedRow(_ id: NSManagedObjectID, db: Database, mapping: SQLiteStoreMapping) throws -> Snapshot? {
        guard let entity = mapping.mapping(for: id.entity), let columns = mapping.selectColumns[entity.table] else { return nil }
        let row = try Row.fetchOne(
            db, sql: "SELECT \(columns.joined(separator: ", ")) FROM \(entity.table) WHERE Z_PK = ?", arguments: [id.primaryKey])
        // To-many relationships are not in the row (`storedToMany` reads them).
        return row.map { decode($0, mapping: mapping, expected: entity) }
    }
}
