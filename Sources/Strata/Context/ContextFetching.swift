import Foundation

/// Fetching objects, counting them, and loading faults and to-many relationships.
extension NSManagedObjectContext {
    /// The objects (or IDs, dictionaries, or count) a request describes, in its order.
    ///
    /// With `includesPendingChanges` (the default) objects inserted in this context and not
    /// saved yet are included, and objects deleted in it are left out.
    public func fetch<T>(_ request: NSFetchRequest<T>) throws -> [T] {
        if let type = T.self as? NSManagedObject.Type { ManagedObjectClasses.register(type) }
        let plan = try fetchPlan(for: request)
        guard let store = objectStore else { throw Self.noCoordinator() }
        let results: [Any]
        switch request.resultType {
        case .countResultType:
            results = [NSNumber(value: try count(plan: plan, request: request, store: store))]
        case .managedObjectIDResultType:
            results = try fetchObjects(plan: plan, request: request, store: store, loadValues: false).map(\.objectID)
        case .dictionaryResultType:
            results = try fetchObjects(plan: plan, request: request, store: store, loadValues: true).map {
                Self.dictionary(of: $0, properties: request.propertiesToFetch)
            }
        default:
            results = try fetchObjects(
                plan: plan, request: request, store: store, loadValues: request.includesPropertyValues)
        }
        var typed: [T] = []
        typed.reserveCapacity(results.count)
        for result in results {
            guard let value = result as? T else {
                throw CoreDataError.make(
                    NSCoreDataError,
                    "A fetch of \(plan.entity.name ?? "?") returned \(type(of: result)), not \(T.self); "
                        + "check the entity's class name in the model.")
            }
            typed.append(value)
        }
        return typed
    }

    /// The number of objects the request would return.
    public func count<T>(for request: NSFetchRequest<T>) throws -> Int {
        guard let store = objectStore else { throw Self.noCoordinator() }
        return try count(plan: try fetchPlan(for: request), request: request, store: store)
    }

    private func fetchPlan<T>(for request: NSFetchRequest<T>) throws -> FetchPlan {
        guard let model else { throw Self.noCoordinator() }
        let entity =
            request.entity.flatMap { model.entitiesByName[$0.name ?? ""] }
            ?? request.entityName.flatMap { model.entitiesByName[$0] }
        guard let entity else {
            throw CoreDataError.make(
                NSCoreDataError,
                "The fetch request's entity \"\(request.entityName ?? "nil")\" is not in the context's model.")
        }
        let keys = try (request.sortDescriptors ?? []).map { descriptor -> FetchPlan.SortKey in
            guard let key = descriptor.key, !key.isEmpty else {
                throw CoreDataError.make(NSCoreDataError, "A sort descriptor of a fetch request needs a key.")
            }
            return FetchPlan.SortKey(key: key, ascending: descriptor.ascending)
        }
        return FetchPlan(
            entity: entity, includesSubentities: request.includesSubentities, sortKeys: keys,
            limit: max(0, request.fetchLimit), offset: max(0, request.fetchOffset))
    }

    /// Unsaved inserted objects a fetch of the plan would match.
    private func pendingInserts(matching plan: FetchPlan) -> [NSManagedObject] {
        let entities = Set(plan.entities.map(ObjectIdentifier.init))
        return inserted.objects.filter { entities.contains(ObjectIdentifier($0.entity)) }
    }

    private func fetchObjects<T>(
        plan: FetchPlan, request: NSFetchRequest<T>, store: any ObjectStore, loadValues: Bool
    ) throws -> [NSManagedObject] {
        let pending = request.includesPendingChanges ? pendingInserts(matching: plan) : []
        let adjusting = request.includesPendingChanges && (!pending.isEmpty || !deleted.isEmpty)
        var storePlan = plan
        if adjusting {
            storePlan.offset = 0
            storePlan.limit = plan.limit > 0 ? plan.limit + plan.offset + deleted.count : 0
        }
        let stores = request.affectedStores
        var objects: [NSManagedObject]
        if loadValues {
            let snapshots = try store.fetchSnapshots(storePlan, affectedStores: stores)
            objects = snapshots.map { snapshot in
                let object = object(with: snapshot.objectID)
                if object.faulted {
                    if request.returnsObjectsAsFaults {
                        object.pendingSnapshot = snapshot
                    } else {
                        object.fill(from: snapshot, in: self)
                    }
                }
                return object
            }
        } else {
            objects = try store.fetchObjectIDs(storePlan, affectedStores: stores).map { object(with: $0) }
        }
        guard adjusting else { return objects }
        objects.removeAll { deleted.contains($0) }
        objects += pending
        if !plan.sortKeys.isEmpty {
            objects = Self.sorted(objects, by: plan.sortKeys)
        }
        return Array(objects.dropFirst(plan.offset).prefix(plan.limit > 0 ? plan.limit : Int.max))
    }

    private func count<T>(plan: FetchPlan, request: NSFetchRequest<T>, store: any ObjectStore) throws -> Int {
        guard request.includesPendingChanges else { return try store.count(plan, affectedStores: request.affectedStores) }
        let pending = pendingInserts(matching: plan)
        let entities = Set(plan.entities.map(ObjectIdentifier.init))
        let deletedMatches = deleted.objects.filter {
            !$0.objectID.isTemporaryID && entities.contains(ObjectIdentifier($0.entity))
        }
        guard !pending.isEmpty || !deletedMatches.isEmpty else {
            return try store.count(plan, affectedStores: request.affectedStores)
        }
        let total = try store.count(plan.unpaged, affectedStores: request.affectedStores) - deletedMatches.count + pending.count
        let paged = max(0, total - plan.offset)
        return plan.limit > 0 ? min(paged, plan.limit) : paged
    }

    /// Objects in the order of the sort keys, comparing their current values.
    static func sorted(_ objects: [NSManagedObject], by keys: [FetchPlan.SortKey]) -> [NSManagedObject] {
        objects.sorted { a, b in
            for key in keys {
                let result = InMemorySort.compare(storedForm(a.value(forKey: key.key)), storedForm(b.value(forKey: key.key)))
                if result != .orderedSame { return key.ascending ? result == .orderedAscending : result == .orderedDescending }
            }
            return false
        }
    }

    private static func storedForm(_ value: Any?) -> Any? {
        (value as? NSManagedObject)?.objectID ?? value
    }

    /// A dictionary result: the named properties (all attributes when none are named).
    static func dictionary(of object: NSManagedObject, properties: [Any]?) -> NSDictionary {
        let names =
            properties?.compactMap { ($0 as? String) ?? ($0 as? NSPropertyDescription)?.name }
            ?? object.entity.properties.compactMap { $0 is NSAttributeDescription && !$0.isTransient ? $0.name : nil }
        let result = NSMutableDictionary()
        for name in names {
            guard let value = object.value(forKey: name) else { continue }
            result[name] = (value as? NSManagedObject)?.objectID ?? value
        }
        return result
    }

    // MARK: Faults

    /// Loads a fault's values: from the snapshot the fetch left, the row cache, or the store.
    func fulfillFault(of object: NSManagedObject) {
        if let snapshot = object.pendingSnapshot {
            object.fill(from: snapshot, in: self)
            return
        }
        guard let store = objectStore, !object.objectID.isTemporaryID else { return }
        if let snapshot = try? store.snapshot(for: object.objectID) {
            object.fill(from: snapshot, in: self)
        } else {
            object.isInaccessible = true
        }
    }

    /// Loads the destinations of a to-many relationship of an object.
    func loadRelationship(of object: NSManagedObject, at index: Int) -> [NSManagedObject] {
        guard let store = objectStore, !object.objectID.isTemporaryID,
            let relationship = object.layout.properties[index] as? NSRelationshipDescription,
            let ids = try? store.relatedObjectIDs(of: object.objectID, relationship: relationship)
        else { return [] }
        return ids.map { self.object(with: $0) }
    }
}
