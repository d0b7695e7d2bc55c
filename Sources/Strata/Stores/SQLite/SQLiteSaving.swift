import Foundation
internal import GRDB
internal import GRDBSQLite

/// Writing a save: one transaction that allocates primary keys, inserts, updates with
/// optimistic locking (`… WHERE Z_PK = ? AND Z_OPT = ?`), writes to-many relationships
/// (join tables, order columns, hidden columns) and deletes. Any conflict or error rolls
/// the whole save back.
extension SQLiteStore {
    /// The order key Core Data gives the object at a position of an ordered relationship
    /// (2048, 3072, 4096… in Apple-written stores).
    static func orderKey(at position: Int) -> Int64 { Int64(position + 2) * 1024 }

    func sqliteAllocatePermanentIDs(for entities: [NSEntityDescription]) throws -> [NSManagedObjectID] {
        let (database, mapping) = try openDatabase()
        return try database.write { db in try self.allocate(entities, db: db, mapping: mapping) }
    }

    private func allocate(
        _ entities: [NSEntityDescription], db: Database, mapping: SQLiteStoreMapping
    ) throws -> [NSManagedObjectID] {
        // Inserted objects come in runs of one entity: each run is looked up and counted once.
        var runs: [(mapping: SQLiteEntityMapping, count: Int64)] = []
        var needed: [Int: Int64] = [:]
        try entities.forEachRun(where: ===) { run in
            guard let entity = run.first, let entityMapping = mapping.mapping(for: entity) else {
                throw CoreDataError.make(
                    NSPersistentStoreSaveError, "Entity \(run.first?.name ?? "?") is not in the store's model.")
            }
            runs.append((entityMapping, Int64(run.count)))
            needed[entityMapping.rootNumber, default: 0] += Int64(run.count)
        }
        var next: [Int: Int64] = [:]
        for (root, count) in needed {
            // Z_MAX, or the largest key in use when a store's Z_MAX fell behind its rows.
            let table = mapping.mapping(number: root)?.table ?? ""
            let recorded = try Int64.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", arguments: [root]) ?? 0
            let used = try Int64.fetchOne(db, sql: "SELECT max(Z_PK) FROM \(table)") ?? 0
            let current = max(recorded, used)
            try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", arguments: [current + count, root])
            next[root] = current + 1
        }
        let origin = idOrigin
        var ids: [NSManagedObjectID] = []
        ids.reserveCapacity(entities.count)
        for run in runs {
            let first = next[run.mapping.rootNumber] ?? 1
            next[run.mapping.rootNumber] = first + run.count
            let entity = run.mapping.entity
            for key in first..<first + run.count {
                ids.append(NSManagedObjectID(entity: entity, primaryKey: key, origin: origin))
            }
        }
        return ids
    }

    func sqliteSave(_ request: StoreSaveRequest) throws -> StoreSaveResult {
        let files = SQLiteExternalStorage(directory: externalDataDirectory)
        return try files.transaction { try sqliteSave(request, files: files) }
    }

    /// The save's transaction; `files` writes large binary values before it commits.
    private func sqliteSave(_ request: StoreSaveRequest, files: SQLiteExternalStorage) throws -> StoreSaveResult {
        let (database, mapping) = try openDatabase()
        let history = self.history
        let metadataData = metadataNeedsSaving ? try Self.plistData(metadata ?? [:]) : nil
        let url = self.url ?? URL(fileURLWithPath: "/")
        return try StoreFile.translatingSQLiteErrors(url) {
            try database.write { db in
                var result = StoreSaveResult()
                let temporary = request.inserts.filter { $0.objectID.persistentStore !== self }
                let permanent = try allocate(temporary.map(\.objectID.entity), db: db, mapping: mapping)
                // Relationships to objects inserted by this save point to their temporary IDs
                // (or, for a store being migrated, the IDs of the other store): the map to the
                // permanent ones is made when the first such ID is met.
                var idMap: ObjectIDDictionary<NSManagedObjectID>?
                let resolve: (NSManagedObjectID) -> NSManagedObjectID = { id in
                    guard !temporary.isEmpty, id.persistentStore !== self else { return id }
                    if idMap == nil {
                        var map = ObjectIDDictionary<NSManagedObjectID>()
                        map.reserveCapacity(temporary.count)
                        for (change, permanentID) in zip(temporary, permanent) { map[change.objectID] = permanentID }
                        idMap = map
                    }
                    return idMap?[id] ?? id
                }

                // History needs deleted rows' preserved values (and, when it records values,
                // updated rows' old values) before they change.
                let before = try history.map { try rowsBeforeSave(request, history: $0, db: db, mapping: mapping) }
                // Deletes first, so that a row replacing a deleted one with the same unique
                // values (an overwrite merge) does not trip the unique index.
                var conflicts: [VersionConflict] = []
                let statements = SQLiteRowStatements()
                for change in request.deletes
                where !(try deleteRow(change, db: db, mapping: mapping, files: files, statements: statements)) {
                    conflicts.append(try conflict(for: change, db: db, mapping: mapping))
                }
                // Temporary IDs were allocated in the order of the inserts: each insert's
                // permanent ID is the next of `permanent`, without asking `idMap`.
                var allocated = permanent.makeIterator()
                result.inserted.reserveCapacity(request.inserts.count)
                let orderKeys = OrderedInsertKeys(request, mapping: mapping)
                for change in request.inserts {
                    let id = change.objectID.persistentStore !== self ? (allocated.next() ?? change.objectID) : change.objectID
                    try insertRow(
                        change, as: id, db: db, mapping: mapping, resolve: resolve, files: files, statements: statements,
                        orderKeys: orderKeys)
                    result.inserted.append(snapshot(of: change, as: id, version: 1, resolve: resolve))
                }
                result.updated.reserveCapacity(request.updates.count)
                for change in request.updates {
                    if try updateRow(
                        change, db: db, mapping: mapping, resolve: resolve, files: files, statements: statements)
                    {
                        result.updated.append(
                            snapshot(of: change, as: change.objectID, version: change.expectedVersion + 1, resolve: resolve))
                    } else {
                        conflicts.append(try conflict(for: change, db: db, mapping: mapping))
                    }
                }
                guard conflicts.isEmpty else { throw VersionConflictError(conflicts: conflicts) }
                let writers = JoinLinkWriters(request, inserted: result.inserted, mapping: mapping)
                let links = JoinLinkInserts()
                for (change, row) in zip(request.inserts, result.inserted) {
                    try writeToMany(
                        change, as: row.objectID, isNew: true, db: db, mapping: mapping, writers: writers, inserts: links,
                        orderKeys: orderKeys, resolve: resolve)
                }
                for change in request.updates {
                    try writeToMany(
                        change, as: change.objectID, isNew: false, db: db, mapping: mapping, writers: writers,
                        inserts: links, orderKeys: orderKeys, resolve: resolve)
                }
                try links.write(to: db)
                if let metadataData { try writeMetadata(metadataData, in: db) }
                try refreshDerivedValues(&result, db: db, mapping: mapping)
                if let history, let before {
                    let changes = HistoryChanges.of(
                        request, inserted: result.inserted, tombstones: { before.tombstones[$0.objectID] },
                        values: history.recordsValues
                            ? {
                                HistoryChanges.values(
                                    of: $0, before: before.previous[$0.objectID],
                                    toManyBefore: before.previousToMany[$0.objectID], resolve: resolve)
                            } : nil)
                    try history.record(changes, author: request.historyAuthor, db: db, mapping: mapping)
                }
                try request.attachedWrite?(db)
                return result
            }
        }
    }

    private func snapshot(
        of change: RowChange, as id: NSManagedObjectID, version: Int64, resolve: (NSManagedObjectID) -> NSManagedObjectID
    ) -> Snapshot {
        // Only relationships hold IDs; attribute values are kept as they are (asking each
        // value whether it is an ID would cost a failed cast per attribute).
        var values = change.values
        let kinds = id.entity.layout.kinds
        // Each position is cast to what its kind holds: a failed cast of an array of IDs to
        // `NSManagedObjectID` bridges the whole array to an `NSArray` first (6,000 instructions
        // for a to-do's three tags, far more for a tag's to-dos).
        for index in values.indices where index < kinds.count {
            switch kinds[index] {
            case .toOne:
                if let target = values[index] as? NSManagedObjectID { values[index] = resolve(target) }
            case .toMany:
                if let targets = values[index] as? [NSManagedObjectID] { values[index] = targets.map(resolve) }
            default:
                continue
            }
        }
        return Snapshot(objectID: id, version: version, values: values)
    }

    private func conflict(for change: RowChange, db: Database, mapping: SQLiteStoreMapping) throws -> VersionConflict {
        guard let entity = mapping.mapping(for: change.objectID.entity) else {
            return VersionConflict(objectID: change.objectID, expectedVersion: change.expectedVersion, storedVersion: 0)
        }
        let columns = mapping.selectColumns[entity.table] ?? ["Z_PK", "Z_ENT", "Z_OPT"]
        let row = try Row.fetchOne(
            db, sql: "SELECT \(columns.joined(separator: ", ")) FROM \(entity.table) WHERE Z_PK = ?",
            arguments: [change.objectID.primaryKey])
        let stored = row.map { decode($0, mapping: mapping, expected: entity) }
        return VersionConflict(
            objectID: change.objectID, expectedVersion: change.expectedVersion, storedVersion: stored?.version ?? 0,
            storedSnapshot: stored)
    }
}
