import Foundation
internal import GRDB

/// A scratch pad of managed objects: it fetches objects from its store, tracks their
/// changes, and saves them together.
///
/// ```swift
/// let context = container.newBackgroundContext()
/// try await context.perform {
///     let book = Book(context: context)
///     book.title = "Dune"
///     try context.save()
/// }
/// ```
///
/// A context and its objects must be used on the context's queue: inside `perform` and
/// `performAndWait`, or directly on the main thread for a main-queue context.
open class NSManagedObjectContext: NSObject, @unchecked Sendable {
    /// How a context runs the work given to `perform`.
    public enum ConcurrencyType: UInt, Sendable {
        /// Deprecated by Apple: the context belongs to the thread that made it. Strata runs
        /// its `perform` blocks on a private queue, as for `privateQueueConcurrencyType`.
        @available(*, deprecated, message: "Use privateQueueConcurrencyType or mainQueueConcurrencyType")
        case confinementConcurrencyType = 0
        /// The context's work runs on a private serial queue.
        case privateQueueConcurrencyType = 1
        /// The context's work runs on the main queue.
        case mainQueueConcurrencyType = 2

        /// The main queue (iOS 15 spelling).
        public static let mainQueue = ConcurrencyType.mainQueueConcurrencyType
        /// A private queue (iOS 15 spelling).
        public static let privateQueue = ConcurrencyType.privateQueueConcurrencyType
    }

    /// When an `async perform` block runs.
    public enum ScheduledTaskType: Sendable {
        /// At once when already on the context's queue, otherwise as soon as possible.
        case immediate
        /// After the work already given to the context.
        case enqueued
    }

    /// How the context runs its work.
    public let concurrencyType: ConcurrencyType
    /// The coordinator whose stores the context fetches from and saves to; for a child
    /// context, its parent's. A context has either a coordinator or a parent: setting one when
    /// the other is set is refused, as Apple's framework refuses it, and the context's fetches
    /// and saves then throw an error that says so.
    open var persistentStoreCoordinator: NSPersistentStoreCoordinator? {
        get { parentStorage?.persistentStoreCoordinator ?? coordinatorStorage }
        set {
            guard parentStorage == nil || newValue == nil else {
                return refuseConfiguration("The context already has a parent context; it cannot also have a coordinator.")
            }
            coordinatorStorage = newValue
        }
    }

    /// The context a child context fetches from and saves to: a child's `save()` pushes its
    /// changes into the parent, which saves them on; its fetches see the parent's unsaved
    /// changes. Setting a parent on a context that has a coordinator, a parent, or is the
    /// parent's own ancestor is refused (see `persistentStoreCoordinator`).
    ///
    /// ```swift
    /// let scratch = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
    /// scratch.parent = viewContext
    /// ```
    open var parent: NSManagedObjectContext? {
        get { parentStorage }
        set {
            guard newValue !== parentStorage else { return }
            if coordinatorStorage != nil, newValue != nil {
                return refuseConfiguration("The context already has a coordinator; it cannot also have a parent context.")
            }
            if parentStorage != nil, newValue != nil {
                return refuseConfiguration("The context already has a parent context; it cannot be given another.")
            }
            var ancestor = newValue
            while let context = ancestor {
                if context === self { return refuseConfiguration("A context cannot be its own ancestor.") }
                ancestor = context.parentStorage
            }
            parentStorage = newValue
            parentStore = newValue.map(ParentContextStore.init)
            updateAutomaticMerging()
        }
    }
    private var coordinatorStorage: NSPersistentStoreCoordinator?
    private var parentStorage: NSManagedObjectContext?
    /// The parent as the store of this context.
    private(set) var parentStore: ParentContextStore?
    /// Why the context cannot fetch or save: a coordinator and a parent were both given.
    private(set) var configurationError: NSError?

    private func refuseConfiguration(_ message: String) {
        configurationError = CoreDataError.make(NSCoreDataError, message)
    }
    /// A name that notifications and persistent history record.
    open var name: String?
    /// How old (in seconds) a row cached by the coordinator may be for a fault of this
    /// context to fire from it rather than from the store: negative (the default) takes any
    /// cached row, zero always reads the store.
    open var stalenessInterval: TimeInterval = -1
    /// Whether the context keeps every object it registered, even those nothing else
    /// references (by default it lets them go, as Apple's keeps them weakly).
    open var retainsRegisteredObjects: Bool = false
    /// Whether delete rules run at the end of each event (`processPendingChanges()`), as by
    /// default, or only when the context saves.
    open var propagatesDeletesAtEndOfEvent: Bool = true
    /// The app's own values, kept with the context.
    open var userInfo = NSMutableDictionary()
    /// The author that persistent history records for this context's saves.
    open var transactionAuthor: String?
    /// Writes the sync engine's importer adds to its next save, in the save's own SQLite
    /// transaction (record names and clocks of what it imports), so that they commit or roll
    /// back with the objects. Taken (and cleared) by the next save that reaches a SQLite store.
    var attachedStoreWrite: ((Database) throws -> Void)?
    /// Whether faults whose rows were deleted read as empty objects (as Strata always
    /// does) rather than raising.
    open var shouldDeleteInaccessibleFaults = true
    /// How a save resolves conflicts: an `NSMergePolicy` (or one of the `NS…MergePolicy`
    /// constants). `NSErrorMergePolicy` by default: a conflict fails the save.
    open var mergePolicy: Any = NSErrorMergePolicy

    /// Whether the context merges the changes other contexts of its coordinator save, as
    /// they are saved (on its own queue, with `mergeChanges(fromContextDidSave:)`).
    open var automaticallyMergesChangesFromParent = false {
        didSet { updateAutomaticMerging() }
    }
    /// Whether automatic merges wait for the context's next block (`performAndWait` or
    /// `perform`, which merge what is waiting as they start) instead of being scheduled on
    /// its queue: for a context used from one thread of its owner's outside of blocks (a
    /// SwiftData `ModelContext`'s), whose queue must then run nothing meanwhile. Set before
    /// `automaticallyMergesChangesFromParent`.
    public var _automaticMergesWaitForBlocks = false
    var mergeObserver: (any NSObjectProtocol)?
    /// Saves of the parent (or siblings) waiting to be merged by the next block of this context.
    let waitingMerges = Protected([SavedObjectIDs]())
    /// Whether a change needs nothing more from the change hooks: set for the whole life of a
    /// private-queue context (its blocks process pending changes), and for a main-queue context
    /// while the end of the main queue's turn is scheduled to (see `changedInThisTurn()`).
    /// One flag test per change.
    var endOfTurnScheduled: Bool

    /// The undo manager that records the context's changes, one group per event (see
    /// ContextUndo.swift). `nil` by default: nothing is recorded.
    open var undoManager: UndoManager? {
        didSet { undoManagerDidChange(from: oldValue) }
    }
    /// What records changes for `undoManager` while there is one.
    @exclusivity(unchecked) var undoRecorder: UndoRecorder?

    /// The last live sets `mutableOrderedSetValue(forKey:)` gave, newest first
    /// (`orderedView(of:forKey:)`).
    var orderedViews: [OrderedToManyRelationshipSet] = []

    #if DEBUG
        /// References copied whole out of or into to-many relationships of this context's
        /// objects (`noteRelationshipCopy(_:)`): what tests count instead of timing.
        var relationshipElementCopies = 0
    #endif

    deinit {
        if let mergeObserver { NotificationCenter.default.removeObserver(mergeObserver) }
    }

    /// The merge policy as an object.
    var resolvedMergePolicy: NSMergePolicy { (mergePolicy as? NSMergePolicy) ?? NSMergePolicy(merge: .errorMergePolicyType) }

    let queue: DispatchQueue
    let lock = NSRecursiveLock()
    static let queueKey = DispatchSpecificKey<ObjectIdentifier>()

    /// Objects by ID. The references are strong, and objects that nothing else holds
    /// (no app reference, no relationship, no unsaved change) are dropped now and then, and
    /// before `registeredObjects` answers: what weak references would do, without them. A
    /// weak reference gives its object a side table, which makes every retain and release of
    /// the object a slow one, and managed objects are retained everywhere.
    ///
    /// These collections are only touched on the context's queue, which keeps accesses
    /// exclusive without run-time checks (fetches and saves touch them once per object).
    @exclusivity(unchecked) fileprivate var registry = ObjectRegistry()
    @exclusivity(unchecked) private var registryPurgeThreshold = 1024
    /// The class `object(with:)` made objects of last, for the entity, while no class has been
    /// registered since (`ManagedObjectClasses.generation`): one resolution per fetch, not per row.
    @exclusivity(unchecked) private var lastObjectClass: (entity: ObjectIdentifier, generation: Int, type: NSManagedObject.Type)?
    @exclusivity(unchecked) private var lastClassEntity:
        (type: ObjectIdentifier, model: NSManagedObjectModel, entity: NSEntityDescription)?
    @exclusivity(unchecked) var inserted = ObjectSet()
    @exclusivity(unchecked) var updated = ObjectSet()
    @exclusivity(unchecked) var deleted = ObjectSet()
    /// Changes since the last `processPendingChanges`, for `ObjectsDidChange`.
    var eventInserted = ObjectSet()
    var eventUpdated = ObjectSet()
    var eventDeleted = ObjectSet()
    var eventRefreshed = ObjectSet()
    /// The sets the last `ObjectsDidChange` carried, for the save's notification to reuse.
    var notifiedSets = NotifiedSets()
    /// Deleted objects whose delete rules have not run yet.
    var pendingDeletes: [NSManagedObject] = []
    /// Deleted objects that were never saved: they leave the context once their delete rules ran.
    var unsavedDeletes = ObjectSet()
    /// Stores chosen with `assign(_:to:)` for inserted objects.
    var assignments: [NSManagedObjectID: NSPersistentStore] = [:]

    public init(concurrencyType: ConcurrencyType) {
        self.concurrencyType = concurrencyType
        self.queue = DispatchQueue(label: "Strata.NSManagedObjectContext")
        self.endOfTurnScheduled = concurrencyType != .mainQueueConcurrencyType
        super.init()
        queue.setSpecific(key: Self.queueKey, value: ObjectIdentifier(self))
    }

    /// A context of the concurrency type (iOS 15 spelling: `NSManagedObjectContext(.mainQueue)`).
    public convenience init(_ type: ConcurrencyType) {
        self.init(concurrencyType: type)
    }

    /// The layer the context fetches from and saves to: the parent context, or the
    /// coordinator; none while the context's configuration was refused.
    var objectStore: (any ObjectStore)? {
        guard configurationError == nil else { return nil }
        if let parentStore { return parentStore }
        guard let coordinatorStorage else { return nil }
        if let generation = generationToken?.generation { return GenerationStore(coordinatorStorage, generation: generation) }
        return coordinatorStorage
    }
    /// The generation the context is pinned to (`setQueryGenerationFrom(_:)`).
    var generationToken: NSQueryGenerationToken?
    var model: NSManagedObjectModel? { objectStore?.managedObjectModel }

    // MARK: State

    /// Whether the context has unsaved changes.
    open var hasChanges: Bool {
        !inserted.isEmpty || !deleted.isEmpty || updated.objects.contains { !$0.changedIndexes.isEmpty }
    }
    /// The objects inserted since the last save.
    open var insertedObjects: Set<NSManagedObject> { inserted.set }
    /// The objects changed since the last save (not inserted or deleted ones).
    open var updatedObjects: Set<NSManagedObject> { updated.set }
    /// The objects that the next save deletes.
    open var deletedObjects: Set<NSManagedObject> { deleted.set }
    /// Every object the context currently knows.
    open var registeredObjects: Set<NSManagedObject> {
        if !retainsRegisteredObjects { dropUnreferencedObjects() }
        var objects = Set(registry.objects)
        objects.formUnion(inserted.objects)
        objects.formUnion(deleted.objects)
        return objects
    }

    func isInserted(_ object: NSManagedObject) -> Bool { inserted.contains(object) }
    func isUpdated(_ object: NSManagedObject) -> Bool { updated.contains(object) }
    func isDeleted(_ object: NSManagedObject) -> Bool { deleted.contains(object) }

    // MARK: Registration

    /// The object with the ID if the context has it, without loading anything.
    open func registeredObject(for objectID: NSManagedObjectID) -> NSManagedObject? {
        registry[objectID]
    }

    func register(_ object: NSManagedObject) {
        registry.insert(object)
        purgeRegistryIfNeeded()
    }

    /// Drops the objects only the registry holds once it has grown past twice what it held
    /// after the last purge (what weak references would do, in batches).
    private func purgeRegistryIfNeeded() {
        if registry.count > registryPurgeThreshold && !retainsRegisteredObjects {
            dropUnreferencedObjects()
            registryPurgeThreshold = max(1024, registry.count * 2)
        }
    }

    /// Makes room for the `count` objects of a fetch at once. The registry ends with at least
    /// that many (and at least the ones it has), so this never reserves more than it will
    /// hold; growing entry by entry held the old table and its double together at the fetch's
    /// peak (6.3 MB at 100k objects, for a table of 4.2).
    func reserveRegistry(forFetched count: Int) {
        registry.reserve(Swift.max(registry.count, count))
        // Every object a fetch registers is held by its results until the fetch returns, so a
        // purge in its midst would look at each registered object and free none.
        registryPurgeThreshold = Swift.max(registryPurgeThreshold, registry.count + count)
    }

    /// Room in the registry for `count` objects more (rows read along with relationships,
    /// whose objects are mostly new to the context): the table grows once.
    func reserveRegistry(adding count: Int) {
        registry.reserve(registry.count + count)
    }

    func unregister(_ object: NSManagedObject) {
        registry.remove(object)
    }

    /// Moves an object to a new ID (a temporary ID becoming permanent).
    func reassign(_ object: NSManagedObject, to objectID: NSManagedObjectID) {
        unregister(object)
        if let store = assignments.removeValue(forKey: object.objectID) { assignments[objectID] = store }
        object.storedObjectID = objectID
        register(object)
    }

    /// The object with the ID: the registered one, or a fault that loads its row when one of
    /// its values is read. Never fails; a fault whose row does not exist reads as empty.
    open func object(with objectID: NSManagedObjectID) -> NSManagedObject {
        let (registered, vacancy) = registry.lookup(objectID)
        if let registered { return registered }
        let type = objectClass(for: objectID.entity)
        let object = type.init(entity: objectID.entity, insertInto: nil)
        object.storedObjectID = objectID
        object.values = .empty
        object.faulted = true
        object.hasAwokenFromInsert = true
        object.managedObjectContext = self
        object.recordsUndo = undoRecorder != nil
        // The initializer is the app's to override, and may have registered objects itself:
        // then the vacancy is stale, and the insert probes again.
        registry.insert(object, at: vacancy)
        purgeRegistryIfNeeded()
        return object
    }

    /// The entity of a class in the context's model, remembered for the last class: objects
    /// are mostly made one class at a time, and the shared lookup takes a lock and two hashes.
    func entity(ofClass type: NSManagedObject.Type) -> NSEntityDescription? {
        guard let model else { return type.entity(in: nil) }
        if let last = lastClassEntity, last.type == ObjectIdentifier(type), last.model === model {
            return last.entity
        }
        let entity = type.entity(in: model)
        lastClassEntity = entity.map { (ObjectIdentifier(type), model, $0) }
        return entity
    }

    private func objectClass(for entity: NSEntityDescription) -> NSManagedObject.Type {
        let generation = ManagedObjectClasses.generation
        if let last = lastObjectClass, last.entity == ObjectIdentifier(entity), last.generation == generation {
            return last.type
        }
        let type = ManagedObjectClasses.objectClass(for: entity)
        lastObjectClass = (ObjectIdentifier(entity), generation, type)
        return type
    }

    /// The object with the ID, loaded; throws `NSManagedObjectReferentialIntegrityError`
    /// (133000) when the store has no such object.
    open func existingObject(with objectID: NSManagedObjectID) throws -> NSManagedObject {
        if let object = registry[objectID], !object.faulted || inserted.contains(object) {
            guard !object.isInaccessible else { throw Self.missing(objectID) }
            return object
        }
        guard !objectID.isTemporaryID, let snapshot = try storedSnapshot(for: objectID) else {
            throw Self.missing(objectID)
        }
        let object = self.object(with: objectID)
        if object.faulted { object.fill(from: snapshot, in: self) }
        return object
    }

    private static func missing(_ objectID: NSManagedObjectID) -> NSError {
        CoreDataError.make(
            NSManagedObjectReferentialIntegrityError, "No object with ID \(objectID.uriRepresentation()) exists in the store.",
            userInfo: ["objectID": objectID])
    }

    // MARK: Inserting and deleting

    /// Registers a new object with the context; it is stored at the next save.
    open func insert(_ object: NSManagedObject) {
        if let owner = object.managedObjectContext, owner !== self { return }
        undoRecorder?.willChangeMembership(of: object)
        if deleted.contains(object) {
            deleted.remove(object)
            eventDeleted.remove(object)
            if !object.objectID.isTemporaryID {
                updated.insert(object)
                return
            }
        }
        guard !inserted.contains(object) else { return }
        object.managedObjectContext = self
        object.recordsUndo = undoRecorder != nil
        object.faulted = false
        register(object)
        inserted.insert(object)
        eventInserted.insert(object)
        if !endOfTurnScheduled { changedInThisTurn() }
        if !object.hasAwokenFromInsert {
            object.hasAwokenFromInsert = true
            object.awakeFromInsert()
        }
    }

    /// Marks an object for deletion at the next save. Its delete rules run the next time
    /// pending changes are processed. An object inserted and never saved is simply removed
    /// from the context then.
    open func delete(_ object: NSManagedObject) {
        guard object.managedObjectContext === self, !deleted.contains(object) else { return }
        undoRecorder?.willChangeMembership(of: object)
        object.fireFault()
        updated.remove(object)
        eventUpdated.remove(object)
        deleted.insert(object)
        eventDeleted.insert(object)
        pendingDeletes.append(object)
        if !endOfTurnScheduled { changedInThisTurn() }
        if inserted.contains(object) {
            inserted.remove(object)
            unsavedDeletes.insert(object)
            // An insertion not announced yet is never announced; one already announced (by
            // `ObjectsDidChange`) is announced as deleted, so that observers let go of it.
            if eventInserted.contains(object) {
                eventInserted.remove(object)
                eventDeleted.remove(object)
            }
        }
    }

    /// Chooses the store an inserted object is saved to.
    open func assign(_ object: Any, to store: NSPersistentStore) {
        guard let object = object as? NSManagedObject, object.managedObjectContext === self else { return }
        assignments[object.objectID] = store
    }

    /// Called by objects when a value changed.
    func objectDidChange(_ object: NSManagedObject) {
        // An object inserted in this event is announced as inserted, nothing more.
        guard !object.faulted, !eventInserted.contains(object) else { return }
        if !endOfTurnScheduled { changedInThisTurn() }
        if inserted.contains(object) {
            // Inserted in an earlier event: announced as updated by the next `ObjectsDidChange`
            // (so that fetched results see it change), but still an insert, not in `updated`.
            eventUpdated.insert(object)
            return
        }
        // Changed again in the same event: already registered and in both sets (deleting an
        // object takes it out of them), so nothing more to look up.
        if eventUpdated.contains(object) && updated.contains(object) { return }
        guard !deleted.contains(object) else { return }
        if !registry.contains(object) { register(object) }
        updated.insert(object)
        eventUpdated.insert(object)
    }

    /// Gives new objects permanent IDs now, so that their URIs can be kept before saving.
    open func obtainPermanentIDs(for objects: [NSManagedObject]) throws {
        guard let store = objectStore else { throw noStoreError }
        let temporary = objects.filter { $0.managedObjectContext === self && $0.objectID.isTemporaryID }
        guard !temporary.isEmpty else { return }
        let ids = try store.obtainPermanentIDs(for: temporary.map { ($0.entity, assignments[$0.objectID]) })
        for (object, id) in zip(temporary, ids) { reassign(object, to: id) }
    }

    static func noCoordinator() -> NSError {
        CoreDataError.make(NSPersistentStoreSaveError, "The context has no persistent store coordinator.")
    }

    /// Why there is no store to fetch from or save to.
    var noStoreError: NSError { configurationError ?? Self.noCoordinator() }

    // MARK: Refreshing and discarding

    /// Reloads an object: with `mergeChanges` false its unsaved changes are discarded and it
    /// becomes a fault; with `true` it is reloaded from the store and keeps its changes. An
    /// inserted object refreshed without merging loses its insertion too (nothing of it is
    /// saved) and reads as a new object's defaults when its fault fires.
    open func refresh(_ object: NSManagedObject, mergeChanges flag: Bool) {
        guard object.managedObjectContext === self, !deleted.contains(object) else { return }
        // A live view of an ordered relationship copies what the refresh put back.
        defer { object.keepLiveViewsCurrent() }
        if inserted.contains(object) {
            guard !flag else { return }
            inserted.remove(object)
            eventInserted.remove(object)
            object.turnIntoFault()
            eventRefreshed.insert(object)
            return
        }
        // The row comes from the coordinator's cache while it is no older than
        // `stalenessInterval` allows (any age by default), else from the store, as Apple's
        // refresh does: `stalenessInterval = 0` makes refreshes read the store.
        let changes = object.changedIndexes
        if flag, !changes.isEmpty, !object.faulted, let snapshot = try? storedSnapshot(for: object.objectID) {
            object.merge(snapshot: snapshot, keeping: changes, in: self)
            object.awakeFromSnapshotEvents(.refresh)
        } else {
            object.turnIntoFault()
            updated.remove(object)
            eventUpdated.remove(object)
        }
        eventRefreshed.insert(object)
    }

    /// Refreshes every registered object, keeping unsaved changes.
    open func refreshAllObjects() {
        advanceQueryGeneration()
        for object in registeredObjects { refresh(object, mergeChanges: true) }
    }

    /// Discards every unsaved change: inserted objects leave the context, deleted ones come
    /// back, updated ones return to their saved values.
    open func rollback() {
        undoRecorder?.discardHistory()
        for object in inserted.objects {
            unregister(object)
            object.managedObjectContext = nil
        }
        var restored: [NSManagedObject] = []
        let changed = updated.objects + deleted.objects
        for object in changed {
            if let snapshot = object.snapshot {
                object.fill(from: snapshot, in: self, awake: false)
                object.changedIndexes.removeAll()
                restored.append(object)
            } else {
                object.turnIntoFault()
            }
        }
        clearChanges()
        for object in restored { object.awakeFromSnapshotEvents(.rollback) }
        // Live views of ordered relationships copy the members put back.
        for object in changed { object.keepLiveViewsCurrent() }
    }

    /// Forgets every object: they become faults detached from the context.
    open func reset() {
        advanceQueryGeneration()
        orderedViews.removeAll()
        undoRecorder?.discardHistory()
        let forgotten = registry.objects.map(\.objectID)
        for object in registeredObjects {
            object.turnIntoFault()
            object.managedObjectContext = nil
        }
        registry.removeAll()
        clearChanges()
        NotificationCenter.default.post(
            name: .NSManagedObjectContextObjectsDidChange, object: self,
            userInfo: [NSInvalidatedAllObjectsKey: forgotten])
    }

    /// The live set of `object`'s ordered relationship `key`: the one given last if the context
    /// still keeps it (its copy of the relationship is kept in step), or a new one. A set holds
    /// a copy of its relationship for Foundation (`OrderedToManyRelationshipSet`): an app that
    /// calls `mutableOrderedSetValue(forKey:)` for each object it adds would copy the whole
    /// relationship each time.
    func orderedView(of object: NSManagedObject, forKey key: String) -> OrderedToManyRelationshipSet {
        if let index = orderedViews.firstIndex(where: { $0.shown?.object === object && $0.shown?.key == key }) {
            let view = orderedViews[index]
            if index > 0 {
                orderedViews.remove(at: index)
                orderedViews.insert(view, at: 0)
            }
            view.keepMirror()
            return view
        }
        let view = OrderedToManyRelationshipSet(object: object, key: key)
        orderedViews.insert(view, at: 0)
        if orderedViews.count > Self.keptOrderedViewCount { orderedViews.removeLast() }
        return view
    }

    /// How many live ordered sets a context keeps; each holds its object.
    static let keptOrderedViewCount = 4

    func clearChanges() {
        inserted.removeAll()
        updated.removeAll()
        deleted.removeAll()
        eventInserted.removeAll()
        eventUpdated.removeAll()
        eventDeleted.removeAll()
        eventRefreshed.removeAll()
        notifiedSets = NotifiedSets()
        pendingDeletes.removeAll()
        unsavedDeletes.removeAll()
        assignments.removeAll()
    }
}

extension NSManagedObjectContext {
    /// Forgets the objects only the registry holds. (In an extension, so that the method
    /// takes no place in the class's table of overridable methods.)
    fileprivate func dropUnreferencedObjects() {
        registry.removeUnreferenced()
    }
}

/// The concurrency types under the name Apple's Swift interface gives them.
public typealias NSManagedObjectContextConcurrencyType = NSManagedObjectContext.ConcurrencyType

extension NSManagedObjectContext {
    /// A change was made outside any block that ends with `processPendingChanges()`. A
    /// main-queue context then processes its pending changes at the end of the main queue's
    /// current turn, as Apple's does at the end of a run-loop pass: observers of
    /// `ObjectsDidChange` and fetched results controllers hear of changes made in an event
    /// handler, or in a job of the main actor, without a save. (On Linux the main queue is what
    /// `RunLoop.main` and the main actor's executor both drain: the block runs once the current
    /// run-loop pass or main-actor job has finished.) Private-queue contexts process them at the
    /// end of each `perform` block, and on `processPendingChanges()` or `save()`.
    ///
    /// Only a change made on the main queue has a turn to end. A main-queue context used from
    /// another thread (a test, a command-line tool) belongs to that thread until it hands the
    /// context back: a block on the main queue would touch the context while that thread does,
    /// so nothing is scheduled and its changes are processed at its next save or
    /// `processPendingChanges()`, as before.
    func changedInThisTurn() {
        guard concurrencyType == .mainQueueConcurrencyType, MainQueue.isCurrent else { return }
        endOfTurnScheduled = true
        DispatchQueue.main.async { [weak self] in
            guard let self else { return }
            self.runLocked {
                self.endOfTurnScheduled = false
                self.processPendingChanges()
            }
        }
    }
}
