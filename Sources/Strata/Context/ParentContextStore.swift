import Foundation

/// A parent context as the store of its child contexts (ARCHITECTURE: a parent context offers
/// the same `ObjectStore` interface as the coordinator). What the child reads is the parent's
/// current state — its unsaved inserts, changes and deletes included — and what the child
/// saves becomes unsaved changes of the parent, which its own `save()` carries on down.
///
/// Every call runs on the parent's queue (`performAndWait`), so a main-queue child of a
/// private-queue parent, and the reverse, are safe.
///
/// IDs cross between the two only in permanent form: a child's save gets permanent IDs for
/// the objects it inserts before pushing them, and objects the parent inserted get theirs
/// before the child sees them. Apple's framework leaves both temporary until the root
/// context saves (see DEVIATIONS.md); Strata does not, so that an object has one ID in every
/// context of a chain and never two objects in one context.
final class ParentContextStore: ObjectStore {
    /// Children keep their parent alive, as on Apple's systems.
    let parent: NSManagedObjectContext

    init(_ parent: NSManagedObjectContext) {
        self.parent = parent
    }

    var managedObjectModel: NSManagedObjectModel { parent.model ?? NSManagedObjectModel() }

    /// The store beneath the parent.
    private func base() throws -> any ObjectStore {
        guard let store = parent.objectStore else { throw parent.noStoreError }
        return store
    }

    func fetchSnapshots(_ plan: FetchPlan, affectedStores: [NSPersistentStore]?) throws -> [Snapshot] {
        try parent.performAndWait {
            let objects = try parent.objectsForChild(plan, affectedStores: affectedStores, loadValues: true)
            return try parent.childSnapshots(of: objects)
        }
    }

    func fetchObjectIDs(_ plan: FetchPlan, affectedStores: [NSPersistentStore]?) throws -> [NSManagedObjectID] {
        try parent.performAndWait {
            let objects = try parent.objectsForChild(plan, affectedStores: affectedStores, loadValues: false)
            try parent.makePermanent(objects)
            return objects.map(\.objectID)
        }
    }

    func fetchObjectKeys(
        _ plan: FetchPlan, affectedStores: [NSPersistentStore]?, batchSize: Int
    ) throws -> FetchedObjectKeys {
        var keys = FetchedObjectKeys(batchSize: batchSize)
        for id in try fetchObjectIDs(plan, affectedStores: affectedStores) { keys.append(id) }
        return keys
    }

    func count(_ plan: FetchPlan, affectedStores: [NSPersistentStore]?) throws -> Int {
        try parent.performAndWait {
            let request = NSFetchRequest<NSManagedObject>()
            request.affectedStores = affectedStores
            return try parent.count(plan: plan, request: request, store: try base())
        }
    }

    func snapshot(for objectID: NSManagedObjectID) throws -> Snapshot? {
        try parent.performAndWait { try parent.childSnapshot(for: objectID) }
    }

    func snapshots(for objectIDs: [NSManagedObjectID]) throws -> [Snapshot] {
        try parent.performAndWait {
            var snapshots: [Snapshot] = []
            snapshots.reserveCapacity(objectIDs.count)
            for id in objectIDs {
                if let snapshot = try parent.childSnapshot(for: id) { snapshots.append(snapshot) }
            }
            return snapshots
        }
    }

    func relatedObjectIDs(
        of objectID: NSManagedObjectID, relationship: NSRelationshipDescription
    ) throws -> [NSManagedObjectID] {
        try relatedObjectIDs(of: [objectID], relationship: relationship)[objectID] ?? []
    }

    /// A parent's objects answer with its view of them, as IDs.
    func relatedRows(of objectID: NSManagedObjectID, relationship: NSRelationshipDescription) throws -> [Snapshot]? {
        nil
    }

    func relatedObjectIDs(
        of objectIDs: [NSManagedObjectID], relationship: NSRelationshipDescription
    ) throws -> [NSManagedObjectID: [NSManagedObjectID]] {
        try parent.performAndWait {
            var result: [NSManagedObjectID: [NSManagedObjectID]] = [:]
            var unknown: [NSManagedObjectID] = []
            for id in objectIDs {
                // An object the parent knows answers with the parent's view of it (loading
                // the relationship there if it must); the others are as the store has them.
                guard let object = parent.registeredObject(for: id) else {
                    unknown.append(id)
                    continue
                }
                guard !parent.isDeleted(object), let index = object.layout.indexByName[relationship.name] else {
                    result[id] = []
                    continue
                }
                let destinations = object.toManyObjects(at: index).filter { !parent.isDeleted($0) }
                try parent.makePermanent(destinations)
                result[id] = destinations.map(\.objectID)
            }
            if !unknown.isEmpty {
                for (id, related) in try base().relatedObjectIDs(of: unknown, relationship: relationship) {
                    result[id] = related
                }
            }
            return result
        }
    }

    func relatedRows(
        of objectIDs: [NSManagedObjectID], relationship: NSRelationshipDescription
    ) throws -> [NSManagedObjectID: [Snapshot]]? {
        // Destinations come as IDs: their rows are the parent's objects, read when they fire.
        nil
    }

    func fetchDictionaries(_ fetch: DictionaryFetch, affectedStores: [NSPersistentStore]?) throws -> [[String: Any]] {
        // As for a context's own dictionary fetches: the stored rows (see DEVIATIONS.md).
        try parent.performAndWait { try base().fetchDictionaries(fetch, affectedStores: affectedStores) }
    }

    func obtainPermanentIDs(
        for objects: [(entity: NSEntityDescription, store: NSPersistentStore?)]
    ) throws -> [NSManagedObjectID] {
        try parent.performAndWait { try base().obtainPermanentIDs(for: objects) }
    }

    func save(_ request: StoreSaveRequest, assignments: [NSManagedObjectID: NSPersistentStore]) throws -> StoreSaveResult {
        try parent.performAndWait { try parent.applyChildSave(request, assignments: assignments, base: try base()) }
    }
}

extension NSManagedObjectContext {
    /// The objects of a child's fetch, as this context sees them (its unsaved changes
    /// included).
    fileprivate func objectsForChild(
        _ plan: FetchPlan, affectedStores: [NSPersistentStore]?, loadValues: Bool
    ) throws -> [NSManagedObject] {
        guard let store = objectStore else { throw noStoreError }
        let request = NSFetchRequest<NSManagedObject>()
        request.affectedStores = affectedStores
        request.returnsObjectsAsFaults = false
        return try fetchObjects(plan: plan, request: request, store: store, loadValues: loadValues)
    }

    /// One object's row for a child: this context's object when it has one (`nil` when it
    /// deleted it or its row is gone), else the stored row.
    fileprivate func childSnapshot(for objectID: NSManagedObjectID) throws -> Snapshot? {
        if let object = registeredObject(for: objectID) {
            guard !isDeleted(object) else { return nil }
            return try childSnapshots(of: [object]).first
        }
        guard !objectID.isTemporaryID else { return nil }
        return try storedSnapshot(for: objectID)
    }

    /// The objects' current values as rows for a child: relationships as IDs (to-many ones
    /// when loaded), the version this context last read.
    fileprivate func childSnapshots(of objects: [NSManagedObject]) throws -> [Snapshot] {
        for object in objects { object.fireFault() }
        try makePermanent(objects)
        var snapshots: [Snapshot] = []
        snapshots.reserveCapacity(objects.count)
        for object in objects where !object.isInaccessible && !isDeleted(object) {
            snapshots.append(
                Snapshot(objectID: object.objectID, version: object.snapshot?.version ?? 0, values: storeValues(of: object)))
        }
        return snapshots
    }

    /// Gives permanent IDs to the objects this context inserted among `objects` and the
    /// objects their relationships hold, before a child reads their IDs.
    fileprivate func makePermanent(_ objects: [NSManagedObject]) throws {
        guard !inserted.isEmpty else { return }
        var temporary: [NSManagedObject] = []
        var seen = Set<ObjectIdentifier>()
        func note(_ object: NSManagedObject) {
            if object.objectID.isTemporaryID, isInserted(object), seen.insert(ObjectIdentifier(object)).inserted {
                temporary.append(object)
            }
        }
        for object in objects {
            note(object)
            guard !object.faulted else { continue }
            let layout = object.layout
            for index in layout.objectOnlyIndexes {
                switch layout.kinds[index] {
                case .toOne:
                    if let destination = object.values[index] as? NSManagedObject { note(destination) }
                case .toMany:
                    for destination in ToManyMembers.loadedObjects(in: object.values[index]) ?? [] { note(destination) }
                default:
                    continue
                }
            }
        }
        if !temporary.isEmpty { try obtainPermanentIDs(for: temporary) }
    }

    /// A child's save: its inserts become objects of this context, its changes this
    /// context's changes and its deletes this context's deletes, all unsaved here until this
    /// context saves. Inserted objects get permanent IDs first (from the store beneath).
    fileprivate func applyChildSave(
        _ request: StoreSaveRequest, assignments: [NSManagedObjectID: NSPersistentStore], base: any ObjectStore
    ) throws -> StoreSaveResult {
        // Permanent IDs for the child's new objects, and how its temporary ones map to them.
        var renamed: [NSManagedObjectID: NSManagedObjectID] = [:]
        let temporary = request.inserts.filter { $0.objectID.isTemporaryID }
        if !temporary.isEmpty {
            let ids = try base.obtainPermanentIDs(
                for: temporary.map { ($0.objectID.entity, assignments[$0.objectID]) })
            for (change, id) in zip(temporary, ids) { renamed[change.objectID] = id }
        }
        func resolved(_ id: NSManagedObjectID) -> NSManagedObjectID { renamed[id] ?? id }

        // Objects first, so that relationships can point at any of them.
        var insertedObjects: [NSManagedObject] = []
        insertedObjects.reserveCapacity(request.inserts.count)
        for change in request.inserts {
            let id = resolved(change.objectID)
            if let existing = registeredObject(for: id) {
                insertedObjects.append(existing)
                continue
            }
            let type = ManagedObjectClasses.objectClass(for: id.entity)
            let object = type.init(entity: id.entity, insertInto: nil)
            object.storedObjectID = id
            // The child woke it already; the parent takes it as it is.
            object.hasAwokenFromInsert = true
            insert(object)
            insertedObjects.append(object)
        }
        for (object, change) in zip(insertedObjects, request.inserts) {
            applyChildValues(change, to: object, resolving: resolved)
        }
        var updatedObjects: [NSManagedObject?] = []
        updatedObjects.reserveCapacity(request.updates.count)
        for change in request.updates {
            let object = self.object(with: change.objectID)
            object.fireFault()
            // An object deleted here (or gone from the store) keeps that state: the child's
            // change to it is dropped.
            guard !isDeleted(object), !object.isInaccessible else {
                updatedObjects.append(nil)
                continue
            }
            applyChildValues(change, to: object, resolving: resolved)
            updatedObjects.append(object)
        }
        for change in request.deletes {
            let object = self.object(with: change.objectID)
            delete(object)
        }
        processPendingChanges()

        var result = StoreSaveResult()
        result.inserted.reserveCapacity(insertedObjects.count)
        for (object, change) in zip(insertedObjects, request.inserts) {
            result.inserted.append(
                Snapshot(objectID: resolved(change.objectID), version: 0, values: storeValues(of: object)))
        }
        for (object, change) in zip(updatedObjects, request.updates) {
            if let object {
                result.updated.append(
                    Snapshot(objectID: object.objectID, version: change.expectedVersion, values: storeValues(of: object)))
            } else {
                result.updated.append(Snapshot(objectID: change.objectID, version: change.expectedVersion, values: change.values))
            }
        }
        return result
    }

    /// Sets the properties a child changed, through the usual setters, so that this context
    /// records the changes and keeps inverse relationships (each side the child sent is set
    /// to what the child had; setting the side already kept changes nothing).
    private func applyChildValues(
        _ change: RowChange, to object: NSManagedObject, resolving resolved: (NSManagedObjectID) -> NSManagedObjectID
    ) {
        let layout = object.layout
        for index in change.changed where index < layout.properties.count {
            let property = layout.properties[index]
            let value = change.values[index]
            switch layout.kinds[index] {
            case .attribute:
                object.setValue(value, forKey: property.name)
            case .toOne:
                let destination = (value as? NSManagedObjectID).map { self.object(with: resolved($0)) }
                object.setValue(destination, forKey: property.name)
            case .toMany(let ordered):
                // A to-many the child never loaded is not part of its change.
                guard let ids = value as? [NSManagedObjectID] else { continue }
                let destinations = ids.map { self.object(with: resolved($0)) }
                object.setValue(
                    ordered ? NSOrderedSet(array: destinations) : NSSet(array: destinations), forKey: property.name)
            case .other:
                continue
            }
        }
    }
}
