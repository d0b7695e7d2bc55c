import Foundation
internal import GRDB

/// Moving, copying and removing whole stores: `migratePersistentStore`,
/// `replacePersistentStore` and `destroyPersistentStore`.
extension NSPersistentStoreCoordinator {
    /// Copies every object of a store into a new store of the given type at the URL, then
    /// removes the old store from the coordinator (its file is left as it was) and returns
    /// the new one. On failure the new file is removed and the old store stays added.
    /// Large binary values are written anew by the new store (to its own external data files
    /// when it is a SQLite store, inline otherwise).
    @discardableResult
    public func migratePersistentStore(
        _ store: NSPersistentStore, to url: URL, options: [AnyHashable: Any]? = nil, withType storeType: String
    ) throws -> NSPersistentStore {
        guard persistentStores.contains(where: { $0 === store }) else {
            throw CoreDataError.make(NSPersistentStoreOperationError, "The store to migrate is not in this coordinator.")
        }
        if storeType != NSInMemoryStoreType { try StoreFile.requireOwnableFile(url, operation: "migrate to") }
        let existed = FileManager.default.fileExists(atPath: url.path)
        let destination = try addPersistentStore(
            ofType: storeType, configurationName: store.configurationName, at: url, options: options)
        do {
            let request = try copyRequest(from: store)
            _ = try destination.save(request)
            var metadata = store.metadata ?? [:]
            metadata[NSStoreUUIDKey] = destination.identifier
            metadata[NSStoreTypeKey] = destination.type
            destination.metadata = metadata
            destination.metadataNeedsSaving = true
            try destination.saveMetadata()
            // The new store whole in its main file, as Apple's is when this returns.
            if let sqlite = destination as? SQLiteStore, let database = sqlite.database {
                _ = try? database.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
            }
        } catch {
            try? remove(destination)
            if !existed { try? Self.removeStoreFiles(at: url, type: storeType) }
            throw error
        }
        try remove(store)
        return destination
    }

    /// Every row of a store as inserts for another store, with every to-many given in full.
    private func copyRequest(from store: NSPersistentStore) throws -> StoreSaveRequest {
        var request = StoreSaveRequest()
        let roots = store.entities.filter { $0.superentity == nil }
        for root in roots {
            let plan = FetchPlan(entity: root, includesSubentities: true, sortKeys: [], limit: 0, offset: 0)
            for snapshot in try store.fetchSnapshots(plan) {
                let layout = snapshot.objectID.entity.layout
                var values = snapshot.values
                for index in layout.persistentIndexes where layout.isToMany(index) && values[index] == nil {
                    guard let relationship = layout.properties[index] as? NSRelationshipDescription else { continue }
                    values[index] = try store.relatedObjectIDs(of: snapshot.objectID, relationship: relationship)
                }
                request.inserts.append(
                    RowChange(objectID: snapshot.objectID, values: values, changed: layout.persistentIndexes, expectedVersion: 0))
            }
        }
        return request
    }

    /// Replaces the store at `destinationURL` with a copy of the one at `sourceURL`, with its
    /// folder of external data files. When the destination is added to this coordinator, it
    /// is reopened afterwards.
    public func replacePersistentStore(
        at destinationURL: URL, destinationOptions: [AnyHashable: Any]? = nil,
        withPersistentStoreFrom sourceURL: URL, sourceOptions: [AnyHashable: Any]? = nil, ofType storeType: String
    ) throws {
        if storeType != NSInMemoryStoreType { try StoreFile.requireOwnableFile(destinationURL, operation: "replace") }
        let open = persistentStore(for: destinationURL)
        if let open { try remove(open) }
        defer {
            if let open {
                _ = try? addPersistentStore(
                    ofType: open.type, configurationName: open.configurationName, at: destinationURL, options: open.options)
            }
        }
        switch storeType {
        case NSSQLiteStoreType:
            try StoreFile.requireSQLiteHeader(sourceURL)
            // The copied rows name the source's external data files: they come along.
            let support = try StagedSupportFolder(copying: sourceURL, for: destinationURL)
            defer { support.discard() }
            try StoreFile.translatingSQLiteErrors(sourceURL) {
                var readOnly = Configuration()
                readOnly.readonly = true
                let source = try DatabaseQueue(path: sourceURL.path, configuration: readOnly)
                defer { try? source.close() }
                var configuration = Configuration()
                configuration.prepareDatabase { SQLiteFunctions.register(in: $0) }
                let destination = try DatabaseQueue(path: destinationURL.path, configuration: configuration)
                defer { try? destination.close() }
                try source.backup(to: destination)
            }
            try support.install()
        case NSBinaryStoreType:
            let data = try Data(contentsOf: sourceURL)
            try data.write(to: destinationURL, options: .atomic)
        case NSInMemoryStoreType:
            return
        default:
            throw CoreDataError.make(NSPersistentStoreInvalidTypeError, "Unknown store type \"\(storeType)\".")
        }
    }

    /// Empties the store at the URL (removing it from this coordinator first): its journal
    /// files and its folder of external data are deleted, and a SQLite store's file is left
    /// as an empty database, as Apple's does (code written for it then deletes the file
    /// itself). Other stores' files are deleted.
    public func destroyPersistentStore(at url: URL, ofType storeType: String, options: [AnyHashable: Any]? = nil) throws {
        // `/dev/null` (an in-memory SQLite store's URL), a folder or a link out of the store's
        // folder is refused before anything is removed: Apple's throws too.
        if storeType != NSInMemoryStoreType { try StoreFile.requireOwnableFile(url, operation: "destroy") }
        if let open = persistentStore(for: url) { try remove(open) }
        try Self.removeStoreFiles(at: url, type: storeType)
        if storeType == NSSQLiteStoreType {
            try StoreFile.translatingSQLiteErrors(url) {
                // A database with no tables, written to the file (SQLite creates files lazily).
                let database = try DatabaseQueue(path: url.path)
                try database.writeWithoutTransaction { db in try db.execute(sql: "VACUUM") }
                try database.close()
            }
        }
    }

    /// Deletes the store at the URL (iOS 15 spelling).
    public func destroyPersistentStore(
        at url: URL, type: NSPersistentStore.StoreType, options: [AnyHashable: Any]? = nil
    ) throws {
        try destroyPersistentStore(at: url, ofType: type.rawValue, options: options)
    }

    static func removeStoreFiles(at url: URL, type: String) throws {
        guard type == NSSQLiteStoreType || type == NSBinaryStoreType else { return }
        let manager = FileManager.default
        let support = SQLiteExternalStorage.supportFolder(of: url)
        for path in [url.path, url.path + "-wal", url.path + "-shm", support.path] where manager.fileExists(atPath: path) {
            try manager.removeItem(atPath: path)
        }
    }
}
