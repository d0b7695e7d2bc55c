import Foundation

/// Fetching objects, counting them, and loading faults and to-many relationships.
extension NSManagedObjectContext {
    /// The objects (or IDs, dictionaries, or count) a request describes, in its order.
    ///
    /// With `includesPendingChanges` (the default) the context's unsaved inserts, edits and
    /// deletes change the answer, as in Core Data; dictionary results come from the store.
    public func fetch<T>(_ request: NSFetchRequest<T>) throws -> [T] {
        if let type = T.self as? NSManagedObject.Type { ManagedObjectClasses.register(type) }
        let plan = try fetchPlan(for: request)
        guard let store = objectStore else { throw noStoreError }
        switch request.resultType {
        case .countResultType:
            return try typed([NSNumber(value: try count(plan: plan, request: request, store: store))], plan: plan)
        case .managedObjectIDResultType:
            let ids = try fetchObjectIDs(plan: plan, request: request, store: store)
            // The usual request, `NSFetchRequest<NSManagedObjectID>`: the array as it is.
            if T.self == NSManagedObjectID.self { return unsafeBitCast(ids, to: [T].self) }
            return try typed(ids, plan: plan)
        case .dictionaryResultType:
            let rows = try store.fetchDictionaries(
                try DictionaryFetch(request: request, plan: plan), affectedStores: request.affectedStores)
            return try typed(rows.map { NSDictionary(dictionary: $0) }, plan: plan)
        default:
            let objects = try fetchObjects(
                plan: plan, request: request, store: store, loadValues: request.includesPropertyValues)
            return try typed(objects, plan: plan)
        }
    }

    /// The results as the request's result type; an error names a class the model got wrong.
    private func typed<T, Result: AnyObject>(_ results: [Result], plan: FetchPlan) throws -> [T] {
        // Objects of exactly the requested class (every object of an entity without
        // subentities, fetched with its class): the array as it is, not cast element by
        // element (a dynamic cast each, 450 instructions an object of B3). Only a class's
        // array has the layout of `[Result]`; an existential's elements are wider.
        if T.self == Result.self { return unsafeBitCast(results, to: [T].self) }
        if T.self is AnyClass, MemoryLayout<T>.size == MemoryLayout<Result>.size {
            if Self.allOfClass(ObjectIdentifier(T.self), unsafeBitCast(results, to: [AnyObject].self)) {
                return unsafeBitCast(results, to: [T].self)
            }
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

    /// Whether every object is exactly of the class (a plain loop: in the generic caller, each
    /// element's class was asked through the runtime's generic witnesses).
    private static func allOfClass(_ wanted: ObjectIdentifier, _ objects: [AnyObject]) -> Bool {
        objects.withUnsafeBufferPointer { buffer in
            for object in buffer where ObjectIdentifier(type(of: object)) != wanted { return false }
            return true
        }
    }

    /// The IDs a request finds: the store's answer, without making an object for each,
    /// unless unsaved changes in the context change the answer.
    private func fetchObjectIDs<T>(
        plan: FetchPlan, request: NSFetchRequest<T>, store: any ObjectStore
    ) throws -> [NSManagedObjectID] {
        if request.includesPendingChanges && Self.changesAnswer(pendingChanges(for: plan), of: plan) {
            return try fetchObjects(plan: plan, request: request, store: store, loadValues: false).map(\.objectID)
        }
        return try store.fetchObjectIDs(plan, affectedStores: request.affectedStores)
    }

    /// Whether unsaved changes can move objects into or out of the answer of a fetch (edits
    /// only matter to a predicate or a sort).
    static func changesAnswer(_ pending: PendingChanges, of plan: FetchPlan) -> Bool {
        !pending.inserted.isEmpty || pending.deleted
            || (!pending.updated.isEmpty && (plan.predicate != nil || !plan.sortKeys.isEmpty))
    }

    /// The number of objects the request would return.
    public func count<T>(for request: NSFetchRequest<T>) throws -> Int {
        guard let store = objectStore else { throw noStoreError }
        return try count(plan: try fetchPlan(for: request), request: request, store: store)
    }

    func fetchPlan<T>(for request: NSFetchRequest<T>) throws -> FetchPlan {
        guard let model else { throw noStoreError }
        let entity =
            request.entity.flatMap { model.entity(named: $0.name ?? "") }
            ?? request.entityName.flatMap { model.entity(named: $0) }
        guard let entity else {
            throw CoreDataError.make(
                NSCoreDataError,
                "The fetch request's entity \"\(request.entityName ?? "nil")\" is not in the context's model.")
        }
        let keys = try (request.sortDescriptors ?? []).map(Self.sortKey)
        var predicate: PredicateNode?
        if let given = request.predicate {
            predicate = try PredicateConversion.node(of: given)
        } else if let format = request.predicateFormat {
            predicate = try PredicateParser.parsePredicate(format, arguments: [])
        }
        if let unbound = predicate?.freeVariables.sorted().first {
            throw CoreDataError.make(
                NSCoreDataError,
                "The fetch request's predicate has the variable $\(unbound) without a value; "
                    + "use withSubstitutionVariables(_:) or fetchRequestFromTemplate(withName:substitutionVariables:).")
        }
        return FetchPlan(
            entity: entity, includesSubentities: request.includesSubentities, sortKeys: keys,
            limit: max(0, request.fetchLimit), offset: max(0, request.fetchOffset), predicate: predicate)
    }

    static func sortKey(_ descriptor: NSSortDescriptor) throws -> FetchPlan.SortKey {
        guard let key = descriptor.key, !key.isEmpty else {
            throw CoreDataError.make(NSCoreDataError, "A sort descriptor of a fetch request needs a key.")
        }
        var comparison = FetchPlan.SortComparison.compare
        if let selector = descriptor.selectorName {
            guard let known = FetchPlan.SortComparison(rawValue: selector) else {
                throw CoreDataError.make(NSCoreDataError, "Unsupported sort selector \(selector) for key \(key).")
            }
            comparison = known
        }
        return FetchPlan.SortKey(key: key, ascending: descriptor.ascending, comparison: comparison)
    }

    // MARK: Objects

    /// Unsaved changes that may change the answer of a fetch of the plan: objects inserted
    /// or changed in this context, and objects deleted in it.
    typealias PendingChanges = (inserted: [NSManagedObject], updated: [NSManagedObject], deleted: Bool)

    func pendingChanges(for plan: FetchPlan) -> PendingChanges {
        // A context without changes (most fetches): no set of entities made, no lists filtered.
        if inserted.isEmpty && updated.isEmpty && deleted.isEmpty { return ([], [], false) }
        let entities = Set(plan.entities.map(ObjectIdentifier.init))
        let inserted = self.inserted.objects.filter { entities.contains(ObjectIdentifier($0.entity)) }
        let updated = self.updated.objects.filter {
            entities.contains(ObjectIdentifier($0.entity)) && !$0.changedIndexes.isEmpty
        }
        let deleted = self.deleted.objects.contains { entities.contains(ObjectIdentifier($0.entity)) }
        return (inserted, updated, deleted)
    }

    func fetchObjects<T>(
        plan: FetchPlan, request: NSFetchRequest<T>, store: any ObjectStore, loadValues: Bool
    ) throws -> [NSManagedObject] {
        let pending: PendingChanges = request.includesPendingChanges ? pendingChanges(for: plan) : ([], [], false)
        // Edits can move objects into or out of the answer, so the page is cut in memory then.
        let adjusting = Self.changesAnswer(pending, of: plan)
        let storePlan = adjusting ? plan.unpaged : plan
        var objects: [NSManagedObject]
        if request.fetchBatchSize > 0 && !adjusting && loadValues {
            let ids = try store.fetchObjectIDs(storePlan, affectedStores: request.affectedStores)
            reserveRegistry(forFetched: ids.count)
            let loader = BatchFaultLoader(ids: ids, batchSize: request.fetchBatchSize)
            objects = ids.enumerated().map { position, id in
                let object = object(with: id)
                if object.faulted { object.batch = (loader, position) }
                return object
            }
        } else if loadValues {
            let snapshots = try store.fetchSnapshots(storePlan, affectedStores: request.affectedStores)
            reserveRegistry(forFetched: snapshots.count)
            // Read once: each read of a request's property inside the loop was an access check
            // (the request is a class that the loop could change, as far as the compiler knows).
            let refreshing = request.shouldRefreshRefetchedObjects
            let asFaults = request.returnsObjectsAsFaults
            objects = snapshots.map { snapshot in
                let object = object(with: snapshot.objectID)
                if object.faulted {
                    if asFaults {
                        object.pendingSnapshot = snapshot
                    } else {
                        object.fill(from: snapshot, in: self)
                    }
                } else if refreshing, !inserted.contains(object), !deleted.contains(object) {
                    object.merge(snapshot: snapshot, keeping: object.changedIndexes, in: self)
                    object.keepLiveViewsCurrent()
                    eventRefreshed.insert(object)
                }
                return object
            }
        } else {
            let ids = try store.fetchObjectIDs(storePlan, affectedStores: request.affectedStores)
            reserveRegistry(forFetched: ids.count)
            objects = ids.map { object(with: $0) }
        }
        if adjusting {
            objects = merge(objects, with: pending, plan: plan)
        }
        if let keyPaths = request.relationshipKeyPathsForPrefetching, !keyPaths.isEmpty {
            try prefetch(keyPaths, for: objects, store: store)
        }
        return objects
    }

    /// The store's answer corrected by the context's unsaved changes, sorted and paged.
    private func merge(
        _ fetched: [NSManagedObject], with pending: PendingChanges, plan: FetchPlan
    ) -> [NSManagedObject] {
        func matches(_ object: NSManagedObject) -> Bool {
            plan.predicate.map { PredicateEvaluator.evaluate($0, with: object) } ?? true
        }
        let changed = Set(pending.updated.map(ObjectIdentifier.init))
        var seen = Set<ObjectIdentifier>()
        var objects: [NSManagedObject] = []
        for object in fetched where !deleted.contains(object) {
            if changed.contains(ObjectIdentifier(object)) && !matches(object) { continue }
            if seen.insert(ObjectIdentifier(object)).inserted { objects.append(object) }
        }
        for object in pending.updated + pending.inserted where matches(object) {
            if seen.insert(ObjectIdentifier(object)).inserted { objects.append(object) }
        }
        if !plan.sortKeys.isEmpty { objects = Self.sorted(objects, by: plan.sortKeys) }
        return Array(objects.dropFirst(plan.offset).prefix(plan.limit > 0 ? plan.limit : Int.max))
    }

    func count<T>(plan: FetchPlan, request: NSFetchRequest<T>, store: any ObjectStore) throws -> Int {
        guard request.includesPendingChanges else { return try store.count(plan, affectedStores: request.affectedStores) }
        let pending = pendingChanges(for: plan)
        guard !pending.inserted.isEmpty || pending.deleted || !pending.updated.isEmpty else {
            return try store.count(plan, affectedStores: request.affectedStores)
        }
        let ids = try store.fetchObjectIDs(plan.unpaged, affectedStores: request.affectedStores)
        return merge(ids.map { object(with: $0) }, with: pending, plan: plan).count
    }

    /// Objects in the order of the sort keys, comparing their current values.
    static func sorted(_ objects: [NSManagedObject], by keys: [FetchPlan.SortKey]) -> [NSManagedObject] {
        let rows = objects.map { object in (object, keys.map { storedForm(object.value(forKeyPath: $0.key)) }) }
        return rows.sorted { a, b in
            for (index, key) in keys.enumerated() {
                let result = PredicateSortComparison.compare(a.1[index], b.1[index], using: key.comparison)
                if result != .orderedSame { return key.ascending ? result == .orderedAscending : result == .orderedDescending }
            }
            return false
        }.map(\.0)
    }

    private static func storedForm(_ value: Any?) -> Any? {
        (value as? NSManagedObject)?.objectID ?? value
    }

    // MARK: Prefetching

    /// Loads the destinations of relationship key paths for all the objects at once, a
    /// query per relationship instead of one per object.
    func prefetch(_ keyPaths: [String], for objects: [NSManagedObject], store: any ObjectStore) throws {
        for keyPath in keyPaths {
            var level = objects
            for name in keyPath.split(separator: ".").map(String.init) {
                var next: [NSManagedObject] = []
                var seen = Set<ObjectIdentifier>()
                for object in level { object.fireFault() }
                // By the entity's identity: `NSEntityDescription`'s equality compares whole
                // descriptions, which cost a tenth of a prefetch when asked per object.
                let groups = Dictionary(grouping: level.filter { $0.layout.indexByName[name] != nil }) {
                    ObjectIdentifier($0.entity)
                }
                for (_, group) in groups {
                    guard let index = group.first?.layout.indexByName[name],
                        let relationship = group.first?.layout.properties[index] as? NSRelationshipDescription
                    else { continue }
                    if relationship.isToMany {
                        let saved = group.filter { !$0.objectID.isTemporaryID && $0.values[index] is RelationshipFault }
                        try loadRelationship(relationship, at: index, of: saved, store: store)
                        for object in group {
                            for destination in object.toManyObjects(at: index)
                            where seen.insert(ObjectIdentifier(destination)).inserted {
                                next.append(destination)
                            }
                        }
                    } else {
                        for object in group {
                            if let destination = object.values[index] as? NSManagedObject,
                                seen.insert(ObjectIdentifier(destination)).inserted
                            {
                                next.append(destination)
                            }
                        }
                    }
                }
                let faults = next.filter { $0.faulted && $0.pendingSnapshot == nil && !$0.objectID.isTemporaryID }
                for snapshot in try store.snapshots(for: faults.map(\.objectID)) {
                    registeredObject(for: snapshot.objectID)?.pendingSnapshot = snapshot
                }
                level = next
            }
        }
    }

    /// Loads a to-many relationship of several saved objects with one read: when the store
    /// reads the destinations' rows along, they go to the destinations that are still faults
    /// (the registry grows once for them); otherwise the destinations are faults of their IDs.
    /// Nothing is assigned when the read fails.
    func loadRelationship(
        _ relationship: NSRelationshipDescription, at index: Int, of objects: [NSManagedObject], store: any ObjectStore
    ) throws {
        let ids = objects.map(\.objectID)
        if let rows = try store.relatedRows(of: ids, relationship: relationship) {
            reserveRegistry(adding: rows.values.reduce(0) { $0 + $1.count })
            for object in objects {
                object.values[index] = (rows[object.objectID] ?? []).map { self.object(withRow: $0) }
            }
        } else {
            let related = try store.relatedObjectIDs(of: ids, relationship: relationship)
            for object in objects {
                object.values[index] = (related[object.objectID] ?? []).map { self.object(with: $0) }
            }
        }
    }

    // MARK: Faults

    /// The object of a row read along with a relationship: a fault that has no values yet
    /// keeps the row for when it fires (as a fetch's faults do), without the row cache.
    func object(withRow row: Snapshot) -> NSManagedObject {
        let object = self.object(with: row.objectID)
        if object.faulted && !object.hasPendingRow { object.pendingSnapshot = row }
        return object
    }

    /// Loads a fault's values: from the snapshot the fetch left, its batch, the row cache,
    /// or the store.
    func fulfillFault(of object: NSManagedObject) {
        if object.hasPendingRow {
            // The common case: a fetch left the fault its row.
            object.batch = nil
            object.fillFromPendingRow(in: self)
            return
        }
        if let (loader, position) = object.batch, let store = objectStore {
            for snapshot in loader.snapshots(around: position, store: store) {
                registeredObject(for: snapshot.objectID)?.pendingSnapshot = snapshot
            }
        }
        object.batch = nil
        if let snapshot = object.pendingSnapshot {
            object.fill(from: snapshot, in: self)
            return
        }
        guard objectStore != nil, !object.objectID.isTemporaryID else { return }
        if let snapshot = try? storedSnapshot(for: object.objectID) {
            object.fill(from: snapshot, in: self)
        } else {
            object.isInaccessible = true
        }
    }

    /// An object's row from the store's side: the coordinator's cached row when it is no
    /// older than `stalenessInterval` allows (any age when it is negative), else the store's.
    func storedSnapshot(for objectID: NSManagedObjectID) throws -> Snapshot? {
        if stalenessInterval >= 0, generationToken == nil, parent == nil, let coordinator = persistentStoreCoordinator {
            return try coordinator.snapshot(for: objectID, maximumAge: stalenessInterval)
        }
        return try objectStore?.snapshot(for: objectID)
    }

    /// Loads the destinations of a to-many relationship of an object. Their rows come along
    /// when the store reads them (as Core Data's relationship faults do): the destinations'
    /// faults keep them, as a fetch's faults keep theirs. Nothing is loaded when the read fails.
    func loadRelationship(of object: NSManagedObject, at index: Int) -> [NSManagedObject] {
        guard let store = objectStore, !object.objectID.isTemporaryID,
            let relationship = object.layout.properties[index] as? NSRelationshipDescription
        else { return [] }
        do {
            if let rows = try store.relatedRows(of: object.objectID, relationship: relationship) {
                reserveRegistry(adding: rows.count)
                return rows.map { self.object(withRow: $0) }
            }
            return try store.relatedObjectIDs(of: object.objectID, relationship: relationship).map { self.object(with: $0) }
        } catch {
            return []
        }
    }
}
