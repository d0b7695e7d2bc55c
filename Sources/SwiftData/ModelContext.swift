import Foundation
import Strata

/// Where models are inserted, fetched, changed, deleted and saved: a Core Data context of the
/// container's stores, with one model per row it holds.
///
/// A context is used on one thread or actor at a time, as Apple's: the main context on the
/// main actor, others where they were made (a `@ModelActor` makes its own).
public final class ModelContext: Equatable, Hashable, @unchecked Sendable {
    /// Posted before a save (object: the context).
    public static let willSave = Notification.Name("ModelContextWillSave")
    /// Posted after a save (object: the context), with the saved models' identifiers under
    /// `NotificationKey.insertedIdentifiers`, `.updatedIdentifiers` and `.deletedIdentifiers`.
    public static let didSave = Notification.Name("ModelContextDidSave")

    public enum NotificationKey: String {
        case insertedIdentifiers = "inserted"
        case updatedIdentifiers = "updated"
        case deletedIdentifiers = "deleted"
        case queryGeneration
        case invalidatedAllIdentifiers = "invalidatedAll"
    }

    /// The Core Data context underneath.
    let managed: NSManagedObjectContext
    private let strongContainer: ModelContainer?
    private weak var weakContainer: ModelContainer?
    let isMain: Bool
    /// The context's models, by their objects (weakly; see `ModelRegistry`). Touched on the
    /// context's thread only, so without run-time exclusivity checks.
    @exclusivity(unchecked) private var registry = ModelRegistry()
    /// The model class of each entity this context has made models for, by the entity's
    /// identity (asked once per fetched row: cheaper than the schema's types by name).
    private var modelTypes: [ObjectIdentifier: any PersistentModel.Type] = [:]
    /// The entity of each model class this context has inserted models of.
    private var entities: [ObjectIdentifier: NSEntityDescription] = [:]
    /// Models inserted since the last save, held until it (with their transient values). A
    /// model is attached once between saves and rollbacks, so a list: a table by identity
    /// hashed each of a large insertion's models and grew under it.
    private var insertedModels: [any PersistentModel] = []
    private var autosaveScheduled = false
    /// Whether the autosave scheduled waits for the context's next operation (a context used
    /// on a thread of the app's own, where nothing else runs between the owner's calls).
    private var autosaveAtNextOperation = false
    /// The queue of the model actor whose executor holds this context: where its autosave runs,
    /// after the actor's work of the moment (set by `DefaultSerialModelExecutor`).
    var ownerQueue: DispatchQueue?

    /// Whether the context saves by itself after changes: on by default for the main context
    /// (at the end of the main actor's turn in which the change was made), off for others.
    public var autosaveEnabled: Bool

    public var container: ModelContainer {
        if let container = strongContainer ?? weakContainer { return container }
        preconditionFailure("The main context of a container that no longer exists was used; keep the ModelContainer.")
    }

    /// A new context of the container's stores.
    public convenience init(_ container: ModelContainer) {
        self.init(container, isMain: false)
    }

    init(_ container: ModelContainer, isMain: Bool) {
        self.isMain = isMain
        if isMain {
            strongContainer = nil
            weakContainer = container
        } else {
            strongContainer = container
        }
        managed = NSManagedObjectContext(concurrencyType: isMain ? .mainQueueConcurrencyType : .privateQueueConcurrencyType)
        managed.persistentStoreCoordinator = container.persistentContainer.persistentStoreCoordinator
        // `@Attribute(.unique)`: inserting a model whose unique values a row has updates the row.
        managed.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        // A context the app makes is used on its owner's thread or actor, outside the Core Data
        // context's blocks: the saves of other contexts are merged as its next operation starts
        // (`entered`), not on the Core Data context's queue while the owner reads its models.
        // The main context's queue is the main actor's, its owner.
        managed._automaticMergesWaitForBlocks = !isMain
        managed.automaticallyMergesChangesFromParent = true
        autosaveEnabled = isMain
    }

    public static func == (lhs: ModelContext, rhs: ModelContext) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// Runs the body as a block of the Core Data context (on the calling thread, serialised with
    /// the context's other work), after merging the saves of other contexts that reached it
    /// since its last operation. What every operation that touches the Core Data context does.
    ///
    /// An operation that reads or changes the context's models (`autosaving`) first saves the
    /// changes an autosave waits to save (see `noteChange()`).
    private func entered<Result>(autosaving: Bool = false, _ body: () throws -> Result) rethrows -> Result {
        try managed.performAndWait {
            if autosaving, autosaveAtNextOperation { autosaveEntered() }
            return try body()
        }
    }

    // MARK: Changes

    /// Whether the context holds changes not yet saved.
    public var hasChanges: Bool { entered { managed.hasChanges } }

    /// The author recorded with the context's saves in the history (`transactionAuthor`).
    public var author: String? {
        get { managed.transactionAuthor }
        set { managed.transactionAuthor = newValue }
    }

    public var undoManager: UndoManager? {
        get { managed.undoManager }
        set { managed.undoManager = newValue }
    }

    public var insertedModelsArray: [any PersistentModel] { entered { models(of: managed.insertedObjects) } }
    public var changedModelsArray: [any PersistentModel] { entered { models(of: managed.updatedObjects) } }
    public var deletedModelsArray: [any PersistentModel] { entered { models(of: managed.deletedObjects) } }

    /// Inserts a model (and the models its relationships reach that no context holds yet).
    /// A model already in this context is left as it is.
    public func insert<T: PersistentModel>(_ model: T) {
        entered(autosaving: true) { _ = insertedObject(of: model) }
        noteChange()
    }

    /// Marks the model deleted; the deletion is saved with the next save. A model never
    /// inserted is forgotten.
    public func delete<T: PersistentModel>(_ model: T) {
        let row = model._strataRow
        guard let object = row.object else { return }
        entered(autosaving: true) {
            if row.context === self {
                managed.delete(object)
            } else if let own = try? managed.existingObject(with: object.objectID) {
                managed.delete(own)
            }
        }
        noteChange()
    }

    /// Marks deleted every model of the type (and, with `includeSubclasses`, of its
    /// subclasses) that matches the predicate, unsaved changes included, as `delete(_:)` does
    /// for each: delete rules apply and the next save removes the rows.
    public func delete<T: PersistentModel>(
        model: T.Type, where predicate: Predicate<T>? = nil, includeSubclasses: Bool = true
    ) throws {
        var descriptor = FetchDescriptor<T>(predicate: predicate)
        descriptor.includePendingChanges = true
        let request = try fetchRequest(descriptor)
        request.includesSubentities = includeSubclasses
        try entered(autosaving: true) {
            for object in try managed.fetch(request) {
                managed.delete(object)
            }
        }
        noteChange()
    }

    /// Saves the context's changes to its stores, posting `willSave` and `didSave`.
    public func save() throws {
        try entered { try saveEntered() }
    }

    private func saveEntered() throws {
        autosaveScheduled = false
        autosaveAtNextOperation = false
        guard managed.hasChanges else { return }
        NotificationCenter.default.post(name: Self.willSave, object: self)
        // The deletions the save makes: the delete rules run first, so that models a deletion
        // cascaded to leave the context with the models deleted by name.
        managed.processPendingChanges()
        let deleted = managed.deletedObjects
        // The saved rows' identifiers are those the Core Data context announces as it saves
        // (`didSaveObjectIDsNotification`, posted on this thread within `save()`): a set of
        // the changed objects taken before the save would touch and hash each object again.
        let saved = SavedObjectIDs()
        let observer = NotificationCenter.default.addObserver(
            forName: NSManagedObjectContext.didSaveObjectIDsNotification, object: managed, queue: nil
        ) { notification in
            saved.userInfo = notification.userInfo
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        try managed.save()
        insertedModels.removeAll()
        // A model whose deletion is saved leaves the context (its `modelContext` is nil), and
        // keeps the values it read, as Apple's SwiftData does (not documented; observed).
        for object in deleted {
            if let model = registry.model(for: object) { detach(model) }
        }
        var userInfo: [AnyHashable: Any] = [:]
        for (key, identifiers) in [
            (NotificationKey.insertedIdentifiers, NSManagedObjectContext.NotificationKey.insertedObjectIDs),
            (.updatedIdentifiers, .updatedObjectIDs), (.deletedIdentifiers, .deletedObjectIDs),
        ] {
            let objectIDs = saved.userInfo?[identifiers.rawValue] as? Set<NSManagedObjectID> ?? []
            userInfo[key.rawValue] = objectIDs.map { PersistentIdentifier($0) }
        }
        NotificationCenter.default.post(name: Self.didSave, object: self, userInfo: userInfo)
    }

    /// What the Core Data context's save announced, kept by its observer (which runs on the
    /// saving thread, within the save).
    private final class SavedObjectIDs: @unchecked Sendable {
        var userInfo: [AnyHashable: Any]?
    }

    /// Discards the changes not yet saved: models inserted since are forgotten, changed ones
    /// read their saved values again.
    public func rollback() {
        entered {
            managed.rollback()
            for model in insertedModels { detach(model) }
            insertedModels.removeAll()
        }
        autosaveScheduled = false
        autosaveAtNextOperation = false
    }

    /// Runs the block, then saves what it changed (one save).
    public func transaction(block: () throws -> Void) throws {
        try block()
        try save()
    }

    /// Brings pending changes into the context's change lists (done at each save and fetch).
    public func processPendingChanges() { entered { managed.processPendingChanges() } }

    // MARK: Fetching

    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
        let request = try fetchRequest(descriptor)
        return try entered(autosaving: true) {
            models(of: try managed.fetch(request), entity: entity(of: T.self), as: T.self)
        }
    }

    /// The models of the descriptor in batches of `batchSize`: only those of a batch are in
    /// memory at once (as `fetchBatchSize`).
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, batchSize: Int) throws -> [T] {
        let request = try fetchRequest(descriptor)
        request.fetchBatchSize = batchSize
        return try entered(autosaving: true) {
            models(of: try managed.fetch(request), entity: entity(of: T.self), as: T.self)
        }
    }

    /// The context's models of fetched objects, made for those that have none. The objects of
    /// the fetched entity itself (all of them, unless it has subentities) are made `T`s
    /// directly; others by their entity's class.
    private func models<T: PersistentModel>(
        of objects: [NSManagedObject], entity: NSEntityDescription?, as type: T.Type
    ) -> [T] {
        // Objects of SwiftData's class name their models themselves: the table is reserved
        // for a fetch of others only.
        if let first = objects.first, _ModelObject.of(first) == nil { registry.reserve(objects.count) }
        // Filled in place: `append` of an array of a generic element is the standard library's
        // unspecialised one, several times dearer for each fetched row.
        return [T](unsafeUninitializedCapacity: objects.count) { buffer, count in
            for object in objects {
                let found: T?
                switch registry.lookup(object) {
                case .model(let existing):
                    found = existing as? T
                case .vacancy(let vacancy):
                    if let entity, object.entity === entity {
                        let model = make(T.self, object)
                        registry.register(model, for: object, at: vacancy)
                        found = model
                    } else {
                        found = anyModel(for: object) as? T
                    }
                }
                guard let found else { continue }
                buffer.initializeElement(at: count, to: found)
                count += 1
            }
        }
    }

    public func fetchCount<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int {
        let request = try fetchRequest(descriptor)
        return try entered(autosaving: true) { try managed.count(for: request) }
    }

    public func fetchIdentifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [PersistentIdentifier] {
        let request = try fetchRequest(descriptor, of: NSManagedObjectID.self)
        request.resultType = .managedObjectIDResultType
        let ids = try entered(autosaving: true) { try managed.fetch(request) }
        return ids.map(PersistentIdentifier.init)
    }

    /// Calls the block with each model of the descriptor, `batchSize` rows at a time; the
    /// models of a batch are released before the next is read (unless the block changed them
    /// and `allowEscapingMutations` is false, which fails as Apple's does).
    public func enumerate<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>, batchSize: Int = 5000, allowEscapingMutations: Bool = false,
        block: (T) throws -> Void
    ) throws {
        var offset = descriptor.fetchOffset ?? 0
        let limit = descriptor.fetchLimit
        var remaining = limit ?? Int.max
        let size = max(1, batchSize)
        while remaining > 0 {
            var page = descriptor
            page.fetchOffset = offset
            page.fetchLimit = min(size, remaining)
            let models = try fetch(page)
            for model in models { try block(model) }
            if !allowEscapingMutations, models.contains(where: { $0.hasChanges }) {
                throw SwiftDataError.unsupportedEnumerationMutation
            }
            if models.count < min(size, remaining) { break }
            offset += models.count
            remaining -= models.count
        }
    }

    // MARK: Models by identifier

    /// The model of an identifier: the registered one, or one made for the row (a fault,
    /// filled when first read).
    public func model(for persistentModelID: PersistentIdentifier) -> any PersistentModel {
        if let model = entered(autosaving: true, { object(for: persistentModelID).flatMap(anyModel(for:)) }) {
            return model
        }
        // An identifier of another store (or made up) whose entity the schema has: a model of
        // that class holding no values and in no context, rather than a stop. One whose entity
        // it has not (a decoded identifier of another app's or container's): a model of no
        // class of the schema, which no cast to one of them takes.
        if let type = container.schema.types[persistentModelID.entityName] { return Self.detached(type) }
        return Self.detached(_UnknownModel.self)
    }

    static func detached<T: PersistentModel>(_ type: T.Type) -> T {
        T(backingData: _StrataBackingData<T>())
    }

    /// The model of an identifier if the context holds it already, else nil.
    public func registeredModel<T: PersistentModel>(for persistentModelID: PersistentIdentifier) -> T? {
        guard let objectID = objectID(for: persistentModelID),
            let object = entered({ managed.registeredObject(for: objectID) })
        else {
            return nil
        }
        return model(for: object, as: T.self)
    }

    func objectID(for identifier: PersistentIdentifier) -> NSManagedObjectID? {
        if let objectID = identifier.objectID { return objectID }
        guard let url = URL(string: identifier.key) else { return nil }
        return managed.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: url)
    }

    private func object(for identifier: PersistentIdentifier) -> NSManagedObject? {
        guard let objectID = objectID(for: identifier) else { return nil }
        return managed.object(with: objectID)
    }

    // MARK: Models and objects

    /// The context's model of an object, made (and registered) when it has none.
    func model<T: PersistentModel>(for object: NSManagedObject, as type: T.Type) -> T? {
        anyModel(for: object) as? T
    }

    private func anyModel(for object: NSManagedObject) -> (any PersistentModel)? {
        if let model = registry.model(for: object) { return model }
        guard let type = modelType(of: object.entity) else { return nil }
        let model = make(type, object)
        register(model, for: object)
        return model
    }

    /// The model class of an entity of the container's schema.
    private func modelType(of entity: NSEntityDescription) -> (any PersistentModel.Type)? {
        let key = ObjectIdentifier(entity)
        if let type = modelTypes[key] { return type }
        guard let name = entity.name, let type = container.schema.types[name] else { return nil }
        modelTypes[key] = type
        return type
    }

    private func make<T: PersistentModel>(_ type: T.Type, _ object: NSManagedObject) -> T {
        T._$model(object: object, context: self)
    }

    private func register(_ model: any PersistentModel, for object: NSManagedObject) {
        registry.register(model, for: object)
    }

    private func models(of objects: Set<NSManagedObject>) -> [any PersistentModel] {
        objects.compactMap { anyModel(for: $0) }
    }

    /// The object of a model in this context, inserting the model (and, through its values
    /// set before insertion, the models they reach) when no context holds it.
    func insertedObject<T: PersistentModel>(of model: T) -> NSManagedObject {
        let row = model._strataRow
        if let object = row.object {
            if row.context === self { return object }
            if row.context != nil || object.managedObjectContext != nil {
                return managed.object(with: object.objectID)
            }
            // A model whose insertion was rolled back: its object, which kept its values, is
            // inserted again. Its relationships still name the objects they named before the
            // rollback (which took them back on those objects' side), perhaps of another
            // context: it is inserted without them, as the model read them while it was in no
            // context (none), and with those set since.
            managed.insert(object)
            for name in object.entity.relationshipsByName.keys { object.setPrimitiveValue(nil, forKey: name) }
            attach(model, to: object)
            return object
        }
        // The model's own class (a subclass's model may be handed over as its root class).
        let modelType = type(of: model) as any PersistentModel.Type
        guard let entity = entity(of: modelType) else {
            preconditionFailure("\(modelType) is not a model of this container's schema")
        }
        let object = _ModelObject(entity: entity, insertInto: managed)
        attach(model, to: object)
        return object
    }

    /// Makes the object of a model just inserted into this context the model's (each class's
    /// backing data of a subclass's model), and writes to it the values the model was given
    /// while it had none (relationships too, for a model rolled back and inserted again).
    private func attach<T: PersistentModel>(_ model: T, to object: NSManagedObject) {
        let info = ModelTypeInfo.of(type(of: model) as any PersistentModel.Type)
        var pending: [_PendingValues.Entry]
        if info.superType == nil, let kept = model._$keepRow(_ModelRow(object: object, context: self)) {
            // A root class's model that kept its values in itself: it keeps its row there.
            // (A subclass's model keeps its values in each class's backing data.)
            pending = kept.entries
        } else {
            let backing = model._strataBacking
            pending = backing.pending.entries
            backing.pending = _PendingValues()
            backing.object = object
            backing.context = self
            if info.superType != nil {
                // Each class of a subclass's hierarchy keeps the values its own properties were given.
                for storage in model._$backingDataChain() where storage !== backing {
                    pending += storage.pending.entries
                    storage.pending = _PendingValues()
                    storage.object = object
                    storage.context = self
                }
            }
        }
        register(model, for: object)
        insertedModels.append(model)
        // An attribute's value is written from where it is (through the buffer, which lends its
        // elements): an entry copied out holds its value as an existential, which copying
        // copies through its value witnesses.
        let relationships: [_PendingValues.Entry] = pending.withUnsafeBufferPointer { entries in
            var relationships: [_PendingValues.Entry] = []
            for index in entries.indices {
                if entries[index].value.isAttribute {
                    entries[index].value.writeAttribute(to: object, key: entries[index].key)
                } else {
                    relationships.append(entries[index])
                }
            }
            return relationships
        }
        for entry in relationships {
            switch info.propertiesByName[entry.key]?.kind {
            case .toOne:
                guard let related = entry.value.anyValue as? any PersistentModel else { continue }
                object.setValue(insertedObject(of: related), forKey: entry.key)
            case .toMany:
                guard let collection = entry.value.anyValue as? any _ModelCollection else { continue }
                let objects = collection._models.map { insertedObject(of: $0) }
                object.setValue(NSSet(array: objects), forKey: entry.key)
            case .attribute:
                entry.value.writeAttribute(to: object, key: entry.key)
            case nil:
                continue
            }
        }
    }

    /// The entity of a model class in the container's schema.
    private func entity(of type: any PersistentModel.Type) -> NSEntityDescription? {
        let key = ObjectIdentifier(type)
        if let entity = entities[key] { return entity }
        let name = ModelTypeInfo.of(type).entityName
        guard let entity = container.schema.managedObjectModel.entitiesByName[name] else { return nil }
        entities[key] = entity
        return entity
    }

    /// A model whose insertion was rolled back, or whose deletion was saved: in no context, it
    /// keeps its object (which the rollback left with the values it had), so that it reads as
    /// it did (and, rolled back, can be inserted again); the context forgets it.
    private func detach(_ model: some PersistentModel) {
        for storage in model._$backingDataChain() {
            if let object = storage.object { registry.remove(object) }
            storage.context = nil
        }
    }

    /// Notes a change, for autosave: the context saves after the work of the moment of its
    /// owner, on the owner's thread, never beside it. The main context (and another used on the
    /// main actor) saves at the end of the main actor's turn; a model actor's, after the
    /// actor's job of the moment; a context used on a thread of the app's own, where nothing
    /// runs between its owner's calls, at the start of its next operation that reads or
    /// changes models (or an explicit `save()`).
    @usableFromInline
    func noteChange() {
        guard autosaveEnabled, !autosaveScheduled else { return }
        autosaveScheduled = true
        if let ownerQueue, !isMain {
            ownerQueue.async { [weak self] in self?.autosave() }
        } else if isMain || MainQueue.isCurrent {
            DispatchQueue.main.async { [weak self] in
                MainActor.assumeIsolated { self?.autosave() }
            }
        } else {
            autosaveAtNextOperation = true
        }
    }

    /// Whether the caller runs in a block of the main queue (the main actor's jobs are): what
    /// runs such blocks next. (`Thread.isMainThread` answers for the thread that first used
    /// Foundation, which need not be the main one, and a main thread that runs no main queue
    /// would never run the autosave.)
    private enum MainQueue {
        static let key: DispatchSpecificKey<Bool> = {
            let key = DispatchSpecificKey<Bool>()
            DispatchQueue.main.setSpecific(key: key, value: true)
            return key
        }()

        static var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == true }
    }

    private func autosave() {
        guard autosaveScheduled else { return }
        entered { autosaveEntered() }
    }

    private func autosaveEntered() {
        autosaveAtNextOperation = false
        guard autosaveScheduled, autosaveEnabled else {
            autosaveScheduled = false
            return
        }
        do {
            try saveEntered()
        } catch {
            // As Apple's autosave: the changes stay in the context for an explicit save to report.
            autosaveScheduled = false
        }
    }

    // MARK: Requests

    func fetchRequest<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> NSFetchRequest<NSManagedObject> {
        try fetchRequest(descriptor, of: NSManagedObject.self)
    }

    func fetchRequest<T: PersistentModel, Result: NSFetchRequestResult>(
        _ descriptor: FetchDescriptor<T>, of result: Result.Type
    ) throws -> NSFetchRequest<Result> {
        let info = ModelTypeInfo.of(T.self)
        let request = NSFetchRequest<Result>(entityName: info.entityName)
        if let predicate = descriptor.predicate {
            let model = container.schema.managedObjectModel
            request.predicate = try TypedFetchTranslation.predicate(predicate) { type in
                // `$0 is Tutorial`: the class's entity and those of its subclasses.
                guard let modelType = type as? any PersistentModel.Type else { return nil }
                return model.entitiesByName[ModelTypeInfo.of(modelType).entityName]?.selfAndDescendants
            }
        }
        request.sortDescriptors = try TypedFetchTranslation.sortDescriptors(descriptor.sortBy)
        if let limit = descriptor.fetchLimit { request.fetchLimit = max(0, limit) }
        if let offset = descriptor.fetchOffset { request.fetchOffset = max(0, offset) }
        request.includesPendingChanges = descriptor.includePendingChanges
        if !descriptor.propertiesToFetch.isEmpty {
            request.propertiesToFetch = descriptor.propertiesToFetch.compactMap { info.name(of: $0) }
        }
        if !descriptor.relationshipKeyPathsForPrefetching.isEmpty {
            request.relationshipKeyPathsForPrefetching = descriptor.relationshipKeyPathsForPrefetching.compactMap {
                info.name(of: $0)
            }
        }
        return request
    }
}
