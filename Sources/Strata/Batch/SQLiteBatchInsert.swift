import Foundation
internal import GRDB
internal import GRDBSQLite

/// Batch insert in the SQLite store: one transaction, one prepared `INSERT` bound by position
/// for each row as it comes (a handler's rows are never all in memory), keys taken from
/// `Z_PRIMARYKEY` and written back once at the end.
///
/// Uniqueness constraints are SQLite's own unique indexes, so the upsert is
/// `INSERT … ON CONFLICT`: `DO NOTHING` keeps the row already there (error, store-trump and
/// rollback policies), `DO UPDATE` writes the new values over it and moves its `Z_OPT`
/// (object-trump: the keys the row gave; overwrite: every attribute).
extension SQLiteStore: BatchStore {
    func batchInsert(_ plan: BatchInsertPlan) throws -> BatchOutcome {
        let (database, mapping) = try openDatabase()
        guard let entity = mapping.mapping(for: plan.entity) else {
            throw CoreDataError.make(NSCoreDataError, "Entity \(plan.entity.name ?? "?") is not in the store's model.")
        }
        let files = SQLiteExternalStorage(directory: externalDataDirectory)
        let url = self.url ?? URL(fileURLWithPath: "/")
        let (outcome, replaced) = try files.transaction {
            try StoreFile.translatingSQLiteErrors(url) {
                try database.write { db in
                    // A row an upsert writes over is an update of its attributes.
                    try recordingBatchHistory(db, mapping: mapping, author: plan.author, updated: Self.attributeIndexes) {
                        let inserter = try SQLiteBatchInserter(store: self, entity: entity, mapping: mapping, plan: plan, db: db)
                        while let row = try plan.nextRow() { try inserter.insert(row, files: files) }
                        try inserter.finish()
                        _ = AffectedRowLog.drain(db)
                        return (inserter.outcome, inserter.replaced)
                    }
                }
            }
        }
        // Rows an upsert wrote over are stale in the row cache; new rows were never there.
        persistentStoreCoordinator?.rowCache.remove(replaced)
        return outcome
    }
}

extension SQLiteStore {
    /// The layout positions of an entity's stored attributes.
    static func attributeIndexes(of entity: NSEntityDescription) -> [Int]? {
        let layout = entity.layout
        return layout.persistentIndexes.filter { layout.properties[$0] is NSAttributeDescription }
    }
}

/// How one column of a batch insert's rows is bound. An attribute of a kind SQLite takes
/// straight from the row's storage is bound in place (`bindInPlace`), as saves bind; any other
/// column, or a value of another type, goes through the store's general `bind`. Worked out once
/// for the request: walking the mapping's columns copied each one's binding (an enum holding
/// the attribute) at every row, a tenth of Strata's part of an insert (B2).
private struct BindStep {
    /// The column's position in the entity mapping's `columns`.
    let column: Int
    /// The layout position of its value.
    let index: Int
    let kind: SQLiteValueKind
    /// The statement parameter of its (first) value.
    let parameter: Int32
    /// Whether the column is an attribute that may be bound in place.
    let inPlace: Bool
}

/// The state of one batch insert's transaction.
private final class SQLiteBatchInserter {
    let store: SQLiteStore
    let entity: SQLiteEntityMapping
    let mapping: SQLiteStoreMapping
    let plan: BatchInsertPlan
    let db: Database
    /// The columns of each uniqueness constraint; empty when the entity has none.
    let constraints: [[String]]
    /// The key the next new row gets.
    @exclusivity(unchecked) var nextKey: Int64
    /// Statements by the attributes an object-trump upsert writes (one entry otherwise).
    var statements: [[Int]: Statement] = [:]
    /// The statement of every row when the request needs only one (all but object-trump
    /// upserts), so that no row hashes a key to find it.
    var single: Statement?
    // Changed at every row, by this inserter only: not checked for exclusive access.
    @exclusivity(unchecked) var outcome = BatchOutcome()
    /// Stored rows an upsert wrote over.
    var replaced: [NSManagedObjectID] = []
    /// The ID every row's change carries while it is bound.
    let placeholder: NSManagedObjectID
    /// How each column is bound, worked out once for the request.
    let steps: [BindStep]

    init(store: SQLiteStore, entity: SQLiteEntityMapping, mapping: SQLiteStoreMapping, plan: BatchInsertPlan, db: Database) throws
    {
        self.store = store
        self.entity = entity
        self.mapping = mapping
        self.plan = plan
        self.db = db
        constraints = plan.entity.uniquenessConstraintNames.compactMap { names in
            let columns = names.compactMap { mapping.schema.columnName(entity: plan.entity, property: $0) }
            return columns.isEmpty || columns.count != names.count ? nil : columns
        }
        let root = entity.rootNumber
        let recorded = try Int64.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", arguments: [root]) ?? 0
        let used = try Int64.fetchOne(db, sql: "SELECT max(Z_PK) FROM \(entity.table)") ?? 0
        nextKey = max(recorded, used) + 1
        placeholder = store.objectID(entity: plan.entity, primaryKey: nextKey)
        var parameter: Int32 = 4
        steps = entity.columns.enumerated().map { position, column in
            defer {
                parameter += 1
                if case .toOne(_, _?) = column.binding { parameter += 1 }
            }
            var inPlace = false
            if case .attribute = column.binding { inPlace = column.kind != .other }
            return BindStep(column: position, index: column.index, kind: column.kind, parameter: parameter, inPlace: inPlace)
        }
    }

    func insert(_ row: BatchRow, files: SQLiteExternalStorage) throws {
        let statement = try self.statement(for: row)
        let raw = statement.sqliteStatement
        sqlite3_bind_int64(raw, 1, nextKey)
        sqlite3_bind_int64(raw, 2, Int64(entity.number))
        sqlite3_bind_int64(raw, 3, 1)
        for step in steps {
            if step.inPlace, SQLiteStore.bindInPlace(row.values, at: step.index, kind: step.kind, to: raw, at: step.parameter) {
                continue
            }
            // Binding reads only the values; the ID names the row in errors about relationships,
            // which a batch insert has none of.
            let change = RowChange(objectID: placeholder, values: row.values, changed: [], expectedVersion: 0)
            var parameter = step.parameter
            try store.bind(
                entity.columns[step.column], of: change, to: raw, at: &parameter, store: mapping, resolve: { $0 }, files: files)
        }
        guard let written = try step(statement) else { return }
        if written.key == nextKey {
            nextKey += 1
            outcome.count += 1
            if plan.collectsIDs { outcome.objectIDs.append(store.objectID(entity: plan.entity, primaryKey: written.key)) }
        } else {
            let rowEntity = mapping.mapping(number: written.entity, rowOf: entity).entity
            let existing = store.objectID(entity: rowEntity, primaryKey: written.key)
            replaced.append(existing)
            outcome.count += 1
            if plan.collectsIDs { outcome.objectIDs.append(existing) }
        }
    }

    /// Records the keys used in `Z_PRIMARYKEY`.
    func finish() throws {
        try db.execute(
            sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = max(Z_MAX, ?) WHERE Z_ENT = ?", arguments: [nextKey - 1, entity.rootNumber])
    }

    /// Runs the bound statement; the key and entity of the row it wrote, `nil` when a
    /// conflict kept the stored row.
    private func step(_ statement: Statement) throws -> (key: Int64, entity: Int)? {
        let raw = statement.sqliteStatement
        var written: (key: Int64, entity: Int)?
        var code = sqlite3_step(raw)
        while code == SQLITE_ROW {
            written = (sqlite3_column_int64(raw, 0), Int(sqlite3_column_int64(raw, 1)))
            code = sqlite3_step(raw)
        }
        guard code == SQLITE_DONE else {
            let error = SQLiteStore.statementError(code, db: db, sql: statement.sql)
            sqlite3_reset(raw)
            throw error
        }
        sqlite3_reset(raw)
        if constraints.isEmpty { return (nextKey, entity.number) }
        return written
    }

    /// The prepared statement for a row: one for the request, or one per set of given
    /// attributes for an object-trump upsert.
    private func statement(for row: BatchRow) throws -> Statement {
        if let single { return single }
        let byGiven = plan.policy == .mergeByPropertyObjectTrumpMergePolicyType && !constraints.isEmpty
        let key = byGiven ? row.given : []
        if let statement = statements[key] { return statement }
        let statement = SQLiteStore.cleared(try db.makeStatement(sql: sql(writing: key)))
        statements[key] = statement
        if !byGiven { single = statement }
        return statement
    }

    private func sql(writing given: [Int]) -> String {
        guard !constraints.isEmpty else { return entity.insertSQL }
        guard plan.replacesStoredRow else { return entity.insertSQL + " ON CONFLICT DO NOTHING RETURNING Z_PK, Z_ENT" }
        let overwrites = plan.policy == .overwriteMergePolicyType
        let written = Set(given)
        let columns = entity.columns.compactMap { column -> String? in
            switch column.binding {
            case .toOne: return nil
            case .attribute(let attribute) where attribute is NSDerivedAttributeDescription: return nil
            case .attribute, .compositeLeaf: return overwrites || written.contains(column.index) ? column.name : nil
            }
        }
        let assignments = (columns.map { "\($0) = excluded.\($0)" } + ["Z_OPT = Z_OPT + 1"]).joined(separator: ", ")
        let clauses = constraints.map { "ON CONFLICT (\($0.joined(separator: ", "))) DO UPDATE SET \(assignments)" }
        return entity.insertSQL + " " + clauses.joined(separator: " ") + " RETURNING Z_PK, Z_ENT"
    }
}
