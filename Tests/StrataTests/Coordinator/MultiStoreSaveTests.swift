import Foundation
import GRDB
import Testing

@testable import Strata

/// One save across two stores of a coordinator: each inserted object goes to the store it was
/// assigned to (`assign(_:to:)`) or to the first store that holds its entity, and updates and
/// deletes go to the store each object was saved in. The coordinator splits the request by
/// store, or passes it whole when every change belongs to one.
@Suite struct MultiStoreSaveTests {
    private let scratch = ObjectGraphTests.ScratchDirectory()
    private let model = ObjectGraphTests.libraryModel()

    @Test func oneSaveWritesEachObjectToItsStore() throws {
        let first = scratch.file("first.sqlite")
        let second = scratch.file("second.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let storeA = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: first)
        let storeB = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: second)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            var kept: [Novel] = []
            for (index, title) in ["a1", "b1", "a2", "b2", "a3"].enumerated() {
                let novel = Novel(context: context)
                novel.title = title
                if title.hasPrefix("b") { context.assign(novel, to: storeB) }
                if index == 0 || index == 1 { kept.append(novel) }
            }
            try context.save()
            #expect(kept[0].objectID.persistentStore === storeA)
            #expect(kept[1].objectID.persistentStore === storeB)

            // Unassigned objects go to the first store; an update in one store and a delete in
            // the other, in the same save.
            let unassigned = Novel(context: context)
            unassigned.title = "a4"
            kept[0].title = "a1 renamed"
            context.delete(kept[1])
            // Inserted and updated rows of both stores, in the same save: each object gets the
            // row its own store wrote (the stores' rows are put back in the request's order).
            let second = Novel(context: context)
            second.title = "b3"
            context.assign(second, to: storeB)
            let renamed = try #require(
                try context.fetch(NSFetchRequest<Novel>(entityName: "Novel")).first { $0.title == "b2" })
            renamed.title = "b2 renamed"
            try context.save()
            #expect(unassigned.objectID.persistentStore === storeA)
            #expect(second.objectID.persistentStore === storeB && renamed.objectID.persistentStore === storeB)
            for (novel, title) in [(unassigned, "a4"), (kept[0], "a1 renamed"), (second, "b3"), (renamed, "b2 renamed")] {
                #expect(novel.committedValues(forKeys: ["title"])["title"] as? String == title)
                #expect(!novel.hasChanges)
            }
            #expect(context.object(with: second.objectID) === second)
            #expect(context.object(with: unassigned.objectID) === unassigned)
        }
        #expect(try ObjectGraphTests.novelTitles(in: first) == ["a1 renamed", "a2", "a3", "a4"])
        #expect(try ObjectGraphTests.novelTitles(in: second) == ["b2 renamed", "b3"])
    }
    /// A save whose changes all go to one store while another store's metadata is saved too:
    /// the one store's rows still reach their objects (permanent IDs, saved values).
    @Test func oneStoresRowsReachTheirObjectsWhileAnotherSavesMetadata() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let storeA = try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: scratch.file("rows.sqlite"))
        let storeB = try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: scratch.file("metadata.sqlite"))
        var metadata = coordinator.metadata(for: storeB)
        metadata["note"] = "saved with the rows of the other store"
        coordinator.setMetadata(metadata, for: storeB)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let novel = Novel(context: context)
            novel.title = "alone"
            try context.save()
            #expect(!novel.objectID.isTemporaryID)
            #expect(novel.objectID.persistentStore === storeA)
            #expect(novel.committedValues(forKeys: ["title"])["title"] as? String == "alone")
            #expect(context.object(with: novel.objectID) === novel)
        }
        #expect(!storeB.metadataNeedsSaving)
        #expect(coordinator.metadata(for: storeB)["note"] as? String == "saved with the rows of the other store")
        #expect(try ObjectGraphTests.novelTitles(in: scratch.file("rows.sqlite")) == ["alone"])
    }
}
