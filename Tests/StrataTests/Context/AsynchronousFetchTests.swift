import Foundation
import Testing

@testable import Strata

/// `NSAsynchronousFetchRequest` through `execute(_:)`, `stalenessInterval` and
/// `shouldRefreshRefetchedObjects`.
@Suite struct AsynchronousFetchTests {
    private func stack() throws -> ContextMergingTests.Fixture { try ContextMergingTests.Fixture() }

    @Test func theFetchRunsLaterOnTheContextsQueueAndReportsItsResult() async throws {
        let fixture = try stack()
        _ = try fixture.seed()
        let context = fixture.context()
        let request = NSFetchRequest<NSManagedObject>(entityName: "Entry")
        request.sortDescriptors = [NSSortDescriptor(key: "rank", ascending: true)]
        let texts = Protected<[String]?>(nil)
        let asynchronous = NSAsynchronousFetchRequest(fetchRequest: request) { result in
            texts.withLock { $0 = result.finalResult?.compactMap { $0.value(forKey: "text") as? String } }
        }
        asynchronous.estimatedResultCount = 2
        let result = try await context.perform { try context.execute(asynchronous) }
        let fetchResult = try #require(result as? NSAsynchronousFetchResult<NSManagedObject>)
        #expect(fetchResult.fetchRequest === asynchronous)
        #expect(fetchResult.managedObjectContext === context)
        // The block was queued behind this one: the result arrives after.
        await context.perform(schedule: .enqueued) {}
        #expect(texts.withLock { $0 } == ["milk", "eggs"])
        #expect(fetchResult.finalResult?.count == 2)
        #expect(fetchResult.progress?.completedUnitCount == 2)
        #expect(fetchResult.operationError == nil)
    }

    @Test func aCancelledFetchEndsWithTheCancellationError() throws {
        let fixture = try stack()
        _ = try fixture.seed()
        let context = fixture.context()
        let called = Protected(false)
        let asynchronous = NSAsynchronousFetchRequest(fetchRequest: NSFetchRequest<NSManagedObject>(entityName: "Entry")) {
            _ in called.withLock { $0 = true }
        }
        let result = try context.performAndWait { () throws -> NSPersistentStoreAsynchronousResult in
            let result = try #require(try context.execute(asynchronous) as? NSPersistentStoreAsynchronousResult)
            result.cancel()
            return result
        }
        context.performAndWait {}
        let finished = Date().addingTimeInterval(5)
        while !called.withLock({ $0 }) && Date() < finished { Thread.sleep(forTimeInterval: 0.01) }
        #expect(called.withLock { $0 })
        #expect((result.operationError as? CocoaError)?.code == .userCancelled)
        #expect((result as? NSAsynchronousFetchResult<NSManagedObject>)?.finalResult == nil)
    }

    @Test func otherRequestsAreRefusedWithTheUnsupportedRequestError() throws {
        let context = try stack().context()
        let error = #expect(throws: NSError.self) { try context.execute(NSPersistentStoreRequest()) }
        #expect(error?.code == NSPersistentStoreUnsupportedRequestTypeError)
    }

    @Test func refetchedObjectsTakeTheFetchedValuesWhenAsked() throws {
        let fixture = try stack()
        let ids = try fixture.seed()
        let reader = fixture.context()
        let milk = try reader.performAndWait {
            let milk = try reader.existingObject(with: ids.milk)
            _ = milk.value(forKey: "text")
            return milk
        }
        let writer = fixture.context()
        try writer.performAndWait {
            try writer.existingObject(with: ids.milk).setValue("oat milk", forKey: "text")
            try writer.save()
        }
        try reader.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Entry")
            request.returnsObjectsAsFaults = false
            _ = try reader.fetch(request)
            #expect(milk.value(forKey: "text") as? String == "milk", "kept by default, as Apple's")
            request.shouldRefreshRefetchedObjects = true
            _ = try reader.fetch(request)
            #expect(milk.value(forKey: "text") as? String == "oat milk")
        }
    }

    @Test func aZeroStalenessIntervalFiresFaultsFromTheStore() throws {
        let fixture = try stack()
        let ids = try fixture.seed()
        let reader = fixture.context()
        // The row is cached by the coordinator once a fault fired from the store.
        try reader.performAndWait { _ = try reader.existingObject(with: ids.milk).value(forKey: "text") }
        // Another coordinator (another process, as far as this one knows) changes the row.
        let writer = try otherWriter(of: fixture)
        try rename("milk", to: "soy milk", with: writer)
        let cached = fixture.context()
        let fresh = fixture.context()
        fresh.stalenessInterval = 0
        let (old, new) = try cached.performAndWait {
            let old = try cached.existingObject(with: ids.milk).value(forKey: "text") as? String
            let new = try fresh.performAndWait { try fresh.existingObject(with: ids.milk).value(forKey: "text") as? String }
            return (old, new)
        }
        #expect(old == "milk", "a context that accepts any age takes the cached row")
        #expect(new == "soy milk")
    }

    /// Issue 32: `refresh(_:mergeChanges:)` takes the coordinator's cached row while
    /// `stalenessInterval` allows it (any age by default), and reads the store with an interval
    /// of 0, as Apple's documentation describes (`stalenessInterval = 0` before
    /// `refreshAllObjects()` is how apps see another process's writes).
    @Test func refreshHonoursTheStalenessInterval() throws {
        let fixture = try stack()
        let ids = try fixture.seed()
        let reader = fixture.context()
        let milk = try reader.performAndWait { () throws -> NSManagedObject in
            let milk = try reader.existingObject(with: ids.milk)
            #expect(milk.value(forKey: "text") as? String == "milk")
            return milk
        }
        let writer = try otherWriter(of: fixture)
        try rename("milk", to: "oat milk", with: writer)
        let (cachedAfterRefresh, cachedWithInterval, freshAfterRefresh) = reader.performAndWait {
            reader.refresh(milk, mergeChanges: false)
            let cached = milk.value(forKey: "text") as? String
            reader.stalenessInterval = 3_600
            reader.refreshAllObjects()
            let withinInterval = milk.value(forKey: "text") as? String
            reader.stalenessInterval = 0
            reader.refreshAllObjects()
            return (cached, withinInterval, milk.value(forKey: "text") as? String)
        }
        #expect(cachedAfterRefresh == "milk", "any age is accepted by default")
        #expect(cachedWithInterval == "milk", "the cached row is younger than an hour")
        #expect(freshAfterRefresh == "oat milk")
        // With unsaved changes, a merge keeps them over the store's newer row.
        let merged = try reader.performAndWait {
            milk.setValue(Int32(9), forKey: "rank")
            try rename("oat milk", to: "whole milk", with: writer)
            reader.refresh(milk, mergeChanges: true)
            return (milk.value(forKey: "text") as? String, milk.value(forKey: "rank") as? Int32)
        }
        #expect(merged.0 == "whole milk")
        #expect(merged.1 == 9)
    }

    /// A context on a second coordinator of the fixture's store (another process, as far as the
    /// fixture's coordinator knows).
    private func otherWriter(of fixture: ContextMergingTests.Fixture) throws -> NSManagedObjectContext {
        let url = try #require(fixture.coordinator.persistentStores.first?.url)
        let other = NSPersistentStoreCoordinator(managedObjectModel: fixture.coordinator.managedObjectModel)
        try other.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        let writer = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        writer.persistentStoreCoordinator = other
        return writer
    }

    /// Saves a new text for the entry with the given text, through `writer`.
    private func rename(_ text: String, to newText: String, with writer: NSManagedObjectContext) throws {
        try writer.performAndWait {
            let entry = try #require(
                try writer.fetch(NSFetchRequest<NSManagedObject>(entityName: "Entry")).first {
                    $0.value(forKey: "text") as? String == text
                })
            entry.setValue(newText, forKey: "text")
            try writer.save()
        }
    }
}
