import CoreData
import Foundation
import Testing
import TodoKit

/// `PersistenceController.todoChanges()`: the saves of the store's contexts, told as values.
@Suite("The store's changes as a stream", .timeLimit(.minutes(1)))
struct TodoChangeStreamTests {
    @Test("each save of the store's contexts comes as a change; another store's saves and tag-only saves do not")
    func savesOfThisStore() async throws {
        let store = try TestStore(.inMemory)
        let other = try TestStore(.inMemory)
        var changes = store.persistence.todoChanges().makeAsyncIterator()
        _ = try await other.services.todos.add(title: "In the other store", tagIds: [])
        _ = try await store.services.tags.tag(titled: "lonely")
        let todo = try await store.services.todos.add(title: "In this store", tagIds: [])
        let renamed = try await store.services.todos.rename(id: todo.id, to: "Renamed")
        try await store.services.todos.delete(id: todo.id)
        #expect(await changes.next() == TodoChange(inserted: [todo]))
        #expect(await changes.next() == TodoChange(updated: [renamed]))
        #expect(await changes.next() == TodoChange(deleted: [todo.id]))
    }

    @Test("a to-do deleted without being read first still tells its id")
    func deletedFault() async throws {
        let store = try TestStore(.sqlite)
        let todo = try await store.services.todos.add(title: "Never read", tagIds: [])
        let reader = store.persistence.newTaskContext()
        let objectID = try reader.performAndWait {
            let request = NSFetchRequest<NSManagedObjectID>(entityName: "Todo")
            request.resultType = .managedObjectIDResultType
            return try #require(try reader.fetch(request).first)
        }
        var changes = store.persistence.todoChanges().makeAsyncIterator()
        let context = store.persistence.newTaskContext()
        try context.performAndWait {
            context.delete(context.object(with: objectID))
            try context.save()
        }
        // The SQLite store also posts a remote change for its own coordinator's write (as
        // Apple's does); read from history, a delete comes as an empty change, whenever the
        // notification arrives. The save's own change is the first with content.
        var change = await changes.next()
        while change?.isEmpty == true { change = await changes.next() }
        #expect(change == TodoChange(deleted: [todo.id]))
    }
}
