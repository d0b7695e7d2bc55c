import Foundation
import Testing

@testable import Strata

extension ObjectGraphTests {
    /// An object's and a context's change state: inserted, updated and deleted objects, the
    /// changed and committed values, and undoing changes with `rollback()` and `reset()`.
    @Suite struct ChangeTrackingTests {
        /// Runs `body` in a private-queue context of a coordinator with an in-memory store.
        private func inContext(_ body: (NSManagedObjectContext) throws -> Void) throws {
            let context = try Stack(libraryModel(), type: NSInMemoryStoreType, at: nil).newContext()
            try context.performAndWait { try body(context) }
        }

        /// A saved novel: Dune, 1965, rated 4.5.
        private func savedNovel(in context: NSManagedObjectContext) throws -> Novel {
            let novel = Novel(context: context)
            novel.title = "Dune"
            novel.year = 1965
            novel.rating = 4.5
            try context.save()
            return novel
        }

        @Test func anInsertedObjectIsInsertedUntilSaved() throws {
            try inContext { context in
                #expect(!context.hasChanges)
                let novel = Novel(context: context)
                #expect(novel.isInserted && !novel.isUpdated && !novel.isDeleted)
                #expect(novel.hasChanges)
                #expect(novel.managedObjectContext === context)
                #expect(context.hasChanges)
                #expect(context.insertedObjects == [novel])
                #expect(context.registeredObjects.contains(novel))
                try context.save()
                #expect(!novel.isInserted && !novel.hasChanges)
                #expect(!context.hasChanges)
                #expect(context.insertedObjects.isEmpty)
            }
        }

        @Test func allThreeWaysOfCreatingAnObjectInsertIt() throws {
            try inContext { context in
                let model = try #require(context.persistentStoreCoordinator?.managedObjectModel)
                let entity = try #require(model.entitiesByName["Novel"])
                let byContext = Novel(context: context)
                let byEntity = Novel(entity: entity, insertInto: context)
                let byName = NSEntityDescription.insertNewObject(forEntityName: "Novel", into: context)
                #expect(byName is Novel)
                #expect(byName.entity.name == "Novel")
                #expect(context.insertedObjects == [byContext, byEntity, byName])
                let detached = Novel(entity: entity, insertInto: nil)
                #expect(detached.managedObjectContext == nil)
                #expect(!detached.isInserted)
                context.insert(detached)
                #expect(detached.isInserted)
                #expect(context.insertedObjects.count == 4)
            }
        }

        @Test func changingASavedObjectMakesItUpdated() throws {
            try inContext { context in
                let novel = try savedNovel(in: context)
                #expect(!novel.isUpdated && !novel.hasChanges && !novel.hasPersistentChangedValues)
                novel.title = "Dune Messiah"
                #expect(novel.isUpdated && novel.hasChanges && novel.hasPersistentChangedValues)
                #expect(!novel.isInserted && !novel.isDeleted)
                #expect(context.updatedObjects == [novel])
                #expect(context.hasChanges)
                try context.save()
                #expect(!novel.isUpdated && !novel.hasChanges)
                #expect(context.updatedObjects.isEmpty)
            }
        }

        @Test func deletingASavedObjectMakesItDeleted() throws {
            try inContext { context in
                let novel = try savedNovel(in: context)
                context.delete(novel)
                #expect(novel.isDeleted && novel.hasChanges)
                #expect(context.deletedObjects == [novel])
                #expect(context.hasChanges)
                try context.save()
                #expect(context.deletedObjects.isEmpty)
                #expect(!context.registeredObjects.contains(novel))
                #expect(try fetchAll(Novel.self, "Novel", in: context).isEmpty)
            }
        }

        /// Apple: "If object has not yet been saved to a persistent store, it is simply removed
        /// from the receiver." (`deletedObjects` may or may not list it, so that is not pinned.)
        @Test func deletingAnUnsavedObjectForgetsIt() throws {
            try inContext { context in
                let novel = Novel(context: context)
                novel.title = "Never saved"
                context.delete(novel)
                context.processPendingChanges()
                #expect(context.insertedObjects.isEmpty)
                #expect(!context.registeredObjects.contains(novel))
                #expect(!context.hasChanges)
                try context.save()
                #expect(try context.count(for: NSFetchRequest<Novel>(entityName: "Novel")) == 0)
            }
        }

        @Test func changedValuesHoldsOnlyTheChangedKeys() throws {
            try inContext { context in
                let novel = try savedNovel(in: context)
                #expect(novel.changedValues().isEmpty)
                novel.title = "Dune Messiah"
                novel.year = 1969
                let changed = novel.changedValues()
                #expect(changed.keys.sorted() == ["title", "year"])
                #expect(changed["title"] as? String == "Dune Messiah")
                #expect(changed["year"] as? Int16 == 1969)
            }
        }

        @Test func changedValuesLeaveOutTransientAttributes() throws {
            try inContext { context in
                let novel = try savedNovel(in: context)
                novel.draft = "not saved"
                #expect(novel.changedValues().isEmpty)
                #expect(!novel.hasPersistentChangedValues)
                #expect(novel.draft == "not saved")
            }
        }

        @Test func changedValuesIncludeRelationships() throws {
            try inContext { context in
                let novel = try savedNovel(in: context)
                let herbert = Author(context: context)
                novel.author = herbert
                #expect(novel.changedValues().keys.sorted() == ["author"])
                #expect(novel.changedValues()["author"] as? Author === herbert)
            }
        }

        @Test func committedValuesAreTheSavedValues() throws {
            try inContext { context in
                let novel = try savedNovel(in: context)
                novel.title = "Dune Messiah"
                novel.rating = 3.0
                let committed = novel.committedValues(forKeys: ["title", "rating"])
                #expect(committed.keys.sorted() == ["rating", "title"])
                #expect(committed["title"] as? String == "Dune")
                #expect(committed["rating"] as? Double == 4.5)
                #expect(novel.committedValues(forKeys: nil)["year"] as? Int16 == 1965)
                #expect(novel.title == "Dune Messiah")
                try context.save()
                #expect(novel.committedValues(forKeys: ["title"])["title"] as? String == "Dune Messiah")
            }
        }

        @Test func anObjectNeverSavedHasNoCommittedValues() throws {
            try inContext { context in
                let novel = Novel(context: context)
                novel.title = "Unsaved"
                #expect(novel.committedValues(forKeys: ["title", "rating"]).isEmpty)
                #expect(novel.committedValues(forKeys: nil).isEmpty)
                try context.save()
                #expect(novel.committedValues(forKeys: ["title"]).keys.sorted() == ["title"])
            }
        }

        @Test func refreshingAnInsertedObjectWithoutMergingDropsItsInsertion() throws {
            try inContext { context in
                let novel = Novel(context: context)
                novel.title = "Draft"
                context.refresh(novel, mergeChanges: false)
                #expect(novel.isFault)
                #expect(!context.insertedObjects.contains(novel))
                #expect(!context.hasChanges)
                #expect(novel.title == nil, "its unsaved values are gone")
                try context.save()
                let request = NSFetchRequest<Novel>(entityName: "Novel")
                request.predicate = NSPredicate(format: "title == 'Draft'")
                #expect(try context.count(for: request) == 0)
            }
        }

        @Test func willAccessValueForNilFiresTheFault() throws {
            try inContext { context in
                let novel = try savedNovel(in: context)
                context.refresh(novel, mergeChanges: false)
                #expect(novel.isFault)
                novel.willAccessValue(forKey: "title")
                #expect(novel.isFault, "a named key leaves the firing to the read")
                novel.willAccessValue(forKey: nil)
                #expect(!novel.isFault)
                #expect(novel.title == "Dune")
            }
        }

        @Test func rollbackRestoresTheLastSavedState() throws {
            try inContext { context in
                let novel = try savedNovel(in: context)
                let removed = Novel(context: context)
                removed.title = "Ubik"
                try context.save()

                novel.title = "Dune Messiah"
                context.delete(removed)
                let added = Novel(context: context)
                context.rollback()

                #expect(!context.hasChanges)
                #expect(novel.title == "Dune" && !novel.isUpdated)
                #expect(!removed.isDeleted && removed.title == "Ubik")
                #expect(!added.isInserted)
                #expect(!context.registeredObjects.contains(added))
                #expect(Set(try fetchAll(Novel.self, "Novel", in: context).compactMap(\.title)) == ["Dune", "Ubik"])
            }
        }

        @Test func rollbackRestoresRelationshipsOnBothSides() throws {
            try inContext { context in
                let herbert = Author(context: context)
                let novel = try savedNovel(in: context)
                novel.author = herbert
                try context.save()

                let dick = Author(context: context)
                dick.name = "Philip K. Dick"
                try context.save()
                novel.author = dick
                context.rollback()
                #expect(novel.author === herbert)
                #expect(herbert.novels == [novel])
                #expect(dick.novels.isEmpty)
            }
        }

        @Test func resetForgetsEveryRegisteredObject() throws {
            try inContext { context in
                let novel = try savedNovel(in: context)
                let id = novel.objectID
                novel.title = "Unsaved"
                _ = Novel(context: context)
                #expect(context.registeredObjects.count == 2)
                context.reset()
                #expect(context.registeredObjects.isEmpty)
                #expect(!context.hasChanges)
                #expect(context.registeredObject(for: id) == nil)
                let refetched = try fetchAll(Novel.self, "Novel", in: context)
                #expect(refetched.compactMap(\.title) == ["Dune"])
                #expect(refetched.first !== novel)
            }
        }
    }
}
