import Foundation
internal import GRDB
internal import GRDBSQLite

/// Persistent history in Core Data's own tables (STORE-FORMAT §3.6): `ATRANSACTION` (one row
/// per save, its strings interned in `ATRANSACTIONSTRING`), `ACHANGE` (one row per changed
/// object: `ZCOLUMNS` the updated properties as a bit vector, `ZTOMBSTONE<n>` a deleted
/// object's preserved values), and entity numbers 16001–16003 in `Z_PRIMARYKEY`. A save's
/// history rows are written in the save's own transaction.
final class SQLiteHistory: @unchecked Sendable {
    static let changeEntity = 16001
    static let transactionEntity = 16002
    static let stringEntity = 16003

    /// Per entity: the bit of each layout position in `ZCOLUMNS` (non-transient properties,
    /// attributes and relationships together, sorted by name; bit 0 is the first byte's
    /// `0x80`), and the `ZTOMBSTONE<n>` attributes.
    struct EntityLayout {
        var bits: [Int: Int]
        var byteCount: Int
        var tombstones: [(index: Int, attribute: NSAttributeDescription)]
        var propertyByBit: [Int]
    }

    let layouts: [ObjectIdentifier: EntityLayout]
    /// How many `ZTOMBSTONE<n>` columns the model needs (the most any entity preserves).
    let tombstoneColumns: Int
    /// Whether update changes keep their old and new values (beyond Apple).
    let recordsValues: Bool

    init(mapping: SQLiteStoreMapping, recordsValues: Bool) {
        var layouts: [ObjectIdentifier: EntityLayout] = [:]
        var most = 0
        for entity in mapping.schema.orderedEntities {
            let layout = entity.layout
            let order = layout.persistentIndexes.sorted { layout.properties[$0].name < layout.properties[$1].name }
            var bits: [Int: Int] = [:]
            for (bit, index) in order.enumerated() { bits[index] = bit }
            let tombstones = HistoryChanges.preservedAttributes(of: entity)
            most = max(most, tombstones.count)
            layouts[ObjectIdentifier(entity)] = EntityLayout(
                bits: bits, byteCount: (order.count + 7) / 8, tombstones: tombstones, propertyByBit: order)
        }
        self.layouts = layouts
        self.tombstoneColumns = most
        self.recordsValues = recordsValues
    }

    // MARK: Schema

    /// Creates the history tables when the store has none yet (as Core Data does the first
    /// time a store opens with history tracking), and the tombstone columns the model needs.
    func createSchema(in db: Database) throws {
        if try !db.tableExists("ACHANGE") {
            let tombstones = (0..<tombstoneColumns).map { ", ZTOMBSTONE\($0) BLOB" }.joined()
            try db.execute(
                sql: "CREATE TABLE ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, "
                    + "ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB\(tombstones) )")
            try db.execute(sql: "CREATE INDEX ACHANGE_ZTRANSACTIONID_INDEX ON ACHANGE (ZTRANSACTIONID)")
        } else {
            let columns = Set(try db.columns(in: "ACHANGE").map { $0.name.uppercased() })
            for index in 0..<tombstoneColumns where !columns.contains("ZTOMBSTONE\(index)") {
                try db.execute(sql: "ALTER TABLE ACHANGE ADD COLUMN ZTOMBSTONE\(index) BLOB")
            }
        }
        if try !db.tableExists("ATRANSACTION") {
            try db.execute(
                sql: "CREATE TABLE ATRANSACTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS INTEGER, "
                    + "ZBUNDLEIDTS INTEGER, ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, ZTIMESTAMP FLOAT, ZAUTHOR VARCHAR, "
                    + "ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR, ZQUERYGEN BLOB )")
            for column in ["ZAUTHORTS", "ZBUNDLEIDTS", "ZCONTEXTNAMETS", "ZPROCESSIDTS"] {
                try db.execute(sql: "CREATE INDEX ATRANSACTION_\(column)_INDEX ON ATRANSACTION (\(column))")
            }
            try db.execute(
                sql: "CREATE INDEX Z_TRANSACTION_TransactionAuthorIndex ON ATRANSACTION (ZAUTHOR COLLATE BINARY ASC)")
            try db.execute(
                sql: "CREATE INDEX Z_TRANSACTION_TransactionTimestampIndex ON ATRANSACTION (ZTIMESTAMP COLLATE BINARY ASC)")
        }
        if try !db.tableExists("ATRANSACTIONSTRING") {
            try db.execute(
                sql: "CREATE TABLE ATRANSACTIONSTRING ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )")
            try db.execute(
                sql: "CREATE UNIQUE INDEX Z_TRANSACTIONSTRING_UNIQUE_NAME ON ATRANSACTIONSTRING (ZNAME COLLATE BINARY ASC)")
        }
        for (number, name) in [
            (Self.changeEntity, "CHANGE"), (Self.transactionEntity, "TRANSACTION"), (Self.stringEntity, "TRANSACTIONSTRING"),
        ] {
            try db.execute(
                sql: "INSERT OR IGNORE INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, 0, 0)",
                arguments: [number, name])
        }
        if recordsValues {
            try db.execute(
                sql: "CREATE TABLE IF NOT EXISTS STRATA_CHANGEVALUES (Z_PK INTEGER PRIMARY KEY, ZPREVIOUS BLOB, ZUPDATED BLOB)")
        }
    }

    // MARK: Writing

    /// Reserves `count` keys of a history entity from `Z_PRIMARYKEY` (as Core Data allocates
    /// rows' keys) and gives the first.
    private static func allocate(_ count: Int, of entity: Int, db: Database) throws -> Int64 {
        let last = try Int64.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", arguments: [entity]) ?? 0
        try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", arguments: [last + Int64(count), entity])
        return last + 1
    }

    /// The key of an interned string, added when new.
    private static func intern(_ text: String?, db: Database) throws -> Int64? {
        guard let text else { return nil }
        if let key = try Int64.fetchOne(db, sql: "SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ?", arguments: [text]) {
            return key
        }
        let key = try allocate(1, of: stringEntity, db: db)
        try db.execute(
            sql: "INSERT INTO ATRANSACTIONSTRING (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (?, ?, NULL, ?)",
            arguments: [key, stringEntity, text])
        return key
    }

    /// Writes a transaction and its changes; nothing when there are no changes. Returns the
    /// transaction's number.
    @discardableResult
    func record(
        _ changes: [HistoryChangeRecord], author: HistoryAuthor, db: Database, mapping: SQLiteStoreMapping
    ) throws -> Int64? {
        guard !changes.isEmpty else { return nil }
        let transaction = author.record(number: try Self.allocate(1, of: Self.transactionEntity, db: db))
        try db.execute(
            sql:
                "INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS, ZTIMESTAMP) "
                + "VALUES (?, ?, NULL, ?, ?, ?, ?, ?)",
            arguments: [
                transaction.number, Self.transactionEntity, try Self.intern(transaction.author, db: db),
                try Self.intern(transaction.bundleID, db: db), try Self.intern(transaction.contextName, db: db),
                try Self.intern(transaction.processID, db: db), transaction.timestamp.timeIntervalSinceReferenceDate,
            ])
        var key = try Self.allocate(changes.count, of: Self.changeEntity, db: db)
        let tombstones = (0..<tombstoneColumns).map { ", ZTOMBSTONE\($0)" }.joined()
        let statement = SQLiteStore.cleared(
            try db.cachedStatement(
                sql: "INSERT INTO ACHANGE (Z_PK, Z_ENT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS\(tombstones)) "
                    + "VALUES (?, \(Self.changeEntity), ?, ?, ?, ?, ?\(String(repeating: ", ?", count: tombstoneColumns)))"))
        let raw = statement.sqliteStatement
        var lastEntity: (entity: ObjectIdentifier, number: Int, layout: EntityLayout?)?
        for change in changes {
            let entityKey = ObjectIdentifier(change.entity)
            if lastEntity?.entity != entityKey {
                lastEntity = (entityKey, mapping.mapping(for: change.entity)?.number ?? 0, layouts[entityKey])
            }
            sqlite3_reset(raw)
            sqlite3_bind_int64(raw, 1, key)
            sqlite3_bind_int64(raw, 2, Int64(change.type.rawValue))
            sqlite3_bind_int64(raw, 3, Int64(lastEntity?.number ?? 0))
            sqlite3_bind_int64(raw, 4, change.primaryKey)
            sqlite3_bind_int64(raw, 5, transaction.number)
            if change.type == .update, let indexes = change.updatedIndexes, let layout = lastEntity?.layout {
                var bytes = [UInt8](repeating: 0, count: layout.byteCount)
                for index in indexes {
                    guard let bit = layout.bits[index] else { continue }
                    bytes[bit / 8] |= 0x80 >> UInt8(bit % 8)
                }
                bytes.withUnsafeBytes { buffer in
                    _ = sqlite3_bind_blob(raw, 6, buffer.baseAddress, Int32(buffer.count), sqliteTransient)
                }
            } else {
                sqlite3_bind_null(raw, 6)
            }
            for column in 0..<tombstoneColumns { sqlite3_bind_null(raw, Int32(7 + column)) }
            if change.type == .delete, let values = change.tombstone, let layout = lastEntity?.layout {
                for (column, preserved) in layout.tombstones.enumerated() {
                    let value = try SQLiteValueCodec.encode(values[preserved.attribute.name], attribute: preserved.attribute)
                    Self.bind(value, to: raw, at: Int32(7 + column))
                }
            }
            try SQLiteStore.run(statement, db)
            if let values = change.values { try recordValues(values, change: key, entity: change.entity, db: db) }
            key += 1
        }
        return transaction.number
    }

    private static func bind(_ value: DatabaseValue, to statement: SQLiteStatement, at position: Int32) {
        switch value.storage {
        case .null: sqlite3_bind_null(statement, position)
        case .int64(let number): sqlite3_bind_int64(statement, position, number)
        case .double(let number): sqlite3_bind_double(statement, position, number)
        case .string(let text): sqlite3_bind_text(statement, position, text, -1, sqliteTransient)
        case .blob(let data):
            data.withUnsafeBytes { buffer in
                _ = sqlite3_bind_blob(statement, position, buffer.baseAddress, Int32(buffer.count), sqliteTransient)
            }
        }
    }

    private func recordValues(_ values: HistoryChangeValues, change key: Int64, entity: NSEntityDescription, db: Database) throws
    {
        try db.execute(
            sql: "INSERT INTO STRATA_CHANGEVALUES (Z_PK, ZPREVIOUS, ZUPDATED) VALUES (?, ?, ?)",
            arguments: [
                key, try HistoryValueCoding.encode(values.previous, entity: entity),
                try HistoryValueCoding.encode(values.updated, entity: entity),
            ])
    }
}

/// SQLite's `SQLITE_TRANSIENT`: the bound bytes are copied before the call returns.
private let sqliteTransient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
