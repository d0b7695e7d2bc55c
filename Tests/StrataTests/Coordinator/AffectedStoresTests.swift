import Foundation
import GRDB
import Testing

@testable import Strata

/// `affectedStores` belongs to `NSPersistentStoreRequest`, as on Apple's systems (issue 32): set
/// through the base class, it limits fetches and each batch request to the stores it names.
@Suite struct AffectedStoresTests {
    private let scratch = ObjectGraphTests.ScratchDirectory()
    private let model = ObjectGraphTests.libraryModel()

    /// A coordinator with two stores, each holding novels of the titles given.
    private func twoStores(
        _ a: [String], _ b: [String]
    ) throws -> (NSManagedObjectContext, NSPersistentStore, NSPersistentStore) {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let storeA = try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: scratch.file("a.sqlite"))
        let storeB = try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: scratch.file("b.sqlite"))
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            for (titles, store) in [(a, storeA), (b, storeB)] {
                for title in titles {
                    let novel = Novel(context: context)
                    novel.title = title
                    context.assign(novel, to: store)
                }
            }
            try context.save()
        }
        return (context, storeA, storeB)
    }

    @Test func aFetchSetThroughTheBaseClassReadsOnlyItsStores() throws {
        let (context, _, storeB) = try twoStores(["a1", "a2"], ["b1"])
        let fetch = NSFetchRequest<Novel>(entityName: "Novel")
        let request: NSPersistentStoreRequest = fetch
        request.affectedStores = [storeB]
        let titles = try context.performAndWait { try context.fetch(fetch).compactMap(\.title) }
        #expect(titles == ["b1"])
        #expect(fetch.affectedStores?.first === storeB)
    }

    @Test func aBatchUpdateRunsOnlyInItsStores() throws {
        let (context, _, storeB) = try twoStores(["a1", "a2"], ["b1", "b2"])
        let update = NSBatchUpdateRequest(entityName: "Novel")
        update.propertiesToUpdate = ["year": 1999]
        update.resultType = .updatedObjectsCountResultType
        update.affectedStores = [storeB]
        let result = try context.performAndWait { try context.execute(update) as? NSBatchUpdateResult }
        #expect(result?.result as? Int == 2)
        #expect(try years(in: "a.sqlite") == [0, 0])
        #expect(try years(in: "b.sqlite") == [1999, 1999])
    }

    @Test func aBatchDeleteRunsOnlyInItsStores() throws {
        let (context, storeA, _) = try twoStores(["a1", "a2"], ["b1"])
        let delete = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Novel"))
        delete.resultType = .resultTypeCount
        delete.affectedStores = [storeA]
        let result = try context.performAndWait { try context.execute(delete) as? NSBatchDeleteResult }
        #expect(result?.result as? Int == 2)
        #expect(try ObjectGraphTests.novelTitles(in: scratch.file("a.sqlite")) == [])
        #expect(try ObjectGraphTests.novelTitles(in: scratch.file("b.sqlite")) == ["b1"])
    }

    @Test func aBatchDeleteOfIDsLeavesOtherStoresAlone() throws {
        let (context, _, storeB) = try twoStores(["a1"], ["b1"])
        let ids = try context.performAndWait {
            try context.fetch(NSFetchRequest<NSManagedObjectID>(entityName: "Novel").resultType(.managedObjectIDResultType))
        }
        #expect(ids.count == 2)
        let delete = NSBatchDeleteRequest(objectIDs: ids)
        delete.affectedStores = [storeB]
        _ = try context.performAndWait { try context.execute(delete) }
        #expect(try ObjectGraphTests.novelTitles(in: scratch.file("a.sqlite")) == ["a1"])
        #expect(try ObjectGraphTests.novelTitles(in: scratch.file("b.sqlite")) == [])
    }

    @Test func aBatchInsertGoesToItsStore() throws {
        let (context, _, storeB) = try twoStores(["a1"], [])
        let insert = NSBatchInsertRequest(entityName: "Novel", objects: [["title": "new"]])
        insert.affectedStores = [storeB]
        _ = try context.performAndWait { try context.execute(insert) }
        #expect(try ObjectGraphTests.novelTitles(in: scratch.file("a.sqlite")) == ["a1"])
        #expect(try ObjectGraphTests.novelTitles(in: scratch.file("b.sqlite")) == ["new"])
    }

    /// `NSManagedObject()` and a subclass's `init()` exist, as on Apple's systems: an object of
    /// the class's entity (in the models known so far) in no context, holding its defaults.
    @Test func anObjectMadeWithoutArgumentsHasItsClassesEntity() throws {
        _ = try twoStores([], [])
        let novel = Novel()
        #expect(novel.entity.name == "Novel")
        #expect(novel.entity.propertiesByName["year"] is NSAttributeDescription)
        #expect(novel.managedObjectContext == nil)
        #expect(novel.year == 0)
        novel.title = "made alone"
        #expect(novel.title == "made alone")
        #expect(novel.objectID.isTemporaryID)
        let plain = NSManagedObject()
        #expect(plain.managedObjectContext == nil)
        #expect(plain.entity.properties.isEmpty)
    }

    /// A model used later whose `Novel` entity makes plain `NSManagedObject`s (another test's,
    /// running at the same time) does not stand for the `Novel` class: `Novel()` keeps the
    /// entity that names the class. CI met this when such a model was created between the two.
    @Test func anEntityThatOnlySharesTheClassesNameDoesNotClaimIt() throws {
        _ = try twoStores([], [])
        let other = NSManagedObjectModel {
            Entity("Novel") { Attribute("genre", .stringAttributeType) }
        }
        _ = NSPersistentStoreCoordinator(managedObjectModel: other)
        #expect(other.entitiesByName["Novel"]?.managedObjectClassName != "Novel")
        let novel = Novel()
        #expect(novel.entity.propertiesByName["year"] is NSAttributeDescription)
        #expect(novel.entity.propertiesByName["genre"] == nil)
        #expect(Novel.entity().managedObjectModel !== other)
    }

    private func years(in name: String) throws -> [Int] {
        try DatabaseQueue(path: scratch.file(name).path).read { db in
            try Int.fetchAll(db, sql: "SELECT ZYEAR FROM ZNOVEL ORDER BY ZTITLE")
        }
    }
}

extension NSFetchRequest {
    fileprivate func resultType(_ type: NSFetchRequestResultType) -> Self {
        resultType = type
        return self
    }
}
