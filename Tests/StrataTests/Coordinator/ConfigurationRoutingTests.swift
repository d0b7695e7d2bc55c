import Foundation
import GRDB
import Testing

@testable import Strata

/// Stores added with a configuration name hold that configuration's entities only: a save puts
/// each new object in the store whose configuration includes its entity, a fetch reads those
/// stores, and an object assigned to a store that cannot hold it is refused.
@Suite struct ConfigurationRoutingTests {
    private let scratch = ObjectGraphTests.ScratchDirectory()

    /// Notes in the "Cloud" configuration, drafts in "Local".
    private static func model() -> NSManagedObjectModel {
        let model = NSManagedObjectModel {
            Entity("RoutedNote") { Attribute("text", .stringAttributeType) }
            Entity("RoutedDraft") { Attribute("text", .stringAttributeType) }
        }
        let entities = model.entitiesByName
        model.setEntities([entities["RoutedNote"]].compactMap { $0 }, forConfigurationName: "Cloud")
        model.setEntities([entities["RoutedDraft"]].compactMap { $0 }, forConfigurationName: "Local")
        return model
    }

    private struct Stack {
        let coordinator: NSPersistentStoreCoordinator
        let cloud: NSPersistentStore
        let local: NSPersistentStore
        let context: NSManagedObjectContext
    }

    private func stack() throws -> Stack {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
        let cloud = try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: "Cloud", at: scratch.file("cloud.sqlite"), options: nil)
        let local = try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: "Local", at: scratch.file("local.sqlite"), options: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return Stack(coordinator: coordinator, cloud: cloud, local: local, context: context)
    }

    /// The texts in a table of a store's file, read with SQLite (nil when the table is absent).
    private func texts(_ table: String, in file: String) throws -> [String]? {
        let queue = try DatabaseQueue(path: scratch.file(file).path)
        defer { try? queue.close() }
        return try queue.read { db in
            guard try db.tableExists(table) else { return nil }
            return try String.fetchAll(db, sql: "SELECT ZTEXT FROM \(table) ORDER BY ZTEXT")
        }
    }

    @Test func eachObjectIsSavedInTheStoreOfItsEntitysConfiguration() throws {
        let stack = try stack()
        #expect(stack.cloud.configurationName == "Cloud" && stack.local.configurationName == "Local")
        let (noteStore, draftStore) = try stack.context.performAndWait {
            let note = NSEntityDescription.insertNewObject(forEntityName: "RoutedNote", into: stack.context)
            note.setValue("note", forKey: "text")
            let draft = NSEntityDescription.insertNewObject(forEntityName: "RoutedDraft", into: stack.context)
            draft.setValue("draft", forKey: "text")
            try stack.context.save()
            return (note.objectID.persistentStore, draft.objectID.persistentStore)
        }
        #expect(noteStore === stack.cloud)
        #expect(draftStore === stack.local)
        for store in stack.coordinator.persistentStores { try stack.coordinator.remove(store) }
        #expect(try texts("ZROUTEDNOTE", in: "cloud.sqlite") == ["note"])
        #expect(try texts("ZROUTEDDRAFT", in: "local.sqlite") == ["draft"])
        #expect(try texts("ZROUTEDNOTE", in: "local.sqlite")?.isEmpty ?? true)
        #expect(try texts("ZROUTEDDRAFT", in: "cloud.sqlite")?.isEmpty ?? true)
    }

    @Test func aFetchReadsTheStoresThatHoldItsEntity() throws {
        let stack = try stack()
        try stack.context.performAndWait {
            for text in ["b", "a"] {
                NSEntityDescription.insertNewObject(forEntityName: "RoutedNote", into: stack.context)
                    .setValue(text, forKey: "text")
            }
            NSEntityDescription.insertNewObject(forEntityName: "RoutedDraft", into: stack.context)
                .setValue("d", forKey: "text")
            try stack.context.save()
        }
        let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        reader.persistentStoreCoordinator = stack.coordinator
        let (notes, drafts, storesOfNotes) = try reader.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "RoutedNote")
            request.sortDescriptors = [NSSortDescriptor(key: "text", ascending: true)]
            let notes = try reader.fetch(request)
            let drafts = try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "RoutedDraft"))
            return (
                notes.compactMap { $0.value(forKey: "text") as? String },
                drafts.compactMap { $0.value(forKey: "text") as? String },
                Set(notes.compactMap { $0.objectID.persistentStore.map(ObjectIdentifier.init) })
            )
        }
        #expect(notes == ["a", "b"])
        #expect(drafts == ["d"])
        #expect(storesOfNotes == [ObjectIdentifier(stack.cloud)])
        // Limited to the store that does not hold notes, the fetch finds none.
        let limited = try reader.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "RoutedNote")
            request.affectedStores = [stack.local]
            return try reader.count(for: request)
        }
        #expect(limited == 0)
    }

    @Test func anObjectAssignedToAStoreThatCannotHoldItIsRefused() throws {
        let stack = try stack()
        let error = try stack.context.performAndWait {
            let note = NSEntityDescription.insertNewObject(forEntityName: "RoutedNote", into: stack.context)
            note.setValue("misplaced", forKey: "text")
            stack.context.assign(note, to: stack.local)
            return try #require(throws: NSError.self) { try stack.context.save() }
        }
        #expect(error.domain == NSCocoaErrorDomain)
        #expect(error.code == NSPersistentStoreSaveError)
        #expect((error.userInfo[NSAffectedStoresErrorKey] as? [NSPersistentStore])?.first === stack.local)
        for store in stack.coordinator.persistentStores { try stack.coordinator.remove(store) }
        #expect(try texts("ZROUTEDNOTE", in: "cloud.sqlite")?.isEmpty ?? true)
        #expect(try texts("ZROUTEDNOTE", in: "local.sqlite")?.isEmpty ?? true)
    }
}
