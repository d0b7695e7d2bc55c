import Foundation

/// Connects contexts to stores: it opens stores for a model, routes fetches and saves to
/// the store that holds each entity, and keeps the row cache its contexts share.
///
/// ```swift
/// let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
/// try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
/// let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
/// context.persistentStoreCoordinator = coordinator
/// ```
///
/// A coordinator may be used from any thread.
open class NSPersistentStoreCoordinator: NSObject, ObjectStore, @unchecked Sendable {
    /// The model whose objects the coordinator's stores hold.
    public let managedObjectModel: NSManagedObjectModel
    /// A name for debugging.
    open var name: String?

    private let storeList = Protected([NSPersistentStore]())
    let rowCache = RowCache()
    /// Serialises `perform` blocks.
    private let queue = DispatchQueue(label: "Strata.NSPersistentStoreCoordinator")
    private let lock = NSRecursiveLock()

    public required init(managedObjectModel model: NSManagedObjectModel) {
        self.managedObjectModel = model
        super.init()
        KnownModels.add(model)
    }

    /// The stores, in the order they were added.
    open var persistentStores: [NSPersistentStore] { storeList.withLock { $0 } }

    /// The store at the URL, if it was added.
    open func persistentStore(for url: URL) -> NSPersistentStore? {
        persistentStores.first { $0.url?.standardizedFileURL == url.standardizedFileURL }
    }

    // MARK: Adding and removing stores

    /// Opens (creating if needed) a store of the type at the URL and adds it.
    ///
    /// Errors are `NSError`s in `NSCocoaErrorDomain`: an unknown type (134000), a store of
    /// another model (134100), a file that is not a store or is damaged (259, with the SQLite
    /// error underneath), a folder that is missing or cannot be written (4 or 513).
    @discardableResult
    open func addPersistentStore(
        ofType storeType: String, configurationName configuration: String?, at storeURL: URL?,
        options: [AnyHashable: Any]? = nil
    ) throws -> NSPersistentStore {
        let url = storeURL ?? URL(fileURLWithPath: "/dev/null")
        let store: NSPersistentStore
        switch storeType {
        case NSSQLiteStoreType:
            store = SQLiteStore(persistentStoreCoordinator: self, configurationName: configuration, at: url, options: options)
        case NSInMemoryStoreType:
            store = InMemoryStore(persistentStoreCoordinator: self, configurationName: configuration, at: url, options: options)
        case NSBinaryStoreType:
            store = BinaryStore(persistentStoreCoordinator: self, configurationName: configuration, at: url, options: options)
        default:
            throw CoreDataError.make(NSPersistentStoreInvalidTypeError, "Unknown store type \"\(storeType)\".")
        }
        if let configuration, configuration != NSManagedObjectModel.defaultConfigurationName,
            managedObjectModel.entities(forConfigurationName: configuration) == nil
        {
            throw CoreDataError.make(
                NSPersistentStoreInvalidTypeError, "The model has no configuration named \"\(configuration)\".")
        }
        if storeType != NSInMemoryStoreType, url.path != "/dev/null", let existing = persistentStore(for: url) {
            throw CoreDataError.make(
                NSPersistentStoreOperationError, "A store at \(url.path) is already added (\(existing.identifier ?? "")).")
        }
        postStoresWillChange(added: [store])
        try store.open(model: managedObjectModel)
        storeList.withLock { $0.append(store) }
        store.didAdd(to: self)
        postStoresDidChange(added: [store])
        return store
    }

    /// Opens a store of the type at the URL and adds it (iOS 15 spelling).
    @discardableResult
    open func addPersistentStore(
        type: NSPersistentStore.StoreType, configuration: String? = nil, at storeURL: URL,
        options: [AnyHashable: Any]? = nil
    ) throws -> NSPersistentStore {
        try addPersistentStore(ofType: type.rawValue, configurationName: configuration, at: storeURL, options: options)
    }

    /// Adds the store a description describes and reports the outcome to the handler, at
    /// once or, when `shouldAddStoreAsynchronously` is set, from another thread.
    open func addPersistentStore(
        with storeDescription: NSPersistentStoreDescription,
        completionHandler block: @escaping (NSPersistentStoreDescription, (any Error)?) -> Void
    ) {
        let work = {
            do {
                try self.addPersistentStore(
                    ofType: storeDescription.type, configurationName: storeDescription.configuration,
                    at: storeDescription.url, options: storeDescription.effectiveOptions)
                block(storeDescription, nil)
            } catch {
                block(storeDescription, error)
            }
        }
        if storeDescription.shouldAddStoreAsynchronously {
            let task = UncheckedSendable(work)
            DispatchQueue.global().async { task.value() }
        } else {
            work()
        }
    }

    /// Removes a store: its objects can no longer be fetched or saved. Observers hear of it
    /// before (`NSPersistentStoreCoordinatorWillRemoveStore`, `StoresWillChange`) and after
    /// (`StoresDidChange`).
    open func remove(_ store: NSPersistentStore) throws {
        guard persistentStores.contains(where: { $0 === store }) else {
            throw CoreDataError.make(NSPersistentStoreOperationError, "The store is not in this coordinator.")
        }
        NotificationCenter.default.post(name: .NSPersistentStoreCoordinatorWillRemoveStore, object: store)
        postStoresWillChange(removed: [store])
        let removed = storeList.withLock { list -> Bool in
            guard let index = list.firstIndex(where: { $0 === store }) else { return false }
            list.remove(at: index)
            return true
        }
        guard removed else {
            throw CoreDataError.make(NSPersistentStoreOperationError, "The store is not in this coordinator.")
        }
        store.willRemove(from: self)
        rowCache.removeAll(of: store)
        store.close()
        store.persistentStoreCoordinator = nil
        postStoresDidChange(removed: [store])
    }

    // MARK: Metadata

    /// The metadata of a store of this coordinator.
    open func metadata(for store: NSPersistentStore) -> [String: Any] { store.metadata ?? [:] }

    /// Replaces a store's metadata; it is written at the next save of a context.
    open func setMetadata(_ metadata: [String: Any]?, for store: NSPersistentStore) {
        var merged = metadata ?? [:]
        merged[NSStoreUUIDKey] = store.identifier
        merged[NSStoreTypeKey] = store.type
        store.metadata = merged
        store.metadataNeedsSaving = true
    }

    /// The metadata of the store file at the URL, without adding it.
    open class func metadataForPersistentStore(
        ofType storeType: String, at url: URL, options: [AnyHashable: Any]? = nil
    ) throws -> [String: Any] {
        switch storeType {
        case NSSQLiteStoreType: return try SQLiteStore.readMetadata(at: url)
        case NSBinaryStoreType: return try BinaryStore.readMetadata(at: url)
        default: throw CoreDataError.make(NSPersistentStoreInvalidTypeError, "Unknown store type \"\(storeType)\".")
        }
    }

    // MARK: Object IDs

    /// The ID named by an `x-coredata://STORE/Entity/pN` URI of one of the coordinator's
    /// stores, or `nil`.
    open func managedObjectID(forURIRepresentation url: URL) -> NSManagedObjectID? {
        guard let parts = NSManagedObjectID.parse(uri: url),
            let store = persistentStores.first(where: { $0.identifier == parts.store }),
            let entity = managedObjectModel.entitiesByName[parts.entity]
        else { return nil }
        return store.objectID(entity: entity, primaryKey: parts.primaryKey)
    }

    // MARK: Running work

    /// Runs the block on the coordinator's queue, later.
    open func perform(_ block: @escaping @Sendable () -> Void) {
        queue.async { [lock] in
            lock.lock()
            defer { lock.unlock() }
            block()
        }
    }

    /// Runs the block serialised with the coordinator's other work, and waits for it.
    open func performAndWait<T>(_ block: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try block()
    }

    // MARK: ObjectStore

    func stores(for entity: NSEntityDescription, affectedStores: [NSPersistentStore]?) -> [NSPersistentStore] {
        (affectedStores ?? persistentStores).filter { $0.holds(entity) }
    }

    func fetchSnapshots(_ plan: FetchPlan, affectedStores: [NSPersistentStore]?) throws -> [Snapshot] {
        let stores = stores(for: plan.entity, affectedStores: affectedStores)
        // The rows go to the objects the context makes (each holds its own), not to the row
        // cache: keeping every fetched row there cost a tenth of a large fetch, and a fault
        // of another context reads a fresh row from the store instead.
        guard stores.count > 1 else { return try stores.first?.fetchSnapshots(plan) ?? [] }
        var merged = try stores.flatMap { try $0.fetchSnapshots(plan.unpaged) }
        merged = InMemorySort.sorted(merged, by: plan.sortKeys)
        return Array(merged.dropFirst(plan.offset).prefix(plan.limit > 0 ? plan.limit : Int.max))
    }

    func fetchObjectIDs(_ plan: FetchPlan, affectedStores: [NSPersistentStore]?) throws -> [NSManagedObjectID] {
        let stores = stores(for: plan.entity, affectedStores: affectedStores)
        guard stores.count > 1 else { return try stores.first?.fetchObjectIDs(plan) ?? [] }
        return try fetchSnapshots(plan, affectedStores: affectedStores).map(\.objectID)
    }

    func fetchObjectKeys(
        _ plan: FetchPlan, affectedStores: [NSPersistentStore]?, batchSize: Int
    ) throws -> FetchedObjectKeys {
        var keys = FetchedObjectKeys(batchSize: batchSize)
        let stores = stores(for: plan.entity, affectedStores: affectedStores)
        if stores.count > 1 {
            // Several stores: their rows are merged, sorted and paged in memory first.
            for id in try fetchObjectIDs(plan, affectedStores: affectedStores) { keys.append(id) }
        } else if let store = stores.first {
            try store.fetchObjectKeys(plan, into: &keys)
        }
        return keys
    }

    func count(_ plan: FetchPlan, affectedStores: [NSPersistentStore]?) throws -> Int {
        let stores = stores(for: plan.entity, affectedStores: affectedStores)
        var total = 0
        for store in stores { total += try store.count(plan.unpaged) }
        total = max(0, total - plan.offset)
        return plan.limit > 0 ? min(total, plan.limit) : total
    }

    func snapshot(for objectID: NSManagedObjectID) throws -> Snapshot? {
        try snapshot(for: objectID, maximumAge: nil)
    }

    /// The row of an object: from the row cache when it is there (and, with a maximum age,
    /// no older than that many seconds), otherwise from its store.
    func snapshot(for objectID: NSManagedObjectID, maximumAge: TimeInterval?) throws -> Snapshot? {
        // A pinned context's reads see its generation, which the cache's rows may be newer than.
        let caching = QueryGeneration.current == nil
        if !caching {
        } else if let maximumAge {
            if let cached = rowCache.snapshot(for: objectID, maximumAge: maximumAge) { return cached }
        } else if let cached = rowCache.snapshot(for: objectID) {
            return cached
        }
        guard let store = objectID.persistentStore, store.persistentStoreCoordinator === self else { return nil }
        let snapshot = try store.snapshot(for: objectID)
        if caching, let snapshot { rowCache.store([snapshot]) }
        return snapshot
    }

    func relatedObjectIDs(
        of objectID: NSManagedObjectID, relationship: NSRelationshipDescription
    ) throws -> [NSManagedObjectID] {
        guard let store = objectID.persistentStore, store.persistentStoreCoordinator === self else { return [] }
        // Stores that read the destinations' rows with their IDs leave them in the row cache,
        // where the faults of the destinations find them.
        if let snapshots = try relatedRows(of: objectID, relationship: relationship) {
            return snapshots.map(\.objectID)
        }
        return try store.relatedObjectIDs(of: objectID, relationship: relationship)
    }

    func relatedRows(of objectID: NSManagedObjectID, relationship: NSRelationshipDescription) throws -> [Snapshot]? {
        guard let store = objectID.persistentStore, store.persistentStoreCoordinator === self else { return [] }
        guard let snapshots = try store.relatedSnapshots(of: objectID, relationship: relationship) else { return nil }
        if QueryGeneration.current == nil { rowCache.store(snapshots) }
        return snapshots
    }

    func snapshots(for objectIDs: [NSManagedObjectID]) throws -> [Snapshot] {
        var found: [Snapshot] = []
        var missing: [NSManagedObjectID] = []
        let cached = QueryGeneration.current == nil ? rowCache.snapshots(for: objectIDs) : objectIDs.map { _ in nil }
        for (id, cached) in zip(objectIDs, cached) {
            if let cached {
                found.append(cached)
            } else {
                missing.append(id)
            }
        }
        for group in groupedByStore(missing) {
            // Not kept in the row cache: the callers (batches, prefetching) give each row to
            // its object at once.
            found += try group.store.snapshots(for: group.ids)
        }
        return found
    }

    func relatedObjectIDs(
        of objectIDs: [NSManagedObjectID], relationship: NSRelationshipDescription
    ) throws -> [NSManagedObjectID: [NSManagedObjectID]] {
        var result: [NSManagedObjectID: [NSManagedObjectID]] = [:]
        for group in groupedByStore(objectIDs) {
            if let snapshots = try group.store.relatedSnapshots(of: group.ids, relationship: relationship) {
                if QueryGeneration.current == nil { rowCache.store(snapshots.values.joined()) }
                for (owner, rows) in snapshots where result[owner] == nil { result[owner] = rows.map(\.objectID) }
                continue
            }
            result.merge(try group.store.relatedObjectIDs(of: group.ids, relationship: relationship)) { a, _ in a }
        }
        return result
    }

    func relatedRows(
        of objectIDs: [NSManagedObjectID], relationship: NSRelationshipDescription
    ) throws -> [NSManagedObjectID: [Snapshot]]? {
        var result: [NSManagedObjectID: [Snapshot]] = [:]
        for group in groupedByStore(objectIDs) {
            guard let rows = try group.store.relatedSnapshots(of: group.ids, relationship: relationship) else { return nil }
            if result.isEmpty {
                result = rows
            } else {
                result.merge(rows) { a, _ in a }
            }
        }
        return result
    }

    /// The IDs of this coordinator's stores, by store (IDs of other coordinators left out).
    private func groupedByStore(_ objectIDs: [NSManagedObjectID]) -> [(store: NSPersistentStore, ids: [NSManagedObjectID])] {
        var byStore: [ObjectIdentifier: (store: NSPersistentStore, ids: [NSManagedObjectID])] = [:]
        // IDs of one store in a row (the usual case) are collected without hashing, and those
        // made by the store's current reference (`idOrigin`: the IDs a fetch made) without
        // asking it for its store again: that is a weak load of the store and of its
        // coordinator, 840 instructions an ID of a batched fetch's batch.
        var run: (origin: StoreReference, store: NSPersistentStore, ids: [NSManagedObjectID])?
        for id in objectIDs {
            if let origin = run?.origin, id.origin === origin {
                run?.ids.append(id)
                continue
            }
            guard let store = id.persistentStore, store.persistentStoreCoordinator === self else { continue }
            if let current = run?.store, current === store {
                run?.origin = id.origin
                run?.ids.append(id)
                continue
            }
            if let run { byStore[ObjectIdentifier(run.store), default: (run.store, [])].ids += run.ids }
            run = (id.origin, store, [id])
        }
        if let run { byStore[ObjectIdentifier(run.store), default: (run.store, [])].ids += run.ids }
        return Array(byStore.values)
    }

    func obtainPermanentIDs(
        for objects: [(entity: NSEntityDescription, store: NSPersistentStore?)]
    ) throws -> [NSManagedObjectID] {
        var result = [NSManagedObjectID?](repeating: nil, count: objects.count)
        var byStore: [ObjectIdentifier: (store: NSPersistentStore, positions: [Int])] = [:]
        for (position, object) in objects.enumerated() {
            guard let store = object.store ?? defaultStore(for: object.entity) else {
                throw noStore(for: object.entity)
            }
            try requireHolds(store, object.entity)
            byStore[ObjectIdentifier(store), default: (store, [])].positions.append(position)
        }
        for (_, group) in byStore {
            let ids = try group.store.allocatePermanentIDs(for: group.positions.map { objects[$0].entity })
            for (position, id) in zip(group.positions, ids) { result[position] = id }
        }
        return result.compactMap { $0 }
    }

    func save(_ request: StoreSaveRequest, assignments: [NSManagedObjectID: NSPersistentStore]) throws -> StoreSaveResult {
        // The store of each change: an inserted object's assigned store or the first that holds
        // its entity (looked up once per run of one entity), a saved object's own.
        var lastDefault: (entity: ObjectIdentifier, store: NSPersistentStore)?
        func store(ofInsert change: RowChange) throws -> NSPersistentStore {
            if !assignments.isEmpty, let assigned = assignments[change.objectID] {
                try requireHolds(assigned, change.objectID.entity)
                return assigned
            }
            if let own = change.objectID.persistentStore { return own }
            let entity = change.objectID.entity
            if let last = lastDefault, last.entity == ObjectIdentifier(entity) { return last.store }
            guard let found = defaultStore(for: entity) else { throw noStore(for: entity) }
            lastDefault = (ObjectIdentifier(entity), found)
            return found
        }
        func store(ofSaved change: RowChange) throws -> NSPersistentStore {
            guard let store = change.objectID.persistentStore, store.persistentStoreCoordinator === self else {
                throw CoreDataError.make(
                    NSPersistentStoreSaveError, "\(change.objectID) belongs to no store of this coordinator.")
            }
            return store
        }
        let insertStores = try request.inserts.map(store(ofInsert:))
        let updateStores = try request.updates.map(store(ofSaved:))
        let deleteStores = try request.deletes.map(store(ofSaved:))
        // Each store's part of the request, with the positions its inserts and updates have in
        // the whole request (the result gives rows back by position).
        struct Part {
            var store: NSPersistentStore
            var request = StoreSaveRequest()
            var inserts: [Int] = []
            var updates: [Int] = []
            /// Whether `request` is the whole request (its rows are the result's, in order).
            var isWhole = false
        }
        var parts: [ObjectIdentifier: Part] = [:]
        let first = insertStores.first ?? updateStores.first ?? deleteStores.first
        let whole = first.map { first in
            [insertStores, updateStores, deleteStores].allSatisfy { $0.allSatisfy { $0 === first } }
        }
        if let first, whole == true {
            // One store (the usual case) takes the request as it is.
            parts[ObjectIdentifier(first)] = Part(store: first, request: request, isWhole: true)
        } else {
            for (position, (change, store)) in zip(request.inserts, insertStores).enumerated() {
                parts[ObjectIdentifier(store), default: Part(store: store)].request.inserts.append(change)
                parts[ObjectIdentifier(store), default: Part(store: store)].inserts.append(position)
            }
            for (position, (change, store)) in zip(request.updates, updateStores).enumerated() {
                parts[ObjectIdentifier(store), default: Part(store: store)].request.updates.append(change)
                parts[ObjectIdentifier(store), default: Part(store: store)].updates.append(position)
            }
            for (change, store) in zip(request.deletes, deleteStores) {
                parts[ObjectIdentifier(store), default: Part(store: store)].request.deletes.append(change)
            }
            for key in parts.keys {
                parts[key]?.request.author = request.author
                parts[key]?.request.contextName = request.contextName
            }
        }
        for store in persistentStores where store.metadataNeedsSaving && parts[ObjectIdentifier(store)] == nil {
            parts[ObjectIdentifier(store)] = Part(store: store)
        }
        var result = StoreSaveResult()
        // The rows come back by position: a part that is the whole request gives them in order,
        // the parts of a split request are put back in the request's order.
        let split = whole != true
        var inserted = [Snapshot?](repeating: nil, count: split ? request.inserts.count : 0)
        var updated = [Snapshot?](repeating: nil, count: split ? request.updates.count : 0)
        for part in parts.values {
            if part.store.isReadOnly && !part.request.isEmpty {
                throw CoreDataError.make(
                    NSPersistentStoreSaveError, "The store at \(part.store.url?.path ?? "?") is read-only.",
                    userInfo: [NSAffectedStoresErrorKey: [part.store]])
            }
            let partial = try part.store.save(part.request)
            guard partial.inserted.count == part.request.inserts.count, partial.updated.count == part.request.updates.count
            else {
                throw CoreDataError.make(
                    NSPersistentStoreSaveError,
                    "The store at \(part.store.url?.path ?? "?") reported \(partial.inserted.count) of "
                        + "\(part.request.inserts.count) inserted and \(partial.updated.count) of "
                        + "\(part.request.updates.count) updated rows.",
                    userInfo: [NSAffectedStoresErrorKey: [part.store]])
            }
            if part.isWhole {
                result.inserted = partial.inserted
                result.updated = partial.updated
            } else {
                for (position, row) in zip(part.inserts, partial.inserted) { inserted[position] = row }
                for (position, row) in zip(part.updates, partial.updated) { updated[position] = row }
            }
            result.refreshed.merge(partial.refreshed) { a, _ in a }
        }
        if split {
            result.inserted = inserted.compactMap { $0 }
            result.updated = updated.compactMap { $0 }
        }
        // Saved rows (and rows whose derived values the store recomputed) leave the cache, so
        // that a fault fired later reads them as stored; the saving context's objects already
        // hold the values.
        rowCache.remove(request.deletes.lazy.map(\.objectID))
        rowCache.remove(rowsOf: result)
        return result
    }

    /// The first store that holds the entity.
    func defaultStore(for entity: NSEntityDescription) -> NSPersistentStore? {
        persistentStores.first { $0.holds(entity) }
    }

    /// An object assigned to a store whose configuration does not include its entity (Apple's
    /// `assign(_:to:)` raises; here the save fails, and nothing is written).
    private func requireHolds(_ store: NSPersistentStore, _ entity: NSEntityDescription) throws {
        guard !store.holds(entity) else { return }
        throw CoreDataError.make(
            NSPersistentStoreSaveError,
            "Can't save a \(entity.name ?? "?") in the store of configuration \(store.configurationName), "
                + "which does not include that entity.",
            userInfo: [NSAffectedStoresErrorKey: [store]])
    }

    private func noStore(for entity: NSEntityDescription) -> NSError {
        CoreDataError.make(
            NSPersistentStoreSaveError,
            "No persistent store holds entity \(entity.name ?? "?"); add a store whose configuration includes it.")
    }
}

/// A value sent across threads where the program ensures it is used by one at a time.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

extension FetchPlan {
    /// The plan without limit and offset, for merging the results of several stores.
    var unpaged: FetchPlan {
        var plan = self
        plan.limit = 0
        plan.offset = 0
        return plan
    }
}
