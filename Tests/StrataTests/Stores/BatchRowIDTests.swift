import Foundation
import Testing

@testable import Strata

/// Reading the rows of a batch (`snapshots(for:)`: a batch of a batched fetch, of faults, of
/// prefetched objects): each row's snapshot names it with the very ID it was asked for, not a
/// new equal one, in whatever order the IDs come; an ID whose row is gone is left out.
@Suite struct BatchRowIDTests {
    /// Fresh IDs for the readings `serials`, equal to the fetched ones but other objects.
    private static func freshIDs(_ serials: [Int64], in store: ScratchStore) throws -> (SQLiteStore, [NSManagedObjectID]) {
        let sqlite = try #require(store.coordinator.persistentStores.first as? SQLiteStore)
        let entity = try #require(store.coordinator.managedObjectModel.entitiesByName["LazyReading"])
        // The fixture saves readings 1…count in order: reading n is row n.
        return (sqlite, serials.map { NSManagedObjectID(entity: entity, primaryKey: $0, store: sqlite) })
    }

    @Test func rowsInARunOfKeysTakeTheIDsAskedFor() throws {
        let store = try LazyFetchResultsTests.store(count: 40)
        defer { store.remove() }
        let (sqlite, ids) = try Self.freshIDs(Array(11...30), in: store)
        let snapshots = try sqlite.snapshots(for: ids)
        #expect(snapshots.count == 20)
        for (snapshot, id) in zip(snapshots, ids) {
            #expect(snapshot.objectID === id)
            let label = snapshot.values[try #require(id.entity.layout.index(of: "label"))] as? String
            #expect(label == "r\(id.primaryKey)")
        }
    }

    @Test func rowsOfScatteredKeysInAnyOrderTakeTheIDsAskedFor() throws {
        let store = try LazyFetchResultsTests.store(count: 60)
        defer { store.remove() }
        let serials: [Int64] = [52, 3, 17, 9, 44, 10, 31]
        let (sqlite, ids) = try Self.freshIDs(serials, in: store)
        let snapshots = try sqlite.snapshots(for: ids)
        let asked = Dictionary(uniqueKeysWithValues: ids.map { ($0.primaryKey, $0) })
        #expect(Set(snapshots.map(\.objectID.primaryKey)) == Set(serials))
        for snapshot in snapshots {
            #expect(snapshot.objectID === asked[snapshot.objectID.primaryKey])
        }
    }

    @Test func anIDWhoseRowIsGoneIsLeftOutAndTheOthersKeepTheirs() throws {
        let store = try LazyFetchResultsTests.store(count: 20)
        defer { store.remove() }
        let context = store.newContext()
        try context.performAndWait {
            let request = NSFetchRequest<LazyReading>(entityName: "LazyReading")
            request.predicate = NSPredicate(format: "serial == 7")
            for reading in try context.fetch(request) { context.delete(reading) }
            try context.save()
        }
        let (sqlite, ids) = try Self.freshIDs(Array(5...9), in: store)
        let snapshots = try sqlite.snapshots(for: ids)
        #expect(snapshots.map(\.objectID.primaryKey) == [5, 6, 8, 9])
        #expect(snapshots.map { ObjectIdentifier($0.objectID) } == [0, 1, 3, 4].map { ObjectIdentifier(ids[$0]) })
    }
}
