import Foundation
import GRDB
import Testing

@testable import Strata

/// `NSPersistentStoreTimeoutOption` (and `NSPersistentStoreDescription.timeout`, the same
/// option): how long the SQLite store waits for another connection's lock on its file.
@Suite struct StoreTimeoutTests {
    private static func model() -> NSManagedObjectModel {
        NSManagedObjectModel {
            Entity("Note") { Attribute("text", .stringAttributeType) }
        }
    }

    /// A store with one note, closed, in a folder of its own.
    private static func store() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-timeout-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent("Notes.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model())
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Note", into: context).setValue("first", forKey: "text")
            try context.save()
        }
        try coordinator.remove(store)
        return url
    }

    @Test func theDescriptionsTimeoutIsTheOption() throws {
        let description = NSPersistentStoreDescription(url: URL(fileURLWithPath: "/tmp/unused.sqlite"))
        #expect(description.timeout == 240)
        #expect(description.options[NSPersistentStoreTimeoutOption] == nil)
        description.timeout = 0.25
        #expect((description.options[NSPersistentStoreTimeoutOption] as? NSNumber)?.doubleValue == 0.25)
        let copy = try #require(description.copy() as? NSPersistentStoreDescription)
        #expect(copy.timeout == 0.25)
        description.setOption(NSNumber(value: 3), forKey: NSPersistentStoreTimeoutOption)
        #expect(description.timeout == 3)
    }

    /// Opening a file another connection holds locked fails with 134090 once the timeout given
    /// has passed, well before the store's own default of 10 seconds; the file opens once the
    /// lock is gone.
    @Test func openingALockedStoreFailsAfterTheTimeoutGiven() throws {
        let url = try Self.store()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        // In rollback-journal mode an exclusive transaction keeps readers out too.
        let lock = try StoreFileSafetyTests.lock(url, journalMode: "DELETE")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
        let started = Date()
        let error = try #require(throws: NSError.self) {
            try coordinator.addPersistentStore(
                ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: [NSPersistentStoreTimeoutOption: 0.3])
        }
        let waited = Date().timeIntervalSince(started)
        #expect(error.domain == NSCocoaErrorDomain)
        #expect(error.code == NSPersistentStoreTimeoutError)
        #expect((error.userInfo[NSUnderlyingErrorKey] as? NSError)?.code == 5)  // SQLITE_BUSY
        #expect(waited >= 0.29 && waited < 8, "waited \(waited) s")
        #expect(coordinator.persistentStores.isEmpty)
        try StoreFileSafetyTests.unlock(lock)
        let store = try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: [NSPersistentStoreTimeoutOption: 0.3])
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        #expect(try context.performAndWait { try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Note")) } == 1)
        try coordinator.remove(store)
    }

    /// A save waits for another connection's write lock as long as the timeout allows: with a
    /// short one it fails and the object is still unsaved; with a longer one it waits for the
    /// lock to go and saves.
    @Test func aSaveWaitsForTheLockUpToTheTimeout() throws {
        let url = try Self.store()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        for (timeout, releaseAfter, saves) in [(0.2, nil, false), (30.0, 0.3, true)] as [(Double, Double?, Bool)] {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
            let store = try coordinator.addPersistentStore(
                ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: [NSPersistentStoreTimeoutOption: timeout])
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            let lock = try StoreFileSafetyTests.lock(url, journalMode: nil)
            let released = DispatchSemaphore(value: 0)
            if let releaseAfter {
                Thread.detachNewThread {
                    Thread.sleep(forTimeInterval: releaseAfter)
                    try? StoreFileSafetyTests.unlock(lock)
                    released.signal()
                }
            }
            let started = Date()
            let saved = context.performAndWait { () -> Bool in
                NSEntityDescription.insertNewObject(forEntityName: "Note", into: context).setValue("second", forKey: "text")
                do {
                    try context.save()
                    return true
                } catch {
                    #expect((error as NSError).domain == NSCocoaErrorDomain)
                    #expect(context.hasChanges)
                    return false
                }
            }
            let waited = Date().timeIntervalSince(started)
            #expect(saved == saves, "timeout \(timeout)")
            if saves {
                released.wait()
                #expect(waited >= 0.29, "waited \(waited) s for a lock held 0.3 s")
            } else {
                #expect(waited < 8, "waited \(waited) s with a timeout of \(timeout) s")
                try StoreFileSafetyTests.unlock(lock)
            }
            context.performAndWait { context.rollback() }
            try coordinator.remove(store)
        }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let texts = try context.performAndWait {
            try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note")).compactMap {
                $0.value(forKey: "text") as? String
            }
        }
        #expect(texts.sorted() == ["first", "second"])
        try coordinator.remove(store)
    }
}
