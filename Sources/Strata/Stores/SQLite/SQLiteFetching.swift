import Foundation
internal import GRDB
internal import GRDBSQLite

/// Reading rows: fetches, single rows for faults, and the destinations of to-many
/// relationships. Every value is a bound parameter; table and column names come from the
/// schema mapping, never from a request.
///
/// Each of these is one statement, which SQLite runs in a transaction of its own: they read
/// with `unsafeRead`, without the `BEGIN`/`COMMIT` that `read` adds for isolating several
/// statements (a fifth of a small fetch's time).
extension SQLiteStore {
    func sqliteFetchSnapshots(_ plan: FetchPlan) throws -> [Snapshot] {
        let (database, mapping) = try readDatabase()
        guard let root = mapping.mapping(for: plan.entity) else { return [] }
        let columns = mapping.selectLists[root.table] ?? "t0.Z_PK, t0.Z_ENT, t0.Z_OPT"
        let (sql, arguments) = try selectSQL(columnList: columns, plan: plan, mapping: mapping)
        return try readOneStatement(database) { db in
            let decoder = SQLiteRowDecoder(store: self, mapping: mapping, expected: root)
            return try readRows(db, sql: sql, arguments: arguments) { decoder.decode($0) }
        }
    }

    func sqliteFetchObjectIDs(_ plan: FetchPlan) throws -> [NSManagedObjectID] {
        let (database, mapping) = try readDatabase()
        guard let expected = mapping.mapping(for: plan.entity) else { return [] }
        let (sql, arguments) = try selectSQL(columnList: "t0.Z_PK, t0.Z_ENT", plan: plan, mapping: mapping)
        return try readOneStatement(database) { db in
            let decoder = SQLiteRowDecoder(store: self, mapping: mapping, expected: expected)
            return try readRows(db, sql: sql, arguments: arguments) { decoder.objectID($0, key: 0, entity: 1) }
        }
    }

    /// The keys of a fetch's rows, read one row at a time into the compact list: no ID
    /// object, and no array of them, at any moment.
    func sqliteFetchObjectKeys(_ plan: FetchPlan, into keys: inout FetchedObjectKeys) throws {
        let (database, mapping) = try readDatabase()
        guard let expected = mapping.mapping(for: plan.entity) else { return }
        let (sql, arguments) = try selectSQL(columnList: "t0.Z_PK, t0.Z_ENT", plan: plan, mapping: mapping)
        try readOneStatement(database) { db in
            let decoder = SQLiteRowDecoder(store: self, mapping: mapping, expected: expected)
            try forEachRow(db, sql: sql, arguments: arguments) { statement in
                keys.append(
                    entity: decoder.entity(statement, entityColumn: 1), store: self,
                    primaryKey: sqlite3_column_int64(statement, 0))
            }
        }
    }

    /// Each row of a query, made into a value by `body` from the statement (columns by
    /// position).
    func readRows<T>(
        _ db: Database, sql: String, arguments: [DatabaseValue], _ body: (SQLiteStatement) throws -> T
    ) throws -> [T] {
        var results: [T] = []
        try forEachRow(db, sql: sql, arguments: arguments) { results.append(try body($0)) }
        return results
    }

    /// Runs `body` on the statement at each row of a query. The statement is prepared once
    /// per SQL text and kept by the connection.
    ///
    /// The statement is bound and stepped here rather than through GRDB's row cursor, which
    /// at every query made its arguments through an unspecialized generic map (7,000
    /// instructions) and a row object that read and indexed every column's name (15,000 for
    /// B6's ten columns): a fifth of a query of 20 rows beside SQLite's own work. Strings are
    /// bound with their length, so that one holding NUL characters is compared whole.
    func forEachRow(
        _ db: Database, sql: String, arguments: [DatabaseValue], _ body: (SQLiteStatement) throws -> Void
    ) throws {
        let statement = try db.cachedStatement(sql: sql)
        let raw = statement.sqliteStatement
        // A statement that a body left between rows (by throwing) starts over.
        sqlite3_reset(raw)
        defer { sqlite3_reset(raw) }
        guard Int(sqlite3_bind_parameter_count(raw)) == arguments.count else {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE,
                message: "wrong number of statement arguments: \(arguments.count) for \(sqlite3_bind_parameter_count(raw))",
                sql: sql)
        }
        for (offset, value) in arguments.enumerated() {
            let index = Int32(offset + 1)
            if case .string(let text) = value.storage {
                Self.bindText(text, to: raw, at: index)
                continue
            }
            let code = value.bind(to: raw, at: index)
            guard code == SQLITE_OK else { throw Self.statementError(code, db: db, sql: sql) }
        }
        while true {
            let code = sqlite3_step(raw)
            if code == SQLITE_ROW {
                try body(raw)
            } else if code == SQLITE_DONE {
                return
            } else {
                throw Self.statementError(code, db: db, sql: sql)
            }
        }
    }

    /// The error SQLite reports for a statement of the connection, as GRDB's. Made before the
    /// statement is reset, which clears the connection's message.
    static func statementError(_ code: Int32, db: Database, sql: String) -> DatabaseError {
        let message = db.sqliteConnection.map { String(cString: sqlite3_errmsg($0)) } ?? "SQLite error \(code)"
        return DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: sql)
    }

    func sqliteCount(_ plan: FetchPlan) throws -> Int {
        let (database, mapping) = try readDatabase()
        guard mapping.mapping(for: plan.entity) != nil else { return 0 }
        let (from, arguments) = try fromWhereSQL(plan: plan, mapping: mapping, sorted: false)
        return try readOneStatement(database) { db in
            try Int.fetchOne(db.cachedStatement(sql: "SELECT count(*) \(from)"), arguments: arguments) ?? 0
        }
    }

    func sqliteSnapshot(for objectID: NSManagedObjectID) throws -> Snapshot? {
        let (database, mapping) = try readDatabase()
        guard let entity = mapping.mapping(for: objectID.entity) else { return nil }
        let columns = mapping.selectColumns[entity.table] ?? ["Z_PK", "Z_ENT", "Z_OPT"]
        let sql = "SELECT \(columns.joined(separator: ", ")) FROM \(entity.table) WHERE Z_PK = ?"
        return try readOneStatement(database) { db in
            try readRows(db, sql: sql, arguments: [objectID.primaryKey.databaseValue]) {
                decodeRow($0, mapping: mapping, expected: entity)
            }.first
        }
    }

    func sqliteRelatedObjectIDs(
        of objectID: NSManagedObjectID, relationship: NSRelationshipDescription
    ) throws -> [NSManagedObjectID] {
        try sqliteRelatedSnapshots(of: objectID, relationship: relationship).map(\.objectID)
    }

    /// The rows of a to-many relationship's destinations, in the relationship's order: a
    /// relationship fault loads its objects' values with its IDs, as Core Data's does, so
    /// that reading them does not cost a query per object.
    func sqliteRelatedSnapshots(
        of objectID: NSManagedObjectID, relationship: NSRelationshipDescription
    ) throws -> [Snapshot] {
        let (database, mapping) = try readDatabase()
        guard let (sql, destination) = relatedRowsSQL(of: objectID.entity, relationship: relationship, mapping: mapping)
        else { return [] }
        return try readOneStatement(database) { db in
            let decoder = SQLiteRowDecoder(store: self, mapping: mapping, expected: destination)
            return try readRows(db, sql: sql, arguments: [objectID.primaryKey.databaseValue]) { decoder.decode($0) }
        }
    }

    /// The query of a to-many relationship's destination rows (their columns as `decodeRow`
    /// reads them) for one owner's key, in the relationship's order; nil when the relationship
    /// is not stored as a to-many of this entity.
    func relatedRowsSQL(
        of entity: NSEntityDescription, relationship: NSRelationshipDescription, mapping: SQLiteStoreMapping
    ) -> (sql: String, destination: SQLiteEntityMapping)? {
        guard let source = mapping.mapping(for: entity),
            let index = entity.layout.indexByName[relationship.name],
            let storage = source.toMany[index],
            let destination = relationship.destinationEntity.flatMap({ mapping.mapping(for: $0) })
        else { return nil }
        let key = SQLiteStoreMapping.RelatedKey(relationship: ObjectIdentifier(relationship), entity: source.number)
        let sql = mapping.relatedTexts.text(for: key) {
            let columns = (mapping.selectColumns[destination.table] ?? ["Z_PK", "Z_ENT", "Z_OPT"])
                .map { "d.\($0)" }.joined(separator: ", ")
            switch storage {
            case .joinTable(let table, let selfColumn, let otherColumn, let orderColumn):
                return """
                    SELECT \(columns) FROM \(table) j JOIN \(destination.table) d ON d.Z_PK = j.\(otherColumn) \
                    WHERE j.\(selfColumn) = ?\(orderColumn.map { " ORDER BY j.\($0), d.Z_PK" } ?? "")
                    """
            case .inverseForeignKey(let column, let orderColumn):
                return """
                    SELECT \(columns) FROM \(destination.table) d WHERE d.\(column) = ?\
                    \(orderColumn.map { " ORDER BY d.\($0), d.Z_PK" } ?? "")
                    """
            case .hiddenColumn(let column):
                return "SELECT \(columns) FROM \(destination.table) d WHERE d.\(column) = ?"
            }
        }
        return (sql, destination)
    }

    // MARK: SQL and decoding

    func entityFilter(_ plan: FetchPlan, mapping: SQLiteStoreMapping) -> String? {
        guard let root = mapping.mapping(for: plan.entity) else { return nil }
        let numbers = plan.entities.compactMap { mapping.mapping(for: $0)?.number }
        let inTable = plan.entity.rootEntity.selfAndDescendants.count
        // A table of one entity is read without looking at Z_ENT, as Core Data reads it.
        if inTable == 1 { return nil }
        if plan.includesSubentities && plan.entity.superentity == nil && numbers.count == inTable { return nil }
        if numbers.count == 1 { return "Z_ENT = \(numbers[0])" }
        if numbers.isEmpty { return "Z_ENT = \(root.number)" }
        return "Z_ENT IN (\(numbers.map(String.init).joined(separator: ", ")))"
    }

    /// `SELECT <columnList> FROM …` with the plan's predicate, order, limit and offset.
    private func selectSQL(
        columnList: String, plan: FetchPlan, mapping: SQLiteStoreMapping
    ) throws -> (String, [DatabaseValue]) {
        var (sql, arguments) = try mapping.queryTemplates.sql(columns: columnList, plan: plan) { plan in
            let (from, arguments) = try fromWhereValues(plan: plan, mapping: mapping, sorted: true)
            return ("SELECT \(columnList) \(from)", arguments)
        }
        if plan.limit > 0 || plan.offset > 0 {
            sql += " LIMIT ? OFFSET ?"
            arguments += [(plan.limit > 0 ? plan.limit : -1).databaseValue, plan.offset.databaseValue]
        }
        return (sql, arguments)
    }

    /// `FROM <table> t0 <joins> WHERE <entities> AND (<predicate>) [ORDER BY …]`, with the
    /// predicate and sort keys compiled to SQL.
    func fromWhereSQL(plan: FetchPlan, mapping: SQLiteStoreMapping, sorted: Bool) throws -> (String, StatementArguments) {
        let (sql, arguments) = try fromWhereValues(plan: plan, mapping: mapping, sorted: sorted)
        return (sql, StatementArguments(values: arguments))
    }

    /// `fromWhereSQL` with its arguments as values.
    private func fromWhereValues(plan: FetchPlan, mapping: SQLiteStoreMapping, sorted: Bool) throws -> (String, [DatabaseValue]) {
        guard let root = mapping.mapping(for: plan.entity) else {
            throw CoreDataError.make(NSCoreDataError, "Entity \(plan.entity.name ?? "?") is not in this store's model.")
        }
        let query = try SQLitePredicateCompiler.compile(
            predicate: plan.predicate, sortKeys: sorted ? plan.sortKeys : [], entity: plan.entity, mapping: mapping)
        var sql = "FROM \(root.table) t0"
        if !query.joins.isEmpty { sql += " " + query.joins.joined(separator: " ") }
        var conditions: [String] = []
        if let filter = entityFilter(plan, mapping: mapping) { conditions.append("t0." + filter) }
        if let condition = query.whereClause { conditions.append("(\(condition))") }
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        // The primary key breaks ties, so that pages of a sorted fetch never overlap.
        if !query.orderBy.isEmpty { sql += " ORDER BY " + (query.orderBy + ["t0.Z_PK"]).joined(separator: ", ") }
        return (sql, query.arguments)
    }

    /// A row of a `SELECT` of its table's `selectColumns` as a snapshot; the row's entity
    /// is its `Z_ENT`'s when that entity lives in the table of `expected`.
    func decode(_ row: Row, mapping: SQLiteStoreMapping, expected: SQLiteEntityMapping) -> Snapshot {
        let key: Int64 = row[0]
        let version: Int64 = row[2] ?? 1
        let entityMapping = mapping.mapping(number: row[1], rowOf: expected)
        let entity = entityMapping.entity
        var values = ValueRow(shape: entity.layout.valueShape)
        var leaves: [Int: [(path: [String], value: Any)]] = [:]
        for column in mapping.readPlan(number: entityMapping.number) {
            let value: DatabaseValue = row[column.position]
            switch column.binding {
            case .compositeLeaf(_, let leaf):
                let decoded = SQLiteValueCodec.decode(value, attribute: leaf.attribute, externalData: externalData)
                leaves[column.index, default: []] += decoded.map { [(leaf.path, $0)] } ?? []
            case .attribute(let attribute):
                values[column.index] = SQLiteValueCodec.decode(value, attribute: attribute, externalData: externalData)
            case .toOne(let relationship, _):
                guard case .int64(let destinationKey) = value.storage else { continue }
                guard let declared = relationship.destinationEntity.flatMap({ mapping.mapping(for: $0) }) else { continue }
                let number = column.entityPosition.flatMap { Int.fromDatabaseValue(row[$0]) }
                let destination = mapping.mapping(number: number, rowOf: declared).entity
                values[column.index] = objectID(entity: destination, primaryKey: destinationKey)
            }
        }
        for (index, found) in leaves { values[index] = CompositeValues.assemble(found) }
        return Snapshot(objectID: objectID(entity: entity, primaryKey: key), version: version, values: values)
    }
}

extension StatementArguments {
    /// Arguments from values already in SQLite's form. GRDB's initializer for a sequence of
    /// one convertible type maps with a key path, which the runtime makes anew at every call
    /// (7,700 instructions, an eighth of compiling a fetch); this one maps with a closure.
    init(values: [DatabaseValue]) {
        self.init(values.map { $0 as (any DatabaseValueConvertible)? })
    }

    /// Arguments that are row keys, as `init(values:)`.
    init(keys: [Int64]) {
        self.init(keys.map { $0 as (any DatabaseValueConvertible)? })
    }
}
