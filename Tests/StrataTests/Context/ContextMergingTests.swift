import Foundation
import Testing

@testable import Strata

/// Changes saved by one context reach another: by `mergeChanges(fromContextDidSave:)`, by
/// `automaticallyMergesChangesFromParent`, and by `mergeChanges(fromRemoteContextSave:into:)`.
@Suite struct ContextMergingTests {
    final class Fixture {
        let folder: URL
        let coordinator: NSPersistentStoreCoordinator

        init() throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-merging-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let model = NSManagedObjectModel {
                Entity("List") {
                    Attribute("name", .stringAttributeType)
                    Relationship("items", to: "Entry", inverse: "list", toMany: true)
                }
                Entity("Entry") {
                    Attribute("text", .stringAttributeType)
                    Attribute("rank", .integer32AttributeType, optional: false, defaultValue: Int32(0))
                    Relationship("list", to: "List", inverse: "items")
                }
            }
            coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(
                ofType: NSSQLiteStoreType, configurationName: nil, at: folder.appendingPathComponent("m.sqlite"))
        }

        deinit { try? FileManager.default.removeItem(at: folder) }

        func context() -> NSManagedObjectContext {
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            return context
        }

        /// A list "Groceries" with entries "milk" (rank 1) and "eggs" (rank 2), saved.
        func seed() throws -> (list: NSManagedObjectID, milk: NSManagedObjectID, eggs: NSManagedObjectID) {
            let context = context()
            return try context.performAndWait {
                let list = NSEntityDescription.insertNewObject(forEntityName: "List", into: context)
                list.setValue("Groceries", forKey: "name")
                let entries = [("milk", 1), ("eggs", 2)].map { text, rank -> NSManagedObject in
                    let entry = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: context)
                    entry.setValue(text, forKey: "text")
                    entry.setValue(Int32(rank), forKey: "rank")
                    entry.setValue(list, forKey: "list")
                    return entry
                }
                try context.save()
                return (list.objectID, entries[0].objectID, entries[1].objectID)
            }
        }
    }

    @Test func didSaveNotificationsMergeUpdatesAndDeletesKeepingLocalChanges() throws {
        let fixture = try Fixture()
        let ids = try fixture.seed()
        let reader = fixture.context()
        let (list, milk, eggs) = try reader.performAndWait {
            let list = try reader.existingObject(with: ids.list)
            _ = list.value(forKey: "items")
            let milk = try reader.existingObject(with: ids.milk)
            milk.setValue(Int32(10), forKey: "rank")  // an unsaved local change
            return (list, milk, try reader.existingObject(with: ids.eggs))
        }
        let writer = fixture.context()
        let saved = Protected<UncheckedSendable<Notification>?>(nil)
        let observer = NotificationCenter.default.addObserver(
            forName: .NSManagedObjectContextDidSave, object: writer, queue: nil
        ) { note in saved.withLock { $0 = UncheckedSendable(note) } }
        defer { NotificationCenter.default.removeObserver(observer) }
        try writer.performAndWait {
            try writer.existingObject(with: ids.milk).setValue("oat milk", forKey: "text")
            writer.delete(try writer.existingObject(with: ids.eggs))
            try writer.save()
        }
        let notification = try #require(saved.withLock { $0 }).value
        reader.performAndWait {
            reader.mergeChanges(fromContextDidSave: notification)
            #expect(milk.value(forKey: "text") as? String == "oat milk", "the saved change arrived")
            #expect(milk.value(forKey: "rank") as? Int32 == 10, "the local change was kept")
            #expect(milk.isUpdated)
            #expect(eggs.managedObjectContext == nil, "the deleted object left the context")
            let items = (list.value(forKey: "items") as? NSSet)?.allObjects as? [NSManagedObject]
            #expect(items?.compactMap { $0.value(forKey: "text") as? String } == ["oat milk"])
        }
    }

    @Test func aSaveThatOnlyInsertsBringsTheNewObjectsInAsFaultsAndAnnouncesThem() throws {
        let fixture = try Fixture()
        let ids = try fixture.seed()
        let writer = fixture.context()
        let saved = Protected<UncheckedSendable<Notification>?>(nil)
        let observer = NotificationCenter.default.addObserver(
            forName: .NSManagedObjectContextDidSave, object: writer, queue: nil
        ) { note in saved.withLock { $0 = UncheckedSendable(note) } }
        let newID = try writer.performAndWait {
            let entry = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: writer)
            entry.setValue("bread", forKey: "text")
            entry.setValue(try writer.existingObject(with: ids.list), forKey: "list")
            try writer.save()
            return entry.objectID
        }
        NotificationCenter.default.removeObserver(observer)
        let notification = try #require(saved.withLock { $0 }).value
        let reader = fixture.context()
        let announced = Protected<[NSManagedObject]>([])
        let changes = NotificationCenter.default.addObserver(
            forName: .NSManagedObjectContextObjectsDidChange, object: reader, queue: nil
        ) { note in
            let inserted = note.userInfo?[NSInsertedObjectsKey] as? Set<NSManagedObject> ?? []
            announced.withLock { $0.append(contentsOf: inserted) }
        }
        defer { NotificationCenter.default.removeObserver(changes) }
        let mergedIDs = Protected<Set<NSManagedObjectID>>([])
        let merged = NotificationCenter.default.addObserver(
            forName: NSManagedObjectContext.didMergeChangesObjectIDsNotification, object: reader, queue: nil
        ) { note in
            let key = NSManagedObjectContext.NotificationKey.insertedObjectIDs.rawValue
            mergedIDs.withLock { $0 = note.userInfo?[key] as? Set<NSManagedObjectID> ?? [] }
        }
        defer { NotificationCenter.default.removeObserver(merged) }
        reader.performAndWait {
            reader.mergeChanges(fromContextDidSave: notification)
            #expect(mergedIDs.withLock { $0 } == [newID])
            let objects = announced.withLock { $0 }
            #expect(objects.map(\.objectID) == [newID])
            let entry = reader.registeredObject(for: newID)
            #expect(entry?.isFault == true, "it came in as a fault")
            #expect(entry?.isInserted == false, "it is saved, not pending")
            #expect(entry?.value(forKey: "text") as? String == "bread")
            #expect(!reader.hasChanges)
        }
    }

    @Test func contextsThatMergeAutomaticallySeeOtherSaves() async throws {
        let fixture = try Fixture()
        let ids = try fixture.seed()
        let reader = fixture.context()
        reader.automaticallyMergesChangesFromParent = true
        let milk = try await reader.perform { () throws -> NSManagedObject in
            let milk = try reader.existingObject(with: ids.milk)
            _ = milk.value(forKey: "text")
            return milk
        }
        let writer = fixture.context()
        try await writer.perform {
            try writer.existingObject(with: ids.milk).setValue("almond milk", forKey: "text")
            try writer.save()
        }
        // The merge was queued on the reader's queue before this block.
        let text = await reader.perform(schedule: .enqueued) { milk.value(forKey: "text") as? String }
        #expect(text == "almond milk")

        reader.automaticallyMergesChangesFromParent = false
        try await writer.perform {
            try writer.existingObject(with: ids.milk).setValue("rice milk", forKey: "text")
            try writer.save()
        }
        let unchanged = await reader.perform(schedule: .enqueued) { milk.value(forKey: "text") as? String }
        #expect(unchanged == "almond milk", "without automatic merging the object keeps what it had")
    }

    @Test func remoteChangesMergeByIDsAndURIs() throws {
        let fixture = try Fixture()
        let ids = try fixture.seed()
        let reader = fixture.context()
        let milk = try reader.performAndWait {
            let milk = try reader.existingObject(with: ids.milk)
            _ = milk.value(forKey: "text")
            return milk
        }
        // Another coordinator (another process, say) changes the row.
        let other = NSPersistentStoreCoordinator(managedObjectModel: fixture.coordinator.managedObjectModel)
        try other.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: fixture.folder.appendingPathComponent("m.sqlite"))
        let remote = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        remote.persistentStoreCoordinator = other
        try remote.performAndWait {
            let id = try #require(other.managedObjectID(forURIRepresentation: ids.milk.uriRepresentation()))
            try remote.existingObject(with: id).setValue("goat milk", forKey: "text")
            try remote.save()
        }
        NSManagedObjectContext.mergeChanges(
            fromRemoteContextSave: [NSUpdatedObjectsKey: [ids.milk.uriRepresentation()]], into: [reader])
        reader.performAndWait {
            #expect(milk.value(forKey: "text") as? String == "goat milk")
        }
    }
}
