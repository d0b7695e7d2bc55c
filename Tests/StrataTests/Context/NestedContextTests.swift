import Foundation
import Testing

@testable import Strata

/// Parent and child contexts (issue 21): a child saves into its parent, reads the parent's
/// unsaved state, and the chain saves down to the store.
@Suite struct NestedContextTests {
    final class Fixture {
        let folder: URL
        let coordinator: NSPersistentStoreCoordinator

        init() throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-nested-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let model = NSManagedObjectModel {
                Entity("List") {
                    Attribute("name", .stringAttributeType, optional: false)
                    Relationship("items", to: "Entry", inverse: "list", toMany: true, deleteRule: .cascadeDeleteRule)
                }
                Entity("Entry") {
                    Attribute("text", .stringAttributeType)
                    Attribute("rank", .integer32AttributeType, optional: false, defaultValue: Int32(0))
                    Relationship("list", to: "List", inverse: "items")
                    Relationship("tags", to: "Tag", inverse: "entries", toMany: true)
                }
                Entity("Tag") {
                    Attribute("label", .stringAttributeType)
                    Relationship("entries", to: "Entry", inverse: "tags", toMany: true)
                }
            }
            coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(
                ofType: NSSQLiteStoreType, configurationName: nil, at: folder.appendingPathComponent("n.sqlite"))
        }

        deinit { try? FileManager.default.removeItem(at: folder) }

        func root(_ type: NSManagedObjectContext.ConcurrencyType = .privateQueueConcurrencyType) -> NSManagedObjectContext {
            let context = NSManagedObjectContext(concurrencyType: type)
            context.persistentStoreCoordinator = coordinator
            return context
        }

        func child(
            of parent: NSManagedObjectContext, _ type: NSManagedObjectContext.ConcurrencyType = .privateQueueConcurrencyType
        ) -> NSManagedObjectContext {
            let context = NSManagedObjectContext(concurrencyType: type)
            context.parent = parent
            return context
        }

        /// A list "Groceries" with entries milk (rank 1) and eggs (rank 2), saved.
        func seed() throws -> (list: NSManagedObjectID, milk: NSManagedObjectID, eggs: NSManagedObjectID) {
            let context = root()
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

        /// The texts of the stored entries, read in a fresh context, sorted.
        func storedTexts() throws -> [String] {
            let context = root()
            return try context.performAndWait {
                try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Entry"))
                    .map { $0.value(forKey: "text") as? String ?? "nil" }.sorted()
            }
        }
    }

    static func texts(_ context: NSManagedObjectContext, _ predicate: String? = nil) throws -> [String] {
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Entry")
            request.predicate = predicate.map { NSPredicate(format: $0) }
            request.sortDescriptors = [NSSortDescriptor(key: "rank", ascending: true)]
            return try context.fetch(request).map { $0.value(forKey: "text") as? String ?? "nil" }
        }
    }

    @Test func aChildSavesIntoItsParentAndTheParentSavesToTheStore() throws {
        let fixture = try Fixture()
        let (listID, _, _) = try fixture.seed()
        let parent = fixture.root()
        let child = fixture.child(of: parent)
        let (entryID, wasTemporary) = try child.performAndWait {
            let entry = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: child)
            entry.setValue("bread", forKey: "text")
            entry.setValue(Int32(3), forKey: "rank")
            entry.setValue(try child.existingObject(with: listID), forKey: "list")
            let wasTemporary = entry.objectID.isTemporaryID
            try child.save()
            #expect(!child.hasChanges)
            return (entry.objectID, wasTemporary)
        }
        #expect(wasTemporary)
        #expect(!entryID.isTemporaryID)
        #expect(try fixture.storedTexts() == ["eggs", "milk"])
        try parent.performAndWait {
            #expect(parent.hasChanges)
            let entry = try #require(parent.registeredObject(for: entryID))
            #expect(parent.insertedObjects.contains(entry))
            #expect(entry.value(forKey: "text") as? String == "bread")
            let list = try parent.existingObject(with: listID)
            #expect((list.value(forKey: "items") as? Set<NSManagedObject>)?.contains(entry) == true)
            try parent.save()
        }
        #expect(try fixture.storedTexts() == ["bread", "eggs", "milk"])
        let fresh = fixture.root()
        try fresh.performAndWait {
            let entry = try fresh.existingObject(with: entryID)
            #expect((entry.value(forKey: "list") as? NSManagedObject)?.objectID == listID)
        }
    }

    @Test func aChildReadsItsParentsUnsavedInsertsChangesAndDeletes() throws {
        let fixture = try Fixture()
        let (listID, milkID, eggsID) = try fixture.seed()
        let parent = fixture.root()
        let newID = try parent.performAndWait {
            let entry = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: parent)
            entry.setValue("butter", forKey: "text")
            entry.setValue(Int32(0), forKey: "rank")
            entry.setValue(try parent.existingObject(with: listID), forKey: "list")
            try parent.existingObject(with: milkID).setValue("oat milk", forKey: "text")
            parent.delete(try parent.existingObject(with: eggsID))
            parent.processPendingChanges()
            return entry.objectID
        }
        let child = fixture.child(of: parent)
        #expect(try Self.texts(child) == ["butter", "oat milk"])
        #expect(try Self.texts(child, "text CONTAINS 'milk'") == ["oat milk"])
        try child.performAndWait {
            #expect(try child.count(for: NSFetchRequest<NSManagedObject>(entityName: "Entry")) == 2)
            #expect(throws: NSError.self) { try child.existingObject(with: eggsID) }
            #expect(child.object(with: milkID).value(forKey: "text") as? String == "oat milk")
            let list = try child.existingObject(with: listID)
            let items = (list.value(forKey: "items") as? Set<NSManagedObject>) ?? []
            #expect(Set(items.compactMap { $0.value(forKey: "text") as? String }) == ["butter", "oat milk"])
            let idRequest = NSFetchRequest<NSManagedObjectID>(entityName: "Entry")
            idRequest.resultType = .managedObjectIDResultType
            let ids = try child.fetch(idRequest)
            #expect(ids.allSatisfy { !$0.isTemporaryID })
        }
        // The parent's new object reaches the child under a permanent ID, the parent's own.
        let parentID = parent.performAndWait { parent.insertedObjects.first?.objectID }
        #expect(parentID?.isTemporaryID == false)
        #expect(parentID != newID)
        // The child's own unsaved insert, left out when the request asks.
        let counts = try child.performAndWait { () throws -> [Int] in
            let entry = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: child)
            entry.setValue("jam", forKey: "text")
            entry.setValue(Int32(9), forKey: "rank")
            let request = NSFetchRequest<NSManagedObject>(entityName: "Entry")
            let all = try child.fetch(request).count
            request.includesPendingChanges = false
            return [all, try child.fetch(request).count]
        }
        #expect(counts == [3, 2])
    }

    @Test func grandchildrenSaveThroughEveryLevel() throws {
        let fixture = try Fixture()
        let (_, milkID, _) = try fixture.seed()
        let root = fixture.root(.mainQueueConcurrencyType)
        let middle = fixture.child(of: root, .privateQueueConcurrencyType)
        let leaf = fixture.child(of: middle, .mainQueueConcurrencyType)
        #expect(leaf.persistentStoreCoordinator === fixture.coordinator)
        try leaf.performAndWait {
            try leaf.existingObject(with: milkID).setValue(Int32(7), forKey: "rank")
            try leaf.save()
        }
        #expect(root.performAndWait { root.hasChanges } == false)
        #expect(middle.performAndWait { middle.object(with: milkID).value(forKey: "rank") as? Int32 } == 7)
        try middle.performAndWait { try middle.save() }
        #expect(root.performAndWait { root.object(with: milkID).value(forKey: "rank") as? Int32 } == 7)
        #expect(try Self.texts(fixture.root()) == ["milk", "eggs"])
        try root.performAndWait { try root.save() }
        #expect(try Self.texts(fixture.root()) == ["eggs", "milk"])
    }

    @Test func aChildDroppedWithoutSavingLeavesNoTrace() throws {
        let fixture = try Fixture()
        let (_, milkID, _) = try fixture.seed()
        let parent = fixture.root()
        weak var dropped: NSManagedObjectContext?
        try {
            let child = fixture.child(of: parent)
            dropped = child
            try child.performAndWait {
                try child.existingObject(with: milkID).setValue("cream", forKey: "text")
                _ = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: child)
            }
        }()
        #expect(dropped == nil)
        parent.performAndWait {
            #expect(!parent.hasChanges)
            #expect(parent.object(with: milkID).value(forKey: "text") as? String == "milk")
        }
        #expect(try fixture.storedTexts() == ["eggs", "milk"])
    }

    @Test func aContextWithBothAParentAndACoordinatorIsRefused() throws {
        let fixture = try Fixture()
        let parent = fixture.root()
        let both = fixture.root()
        both.parent = parent
        #expect(both.parent == nil)
        let error = #expect(throws: NSError.self) {
            try both.performAndWait { _ = try both.fetch(NSFetchRequest<NSManagedObject>(entityName: "Entry")) }
        }
        #expect(error?.code == NSCoreDataError)
        #expect(error?.localizedDescription.contains("coordinator") == true)

        let child = fixture.child(of: parent)
        child.persistentStoreCoordinator = fixture.coordinator
        #expect(child.parent === parent)
        #expect(throws: NSError.self) {
            try child.performAndWait { _ = try child.fetch(NSFetchRequest<NSManagedObject>(entityName: "Entry")) }
        }

        let looped = fixture.child(of: parent)
        parent.parent = looped
        #expect(parent.parent == nil)
    }

    @Test func aChildSaveRejectedByValidationLeavesTheParentUnchanged() throws {
        let fixture = try Fixture()
        let (_, milkID, _) = try fixture.seed()
        let parent = fixture.root()
        let child = fixture.child(of: parent)
        let error = #expect(throws: NSError.self) {
            try child.performAndWait {
                _ = NSEntityDescription.insertNewObject(forEntityName: "List", into: child)  // no name
                try child.existingObject(with: milkID).setValue("cream", forKey: "text")
                try child.save()
            }
        }
        #expect(error?.code == NSValidationMissingMandatoryPropertyError || error?.code == NSValidationMultipleErrorsError)
        parent.performAndWait {
            #expect(!parent.hasChanges)
            #expect(parent.registeredObjects.isEmpty)
            #expect(parent.object(with: milkID).value(forKey: "text") as? String == "milk")
        }
        #expect(child.performAndWait { child.hasChanges })
    }

    @Test func deleteRulesAndRelationshipsCarryThroughTheChain() throws {
        let fixture = try Fixture()
        let (listID, milkID, eggsID) = try fixture.seed()
        let parent = fixture.root()
        let child = fixture.child(of: parent)
        // Many-to-many and a move between lists, then a cascade.
        let (tagID, otherID) = try child.performAndWait {
            let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: child)
            tag.setValue("dairy", forKey: "label")
            let milk = try child.existingObject(with: milkID)
            milk.mutableSetValue(forKey: "tags").add(tag)
            let other = NSEntityDescription.insertNewObject(forEntityName: "List", into: child)
            other.setValue("Fridge", forKey: "name")
            milk.setValue(other, forKey: "list")
            try child.save()
            return (tag.objectID, other.objectID)
        }
        try parent.performAndWait {
            let tag = try parent.existingObject(with: tagID)
            let entries = tag.value(forKey: "entries") as? Set<NSManagedObject> ?? []
            #expect(entries.map(\.objectID) == [milkID])
            let groceries = try parent.existingObject(with: listID)
            #expect((groceries.value(forKey: "items") as? Set<NSManagedObject>)?.map(\.objectID) == [eggsID])
            let fridge = try parent.existingObject(with: otherID)
            #expect((fridge.value(forKey: "items") as? Set<NSManagedObject>)?.map(\.objectID) == [milkID])
        }
        try child.performAndWait {
            child.delete(try child.existingObject(with: listID))
            try child.save()
        }
        try parent.performAndWait {
            #expect(parent.deletedObjects.map(\.objectID).sorted { $0.primaryKey < $1.primaryKey } == [listID, eggsID])
            try parent.save()
        }
        #expect(try fixture.storedTexts() == ["milk"])
        let fresh = fixture.root()
        try fresh.performAndWait {
            let milk = try fresh.existingObject(with: milkID)
            #expect((milk.value(forKey: "tags") as? Set<NSManagedObject>)?.first?.value(forKey: "label") as? String == "dairy")
        }
    }

    @Test func aChildThatMergesFromItsParentFollowsItsSiblingsAndItsParent() async throws {
        let fixture = try Fixture()
        let (_, milkID, _) = try fixture.seed()
        let parent = fixture.root()
        let follower = fixture.child(of: parent)
        follower.automaticallyMergesChangesFromParent = true
        let milk = try follower.performAndWait { try follower.existingObject(with: milkID) }
        let sibling = fixture.child(of: parent)
        try sibling.performAndWait {
            try sibling.existingObject(with: milkID).setValue("cream", forKey: "text")
            try sibling.save()
        }
        await follower.perform(schedule: .enqueued) {}
        #expect(follower.performAndWait { milk.value(forKey: "text") as? String } == "cream")
        try parent.performAndWait {
            parent.object(with: milkID).setValue(Int32(5), forKey: "rank")
            try parent.save()
        }
        await follower.perform(schedule: .enqueued) {}
        #expect(follower.performAndWait { milk.value(forKey: "rank") as? Int32 } == 5)
        // A context on the coordinator does not take a child's save (it reached no store).
        let other = fixture.root()
        other.automaticallyMergesChangesFromParent = true
        let otherMilk = try other.performAndWait { try other.existingObject(with: milkID) }
        try sibling.performAndWait {
            try sibling.existingObject(with: milkID).setValue("skimmed", forKey: "text")
            try sibling.save()
        }
        await other.perform(schedule: .enqueued) {}
        #expect(other.performAndWait { otherMilk.value(forKey: "text") as? String } == "cream")
    }

    /// Issue 32: the parent's save is seen by the child's very next `performAndWait`, with no
    /// wait for the merge queued on the child's queue (Apple's `performAndWait` runs on the
    /// context's queue, after the merge queued there).
    @Test func aChildThatMergesSeesItsParentsSaveInItsNextPerformAndWait() throws {
        let fixture = try Fixture()
        let (_, milkID, _) = try fixture.seed()
        let parent = fixture.root()
        let child = fixture.child(of: parent)
        child.automaticallyMergesChangesFromParent = true
        let milk = try child.performAndWait { try child.existingObject(with: milkID) }
        #expect(child.performAndWait { milk.value(forKey: "rank") as? Int32 } == 1)
        for rank in Int32(2)...21 {
            try parent.performAndWait {
                parent.object(with: milkID).setValue(rank, forKey: "rank")
                try parent.save()
            }
            #expect(child.performAndWait { milk.value(forKey: "rank") as? Int32 } == rank)
        }
    }

    /// Issue 32: a child's save pushes its transient attribute values into the parent's
    /// objects, as Apple's does (a library's tests count on it); the store still keeps none.
    @Test func aChildsSavePushesTransientValuesIntoItsParent() throws {
        let folder = ObjectGraphTests.ScratchDirectory()
        let url = folder.file("transients.sqlite")
        let stack = try ObjectGraphTests.Stack(ObjectGraphTests.libraryModel(), at: url)
        let parent = stack.newContext()
        let novelID = try parent.performAndWait {
            let novel = Novel(context: parent)
            novel.title = "Dune"
            try parent.save()
            return novel.objectID
        }
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = parent
        let insertedID = try child.performAndWait {
            let novel = try #require(try child.existingObject(with: novelID) as? Novel)
            novel.draft = "second draft"
            let new = Novel(context: child)
            new.title = "Messiah"
            new.draft = "first draft"
            try child.save()
            return new.objectID
        }
        try parent.performAndWait {
            let novel = try #require(try parent.existingObject(with: novelID) as? Novel)
            #expect(novel.draft == "second draft")
            #expect(parent.updatedObjects.contains(novel))
            let new = try #require(try parent.existingObject(with: insertedID) as? Novel)
            #expect(new.draft == "first draft")
            #expect(new.title == "Messiah")
            try parent.save()
        }
        #expect(try ObjectGraphTests.novelTitles(in: url) == ["Dune", "Messiah"])
        // A fresh context reads the stored values: transients start at their defaults.
        let fresh = stack.newContext()
        let drafts = try fresh.performAndWait {
            try ObjectGraphTests.fetchAll(Novel.self, "Novel", in: fresh).map(\.draft)
        }
        #expect(drafts == [nil, nil])
    }
}
