import Foundation
internal import GRDB
internal import GRDBSQLite

/// The `INSERT` and `UPDATE` of one row of a save. Each statement's text is made once per
/// entity (per changed-column set for updates), the statement is prepared once per
/// connection (GRDB's statement cache), and values are bound by position with SQLite's
/// typed functions: a save of 100,000 rows builds no SQL and no argument arrays per row.
/// The statements of the rows a save wrote last: the next row of the same entity (and, for an
/// update, the same changed properties) is bound to the same statement after a reset, without
/// hashing the SQL text to find it in the connection's cache or resetting GRDB's arguments.
/// Made for one save's transaction, where nothing else runs these statements between rows.
final class SQLiteRowStatements {
    fileprivate var insert: (entity: Int, statement: Statement)?
    fileprivate var updateEntity = -1
    fileprivate var updateChanged: [Int] = []
    fileprivate var updatePositions: [Int] = []
    fileprivate var update: Statement?
    fileprivate var delete: (entity: Int, statement: Statement)?
}

extension SQLiteStore {
    func insertRow(
        _ change: RowChange, as id: NSManagedObjectID, db: Database, mapping: SQLiteStoreMapping,
        resolve: (NSManagedObjectID) -> NSManagedObjectID, files: SQLiteExternalStorage, statements: SQLiteRowStatements,
        orderKeys: OrderedInsertKeys? = nil
    ) throws {
        guard let entity = mapping.mapping(for: id.entity) else {
            throw CoreDataError.make(NSPersistentStoreSaveError, "Entity \(id.entity.name ?? "?") is not in the store's model.")
        }
        let statement = try Self.statement(
            reusing: &statements.insert, entity: entity.number, sql: entity.insertRowSQL, db: db)
        let raw = statement.sqliteStatement
        sqlite3_bind_int64(raw, 1, id.primaryKey)
        sqlite3_bind_int64(raw, 2, Int64(entity.number))
        sqlite3_bind_int64(raw, 3, 1)
        var parameter: Int32 = 4
        for column in entity.columns {
            try bind(column, of: change, to: raw, at: &parameter, store: mapping, resolve: resolve, files: files)
        }
        for column in entity.orderColumns {
            if let key = orderKeys?.insertionKey(for: change.objectID, table: entity.table, column: column) {
                sqlite3_bind_int64(raw, parameter, key)
            } else {
                sqlite3_bind_null(raw, parameter)
            }
            parameter += 1
        }
        try Self.run(statement, db)
    }

    /// Writes the changed columns and bumps `Z_OPT`; `false` when the row is not at the
    /// expected version (or gone).
    func updateRow(
        _ change: RowChange, db: Database, mapping: SQLiteStoreMapping, resolve: (NSManagedObjectID) -> NSManagedObjectID,
        files: SQLiteExternalStorage, statements: SQLiteRowStatements
    ) throws -> Bool {
        guard let entity = mapping.mapping(for: change.objectID.entity) else { return false }
        if entity.hasExternalStorage {
            try files.noteReplacedFiles(ofRow: change.objectID.primaryKey, in: entity, changed: change.changed, db: db)
        }
        let positions: [Int]
        let statement: Statement
        if let last = statements.update, statements.updateEntity == entity.number, statements.updateChanged == change.changed {
            sqlite3_reset(last.sqliteStatement)
            statement = last
            positions = statements.updatePositions
        } else {
            // `changed` and `columns` both follow the layout's order: walk them together.
            var found: [Int] = []
            var next = change.changed.startIndex
            for (position, column) in entity.columns.enumerated() {
                while next < change.changed.endIndex && change.changed[next] < column.index { next += 1 }
                if next < change.changed.endIndex && change.changed[next] == column.index { found.append(position) }
            }
            positions = found
            let key = SQLiteStoreMapping.UpdateKey(entity: entity.number, columns: positions)
            let sql = mapping.updateTexts.text(for: key) {
                let assignments = positions.flatMap { position -> [String] in
                    let column = entity.columns[position]
                    guard case .toOne(_, let entityColumn?) = column.binding else { return ["\(column.name) = ?"] }
                    return ["\(column.name) = ?", "\(entityColumn) = ?"]
                }
                return
                    "UPDATE \(entity.table) SET \((assignments + ["Z_OPT = ?"]).joined(separator: ", ")) WHERE Z_PK = ? AND Z_OPT = ?"
            }
            statement = try Self.cleared(db.cachedStatement(sql: sql))
            statements.update = statement
            statements.updateEntity = entity.number
            statements.updateChanged = change.changed
            statements.updatePositions = positions
        }
        let raw = statement.sqliteStatement
        var parameter: Int32 = 1
        for position in positions {
            try bind(
                entity.columns[position], of: change, to: raw, at: &parameter, store: mapping, resolve: resolve, files: files)
        }
        sqlite3_bind_int64(raw, parameter, change.expectedVersion + 1)
        sqlite3_bind_int64(raw, parameter + 1, change.objectID.primaryKey)
        sqlite3_bind_int64(raw, parameter + 2, change.expectedVersion)
        try Self.run(statement, db)
        return Self.changedRows(db)
    }

    /// Deletes a row at the expected version, and its join-table links; `false` when the
    /// row is not at that version (or gone).
    func deleteRow(
        _ change: RowChange, db: Database, mapping: SQLiteStoreMapping, files: SQLiteExternalStorage,
        statements: SQLiteRowStatements
    ) throws -> Bool {
        guard let entity = mapping.mapping(for: change.objectID.entity) else { return false }
        let key = change.objectID.primaryKey
        if entity.hasExternalStorage { try files.noteReplacedFiles(ofRow: key, in: entity, changed: nil, db: db) }
        let statement = try Self.statement(reusing: &statements.delete, entity: entity.number, sql: entity.deleteSQL, db: db)
        sqlite3_bind_int64(statement.sqliteStatement, 1, key)
        sqlite3_bind_int64(statement.sqliteStatement, 2, change.expectedVersion)
        try Self.run(statement, db)
        guard Self.changedRows(db) else { return false }
        for storage in entity.toMany.values {
            if case .joinTable(let table, let selfColumn, _, _) = storage {
                try db.cachedStatement(sql: "DELETE FROM \(table) WHERE \(selfColumn) = ?").execute(arguments: [key])
            }
        }
        return true
    }

    /// Runs a bound write statement of the save's transaction with SQLite's step. GRDB's
    /// `execute` would add, per row, its checks for access regions, suspension and
    /// transaction observers (none of which a store's save uses) and its argument handling
    /// (the statement's arguments are bound by position here): 1,500 instructions a row, a
    /// tenth of an insert. A failure is GRDB's error, as `execute` throws it, with the
    /// statement reset; a transaction SQLite rolled back on its own is refused as GRDB does.
    static func run(_ statement: Statement, _ db: Database) throws {
        let raw = statement.sqliteStatement
        guard let connection = db.sqliteConnection, sqlite3_get_autocommit(connection) == 0 else {
            throw DatabaseError(resultCode: .SQLITE_ABORT, message: "Transaction was aborted", sql: statement.sql)
        }
        var code = sqlite3_step(raw)
        while code == SQLITE_ROW { code = sqlite3_step(raw) }
        guard code == SQLITE_DONE else {
            let error = SQLiteStore.statementError(code, db: db, sql: statement.sql)
            sqlite3_reset(raw)
            throw error
        }
    }

    /// The integers of the first column of the rows `statement` (cleared, with one parameter)
    /// selects for `key`, stepped directly; the statement is left reset. A failure is GRDB's
    /// error, as `run(_:_:)` throws it.
    static func keys(from statement: Statement, for key: Int64, _ db: Database) throws -> [Int64] {
        let raw = statement.sqliteStatement
        sqlite3_bind_int64(raw, 1, key)
        defer { sqlite3_reset(raw) }
        var keys: [Int64] = []
        var code = sqlite3_step(raw)
        while code == SQLITE_ROW {
            keys.append(sqlite3_column_int64(raw, 0))
            code = sqlite3_step(raw)
        }
        guard code == SQLITE_DONE else { throw SQLiteStore.statementError(code, db: db, sql: statement.sql) }
        return keys
    }

    /// Whether the last statement changed a row: SQLite's count, read directly (GRDB's
    /// `changesCount` checks the calling queue first, which cost a tenth of a row's update).
    private static func changedRows(_ db: Database) -> Bool {
        guard let connection = db.sqliteConnection else { return db.changesCount > 0 }
        return sqlite3_changes(connection) > 0
    }

    /// The statement of the previous row when it was of the same entity, reset; otherwise the
    /// connection's statement for `sql`, cleared and remembered for the next row.
    private static func statement(
        reusing last: inout (entity: Int, statement: Statement)?, entity: Int, sql: String, db: Database
    ) throws -> Statement {
        if let last, last.entity == entity {
            sqlite3_reset(last.statement.sqliteStatement)
            return last.statement
        }
        let statement = try cleared(db.cachedStatement(sql: sql))
        last = (entity, statement)
        return statement
    }

    /// A cached statement ready for bindings by position: reset (whatever its last run
    /// ended with) and without arguments, which GRDB then takes as bound.
    static func cleared(_ statement: Statement) -> Statement {
        sqlite3_reset(statement.sqliteStatement)
        statement.setUncheckedArguments(StatementArguments())
        return statement
    }

    /// Binds one column's value (two for a to-one with an entity column) from `parameter` on.
    func bind(
        _ column: SQLiteEntityMapping.Column, of change: RowChange, to statement: SQLiteStatement, at parameter: inout Int32,
        store: SQLiteStoreMapping, resolve: (NSManagedObjectID) -> NSManagedObjectID, files: SQLiteExternalStorage
    ) throws {
        switch column.binding {
        case .attribute(let attribute):
            if !Self.bindInPlace(change.values, at: column.index, kind: column.kind, to: statement, at: parameter) {
                try bindValue(
                    change.values[column.index], attribute: attribute, to: statement, at: parameter,
                    files: files)
            }
            parameter += 1
        case .compositeLeaf(let composite, let leaf):
            let value = change.values[column.index]
            if let problem = CompositeValues.problem(with: value, of: composite) {
                throw CoreDataError.make(
                    NSManagedObjectValidationError, "\(change.objectID.entity.name ?? "?").\(composite.name): \(problem).",
                    userInfo: [NSValidationKeyErrorKey: composite.name])
            }
            try bindValue(
                CompositeValues.value(at: leaf.path, in: value), attribute: leaf.attribute, to: statement, at: parameter,
                files: files)
            parameter += 1
        case .toOne(_, let entityColumn):
            let value = change.values[column.index]
            let target = (value as? NSManagedObjectID).map(resolve)
            if let target, target.isTemporaryID || target.persistentStore !== self {
                throw CoreDataError.make(
                    NSManagedObjectExternalRelationshipError,
                    "\(change.objectID) refers to \(target), which is not saved in the same store.")
            }
            if let target {
                sqlite3_bind_int64(statement, parameter, target.primaryKey)
            } else {
                sqlite3_bind_null(statement, parameter)
            }
            parameter += 1
            if entityColumn != nil {
                if let number = target.flatMap({ store.mapping(for: $0.entity)?.number }) {
                    sqlite3_bind_int64(statement, parameter, Int64(number))
                } else {
                    sqlite3_bind_null(statement, parameter)
                }
                parameter += 1
            }
        }
    }
}
