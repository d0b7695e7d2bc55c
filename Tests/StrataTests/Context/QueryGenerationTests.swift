import Foundation
import Testing

@testable import Strata

/// Query generations (issue 21): a pinned context reads one snapshot of the store, faults
/// included, until it saves, merges, refreshes or resets.
@Suite struct QueryGenerationTests {
    typealias Fixture = NestedContextTests.Fixture

    static func texts(_ context: NSManagedObjectContext) throws -> [String] {
        try NestedContextTests.texts(context)
    }

    /// Another context changes milk's text and adds bread.
    static func changeElsewhere(_ fixture: Fixture, milk: NSManagedObjectID) throws {
        let writer = fixture.root()
        try writer.performAndWait {
            try writer.existingObject(with: milk).setValue("cream", forKey: "text")
            let bread = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: writer)
            bread.setValue("bread", forKey: "text")
            bread.setValue(Int32(3), forKey: "rank")
            try writer.save()
        }
    }

    @Test func aPinnedContextReadsOneSnapshotUntilItMovesOn() throws {
        let fixture = try Fixture()
        let (_, milkID, eggsID) = try fixture.seed()
        let pinned = fixture.root()
        try pinned.performAndWait {
            #expect(pinned.queryGenerationToken == nil)
            try pinned.setQueryGenerationFrom(.current)
        }
        let token = try #require(pinned.performAndWait { pinned.queryGenerationToken })
        #expect(token != NSQueryGenerationToken.current)
        #expect(try Self.texts(pinned) == ["milk", "eggs"])  // the first read fixes the generation

        try Self.changeElsewhere(fixture, milk: milkID)
        #expect(try Self.texts(fixture.root()) == ["cream", "eggs", "bread"])
        #expect(try Self.texts(pinned) == ["milk", "eggs"])
        let count = try pinned.performAndWait {
            try pinned.count(for: NSFetchRequest<NSManagedObject>(entityName: "Entry"))
        }
        #expect(count == 2)
        // A fault fired now reads the generation's row too.
        let faulted = pinned.performAndWait { () -> [String?] in
            [eggsID, milkID].map { id in
                let object = pinned.object(with: id)
                pinned.refresh(object, mergeChanges: false)
                return object.value(forKey: "text") as? String
            }
        }
        #expect(faulted == ["eggs", "milk"])

        // Another context pinned with the token sees the same generation.
        let follower = fixture.root()
        try follower.performAndWait { try follower.setQueryGenerationFrom(token) }
        #expect(try Self.texts(follower) == ["milk", "eggs"])

        // Refreshing all objects moves to the current generation.
        pinned.performAndWait { pinned.refreshAllObjects() }
        #expect(pinned.performAndWait { pinned.queryGenerationToken } != token)
        #expect(try Self.texts(pinned) == ["cream", "eggs", "bread"])
        #expect(try Self.texts(follower) == ["milk", "eggs"])

        // Unpinned, a context reads the store as it is.
        try follower.performAndWait { try follower.setQueryGenerationFrom(nil) }
        #expect(follower.performAndWait { follower.queryGenerationToken } == nil)
        // Objects already registered keep their values until refreshed, as always.
        #expect(try Self.texts(follower) == ["milk", "eggs", "bread"])
        follower.performAndWait { follower.refreshAllObjects() }
        #expect(try Self.texts(follower) == ["cream", "eggs", "bread"])
    }

    @Test func savingMovesAPinnedContextOn() throws {
        let fixture = try Fixture()
        let (_, milkID, eggsID) = try fixture.seed()
        let pinned = fixture.root()
        try pinned.performAndWait { try pinned.setQueryGenerationFrom(.current) }
        #expect(try Self.texts(pinned) == ["milk", "eggs"])
        try Self.changeElsewhere(fixture, milk: milkID)
        let before = pinned.performAndWait { pinned.queryGenerationToken }
        try pinned.performAndWait {
            try pinned.existingObject(with: eggsID).setValue(Int32(9), forKey: "rank")
            try pinned.save()
        }
        #expect(pinned.performAndWait { pinned.queryGenerationToken } != before)
        #expect(pinned.performAndWait { pinned.queryGenerationToken } != nil)
        // The new generation has bread; milk, registered before, reads cream once refreshed.
        #expect(try Self.texts(pinned) == ["milk", "bread", "eggs"])
        let milk = pinned.performAndWait { () -> String? in
            let milk = pinned.object(with: milkID)
            pinned.refresh(milk, mergeChanges: false)
            return milk.value(forKey: "text") as? String
        }
        #expect(milk == "cream")
    }

    @Test func storesWithoutGenerationsRefuseAPinnedRead() throws {
        let coordinator = NSPersistentStoreCoordinator(
            managedObjectModel: NSManagedObjectModel {
                Entity("Entry") { Attribute("text", .stringAttributeType) }
            })
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let error = #expect(throws: NSError.self) {
            try context.performAndWait {
                try context.setQueryGenerationFrom(.current)
                _ = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Entry"))
            }
        }
        #expect(error?.code == NSPersistentStoreUnsupportedRequestTypeError)
    }
}
