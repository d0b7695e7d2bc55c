import Foundation
import GRDB

/// Reading rows: fetches, single rows for faults, and the destinations of to-many
/// relationships. Every value is a bound parameter; table and column names come from the
/// schema mapping, never from a request.
extension SQLiteStore {
    func sqliteFetchSnapshots(_ plan: FetchPlan) throws -> [Snapshot] {
        let (database, mapping) = try openDatabase()
        guard let root = mapping.mapping(for: plan.entity) else { return [] }
        let columns = mapping.selectColumns[root.table] ?? ["Z_PK", "Z_ENT", "Z_OPT"]
        let (sql, arguments) = try selectSQL(columns: columns, plan: plan, mapping: mapping)
        return try database.read { db in
            let cursor = try Row.fetchCursor(db, sql: sql, arguments: arguments)
            var snapshots: [Snapshot] = []
            while let row = try cursor.next() {
                if let snapshot = decode(row, mapping: mapping) { snapshots.append(snapshot) }
            }
            return snapshots
        }
    }

    func sqliteFetchObjectIDs(_ plan: FetchPlan) throws -> [NSManagedObjectID] {
        let (database, mapping) = try openDatabase()
        let (sql, arguments) = try selectSQL(columns: ["Z_PK", "Z_ENT"], plan: plan, mapping: mapping)
        return try database.read { db in
            let cursor = try Row.fetchCursor(db, sql: sql, arguments: arguments)
            var ids: [NSManagedObjectID] = []
            while let row = try cursor.next() {
                let key: Int64 = row[0]
                let number: Int = row[1]
                if let entity = mapping.mapping(number: number)?.entity { ids.append(objectID(entity: entity, primaryKey: key)) }
            }
            return ids
        }
    }

    func sqliteCount(_ plan: FetchPlan) throws -> Int {
        let (database, mapping) = try openDatabase()
        guard let root = mapping.mapping(for: plan.entity) else { return 0 }
        let filter = entityFilter(plan, mapping: mapping)
        let sql = "SELECT count(*) FROM \(root.table)\(filter.map { " WHERE \($0)" } ?? "")"
        return try database.read { db in try Int.fetchOne(db, sql: sql) ?? 0 }
    }

    func sqliteSnapshot(for objectID: NSManagedObjectID) throws -> Snapshot? {
        let (database, mapping) = try openDatabase()
        guard let entity = mapping.mapping(for: objectID.entity) else { return nil }
        let columns = mapping.selectColumns[entity.table] ?? ["Z_PK", "Z_ENT", "Z_OPT"]
        let sql = "SELECT \(columns.joined(separator: ", ")) FROM \(entity.table) WHERE Z_PK = ?"
        return try database.read { db in
            try Row.fetchOne(db, sql: sql, arguments: [objectID.primaryKey]).flatMap { decode($0, mapping: mapping) }
        }
    }

    func sqliteRelatedObjectIDs(
        of objectID: NSManagedObjectID, relationship: NSRelationshipDescription
    ) throws -> [NSManagedObjectID] {
        let (database, mapping) = try openDatabase()
        guard let source = mapping.mapping(for: objectID.entity),
            let index = objectID.entity.layout.indexByName[relationship.name],
            let storage = source.toMany[index],
            let destination = relationship.destinationEntity.flatMap({ mapping.mapping(for: $0) })
        else { return [] }
        let sql: String
        switch storage {
        case .joinTable(let table, let selfColumn, let otherColumn, let orderColumn):
            sql = """
                SELECT d.Z_PK, d.Z_ENT FROM \(table) j JOIN \(destination.table) d ON d.Z_PK = j.\(otherColumn) \
                WHERE j.\(selfColumn) = ?\(orderColumn.map { " ORDER BY j.\($0), d.Z_PK" } ?? "")
                """
        case .inverseForeignKey(let column, let orderColumn):
            sql = """
                SELECT Z_PK, Z_ENT FROM \(destination.table) WHERE \(column) = ?\
                \(orderColumn.map { " ORDER BY \($0), Z_PK" } ?? "")
                """
        case .hiddenColumn(let column):
            sql = "SELECT Z_PK, Z_ENT FROM \(destination.table) WHERE \(column) = ?"
        }
        return try database.read { db in
            let rows = try Row.fetchAll(db, sql: sql, arguments: [objectID.primaryKey])
            return rows.compactMap { row in
                let number: Int = row[1]
                return mapping.mapping(number: number).map { self.objectID(entity: $0.entity, primaryKey: row[0]) }
            }
        }
    }

    // MARK: SQL and decoding

    private func entityFilter(_ plan: FetchPlan, mapping: SQLiteStoreMapping) -> String? {
        guard let root = mapping.mapping(for: plan.entity) else { return nil }
        let numbers = plan.entities.compactMap { mapping.mapping(for: $0)?.number }
        let inTable = plan.entity.rootEntity.selfAndDescendants.count
        if plan.includesSubentities && plan.entity.superentity == nil && numbers.count == inTable { return nil }
        if numbers.count == 1 { return "Z_ENT = \(numbers[0])" }
        if numbers.isEmpty { return "Z_ENT = \(root.number)" }
        return "Z_ENT IN (\(numbers.map(String.init).joined(separator: ", ")))"
    }

    private func selectSQL(
        columns: [String], plan: FetchPlan, mapping: SQLiteStoreMapping
    ) throws -> (String, StatementArguments) {
        guard let root = mapping.mapping(for: plan.entity) else {
            throw CoreDataError.make(NSCoreDataError, "Entity \(plan.entity.name ?? "?") is not in this store's model.")
        }
        var sql = "SELECT \(columns.joined(separator: ", ")) FROM \(root.table)"
        if let filter = entityFilter(plan, mapping: mapping) { sql += " WHERE \(filter)" }
        if !plan.sortKeys.isEmpty {
            let terms = try plan.sortKeys.map { key -> String in
                guard
                    let column = mapping.schema.columnName(entity: plan.entity, property: key.key)
                        ?? plan.entity.selfAndDescendants.lazy.compactMap({
                            mapping.schema.columnName(entity: $0, property: key.key)
                        })
                        .first
                else {
                    throw CoreDataError.make(
                        NSCoreDataError, "Cannot sort \(plan.entity.name ?? "?") by \"\(key.key)\": it is not a stored property.")
                }
                return "\(column) \(key.ascending ? "ASC" : "DESC")"
            }
            sql += " ORDER BY \(terms.joined(separator: ", "))"
        }
        var arguments: StatementArguments = []
        if plan.limit > 0 || plan.offset > 0 {
            sql += " LIMIT ? OFFSET ?"
            arguments = [plan.limit > 0 ? plan.limit : -1, plan.offset]
        }
        return (sql, arguments)
    }

    /// A row of a `SELECT` of its table's `selectColumns` as a snapshot.
    func decode(_ row: Row, mapping: SQLiteStoreMapping) -> Snapshot? {
        let key: Int64 = row[0]
        let number: Int = row[1]
        let version: Int64 = row[2] ?? 1
        guard let entityMapping = mapping.mapping(number: number) else { return nil }
        let entity = entityMapping.entity
        var values = [Any?](repeating: nil, count: entity.layout.properties.count)
        for column in mapping.readPlan(number: number) {
            let value: DatabaseValue = row[column.position]
            switch column.binding {
            case .attribute(let attribute):
                values[column.index] = SQLiteValueCodec.decode(value, attribute: attribute, externalData: externalData)
            case .toOne(let relationship, _):
                guard case .int64(let destinationKey) = value.storage else { continue }
                var destination = relationship.destinationEntity
                if let position = column.entityPosition, let number = Int.fromDatabaseValue(row[position]) {
                    destination = mapping.mapping(number: number)?.entity ?? destination
                }
                if let destination { values[column.index] = objectID(entity: destination, primaryKey: destinationKey) }
            }
        }
        return Snapshot(objectID: objectID(entity: entity, primaryKey: key), version: version, values: values)
    }
}
