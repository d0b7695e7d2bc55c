import Foundation
internal import GRDB
internal import GRDBSQLite

/// Reading and trimming the history in Core Data's tables, whoever wrote it (Apple's Core
/// Data or Strata): transactions with their interned strings, changes with their entity
/// numbers, `ZCOLUMNS` bits and tombstone columns read back by the model.
extension SQLiteStore: HistoryStore {
    func historyTransactions(after bound: HistoryBound, withChanges: Bool) throws -> [HistoryTransactionRecord] {
        let (database, mapping) = try readDatabase()
        return try database.read { db in
            guard try db.tableExists("ATRANSACTION") else { return [] }
            let (condition, arguments) = Self.condition(after: bound)
            var transactions = try Row.fetchAll(
                db,
                sql: """
                    SELECT t.Z_PK, t.ZTIMESTAMP, coalesce(a.ZNAME, t.ZAUTHOR), coalesce(c.ZNAME, t.ZCONTEXTNAME),
                        coalesce(b.ZNAME, t.ZBUNDLEID), coalesce(p.ZNAME, t.ZPROCESSID)
                    FROM ATRANSACTION t
                    LEFT JOIN ATRANSACTIONSTRING a ON a.Z_PK = t.ZAUTHORTS
                    LEFT JOIN ATRANSACTIONSTRING b ON b.Z_PK = t.ZBUNDLEIDTS
                    LEFT JOIN ATRANSACTIONSTRING c ON c.Z_PK = t.ZCONTEXTNAMETS
                    LEFT JOIN ATRANSACTIONSTRING p ON p.Z_PK = t.ZPROCESSIDTS
                    WHERE \(condition) ORDER BY t.Z_PK
                    """, arguments: arguments
            ).map { row in
                HistoryTransactionRecord(
                    number: row[0], timestamp: Date(timeIntervalSinceReferenceDate: row[1] ?? 0), author: row[2],
                    contextName: row[3], bundleID: row[4], processID: row[5])
            }
            guard withChanges, !transactions.isEmpty else { return transactions }
            try readChanges(into: &transactions, db: db, mapping: mapping)
            return transactions
        }
    }

    private static func condition(after bound: HistoryBound) -> (String, StatementArguments) {
        switch bound {
        case .number(let number): ("t.Z_PK > ?", [number])
        case .date(let date): ("t.ZTIMESTAMP > ?", [date.timeIntervalSinceReferenceDate])
        case .all: ("1", [])
        }
    }

    /// Reads the changes of the transactions (in number order) into them, each transaction's
    /// in change order. Each change goes straight into its transaction: a list of them all,
    /// handed over afterwards, copied every record twice (a tenth of reading 100k changes, B1r).
    private func readChanges(
        into transactions: inout [HistoryTransactionRecord], db: Database, mapping: SQLiteStoreMapping
    ) throws {
        guard let first = transactions.first?.number, let last = transactions.last?.number else { return }
        let columns = Set(try db.columns(in: "ACHANGE").map { $0.name.uppercased() })
        var tombstoneColumns = 0
        while columns.contains("ZTOMBSTONE\(tombstoneColumns)") { tombstoneColumns += 1 }
        let hasValues = try db.tableExists("STRATA_CHANGEVALUES")
        let tombstones = (0..<tombstoneColumns).map { ", c.ZTOMBSTONE\($0)" }.joined()
        let values = hasValues ? ", v.ZPREVIOUS, v.ZUPDATED" : ""
        let join = hasValues ? " LEFT JOIN STRATA_CHANGEVALUES v ON v.Z_PK = c.Z_PK" : ""
        let statement = try db.makeStatement(
            sql: "SELECT c.Z_PK, c.ZTRANSACTIONID, c.ZCHANGETYPE, c.ZENTITY, c.ZENTITYPK, c.ZCOLUMNS\(values)\(tombstones) "
                + "FROM ACHANGE c\(join) WHERE c.ZTRANSACTIONID BETWEEN ? AND ? ORDER BY c.ZTRANSACTIONID, c.Z_PK")
        try statement.setArguments([first, last])
        let raw = statement.sqliteStatement
        let layouts = historyLayouts(mapping)
        let tombstoneStart: Int32 = hasValues ? 8 : 6
        var position = transactions.startIndex
        var entityCache: (number: Int64, entity: NSEntityDescription?, layout: SQLiteHistory.EntityLayout?) = (-1, nil, nil)
        let objectID: (NSEntityDescription, Int64) -> NSManagedObjectID = { self.objectID(entity: $0, primaryKey: $1) }
        while true {
            let code = sqlite3_step(raw)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "reading ACHANGE", sql: statement.sql)
            }
            let number = sqlite3_column_int64(raw, 3)
            if number != entityCache.number {
                let entity = mapping.mapping(number: Int(number))?.entity
                entityCache = (number, entity, entity.flatMap { layouts[ObjectIdentifier($0)] })
            }
            // A change of an entity the model does not have (a store of another model) is skipped.
            guard let entity = entityCache.entity,
                let type = NSPersistentHistoryChangeType(rawValue: Int(sqlite3_column_int64(raw, 2)))
            else { continue }
            var updatedIndexes: [Int]?
            var values: HistoryChangeValues?
            var tombstone: [String: Any]?
            if type == .update, let layout = entityCache.layout {
                updatedIndexes = Self.indexes(inBitVector: Self.blob(raw, 5), layout: layout)
                if hasValues, sqlite3_column_type(raw, 6) != SQLITE_NULL || sqlite3_column_type(raw, 7) != SQLITE_NULL {
                    values = HistoryChangeValues(
                        previous: HistoryValueCoding.decode(Self.blob(raw, 6), entity: entity, objectID: objectID) ?? [:],
                        updated: HistoryValueCoding.decode(Self.blob(raw, 7), entity: entity, objectID: objectID) ?? [:])
                }
            }
            if type == .delete, let layout = entityCache.layout {
                var preservedValues: [String: Any] = [:]
                for (column, preserved) in layout.tombstones.enumerated() where column < tombstoneColumns {
                    let value = DatabaseValue(sqliteStatement: raw, index: tombstoneStart + Int32(column))
                    if let decoded = SQLiteValueCodec.decode(value, attribute: preserved.attribute, externalData: { _ in nil }) {
                        preservedValues[preserved.attribute.name] = decoded
                    }
                }
                tombstone = preservedValues
            }
            let change = HistoryChangeRecord(
                id: sqlite3_column_int64(raw, 0), type: type, entity: entity, primaryKey: sqlite3_column_int64(raw, 4),
                updatedIndexes: updatedIndexes, tombstone: tombstone, values: values)
            // Changes come in transaction order; those of a transaction the range skips (none,
            // as transactions are numbered in order) are passed over.
            let transactionNumber = sqlite3_column_int64(raw, 1)
            while position < transactions.endIndex, transactions[position].number < transactionNumber { position += 1 }
            guard position < transactions.endIndex, transactions[position].number == transactionNumber else { continue }
            transactions[position].changes.append(change)
        }
    }

    private static func blob(_ statement: SQLiteStatement, _ column: Int32) -> Data? {
        guard sqlite3_column_type(statement, column) == SQLITE_BLOB, let bytes = sqlite3_column_blob(statement, column) else {
            return nil
        }
        return Data(bytes: bytes, count: Int(sqlite3_column_bytes(statement, column)))
    }

    /// The layout positions of the bits set in a `ZCOLUMNS` vector.
    static func indexes(inBitVector data: Data?, layout: SQLiteHistory.EntityLayout) -> [Int] {
        guard let data else { return [] }
        var indexes: [Int] = []
        for (byte, bits) in data.enumerated() where bits != 0 {
            for offset in 0..<8 where bits & (0x80 >> UInt8(offset)) != 0 {
                let bit = byte * 8 + offset
                if bit < layout.propertyByBit.count { indexes.append(layout.propertyByBit[bit]) }
            }
        }
        return indexes
    }

    /// The store's history layouts: those of its recorder, or made from the model for a store
    /// that reads history without recording it.
    private func historyLayouts(_ mapping: SQLiteStoreMapping) -> [ObjectIdentifier: SQLiteHistory.EntityLayout] {
        history?.layouts ?? SQLiteHistory(mapping: mapping, recordsValues: false).layouts
    }

    func deleteHistory(through bound: HistoryBound) throws -> Int {
        let (database, _) = try openDatabase()
        return try database.write { db in
            guard try db.tableExists("ATRANSACTION") else { return 0 }
            let condition: String
            let arguments: StatementArguments
            switch bound {
            case .number(let number): (condition, arguments) = ("Z_PK <= ?", [number])
            case .date(let date): (condition, arguments) = ("ZTIMESTAMP < ?", [date.timeIntervalSinceReferenceDate])
            case .all: (condition, arguments) = ("1", [])
            }
            guard
                let last = try Int64.fetchOne(
                    db, sql: "SELECT max(Z_PK) FROM ATRANSACTION WHERE \(condition)", arguments: arguments)
            else { return 0 }
            // History goes as a prefix: what a later token still needs stays whole.
            if try db.tableExists("STRATA_CHANGEVALUES") {
                try db.execute(
                    sql: "DELETE FROM STRATA_CHANGEVALUES WHERE Z_PK IN (SELECT Z_PK FROM ACHANGE WHERE ZTRANSACTIONID <= ?)",
                    arguments: [last])
            }
            try db.execute(sql: "DELETE FROM ACHANGE WHERE ZTRANSACTIONID <= ?", arguments: [last])
            try db.execute(sql: "DELETE FROM ATRANSACTION WHERE Z_PK <= ?", arguments: [last])
            return db.changesCount
        }
    }

    func lastHistoryNumber() throws -> Int64 {
        let (database, _) = try readDatabase()
        return try database.read { db in
            try Int64.fetchOne(
                db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", arguments: [SQLiteHistory.transactionEntity]) ?? 0
        }
    }

    func deletedHistoryNumber() throws -> Int64 {
        let (database, _) = try readDatabase()
        return try database.read { db in
            guard try db.tableExists("ATRANSACTION") else { return 0 }
            let last =
                try Int64.fetchOne(
                    db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", arguments: [SQLiteHistory.transactionEntity]) ?? 0
            // Transactions are numbered without gaps and deleted from the oldest: whatever is
            // missing before the first one kept was deleted.
            guard let first = try Int64.fetchOne(db, sql: "SELECT min(Z_PK) FROM ATRANSACTION") else { return last }
            return first - 1
        }
    }
}
