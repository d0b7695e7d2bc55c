import Foundation
import Testing

@testable import Strata

/// A context's options and an object's introspection that Core Data libraries use:
/// `NSFetchRequest.execute()`, `retainsRegisteredObjects`, `propagatesDeletesAtEndOfEvent`,
/// `userInfo`, `faultingState`, `hasFault(forRelationshipNamed:)`,
/// `objectIDs(forRelationshipNamed:)` and `awakeFromSnapshotEvents(_:)`.
final class OptionsShelf: NSManagedObject {
    /// The events of the last test that reads them (one test does).
    nonisolated(unsafe) static var snapshotEvents: [NSSnapshotEventType] = []

    override func awakeFromSnapshotEvents(_ flags: NSSnapshotEventType) {
        super.awakeFromSnapshotEvents(flags)
        Self.snapshotEvents.append(flags)
    }
}

@Suite struct ContextOptionsTests {
    private static func model() -> NSManagedObjectModel {
        NSManagedObjectModel {
            Entity("Shelf", className: String(reflecting: OptionsShelf.self)) {
                Attribute("label", .stringAttributeType)
                Relationship("boxes", to: "Box", inverse: "shelf", toMany: true, deleteRule: .cascadeDeleteRule)
            }
            Entity("Box") {
                Attribute("number", .integer32AttributeType, optional: false, defaultValue: Int32(0))
                Relationship("shelf", to: "Shelf", inverse: "boxes")
            }
        }
    }

    private func context() throws -> NSManagedObjectContext {
        try ObjectGraphTests.Stack(Self.model(), type: NSInMemoryStoreType, at: nil).newContext()
    }

    /// A saved shelf with `count` boxes; returns the shelf's ID.
    private func savedShelf(boxes count: Int, in context: NSManagedObjectContext) throws -> NSManagedObjectID {
        let shelf = NSEntityDescription.insertNewObject(forEntityName: "Shelf", into: context)
        shelf.setValue("top", forKey: "label")
        for number in 0..<count {
            let box = NSEntityDescription.insertNewObject(forEntityName: "Box", into: context)
            box.setValue(Int32(number), forKey: "number")
            box.setValue(shelf, forKey: "shelf")
        }
        try context.save()
        return shelf.objectID
    }

    @Test func executeFetchesInTheContextWhoseBlockRuns() throws {
        let context = try context()
        let count = try context.performAndWait {
            _ = try savedShelf(boxes: 3, in: context)
            return try NSFetchRequest<NSManagedObject>(entityName: "Box").execute().count
        }
        #expect(count == 3)
        let error = #expect(throws: NSError.self) { try NSFetchRequest<NSManagedObject>(entityName: "Box").execute() }
        #expect(error?.code == NSCoreDataError)
    }

    @Test func deletesWaitForTheSaveWhenPropagationAtEndOfEventIsOff() throws {
        let context = try context()
        try context.performAndWait {
            let id = try savedShelf(boxes: 2, in: context)
            context.propagatesDeletesAtEndOfEvent = false
            let shelf = try context.existingObject(with: id)
            _ = shelf.value(forKey: "boxes")
            context.delete(shelf)
            context.processPendingChanges()
            #expect(context.deletedObjects.count == 1, "the cascade waits for the save")
            try context.save()
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Box")) == 0)
        }
    }

    @Test func registeredObjectsAreKeptWhenAsked() throws {
        let context = try context()
        try context.performAndWait {
            _ = try savedShelf(boxes: 1500, in: context)
            context.reset()
            context.retainsRegisteredObjects = true
            _ = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Box"))
            _ = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Shelf"))
            #expect(context.registeredObjects.count == 1501)
        }
    }

    @Test func userInfoKeepsTheAppsValues() throws {
        let context = try context()
        context.userInfo["owner"] = "importer"
        #expect(context.userInfo["owner"] as? String == "importer")
    }

    @Test func relationshipFaultsAndIDsAreReadWithoutLoading() throws {
        let context = try context()
        try context.performAndWait {
            let id = try savedShelf(boxes: 2, in: context)
            context.reset()
            let shelf = context.object(with: id)
            #expect(shelf.faultingState == 1)
            #expect(shelf.hasFault(forRelationshipNamed: "boxes"))
            let ids = shelf.objectIDs(forRelationshipNamed: "boxes")
            #expect(ids.count == 2)
            #expect(shelf.isFault, "reading the IDs fired nothing")
            _ = shelf.value(forKey: "label")
            #expect(shelf.faultingState == 0)
            let boxes = shelf.value(forKey: "boxes") as? NSSet
            #expect(!shelf.hasFault(forRelationshipNamed: "boxes"))
            #expect(Set(shelf.objectIDs(forRelationshipNamed: "boxes")) == Set(ids))
            #expect(boxes?.count == 2)
            let box = try context.existingObject(with: ids[0])
            #expect(box.objectIDs(forRelationshipNamed: "shelf") == [id])
            #expect(!shelf.hasFault(forRelationshipNamed: "label"))
        }
    }

    @Test func rollbackAndRefreshAwakeObjectsFromSnapshotEvents() throws {
        let context = try context()
        try context.performAndWait {
            let id = try savedShelf(boxes: 0, in: context)
            let shelf = try context.existingObject(with: id)
            OptionsShelf.snapshotEvents = []
            shelf.setValue("changed", forKey: "label")
            context.rollback()
            #expect(shelf.value(forKey: "label") as? String == "top")
            shelf.setValue("again", forKey: "label")
            context.refresh(shelf, mergeChanges: true)
            #expect(OptionsShelf.snapshotEvents == [.rollback, .refresh])
        }
    }
}
