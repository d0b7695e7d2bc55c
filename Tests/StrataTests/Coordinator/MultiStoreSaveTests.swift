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

    private func titles(in url: URL) throws -> [String] {
        try DatabaseQueue(path: url.path).read { db in
            try String.fetchAll(db, sql: "SELECT ZTITLE FROM ZNOVEL ORDER BY ZTITLE")
        }
    }

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
            try context.save()
            #expect(unassigned.objectID.persistentStore === storeA)
        }
        #expect(try titles(in: first) == ["a1 renamed", "a2", "a3", "a4"])
        #expect(try titles(in: second) == ["b2"])
    }
}
