import Foundation
import Strata

/// The same work as an app does it with Strata: a coordinator with a SQLite store, a
/// private-queue context, typed `@Managed` classes, fetch requests and one save.
enum StrataCases {
    /// A coordinator and a context on the store at `path`; made before the clock starts.
    struct Stack {
        let coordinator: NSPersistentStoreCoordinator
        let context: NSManagedObjectContext

        init(_ path: String, options: [AnyHashable: Any]? = nil) throws {
            coordinator = NSPersistentStoreCoordinator(managedObjectModel: BenchModel.shared)
            try coordinator.addPersistentStore(
                ofType: NSSQLiteStoreType, configurationName: nil, at: URL(fileURLWithPath: path), options: options)
            context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
        }

        /// Closes the store, so that the next trial starts cold.
        func close() {
            context.performAndWait { context.reset() }
            for store in coordinator.persistentStores { try? coordinator.remove(store) }
        }

        func run(_ work: (NSManagedObjectContext) throws -> Int) throws -> Sample {
            try measure { try context.performAndWait { try work(context) } }
        }
    }

    static func items() -> NSFetchRequest<Item> { NSFetchRequest<Item>(entityName: "Item") }

    static func insert(_ fixtures: Fixtures) throws -> Sample { try insert(fixtures, options: nil) }

    /// B1, on a store opened with `options` (B1h: with persistent history).
    static func insert(_ fixtures: Fixtures, options: [AnyHashable: Any]?) throws -> Sample {
        let path = try fixtures.scratchCopy(of: fixtures.empty)
        defer { Fixtures.remove(path) }
        let stack = try Stack(path, options: options)
        defer { stack.close() }
        let count = fixtures.sizes.inserts
        return try stack.run { context in
            var checksum = Checksum()
            for n in 1...count {
                let values = ItemValues(n)
                let item = Item(context: context)
                item.category = values.category
                item.quantity = values.quantity
                item.serial = values.serial
                item.stock = values.stock
                item.price = values.price
                item.weight = values.weight
                item.latitude = values.latitude
                item.longitude = values.longitude
                item.name = values.name
                item.created = Date(timeIntervalSinceReferenceDate: values.created)
                checksum.add(values.serial)
            }
            try context.save()
            return checksum.value
        }
    }

    static func fetch(_ fixtures: Fixtures) throws -> Sample { try fetch(fixtures, batchSize: 0) }
    static func fetchBatched(_ fixtures: Fixtures) throws -> Sample {
        try fetch(fixtures, batchSize: fixtures.sizes.batchSize)
    }

    private static func fetch(_ fixtures: Fixtures, batchSize: Int) throws -> Sample {
        let stack = try Stack(fixtures.items)
        defer { stack.close() }
        return try stack.run { context in
            let request = items()
            var checksum = Checksum()
            if batchSize > 0 {
                // Apple's `fetch` returns a lazy array for a batch size; Strata's lazy results.
                request.fetchBatchSize = batchSize
                for item in try context.fetchLazily(request) { checksum.add(item) }
            } else {
                for item in try context.fetch(request) { checksum.add(item) }
            }
            return checksum.value
        }
    }

    static func fetchIDs(_ fixtures: Fixtures) throws -> Sample {
        let stack = try Stack(fixtures.items)
        defer { stack.close() }
        return try stack.run { context in
            let request = NSFetchRequest<NSManagedObjectID>(entityName: "Item")
            request.resultType = .managedObjectIDResultType
            return try context.fetch(request).count
        }
    }

    static func query(_ fixtures: Fixtures) throws -> Sample {
        let stack = try Stack(fixtures.large)
        defer { stack.close() }
        return try stack.run { context in
            var checksum = Checksum()
            for query in 0..<fixtures.sizes.queries {
                let parameters = QueryParameters(query)
                let request = items()
                request.predicate = NSPredicate(
                    format: "category == %d AND price >= %f", Int(parameters.category), parameters.minimumPrice)
                request.sortDescriptors = [NSSortDescriptor(key: "price", ascending: true)]
                request.fetchLimit = 20
                for item in try context.fetch(request) { checksum.add(item) }
            }
            return checksum.value
        }
    }

    static func traverseLazily(_ fixtures: Fixtures) throws -> Sample { try traverse(fixtures, prefetching: false) }
    static func traversePrefetched(_ fixtures: Fixtures) throws -> Sample { try traverse(fixtures, prefetching: true) }
    static func traverseTypedLazily(_ fixtures: Fixtures) throws -> Sample {
        try traverse(fixtures, prefetching: false, typed: true)
    }
    static func traverseTypedPrefetched(_ fixtures: Fixtures) throws -> Sample {
        try traverse(fixtures, prefetching: true, typed: true)
    }

    /// Each owner's items through the `NSSet?` accessor Xcode generates, or (B7t) through a
    /// typed `Set<Item>` accessor, as a `@Managed var items: Set<Item>` reads them.
    private static func traverse(_ fixtures: Fixtures, prefetching: Bool, typed: Bool = false) throws -> Sample {
        let stack = try Stack(fixtures.owners)
        defer { stack.close() }
        return try stack.run { context in
            let request = NSFetchRequest<Owner>(entityName: "Owner")
            if prefetching { request.relationshipKeyPathsForPrefetching = ["items"] }
            var checksum = Checksum()
            for owner in try context.fetch(request) {
                checksum.add(owner.name)
                if typed {
                    for item in owner.itemSet { checksum.add(item) }
                } else {
                    for case let item as Item in owner.items ?? [] { checksum.add(item) }
                }
            }
            return checksum.value
        }
    }

    static func modify(_ fixtures: Fixtures) throws -> Sample { try modify(fixtures, options: nil) }

    /// B8, on a store opened with `options` (B8h: with persistent history).
    static func modify(_ fixtures: Fixtures, options: [AnyHashable: Any]?) throws -> Sample {
        let path = try fixtures.scratchCopy(of: fixtures.items)
        defer { Fixtures.remove(path) }
        let stack = try Stack(path, options: options)
        defer { stack.close() }
        return try stack.run { context in
            var checksum = Checksum()
            for item in try context.fetch(items()) {
                item.price = ItemValues.modifiedPrice(item.price)
                item.name = ItemValues.modifiedName(item.name ?? "")
                checksum.add(item.price)
                checksum.add(item.name)
            }
            try context.save()
            return checksum.value
        }
    }

    static func delete(_ fixtures: Fixtures) throws -> Sample {
        let path = try fixtures.scratchCopy(of: fixtures.owners)
        defer { Fixtures.remove(path) }
        let stack = try Stack(path)
        defer { stack.close() }
        return try stack.run { context in
            for owner in try context.fetch(NSFetchRequest<Owner>(entityName: "Owner")) { context.delete(owner) }
            try context.save()
            return try context.count(for: items())
        }
    }

    // MARK: Memory

    static func holdAll(_ fixtures: Fixtures) throws -> Int {
        let stack = try Stack(fixtures.items)
        return try stack.context.performAndWait {
            let fetched = try stack.context.fetch(items())
            var checksum = Checksum()
            for item in fetched { checksum.add(item) }
            return withExtendedLifetime((stack, fetched)) { checksum.value }
        }
    }

    /// M2 as SPEC §5 words it: one fetch with `fetchBatchSize`, every object read once, through
    /// the lazy results (what `fetch` returns on Apple's systems for a batch size).
    static func iterateBatched(_ fixtures: Fixtures) throws -> Int { try iterate(fixtures, lazily: true) }

    /// The same through `fetch`, which on Linux returns a Swift array of every object.
    static func iterateBatchedArray(_ fixtures: Fixtures) throws -> Int { try iterate(fixtures, lazily: false) }

    private static func iterate(_ fixtures: Fixtures, lazily: Bool) throws -> Int {
        let stack = try Stack(fixtures.large)
        return try stack.context.performAndWait {
            let request = items()
            request.fetchBatchSize = fixtures.sizes.batchSize
            var checksum = Checksum()
            if lazily {
                for item in try stack.context.fetchLazily(request) { checksum.add(item) }
            } else {
                for item in try stack.context.fetch(request) { checksum.add(item) }
            }
            return checksum.value
        }
    }

    /// M2 as an app keeps memory flat today: pages of `pageSize` by an indexed key, the
    /// context reset after each page.
    static func iteratePaged(_ fixtures: Fixtures) throws -> Int {
        let stack = try Stack(fixtures.large)
        return try stack.context.performAndWait {
            let context = stack.context
            var checksum = Checksum()
            var last: Int64 = -1
            while true {
                let request = items()
                request.predicate = NSPredicate(format: "serial > %lld", last)
                request.sortDescriptors = [NSSortDescriptor(key: "serial", ascending: true)]
                request.fetchLimit = fixtures.sizes.pageSize
                let page = try context.fetch(request)
                guard let tail = page.last else { break }
                for item in page { checksum.add(item) }
                last = tail.serial
                context.reset()
            }
            return checksum.value
        }
    }
}
