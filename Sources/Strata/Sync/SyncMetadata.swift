import Foundation
internal import GRDB
import StrataSyncProtocol

/// What the sync engine keeps about a store, in the store's own SQLite file (as Apple keeps
/// its mirroring metadata in `ANSCK*` tables there): each object's record name, each field's
/// clock, the links exported, the batches waiting to be pushed, and the engine's cursors.
///
/// Being in the store file is what makes it crash safe: an import writes its objects and their
/// record names and clocks in one SQLite transaction (the save's), and an export writes the
/// record names it gives, the batch it made and the history cursor in one transaction too. A
/// record name of an exported object can therefore never be lost, and a batch is built once.
struct SyncMetadata {
    /// The engine's cursors and counters, by name.
    enum Key: String {
        case clientID, exportedHistory, pullToken, nextBatch, clock, sightings, lastImport, lastExport, lastError, zone
    }

    static let stateTable = "ZSTRATASYNCSTATE"
    static let recordTable = "ZSTRATASYNCRECORD"
    static let clockTable = "ZSTRATASYNCCLOCK"
    static let linkTable = "ZSTRATASYNCLINK"
    static let outboxTable = "ZSTRATASYNCOUTBOX"
    static let assetTable = "ZSTRATASYNCASSET"
    static let deferredTable = "ZSTRATASYNCDEFERRED"

    let database: any DatabaseWriter

    /// The metadata of a SQLite store (its tables made when missing); nil for other stores.
    init?(store: NSPersistentStore) throws {
        guard let store = store as? SQLiteStore, let database = store.database else { return nil }
        self.database = database
        try database.write { db in try Self.createTables(in: db) }
    }

    /// The metadata of a store file nothing has opened, read only (`todo sync status`); nil
    /// when the file has no sync tables.
    static func existing(in store: NSPersistentStore) throws -> SyncMetadata? {
        guard let store = store as? SQLiteStore, let database = store.database else { return nil }
        let exists = try database.read { db in try db.tableExists(stateTable) }
        return exists ? SyncMetadata(database: database) : nil
    }

    private init(database: any DatabaseWriter) { self.database = database }

    /// Reads in a transaction of its own; synchronous, also when called from async code (where
    /// GRDB would otherwise pick its async form).
    func read<T>(_ body: (Database) throws -> T) throws -> T { try database.read(body) }

    /// Writes in a transaction of its own; synchronous, as `read`.
    func write<T>(_ body: (Database) throws -> T) throws -> T { try database.write(body) }

    static func createTables(in db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS \(stateTable) (ZKEY TEXT PRIMARY KEY, ZVALUE TEXT);
                CREATE TABLE IF NOT EXISTS \(recordTable) (
                    ZENTITY TEXT NOT NULL, ZPK INTEGER NOT NULL, ZRECORDNAME TEXT NOT NULL UNIQUE,
                    ZRECORDTYPE TEXT NOT NULL, PRIMARY KEY (ZENTITY, ZPK));
                CREATE TABLE IF NOT EXISTS \(clockTable) (
                    ZRECORDNAME TEXT NOT NULL, ZFIELD TEXT NOT NULL, ZCLOCK TEXT NOT NULL, ZDIGEST TEXT,
                    PRIMARY KEY (ZRECORDNAME, ZFIELD));
                CREATE TABLE IF NOT EXISTS \(linkTable) (
                    ZNAME TEXT PRIMARY KEY, ZRECORD1 TEXT NOT NULL, ZRELATIONSHIP1 TEXT NOT NULL,
                    ZRECORD2 TEXT NOT NULL, ZRELATIONSHIP2 TEXT NOT NULL);
                CREATE INDEX IF NOT EXISTS ZSTRATASYNCLINK_1 ON \(linkTable) (ZRECORD1, ZRELATIONSHIP1);
                CREATE INDEX IF NOT EXISTS ZSTRATASYNCLINK_2 ON \(linkTable) (ZRECORD2, ZRELATIONSHIP2);
                CREATE TABLE IF NOT EXISTS \(outboxTable) (
                    ZBATCH INTEGER PRIMARY KEY, ZBODY BLOB NOT NULL, ZCOUNT INTEGER, ZASSETS TEXT);
                CREATE TABLE IF NOT EXISTS \(assetTable) (ZSHA256 TEXT PRIMARY KEY, ZBYTES BLOB NOT NULL);
                CREATE TABLE IF NOT EXISTS \(deferredTable) (ZRECORDNAME TEXT PRIMARY KEY, ZBODY BLOB NOT NULL);
                """)
        // Outboxes made before batches kept their change count and asset hashes beside their
        // JSON: the columns are added, and their batches (NULL there) are read from the JSON.
        let outboxColumns = Set(try db.columns(in: outboxTable).map(\.name))
        for (column, type) in [("ZCOUNT", "INTEGER"), ("ZASSETS", "TEXT")] where !outboxColumns.contains(column) {
            try db.execute(sql: "ALTER TABLE \(outboxTable) ADD COLUMN \(column) \(type)")
        }
        // Clocks written before the value's digest was kept beside them have none: their field
        // counts as changed at its next local write (a new clock, as before).
        if !(try db.columns(in: clockTable).contains { $0.name == "ZDIGEST" }) {
            try db.execute(sql: "ALTER TABLE \(clockTable) ADD COLUMN ZDIGEST TEXT")
        }
    }

    // MARK: State

    static func value(_ key: Key, in db: Database) throws -> String? {
        try String.fetchOne(db, sql: "SELECT ZVALUE FROM \(stateTable) WHERE ZKEY = ?", arguments: [key.rawValue])
    }

    static func setValue(_ value: String?, for key: Key, in db: Database) throws {
        if let value {
            try db.execute(
                sql: "INSERT OR REPLACE INTO \(stateTable) (ZKEY, ZVALUE) VALUES (?, ?)", arguments: [key.rawValue, value])
        } else {
            try db.execute(sql: "DELETE FROM \(stateTable) WHERE ZKEY = ?", arguments: [key.rawValue])
        }
    }

    static func int(_ key: Key, in db: Database) throws -> Int64? { try value(key, in: db).flatMap { Int64($0) } }

    static func date(_ key: Key, in db: Database) throws -> Date? {
        try value(key, in: db).flatMap(Double.init).map(Date.init(timeIntervalSinceReferenceDate:))
    }

    static func setDate(_ date: Date, for key: Key, in db: Database) throws {
        try setValue(String(date.timeIntervalSinceReferenceDate), for: key, in: db)
    }

    /// The client ID, made on first use and kept for good.
    static func clientID(in db: Database) throws -> String {
        if let id = try value(.clientID, in: db) { return id }
        let id = UUID().uuidString.lowercased()
        try setValue(id, for: .clientID, in: db)
        return id
    }

    // MARK: Record names

    static func recordName(entity: String, primaryKey: Int64, in db: Database) throws -> String? {
        try String.fetchOne(
            db.cachedStatement(sql: "SELECT ZRECORDNAME FROM \(recordTable) WHERE ZENTITY = ? AND ZPK = ?"),
            arguments: [entity, primaryKey])
    }

    /// The object a record name was given to.
    static func object(named recordName: String, in db: Database) throws -> (entity: String, primaryKey: Int64)? {
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT ZENTITY, ZPK FROM \(recordTable) WHERE ZRECORDNAME = ?"),
                arguments: [recordName])
        else { return nil }
        return (row[0], row[1])
    }

    /// The objects given the record names of a JSON array.
    static func objects(namedIn names: String, in db: Database) throws -> [String: (entity: String, primaryKey: Int64)] {
        var objects: [String: (entity: String, primaryKey: Int64)] = [:]
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT ZRECORDNAME, ZENTITY, ZPK FROM \(recordTable)
                WHERE ZRECORDNAME IN (SELECT value FROM json_each(?))
                """, arguments: [names])
        while let row = try rows.next() { objects[row[0]] = (row[1], row[2]) }
        return objects
    }

    /// Names as one JSON array, bound as one parameter and read by `json_each`.
    static func jsonArray(_ names: [String]) throws -> String {
        String(decoding: try JSONEncoder().encode(names), as: UTF8.self)
    }

    static func setRecordName(
        _ recordName: String, recordType: String, entity: String, primaryKey: Int64, in db: Database
    ) throws {
        // Statements prepared once per connection: an export or import of 100,000 objects
        // runs these as often.
        try db.cachedStatement(sql: "DELETE FROM \(recordTable) WHERE ZRECORDNAME = ? OR (ZENTITY = ? AND ZPK = ?)")
            .execute(arguments: [recordName, entity, primaryKey])
        try db.cachedStatement(
            sql: "INSERT INTO \(recordTable) (ZENTITY, ZPK, ZRECORDNAME, ZRECORDTYPE) VALUES (?, ?, ?, ?)"
        ).execute(arguments: [entity, primaryKey, recordName, recordType])
    }

    static func forgetRecord(_ recordName: String, in db: Database) throws {
        try db.execute(sql: "DELETE FROM \(recordTable) WHERE ZRECORDNAME = ?", arguments: [recordName])
        try db.execute(sql: "DELETE FROM \(clockTable) WHERE ZRECORDNAME = ?", arguments: [recordName])
    }

    // MARK: Clocks

    static func clocks(of recordName: String, in db: Database) throws -> [String: HybridLogicalClock] {
        var clocks: [String: HybridLogicalClock] = [:]
        for row in try Row.fetchAll(
            db.cachedStatement(sql: "SELECT ZFIELD, ZCLOCK FROM \(clockTable) WHERE ZRECORDNAME = ?"),
            arguments: [recordName])
        {
            if let clock = HybridLogicalClock(row[1] as String) { clocks[row[0]] = clock }
        }
        return clocks
    }

    /// The clocks of the records named in a JSON array, by record name.
    static func clocks(ofRecordsIn names: String, in db: Database) throws -> [String: [String: HybridLogicalClock]] {
        var clocks: [String: [String: HybridLogicalClock]] = [:]
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT ZRECORDNAME, ZFIELD, ZCLOCK FROM \(clockTable)
                WHERE ZRECORDNAME IN (SELECT value FROM json_each(?))
                """, arguments: [names])
        while let row = try rows.next() {
            if let clock = HybridLogicalClock(row[2] as String) { clocks[row[0], default: [:]][row[1]] = clock }
        }
        return clocks
    }

    /// Keeps a field's clock, and the digest of the value sent or received with it
    /// (`SyncRecordMapping.digest(of:)`; nil for a deletion or a link's fields).
    static func setClock(
        _ clock: HybridLogicalClock, field: String, of recordName: String, digest: String? = nil, in db: Database
    ) throws {
        try db.cachedStatement(
            sql: "INSERT OR REPLACE INTO \(clockTable) (ZRECORDNAME, ZFIELD, ZCLOCK, ZDIGEST) VALUES (?, ?, ?, ?)"
        ).execute(arguments: [recordName, field, clock.description, digest])
    }

    /// The digests of the values last sent or received for a record's fields, by field.
    static func digests(of recordName: String, in db: Database) throws -> [String: String] {
        var digests: [String: String] = [:]
        let rows = try Row.fetchCursor(
            db.cachedStatement(
                sql: "SELECT ZFIELD, ZDIGEST FROM \(clockTable) WHERE ZRECORDNAME = ? AND ZDIGEST IS NOT NULL"),
            arguments: [recordName])
        while let row = try rows.next() { digests[row[0]] = row[1] }
        return digests
    }

    // MARK: Links

    /// The links exported or imported from one end: link name and the other end's record.
    static func links(
        from recordName: String, relationship: String, in db: Database
    ) throws -> [(name: String, other: String)] {
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT ZNAME, ZRECORD2 FROM \(linkTable) WHERE ZRECORD1 = ? AND ZRELATIONSHIP1 = ?
                UNION ALL SELECT ZNAME, ZRECORD1 FROM \(linkTable) WHERE ZRECORD2 = ? AND ZRELATIONSHIP2 = ?
                """, arguments: [recordName, relationship, recordName, relationship])
        return rows.map { ($0[0], $0[1]) }
    }

    /// A link the link table knows, seen from one of its ends.
    struct KnownLink {
        var name: String
        var relationship: String
        var other: String
    }

    /// The links the link table knows for the records named in a JSON array, by record: the
    /// link's name, the record's relationship and the other end's record.
    static func links(ofRecordsIn names: String, in db: Database) throws -> [String: [KnownLink]] {
        var links: [String: [KnownLink]] = [:]
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT ZRECORD1, ZNAME, ZRELATIONSHIP1, ZRECORD2 FROM \(linkTable)
                WHERE ZRECORD1 IN (SELECT value FROM json_each(?1))
                UNION ALL SELECT ZRECORD2, ZNAME, ZRELATIONSHIP2, ZRECORD1 FROM \(linkTable)
                WHERE ZRECORD2 IN (SELECT value FROM json_each(?1))
                """, arguments: [names])
        while let row = try rows.next() {
            links[row[0], default: []].append(KnownLink(name: row[1], relationship: row[2], other: row[3]))
        }
        return links
    }

    /// The clocks of the newest deletes known here (received, or made here) of the records
    /// named in a JSON array, by record name.
    static func deleteClocks(ofRecordsIn names: String, in db: Database) throws -> [String: HybridLogicalClock] {
        var clocks: [String: HybridLogicalClock] = [:]
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT ZRECORDNAME, ZCLOCK FROM \(clockTable)
                WHERE ZFIELD = ? AND ZRECORDNAME IN (SELECT value FROM json_each(?))
                """, arguments: [SyncExporter.deletedField, names])
        while let row = try rows.next() {
            if let clock = HybridLogicalClock(row[1] as String) { clocks[row[0]] = clock }
        }
        return clocks
    }

    static func link(named name: String, in db: Database) throws -> (SyncRecordMapping.LinkEnd, SyncRecordMapping.LinkEnd)? {
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT ZRECORD1, ZRELATIONSHIP1, ZRECORD2, ZRELATIONSHIP2 FROM \(linkTable) WHERE ZNAME = ?",
                arguments: [name])
        else { return nil }
        return (
            SyncRecordMapping.LinkEnd(entity: "", recordName: row[0], relationship: row[1]),
            SyncRecordMapping.LinkEnd(entity: "", recordName: row[2], relationship: row[3])
        )
    }

    static func setLink(
        _ name: String, _ one: SyncRecordMapping.LinkEnd, _ other: SyncRecordMapping.LinkEnd, in db: Database
    ) throws {
        try db.execute(
            sql:
                "INSERT OR REPLACE INTO \(linkTable) (ZNAME, ZRECORD1, ZRELATIONSHIP1, ZRECORD2, ZRELATIONSHIP2) VALUES (?, ?, ?, ?, ?)",
            arguments: [name, one.recordName, one.relationship, other.recordName, other.relationship])
    }

    static func removeLink(_ name: String, in db: Database) throws {
        try db.execute(sql: "DELETE FROM \(linkTable) WHERE ZNAME = ?", arguments: [name])
    }

    // MARK: Outbox and assets

    /// Keeps a batch as the JSON a push request carries, with its change count and the asset
    /// hashes its fields name, so that pushing reads neither back into values.
    static func enqueue(_ batch: ChangeBatch, in db: Database) throws {
        let assets = assetHashes(of: batch)
        try db.cachedStatement(
            sql: "INSERT OR REPLACE INTO \(outboxTable) (ZBATCH, ZBODY, ZCOUNT, ZASSETS) VALUES (?, ?, ?, ?)"
        ).execute(arguments: [
            batch.batchSequence, try WireJSON.encode(batch), batch.changes.count,
            assets.isEmpty ? nil : assets.joined(separator: " "),
        ])
    }

    /// The assets a batch's fields name, each once, in order.
    static func assetHashes(of batch: ChangeBatch) -> [String] {
        Set(batch.changes.flatMap { $0.fields.values.compactMap(\.assetHash) }).sorted()
    }

    /// A batch of the outbox as stored: its JSON, untouched, and what pushing needs to know.
    struct StoredBatch {
        var batchSequence: Int64
        var body: Data
        var changeCount: Int
        var assets: [String]
    }

    /// The first batches of the outbox, in order, as many as one push request takes: up to
    /// `maximumChanges` changes (at least one batch). Batches are read one at a time and their
    /// JSON is not decoded (a batch written before the count was kept is, once).
    static func outboxRequest(maximumChanges: Int, in db: Database) throws -> [StoredBatch] {
        let rows = try Row.fetchCursor(db, sql: "SELECT ZBATCH, ZBODY, ZCOUNT, ZASSETS FROM \(outboxTable) ORDER BY ZBATCH")
        var batches: [StoredBatch] = []
        var count = 0
        while let row = try rows.next() {
            let body: Data = row[1]
            var stored = StoredBatch(
                batchSequence: row[0], body: body, changeCount: row[2] ?? 0,
                assets: (row[3] as String?)?.split(separator: " ").map(String.init) ?? [])
            if row[2] as Int? == nil {
                let batch = try JSONDecoder().decode(ChangeBatch.self, from: body)
                stored.changeCount = batch.changes.count
                stored.assets = assetHashes(of: batch)
            }
            if !batches.isEmpty && count + stored.changeCount > maximumChanges { break }
            batches.append(stored)
            count += stored.changeCount
        }
        return batches
    }

    static func outbox(limit: Int, in db: Database) throws -> [ChangeBatch] {
        let bodies = try Data.fetchAll(db, sql: "SELECT ZBODY FROM \(outboxTable) ORDER BY ZBATCH LIMIT ?", arguments: [limit])
        let decoder = JSONDecoder()
        return try bodies.map { try decoder.decode(ChangeBatch.self, from: $0) }
    }

    /// The record changes waiting in the outbox.
    /// (A store last opened before the count was kept, read by `todo sync status` without
    /// being opened for writing, has no count column: its JSON is counted.)
    static func outboxChangeCount(in db: Database) throws -> Int {
        let fromBody = "json_array_length(CAST(ZBODY AS TEXT), '$.changes')"
        let hasCount = try db.columns(in: outboxTable).contains { $0.name == "ZCOUNT" }
        let count = hasCount ? "coalesce(ZCOUNT, \(fromBody))" : fromBody
        return try Int.fetchOne(db, sql: "SELECT coalesce(sum(\(count)), 0) FROM \(outboxTable)") ?? 0
    }

    static func outboxCount(in db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT count(*) FROM \(outboxTable)") ?? 0
    }

    static func removeFromOutbox(through batchSequence: Int64, in db: Database) throws {
        try db.execute(sql: "DELETE FROM \(outboxTable) WHERE ZBATCH <= ?", arguments: [batchSequence])
    }

    static func keepAsset(_ bytes: Data, sha256: String, in db: Database) throws {
        try db.execute(
            sql: "INSERT OR IGNORE INTO \(assetTable) (ZSHA256, ZBYTES) VALUES (?, ?)", arguments: [sha256, bytes])
    }

    static func asset(_ sha256: String, in db: Database) throws -> Data? {
        try Data.fetchOne(db, sql: "SELECT ZBYTES FROM \(assetTable) WHERE ZSHA256 = ?", arguments: [sha256])
    }

    static func removeAsset(_ sha256: String, in db: Database) throws {
        try db.execute(sql: "DELETE FROM \(assetTable) WHERE ZSHA256 = ?", arguments: [sha256])
    }

    // MARK: Deferred records

    /// Records that could not be applied yet (a link or reference to a record not seen yet).
    static func deferred(in db: Database) throws -> [RecordState] {
        let decoder = JSONDecoder()
        return try Data.fetchAll(db, sql: "SELECT ZBODY FROM \(deferredTable)").compactMap {
            try? decoder.decode(RecordState.self, from: $0)
        }
    }

    static func setDeferred(_ records: [RecordState], in db: Database) throws {
        try db.execute(sql: "DELETE FROM \(deferredTable)")
        let encoder = JSONEncoder()
        for record in records {
            try db.execute(
                sql: "INSERT OR REPLACE INTO \(deferredTable) (ZRECORDNAME, ZBODY) VALUES (?, ?)",
                arguments: [record.recordName, try encoder.encode(record)])
        }
    }

    /// Forgets everything the server told (a resync): tokens and clocks; record names and the
    /// client's identity stay, so that objects keep their records.
    static func resetForResync(in db: Database) throws {
        try setValue(nil, for: .pullToken, in: db)
        try db.execute(sql: "DELETE FROM \(clockTable)")
        try db.execute(sql: "DELETE FROM \(deferredTable)")
    }
}
