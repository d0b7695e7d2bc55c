import Foundation
import Testing

@testable import Strata

final class LazyReading: NSManagedObject {
    @Managed var serial: Int64
    @Managed var label: String?
}

final class LazyOther: NSManagedObject {
    @Managed var serial: Int64
}

/// `fetchLazily(_:)`: the objects of `fetch(_:)`, in the same order, made a batch at a time,
/// with only the latest batch kept; IDs kept compactly until then.
@Suite struct LazyFetchResultsTests {
    static let model = NSManagedObjectModel {
        Entity("LazyReading", className: "LazyReading") {
            Attribute("serial", .integer64AttributeType, optional: false, defaultValue: Int64(0))
            Attribute("label", .stringAttributeType)
        }
    }

    /// A SQLite store with readings 1…count (labels "r1"…).
    static func store(count: Int) throws -> ScratchStore {
        let store = try ScratchStore(model: model)
        let context = store.newContext()
        try context.performAndWait {
            for serial in 1...count {
                let reading = LazyReading(context: context)
                reading.serial = Int64(serial)
                reading.label = "r\(serial)"
            }
            try context.save()
        }
        return store
    }

    @Test func theSameObjectsAsFetchInTheSameOrder() throws {
        let store = try Self.store(count: 250)
        defer { store.remove() }
        let context = store.newContext()
        try context.performAndWait {
            let request = NSFetchRequest<LazyReading>(entityName: "LazyReading")
            request.predicate = NSPredicate(format: "serial > %d", 10)
            request.sortDescriptors = [NSSortDescriptor(key: "serial", ascending: false)]
            request.fetchOffset = 5
            request.fetchLimit = 200
            request.fetchBatchSize = 20
            let lazy = try context.fetchLazily(request)
            let eager = try context.fetch(request)
            #expect(lazy.count == 200 && lazy.batchSize == 20)
            #expect(lazy.map(\.serial) == eager.map(\.serial))
            #expect(lazy.map(\.label) == eager.map(\.label))
            #expect(lazy.first?.serial == 245 && lazy.last?.serial == 46)
            // Read backwards and out of order: every position still holds its own object.
            #expect(lazy[199].serial == 46 && lazy[0].serial == 245 && lazy[100].serial == 145)
            #expect(lazy[37] === eager[37])
        }
    }

    /// Batches whose keys run without a gap are read as one key range, the others by their
    /// keys: both give each position its own row, gaps (deleted rows) included.
    @Test func batchesWithAndWithoutGapsReadTheirOwnRows() throws {
        let store = try Self.store(count: 120)
        defer { store.remove() }
        let context = store.newContext()
        try context.performAndWait {
            let doomed = NSFetchRequest<LazyReading>(entityName: "LazyReading")
            doomed.predicate = NSPredicate(format: "serial IN %@", [13, 14, 57, 58, 59, 100])
            for reading in try context.fetch(doomed) { context.delete(reading) }
            try context.save()
            let request = NSFetchRequest<LazyReading>(entityName: "LazyReading")
            request.fetchBatchSize = 10
            let lazy = try context.fetchLazily(request)
            let expected = (1...120).filter { ![13, 14, 57, 58, 59, 100].contains($0) }.map(Int64.init)
            #expect(lazy.map(\.serial) == expected)
            #expect(lazy.map(\.label) == expected.map { "r\($0)" })
        }
        #expect(SQLiteStore.consecutiveRange([4, 5, 6, 7]) == 4...7)
        #expect(SQLiteStore.consecutiveRange([Int64.max - 1, .max]) == (Int64.max - 1)...Int64.max)
        #expect(SQLiteStore.consecutiveRange([4, 6, 7]) == nil)
        #expect(SQLiteStore.consecutiveRange([7, 6, 5]) == nil)
        #expect(SQLiteStore.consecutiveRange([5, 5]) == nil)
        #expect(SQLiteStore.consecutiveRange([5]) == nil)
        #expect(SQLiteStore.consecutiveRange([]) == nil)
    }

    @Test func onlyTheLatestBatchStaysInTheContext() throws {
        let store = try Self.store(count: 1000)
        defer { store.remove() }
        let context = store.newContext()
        try context.performAndWait {
            let request = NSFetchRequest<LazyReading>(entityName: "LazyReading")
            request.fetchBatchSize = 50
            let lazy = try context.fetchLazily(request)
            var total: Int64 = 0
            for reading in lazy { total += reading.serial }
            #expect(total == 1000 * 1001 / 2)
            // `registeredObjects` lets go of the objects nothing holds: the results hold the
            // last batch only. A plain fetch holds every object.
            #expect(context.registeredObjects.count <= 50)
            let all = try context.fetch(request)
            #expect(context.registeredObjects.count == 1000 && all.count == 1000)
        }
    }

    @Test func aBatchSizeOfZeroReadsAHundredAtATime() throws {
        let store = try Self.store(count: 130)
        defer { store.remove() }
        let context = store.newContext()
        try context.performAndWait {
            let lazy = try context.fetchLazily(NSFetchRequest<LazyReading>(entityName: "LazyReading"))
            #expect(lazy.batchSize == 100)
            #expect(Set(lazy.map(\.serial)) == Set(1...130))
        }
    }

    @Test func unsavedChangesThatChangeTheAnswerAreIncluded() throws {
        let store = try Self.store(count: 30)
        defer { store.remove() }
        let context = store.newContext()
        try context.performAndWait {
            let added = LazyReading(context: context)
            added.serial = 1000
            let request = NSFetchRequest<LazyReading>(entityName: "LazyReading")
            request.predicate = NSPredicate(format: "serial >= 25")
            request.sortDescriptors = [NSSortDescriptor(key: "serial", ascending: true)]
            request.fetchBatchSize = 4
            let withChanges = try context.fetchLazily(request).map(\.serial)
            #expect(withChanges == [25, 26, 27, 28, 29, 30, 1000])
            request.includesPendingChanges = false
            let stored = try context.fetchLazily(request).map(\.serial)
            #expect(stored == [25, 26, 27, 28, 29, 30])
        }
    }

    @Test func aClassThatIsNotTheEntitysOrAResultTypeOtherThanObjectsIsAnError() throws {
        let store = try Self.store(count: 3)
        defer { store.remove() }
        let context = store.newContext()
        context.performAndWait {
            #expect {
                _ = try context.fetchLazily(NSFetchRequest<LazyOther>(entityName: "LazyReading"))
            } throws: { error in
                (error as NSError).domain == NSCocoaErrorDomain && (error as NSError).code == NSCoreDataError
            }
            #expect((try? context.fetchLazily(NSFetchRequest<NSManagedObject>(entityName: "LazyReading")).count) == 3)
            let counting = NSFetchRequest<NSManagedObject>(entityName: "LazyReading")
            counting.resultType = .countResultType
            #expect {
                _ = try context.fetchLazily(counting)
            } throws: { error in
                (error as NSError).code == NSCoreDataError && (error as NSError).localizedDescription.contains("fetch(_:)")
            }
        }
    }

    /// Keys in every order a fetch can give them decode to the same IDs, batch by batch.
    @Test func keysRoundTripCompactly() throws {
        let store = try Self.store(count: 1)
        defer { store.remove() }
        let persistent = try #require(store.coordinator.persistentStores.first)
        let entity = try #require(Self.model.entitiesByName["LazyReading"])
        let other = NSEntityDescription()
        other.name = "Other"
        var generator = SystemRandomNumberGenerator()
        let sequences: [[Int64]] = [
            Array(1...10_000),
            Array((1...5000).reversed()),
            (0..<3000).map { _ in Int64.random(in: 1...1_000_000, using: &generator) },
            [1, .max, 2, .min, 0, -5, .max - 1, 3],
        ]
        for keys in sequences {
            var list = FetchedObjectKeys(batchSize: 64)
            for (position, key) in keys.enumerated() {
                list.append(entity: position % 7 == 3 ? other : entity, store: persistent, primaryKey: key)
            }
            #expect(list.count == keys.count)
            let decoded = (0..<list.batchCount).flatMap { list.objectIDs(ofBatch: $0) }
            #expect(decoded.map(\.primaryKey) == keys)
            #expect(decoded.enumerated().allSatisfy { ($0.offset % 7 == 3 ? other : entity) === $0.element.entity })
            #expect(decoded.allSatisfy { $0.persistentStore === persistent })
        }
        var sequential = FetchedObjectKeys(batchSize: 100)
        for key in 1...100_000 { sequential.append(entity: entity, store: persistent, primaryKey: Int64(key)) }
        // A byte a key and a checkpoint of 24 bytes a batch: 124 kB, where Int64s take 800 kB.
        #expect(sequential.encodedSize < 130_000)
    }
}
