import Foundation
internal import GRDB

/// The SQLite store, in Core Data's file layout (STORE-FORMAT §3): a store written by
/// Apple's Core Data opens here, and a store written here has the schema Apple's would have.
///
/// The file is opened through GRDB in WAL mode (readers run beside the writer); a
/// read-only store is opened without write access.
final class SQLiteStore: NSPersistentStore, @unchecked Sendable {
    override var type: String { NSSQLiteStoreType }

    private(set) var database: (any DatabaseWriter)?
    private(set) var mapping: SQLiteStoreMapping?
    /// The recorder of persistent history, when the store tracks it.
    private(set) var history: SQLiteHistory?
    /// Posts `.NSPersistentStoreRemoteChange`, when the store was added with the option.
    private var remoteChanges: SQLiteRemoteChangeWatcher?
    /// The connection for reads of one statement (`SQLiteOwnReader`), opened at the first;
    /// `closed` once the store closes, so that none opens after.
    private let ownReaderState = Protected<(reader: SQLiteOwnReader?, closed: Bool)>((nil, false))

    /// The store's own reader, opened on first use; `nil` once the store is closed, or when it
    /// cannot open (the pool then serves every read).
    func ownReader() -> SQLiteOwnReader? {
        ownReaderState.withLock { state in
            if let reader = state.reader { return reader }
            guard !state.closed, let url, !isInMemory, !isReadOnly else { return nil }
            state.reader = try? SQLiteOwnReader(path: url.path, configuration: connectionConfiguration())
            if state.reader == nil { state.closed = true }
            return state.reader
        }
    }

    override func open(model: NSManagedObjectModel) throws {
        guard let url else { throw CoreDataError.make(NSPersistentStoreOpenError, "The SQLite store needs a URL.") }
        // Whatever SQLite reports on the way (a locked or read-only file, say) is Core Data's error.
        try StoreFile.translatingSQLiteErrors(url, code: NSPersistentStoreOpenError) { try openFile(at: url, model: model) }
    }

    private func openFile(at url: URL, model: NSManagedObjectModel) throws {
        let mapping = SQLiteStoreMapping(model: model)
        var firstConnection: DatabaseQueue?
        if !isInMemory {
            try prepareFileForOpening(url, model: model)
            let exists = try StoreFile.check(url, readOnly: isReadOnly)
            if exists { try StoreFile.requireSQLiteHeader(url) }
            if exists && !isReadOnly { firstConnection = try migrateOnOwnConnection(url, model: model, mapping: mapping) }
        }
        // The first connection closes once the store's own are open: were it the last to close,
        // SQLite would remove the WAL, and GRDB's pool would write a transaction of its own (two
        // more syncs) to have one again.
        defer { try? firstConnection?.close() }
        let database = try StoreFile.translatingSQLiteErrors(url, code: NSPersistentStoreOpenError) { try openDatabase(at: url) }
        do {
            let existing = try database.read { db in try Self.readMetadata(db) }
            if let existing {
                var metadata = try migrateIfNeeded(database, metadata: existing.metadata, model: model, mapping: mapping)
                try checkCompatibility(of: metadata, with: model)
                metadata[NSStoreUUIDKey] = existing.uuid
                metadata[NSStoreTypeKey] = NSSQLiteStoreType
                self.identifier = existing.uuid
                self.loadMetadata(metadata)
                if !isReadOnly { try SQLiteDerivedAttributes.addMissingTriggers(to: database, mapping: mapping) }
            } else {
                try createSchema(in: database, mapping: mapping, model: model)
            }
        } catch {
            try? database.close()
            throw error
        }
        if tracksHistory {
            let history = SQLiteHistory(mapping: mapping, recordsValues: recordsHistoryValues)
            if !isReadOnly {
                do {
                    try database.writeWithoutTransaction { db in
                        try db.inTransaction {
                            try history.createSchema(in: db)
                            return .commit
                        }
                        try history.installBatchTable(in: db, mapping: mapping)
                    }
                } catch {
                    try? database.close()
                    throw error
                }
            }
            self.history = history
        }
        self.database = database
        self.mapping = mapping
    }

    override func close() {
        remoteChanges?.stop()
        remoteChanges = nil
        // Before the pool, so that the pool's last connection is the one that cleans up.
        ownReaderState.withLock { state in
            state.reader?.close()
            state = (nil, true)
        }
        if let database, let url, !isInMemory, !isReadOnly {
            Self.closeCompletely(database, at: url)
        } else {
            try? database?.close()
        }
        database = nil
    }

    /// Closes a store's connections so that its main file alone is the whole store, as Apple's
    /// is once it is removed: the WAL is written into the file first (a pool closes its writer
    /// before its read-only readers, and the last connection to close, being read-only, could
    /// not), then one short read-write connection, the last to close, removes the `-wal` and
    /// `-shm` files. (Another connection to the file, elsewhere, keeps them; the main file is
    /// whole all the same.)
    static func closeCompletely(_ database: any DatabaseWriter, at url: URL) {
        _ = try? database.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
        try? database.close()
        let companions = [url.path + "-wal", url.path + "-shm"]
        guard companions.contains(where: { FileManager.default.fileExists(atPath: $0) }),
            let last = try? DatabaseQueue(path: url.path)
        else { return }
        _ = try? last.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
        try? last.close()
    }

    override func didAdd(to coordinator: NSPersistentStoreCoordinator) {
        // A store in memory has no other connection to notice.
        guard Self.flag(options?[NSPersistentStoreRemoteChangeNotificationPostOptionKey]), !isInMemory, let url else { return }
        remoteChanges = try? SQLiteRemoteChangeWatcher(store: self, coordinator: coordinator, url: url, writer: database)
    }

    // Every read and write reports SQLite's errors as Core Data's (`guarded`).
    override func fetchSnapshots(_ plan: FetchPlan) throws -> [Snapshot] { try guarded { try sqliteFetchSnapshots(plan) } }
    override func fetchObjectIDs(_ plan: FetchPlan) throws -> [NSManagedObjectID] {
        try guarded { try sqliteFetchObjectIDs(plan) }
    }
    override func fetchObjectKeys(_ plan: FetchPlan, into keys: inout FetchedObjectKeys) throws {
        try guarded { try sqliteFetchObjectKeys(plan, into: &keys) }
    }
    override func count(_ plan: FetchPlan) throws -> Int { try guarded { try sqliteCount(plan) } }
    override func snapshot(for objectID: NSManagedObjectID) throws -> Snapshot? {
        try guarded { try sqliteSnapshot(for: objectID) }
    }
    override func relatedObjectIDs(
        of objectID: NSManagedObjectID, relationship: NSRelationshipDescription
    ) throws -> [NSManagedObjectID] { try guarded { try sqliteRelatedObjectIDs(of: objectID, relationship: relationship) } }
    override func relatedSnapshots(
        of objectID: NSManagedObjectID, relationship: NSRelationshipDescription
    ) throws -> [Snapshot]? { try guarded { try sqliteRelatedSnapshots(of: objectID, relationship: relationship) } }
    override func relatedSnapshots(
        of objectIDs: [NSManagedObjectID], relationship: NSRelationshipDescription
    ) throws -> [NSManagedObjectID: [Snapshot]]? {
        try guarded { try sqliteRelatedSnapshots(of: objectIDs, relationship: relationship) }
    }
    override func allocatePermanentIDs(for entities: [NSEntityDescription]) throws -> [NSManagedObjectID] {
        try guarded(NSPersistentStoreSaveError) { try sqliteAllocatePermanentIDs(for: entities) }
    }
    override func save(_ request: StoreSaveRequest) throws -> StoreSaveResult {
        try guarded(NSPersistentStoreSaveError) { try sqliteSave(request) }
    }
    override func snapshots(for objectIDs: [NSManagedObjectID]) throws -> [Snapshot] {
        try guarded { try sqliteSnapshots(for: objectIDs) }
    }
    override func relatedObjectIDs(
        of objectIDs: [NSManagedObjectID], relationship: NSRelationshipDescription
    ) throws -> [NSManagedObjectID: [NSManagedObjectID]] {
        try guarded { try sqliteRelatedObjectIDs(of: objectIDs, relationship: relationship) }
    }

    /// Runs a store operation with SQLite's errors as Core Data's: `code` (a read's
    /// `NSSQLiteError`, a write's `NSPersistentStoreSaveError`) with the SQLite error underneath.
    func guarded<T>(_ code: Int = NSSQLiteError, _ body: () throws -> T) throws -> T {
        try StoreFile.translatingSQLiteErrors(url, code: code, body)
    }

    /// A store at `/dev/null` (Xcode's template for previews and tests) is a SQLite database
    /// in memory, as with Core Data.
    var isInMemory: Bool { url?.path == "/dev/null" }

    /// Migrates an existing store that needs it (`migrateIfNeeded`) and checks its model, on
    /// one connection of its own, before the store's connections open: a
    /// pool's first writer writes a transaction of its own into a WAL that is missing or
    /// empty, so a migration (or an open) that failed after it would leave the file changed.
    /// On one connection a failure changes nothing, and a migration leaves the migrated store
    /// whole in its file. Returns the connection, open, for the caller to close once the store's
    /// own connections are open (closed here when it fails).
    private func migrateOnOwnConnection(
        _ url: URL, model: NSManagedObjectModel, mapping: SQLiteStoreMapping
    ) throws -> DatabaseQueue {
        let queue = try StoreFile.translatingSQLiteErrors(url, code: NSPersistentStoreOpenError) {
            try DatabaseQueue(path: url.path, configuration: connectionConfiguration())
        }
        do {
            try migrate(on: queue, model: model, mapping: mapping)
            return queue
        } catch {
            try? queue.close()
            throw error
        }
    }

    private func migrate(on queue: DatabaseQueue, model: NSManagedObjectModel, mapping: SQLiteStoreMapping) throws {
        guard let existing = try queue.read({ db in try Self.readMetadata(db) }) else {
            // Another database than a store is refused here, before a pool's switch to WAL
            // rewrites the file's header, rather than by `createSchema` after it.
            try queue.read { db in try requireNoTables(db) }
            return
        }
        // In WAL mode a commit need not reach the disk by itself here: the checkpoint that ends
        // a migration syncs the WAL, then the main file, before the store opens (as the pool's
        // writer, GRDB's, also runs with `synchronous = NORMAL`). A pragma the app gave wins.
        if !pragmas.keys.contains(where: { $0.lowercased() == "synchronous" }) {
            try queue.writeWithoutTransaction { db in
                if try String.fetchOne(db, sql: "PRAGMA journal_mode")?.lowercased() == "wal" {
                    try db.execute(sql: "PRAGMA synchronous = NORMAL")
                }
            }
        }
        let metadata = try migrateIfNeeded(queue, metadata: existing.metadata, model: model, mapping: mapping)
        // A store of another model fails here too, before any other connection opens.
        try checkCompatibility(of: metadata, with: model)
        try Self.checkWritable(queue)
    }

    /// A pool switches a store in another journal mode to WAL, which rewrites the file's
    /// header, and then writes (GRDB's first transaction): a damaged page that write meets
    /// would leave the file changed although the store did not open. The same kind of write,
    /// made here and rolled back, meets the damage while a rollback still leaves every byte.
    private static func checkWritable(_ queue: DatabaseQueue) throws {
        guard try queue.read({ db in try String.fetchOne(db, sql: "PRAGMA journal_mode") })?.lowercased() != "wal" else {
            return
        }
        try queue.inTransaction(.immediate) { db in
            try db.execute(sql: "CREATE TABLE strata_write_check (id INTEGER PRIMARY KEY)")
            return .rollback
        }
    }

    /// Refuses a file that has tables but no Core Data metadata: another database, which a
    /// store must not be made in.
    private func requireNoTables(_ db: Database) throws {
        let tables = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'table'") ?? 0
        guard tables == 0 else {
            throw CoreDataError.make(
                NSPersistentStoreIncompatibleSchemaError,
                "The SQLite file at \(url?.path ?? "?") is not a Core Data store (it has tables but no Z_METADATA).")
        }
    }

    /// The configuration of the store's connections: read-only or not, SQLite functions
    /// Strata's SQL uses, and the pragmas of `NSSQLitePragmasOption`.
    private func connectionConfiguration() -> Configuration {
        var configuration = Configuration()
        configuration.readonly = isReadOnly
        configuration.busyMode = .timeout(lockTimeout)
        let pragmas = self.pragmas
        let readOnlyStore = isReadOnly
        configuration.prepareDatabase { db in
            SQLiteFunctions.register(in: db)
            for (name, value) in pragmas where name.allSatisfy({ $0.isLetter || $0 == "_" }) {
                if db.configuration.readonly && !readOnlyStore {
                    // A pool's read-only readers: a pragma that writes (`user_version`,
                    // `journal_mode`) is the writer's, which ran it already.
                    try? db.execute(sql: "PRAGMA \(name) = \(value)")
                } else {
                    try db.execute(sql: "PRAGMA \(name) = \(value)")
                }
            }
        }
        return configuration
    }

    /// How long a connection waits for another's lock on the file: `NSPersistentStoreTimeoutOption`
    /// when given (a number of seconds), else 10 seconds.
    private var lockTimeout: TimeInterval {
        let seconds: Double? =
            switch options?[NSPersistentStoreTimeoutOption] {
            case let value as Double: value
            case let value as Int: Double(value)
            case let value as NSNumber: value.doubleValue
            default: nil
            }
        guard let seconds, seconds.isFinite, seconds >= 0 else { return 10 }
        return seconds
    }

    /// The pragmas of `NSSQLitePragmasOption`, as SQL values.
    private var pragmas: [String: String] {
        ((options?[NSSQLitePragmasOption] as? [String: Any]) ?? [:]).mapValues(Self.pragmaValue)
    }

    private func openDatabase(at url: URL) throws -> any DatabaseWriter {
        let configuration = connectionConfiguration()
        if isInMemory { return try DatabaseQueue(configuration: configuration) }
        if isReadOnly { return try DatabaseQueue(path: url.path, configuration: configuration) }
        // `NSSQLitePragmasOption`'s `journal_mode` other than WAL (`DELETE`, `TRUNCATE`…): one
        // connection in that mode, since a pool's readers exist only in WAL mode.
        let journalMode = pragmas.first { $0.key.lowercased() == "journal_mode" }?.value.lowercased()
        let usesWAL = journalMode == nil || journalMode == "wal"
        if !FileManager.default.fileExists(atPath: url.path) {
            // Incremental auto-vacuum (Core Data's `_NSAutoVacuumLevel` 2) must be chosen before
            // the first page is written, which switching to WAL already does.
            let creating = try DatabaseQueue(path: url.path)
            try creating.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA auto_vacuum = 2")
                if usesWAL { try db.execute(sql: "PRAGMA journal_mode = WAL") }
            }
            try creating.close()
        }
        guard usesWAL else { return try DatabaseQueue(path: url.path, configuration: configuration) }
        return try DatabasePool(path: url.path, configuration: configuration)
    }

    private static func pragmaValue(_ value: Any) -> String {
        if let number = value as? NSNumber { return number.stringValue }
        let text = String(describing: value)
        return text.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) ? text : "''"
    }

    // MARK: Schema and metadata

    private func createSchema(in database: any DatabaseWriter, mapping: SQLiteStoreMapping, model: NSManagedObjectModel) throws {
        guard !isReadOnly else {
            throw CoreDataError.make(
                NSPersistentStoreOpenError, "The read-only store at \(url?.path ?? "?") has no Core Data schema.")
        }
        let uuid = UUID().uuidString
        var metadata = Self.modelMetadata(for: model, type: NSSQLiteStoreType)
        metadata["_NSAutoVacuumLevel"] = "2"
        try database.writeWithoutTransaction { db in
            try self.requireNoTables(db)
            try db.inTransaction {
                for statement in mapping.schema.createStatements + mapping.schema.primaryKeyInsertStatements {
                    try db.execute(sql: statement)
                }
                try SQLiteDerivedAttributes.createTriggers(in: db, mapping: mapping)
                try db.execute(
                    sql: "INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)",
                    arguments: [uuid, try Self.plistData(metadata)])
                // The model as Apple's Core Data caches it, so that a store made here can be
                // migrated on Apple's systems (or here) once the app no longer ships its model.
                try StoreModelCache.write(model, in: db)
                return .commit
            }
        }
        metadata[NSStoreUUIDKey] = uuid
        identifier = uuid
        self.loadMetadata(metadata)
    }

    static func plistData(_ metadata: [String: Any]) throws -> Data {
        var stored = metadata
        stored[NSStoreUUIDKey] = nil
        return try PropertyListSerialization.data(fromPropertyList: stored, format: .binary, options: 0)
    }

    /// Z_METADATA's UUID and plist, or `nil` when the file has no Core Data schema yet.
    static func readMetadata(_ db: Database) throws -> (uuid: String, metadata: [String: Any])? {
        guard try db.tableExists("Z_METADATA") else { return nil }
        guard
            let row = try Row.fetchOne(db, sql: "SELECT Z_UUID, Z_PLIST FROM Z_METADATA WHERE Z_VERSION = 1")
                ?? Row.fetchOne(db, sql: "SELECT Z_UUID, Z_PLIST FROM Z_METADATA")
        else { return nil }
        let uuid: String = row["Z_UUID"] ?? ""
        var metadata: [String: Any] = [:]
        if let data: Data = row["Z_PLIST"],
            let plist = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        {
            for (key, value) in (plist as? [AnyHashable: Any]) ?? [:] {
                if let key = key as? String { metadata[key] = value }
            }
        }
        return (uuid, metadata)
    }

    /// The metadata of the SQLite store at the URL, read without adding it to a coordinator.
    static func readMetadata(at url: URL) throws -> [String: Any] {
        guard try StoreFile.check(url, readOnly: true) else {
            throw CoreDataError.make(
                NSFileReadNoSuchFileError, "There is no store at \(url.path).", userInfo: [NSURLErrorKey: url])
        }
        try StoreFile.requireSQLiteHeader(url)
        return try StoreFile.translatingSQLiteErrors(url) {
            var configuration = Configuration()
            configuration.readonly = true
            let queue = try DatabaseQueue(path: url.path, configuration: configuration)
            defer { try? queue.close() }
            guard let found = try queue.read({ try readMetadata($0) }) else {
                throw CoreDataError.make(
                    NSPersistentStoreIncompatibleSchemaError, "The SQLite file at \(url.path) is not a Core Data store.")
            }
            var metadata = found.metadata
            metadata[NSStoreUUIDKey] = found.uuid
            metadata[NSStoreTypeKey] = NSSQLiteStoreType
            return metadata
        }
    }

    override func saveMetadata() throws {
        guard let database else { return }
        let data = try Self.plistData(metadata ?? [:])
        try guarded(NSPersistentStoreSaveError) { try database.write { db in try self.writeMetadata(data, in: db) } }
    }

    func writeMetadata(_ data: Data, in db: Database) throws {
        try db.execute(sql: "UPDATE Z_METADATA SET Z_PLIST = ? WHERE Z_VERSION = 1", arguments: [data])
        metadataNeedsSaving = false
    }

    /// The store's connection, or an error when the store was removed.
    func openDatabase() throws -> (any DatabaseWriter, SQLiteStoreMapping) {
        guard let database, let mapping else {
            throw CoreDataError.make(NSPersistentStoreOperationError, "The store at \(url?.path ?? "?") is closed.")
        }
        return (database, mapping)
    }

    /// The connection reads go through: the store's, or within a pinned context's query
    /// generation, the generation's snapshot of the store.
    func readDatabase() throws -> (any DatabaseReader, SQLiteStoreMapping) {
        let (database, mapping) = try openDatabase()
        guard let generation = QueryGeneration.current else { return (database, mapping) }
        return (try generation.reader(for: self, database: database), mapping)
    }

    /// The folder beside the store for large binary values: `.<name>_SUPPORT/_EXTERNAL_DATA`.
    /// None for a store in memory: its large values stay in the rows.
    var externalDataDirectory: URL? {
        guard let url, !isInMemory else { return nil }
        return url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent)_SUPPORT", isDirectory: true)
            .appendingPathComponent("_EXTERNAL_DATA", isDirectory: true)
    }

    func externalData(_ identifier: String) -> Data? {
        guard let directory = externalDataDirectory, !identifier.contains("/") else { return nil }
        return try? Data(contentsOf: directory.appendingPathComponent(identifier))
    }
}

/// SQL functions Core Data's own triggers call. A connection writing to a store made by
/// Apple with derived attributes needs them, or its INSERTs and UPDATEs fail.
enum SQLiteFunctions {
    static func register(in db: Database) {
        for name in ["NSCoreDataDATriggerUpdatedAffectedObjectValue", "NSCoreDataDATriggerInsertUpdatedAffectedObjectValue"] {
            db.add(function: DatabaseFunction(name, pure: false) { _ in nil })
        }
        SQLitePredicateFunctions.register(in: db)
        SQLiteDerivedAttributeFunctions.register(in: db)
    }
}
