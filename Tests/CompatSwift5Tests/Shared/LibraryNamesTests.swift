import CoreData
import Foundation
import Testing

/// Static helpers as Core Data libraries write them: `Self(context:)` and
/// `Self(managedObjectModel:)` need `required` initializers.
extension NSManagedObject {
    static func makeForLibrary(in context: NSManagedObjectContext) -> Self {
        Self(context: context)
    }
}

extension NSPersistentStoreCoordinator {
    static func makeForLibrary(with model: NSManagedObjectModel) -> Self {
        Self(managedObjectModel: model)
    }
}

/// What notification observers record; posts arrive on the posting thread, which these tests
/// wait for.
final class Recorded<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

/// Names that widely used Core Data libraries use (issue 19), written as they write them.
@Suite("Names Core Data libraries use")
struct LibraryNamesTests {
    @Test("concurrency types in every spelling")
    func concurrencyTypes() {
        let legacy: NSManagedObjectContextConcurrencyType = .privateQueueConcurrencyType
        let modern = NSManagedObjectContext(.mainQueue)
        #expect(NSManagedObjectContext(concurrencyType: legacy).concurrencyType == .privateQueue)
        #expect(modern.concurrencyType == .mainQueueConcurrencyType)
        #expect(NSManagedObjectContext.ConcurrencyType.privateQueue.rawValue == 1)
    }

    @Test("Self(context:) and Self(managedObjectModel:) in static helpers")
    func requiredInitializers() throws {
        let store = try TestStore()
        let context = store.container.viewContext
        let todo = TodoEntity.makeForLibrary(in: context)
        #expect(type(of: todo) == TodoEntity.self)
        #expect(context.insertedObjects.contains(todo))
        let coordinator = NSPersistentStoreCoordinator.makeForLibrary(with: store.container.managedObjectModel)
        #expect(coordinator.managedObjectModel === store.container.managedObjectModel)
    }

    @Test("error codes and keys of CoreDataErrors.h")
    func errorConstants() {
        let codes: [Int] = [
            NSManagedObjectContextLockingError, NSPersistentStoreCoordinatorLockingError, NSMigrationCancelledError,
            NSMigrationMissingSourceModelError, NSMigrationMissingMappingModelError, NSInferredMappingModelError,
            NSExternalRecordImportError, NSPersistentHistoryTokenExpiredError,
        ]
        #expect(codes == [132000, 132010, 134120, 134130, 134140, 134190, 134200, 134301])
        #expect(NSValidationPredicateErrorKey == "NSValidationErrorPredicate")
        #expect(NSPersistentStoreSaveConflictsErrorKey == "NSPersistentStoreSaveConflictsErrorKey")
    }

    @Test("didSaveObjectIDsNotification carries the saved objects' IDs under NotificationKey")
    func objectIDNotification() throws {
        let store = try TestStore()
        let context = store.container.newBackgroundContext()
        let received = Recorded(Set<NSManagedObjectID>())
        let observer = NotificationCenter.default.addObserver(
            forName: NSManagedObjectContext.didSaveObjectIDsNotification, object: context, queue: nil
        ) { note in
            let key = NSManagedObjectContext.NotificationKey.insertedObjectIDs.rawValue
            received.value = note.userInfo?[key] as? Set<NSManagedObjectID> ?? []
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let id = try context.performAndWait { () throws -> NSManagedObjectID in
            let todo = TodoEntity(context: context)
            todo.title = "Saved"
            try context.save()
            return todo.objectID
        }
        #expect(received.value == [id])
    }

    @Test("the coordinator announces stores added and removed")
    func storeNotifications() throws {
        let store = try TestStore()
        let coordinator = store.container.persistentStoreCoordinator
        let events = Recorded([String]())
        let center = NotificationCenter.default
        let observers = [
            center.addObserver(forName: .NSPersistentStoreCoordinatorStoresWillChange, object: coordinator, queue: nil) { _ in
                events.value.append("will change")
            },
            center.addObserver(forName: .NSPersistentStoreCoordinatorStoresDidChange, object: coordinator, queue: nil) {
                note in
                let added = note.userInfo?[NSAddedPersistentStoresKey] as? [NSPersistentStore] ?? []
                let removed = note.userInfo?[NSRemovedPersistentStoresKey] as? [NSPersistentStore] ?? []
                events.value.append("did change +\(added.count) -\(removed.count)")
            },
        ]
        defer { observers.forEach(center.removeObserver) }
        let memory = try coordinator.addPersistentStore(type: .inMemory, at: URL(fileURLWithPath: "/dev/null"))
        // The object of this notification is the store (other tests' stores come and go meanwhile).
        let removal = center.addObserver(forName: .NSPersistentStoreCoordinatorWillRemoveStore, object: memory, queue: nil) {
            _ in events.value.append("will remove")
        }
        defer { center.removeObserver(removal) }
        try coordinator.remove(memory)
        #expect(events.value == ["will change", "did change +1 -0", "will remove", "will change", "did change +0 -1"])
    }

    @Test("StoreType spellings of the store file operations")
    func storeTypeSpellings() throws {
        let store = try TestStore()
        let coordinator = store.container.persistentStoreCoordinator
        let url = try #require(coordinator.persistentStores.first?.url)
        let copy = url.deletingLastPathComponent().appendingPathComponent("Copy.sqlite")
        try coordinator.replacePersistentStore(at: copy, withPersistentStoreFrom: url, type: .sqlite)
        var metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: copy)
        metadata["Imported"] = true
        try NSPersistentStoreCoordinator.setMetadata(metadata, type: .sqlite, at: copy)
        let read = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: copy)
        #expect(read["Imported"] as? Bool == true)
        #expect(read[NSStoreUUIDKey] as? String == metadata[NSStoreUUIDKey] as? String)
        try coordinator.destroyPersistentStore(at: copy, type: .sqlite)
    }

    @Test("every name compiles as libraries write it")
    func namesCompile() throws {
        let store = try TestStore()
        let context = store.container.viewContext
        let names: [Notification.Name] = [
            NSManagedObjectContext.didSaveObjectIDsNotification,
            NSManagedObjectContext.didMergeChangesObjectIDsNotification,
            .NSPersistentStoreCoordinatorStoresWillChange, .NSPersistentStoreCoordinatorStoresDidChange,
            .NSPersistentStoreCoordinatorWillRemoveStore,
        ]
        #expect(Set(names).count == 5)
        let keys: [NSManagedObjectContext.NotificationKey] = [
            .sourceContext, .queryGeneration, .invalidatedObjects, .invalidatedAllObjects, .insertedObjects,
            .updatedObjects, .deletedObjects, .refreshedObjects, .insertedObjectIDs, .updatedObjectIDs,
            .deletedObjectIDs, .refreshedObjectIDs, .invalidatedObjectIDs,
        ]
        #expect(Set(keys.map(\.rawValue)).count == keys.count)
        #expect([NSAddedPersistentStoresKey, NSRemovedPersistentStoresKey, NSUUIDChangedPersistentStoresKey].count == 3)
        #expect(!NSPersistentStoreURLKey.isEmpty)
        context.stalenessInterval = 0
        context.retainsRegisteredObjects = true
        context.propagatesDeletesAtEndOfEvent = true
        let request: NSFetchRequest<TodoEntity> = TodoEntity.fetchRequest()
        request.shouldRefreshRefetchedObjects = true
        let asynchronous = NSAsynchronousFetchRequest<TodoEntity>(fetchRequest: request) { result in
            _ = result.finalResult
        }
        asynchronous.estimatedResultCount = 10
        let result = try context.execute(asynchronous) as? NSAsynchronousFetchResult<TodoEntity>
        #expect(result?.progress != nil)
        let todo = TodoEntity(context: context)
        #expect(todo.faultingState == 0)
        #expect(!todo.hasFault(forRelationshipNamed: "tags"))
        #expect(todo.objectIDs(forRelationshipNamed: "tags").isEmpty)
        let old = try #require(store.container.persistentStoreCoordinator.persistentStores.first)
        let url = try #require(old.url).deletingLastPathComponent().appendingPathComponent("Moved.sqlite")
        let moved = try store.container.persistentStoreCoordinator.migratePersistentStore(
            old, to: url, options: nil, type: .sqlite)
        #expect(moved.url == url)
        try NSPersistentStoreCoordinator.setMetadata(
            ["Key": "value"], forPersistentStoreOfType: NSSQLiteStoreType, at: old.url ?? url)
        #expect(
            try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: old.url ?? url)["Key"]
                as? String == "value")
    }

    @Test("validation predicates with their warnings")
    func validationPredicates() throws {
        let title = NSAttributeDescription()
        title.name = "title"
        title.attributeType = .stringAttributeType
        title.setValidationPredicates([NSPredicate(format: "length >= 3")], withValidationWarnings: ["Too short"])
        #expect(title.validationPredicates.count == 1)
        #expect(title.validationWarnings.first as? String == "Too short")
    }
}
