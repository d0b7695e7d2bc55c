import Foundation

/// The objects of a fetch, made one batch at a time as they are read, so that going through
/// a large result takes the memory of one batch.
///
/// On Apple's systems, a fetch with a `fetchBatchSize` returns a lazily bridged array: the
/// IDs come first and the objects are made a batch at a time. A Swift array on Linux holds
/// every element, so `fetch(_:)` there returns all the objects (as faults that load by batch).
/// `fetchLazily(_:)` is the lazy array of Apple's systems under its own name:
///
/// ```swift
/// let request = NSFetchRequest<Item>(entityName: "Item")
/// request.fetchBatchSize = 500
/// for item in try context.fetchLazily(request) {   // a million items, a batch in memory
///     total += item.price
/// }
/// ```
///
/// The IDs are read when the results are made (a few bytes each), and each batch's rows in
/// one query when one of its objects is first read. The results keep the latest batch; the
/// objects of earlier ones stay only while the app holds them. Use them on the context's
/// queue, like the objects.
public struct LazyFetchResults<Element: NSManagedObject>: RandomAccessCollection {
    private let storage: Storage

    fileprivate init(_ storage: Storage) {
        self.storage = storage
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { storage.count }

    public subscript(position: Int) -> Element {
        let object = storage.object(at: position)
        // The exact class, as a fetch of one entity makes: no dynamic cast per element.
        if type(of: object) == Element.self { return unsafeDowncast(object, to: Element.self) }
        guard let typed = object as? Element else {
            // `fetchLazily` checked every entity's class against `Element`.
            preconditionFailure("\(type(of: object)) is not \(Element.self)")
        }
        return typed
    }

    /// The size of a batch: the request's `fetchBatchSize`, or 100 when it had none.
    public var batchSize: Int { storage.batchSize }

    fileprivate final class Storage {
        private let context: NSManagedObjectContext
        private let source: Source
        private let prefetching: [String]
        private let fillsObjects: Bool
        let batchSize: Int
        private var loadedBatch = -1
        private var batch: [NSManagedObject] = []

        enum Source {
            /// IDs from the store, made into objects a batch at a time.
            case keys(FetchedObjectKeys)
            /// Objects already made: the context's unsaved changes changed the answer.
            case objects([NSManagedObject])
        }

        init(
            context: NSManagedObjectContext, source: Source, batchSize: Int, prefetching: [String], fillsObjects: Bool
        ) {
            self.context = context
            self.batchSize = batchSize
            self.source = source
            self.prefetching = prefetching
            self.fillsObjects = fillsObjects
        }

        var count: Int {
            switch source {
            case .keys(let keys): keys.count
            case .objects(let objects): objects.count
            }
        }

        func object(at position: Int) -> NSManagedObject {
            switch source {
            case .objects(let objects):
                return objects[position]
            case .keys(let keys):
                let number = position / keys.batchSize
                if number != loadedBatch { load(number, of: keys) }
                return batch[position - number * keys.batchSize]
            }
        }

        /// Makes the objects of a batch and reads the rows of those that are faults in one
        /// query; they fill when first read (or at once with `returnsObjectsAsFaults` off).
        private func load(_ number: Int, of keys: FetchedObjectKeys) {
            batch = []
            let objects = keys.objectIDs(ofBatch: number).map { context.object(with: $0) }
            let faults = objects.filter { $0.faulted && $0.pendingSnapshot == nil }
            if !faults.isEmpty, let store = context.objectStore,
                let snapshots = try? store.snapshots(for: faults.map(\.objectID))
            {
                // The rows come in key order, named by the faults' own IDs: in a batch of an
                // unsorted fetch each is the next fault's, found without hashing. The others
                // (a sorted fetch, a row that is gone) are looked up by ID.
                var byID: ObjectIDDictionary<Snapshot>?
                var next = 0
                for object in faults {
                    let found: Snapshot?
                    if next < snapshots.count, snapshots[next].objectID === object.objectID {
                        found = snapshots[next]
                        next += 1
                    } else {
                        if byID == nil {
                            var all = ObjectIDDictionary<Snapshot>()
                            all.reserveCapacity(snapshots.count)
                            for snapshot in snapshots { all[snapshot.objectID] = snapshot }
                            byID = all
                        }
                        found = byID?[object.objectID]
                    }
                    guard let snapshot = found else { continue }
                    if fillsObjects { object.fill(from: snapshot, in: context) } else { object.pendingSnapshot = snapshot }
                }
            }
            if !prefetching.isEmpty, let store = context.objectStore {
                try? context.prefetch(prefetching, for: objects, store: store)
            }
            batch = objects
            loadedBatch = number
        }
    }
}

extension NSManagedObjectContext {
    /// The objects a request finds, made a batch of `fetchBatchSize` (100 when it is 0) at a
    /// time as they are read: what `fetch(_:)` returns on Apple's systems for a request with
    /// a batch size. A Strata addition; see `LazyFetchResults`.
    ///
    /// The predicate, sort, limit and offset run in the store as for `fetch(_:)`. When the
    /// context's unsaved changes change the answer (`includesPendingChanges`), the objects are
    /// made at once, as `fetch(_:)` makes them.
    public func fetchLazily<T: NSManagedObject>(_ request: NSFetchRequest<T>) throws -> LazyFetchResults<T> {
        ManagedObjectClasses.register(T.self)
        guard request.resultType == .managedObjectResultType else {
            throw CoreDataError.make(
                NSCoreDataError,
                "fetchLazily(_:) returns managed objects; this request asks for result type \(request.resultType.rawValue). "
                    + "Use fetch(_:) for IDs, dictionaries or a count.")
        }
        let plan = try fetchPlan(for: request)
        guard let store = objectStore else { throw noStoreError }
        for entity in plan.entities where !(ManagedObjectClasses.objectClass(for: entity) is T.Type) {
            throw CoreDataError.make(
                NSCoreDataError,
                "A fetch of \(entity.name ?? "?") makes \(ManagedObjectClasses.objectClass(for: entity)) objects, "
                    + "not \(T.self); check the entity's class name in the model.")
        }
        let batchSize = request.fetchBatchSize > 0 ? request.fetchBatchSize : 100
        let pending: PendingChanges = request.includesPendingChanges ? pendingChanges(for: plan) : ([], [], false)
        let source: LazyFetchResults<T>.Storage.Source
        if Self.changesAnswer(pending, of: plan) {
            source = .objects(try fetchObjects(plan: plan, request: request, store: store, loadValues: true))
        } else {
            source = .keys(try store.fetchObjectKeys(plan, affectedStores: request.affectedStores, batchSize: batchSize))
        }
        return LazyFetchResults(
            LazyFetchResults<T>.Storage(
                context: self, source: source, batchSize: batchSize,
                prefetching: request.relationshipKeyPathsForPrefetching ?? [],
                fillsObjects: !request.returnsObjectsAsFaults))
    }
}
