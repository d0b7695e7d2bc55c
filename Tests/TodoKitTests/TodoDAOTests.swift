import CoreData
import Foundation
import Testing
import TodoKit

@Suite("TodoDAO")
struct TodoDAOTests {
    @Test("create saves a to-do that find returns equal", arguments: StoreKind.allCases)
    func createAndFind(kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let date = Date(timeIntervalSinceReferenceDate: 785_000_000.123456)
        let created = try await store.todoDAO.create(title: "Buy milk", at: date)
        #expect(created.title == "Buy milk")
        #expect(created.createdAt == date && created.updatedAt == date)
        #expect(created.completedAt == nil && created.tags.isEmpty && created.location == nil)
        #expect(try await store.todoDAO.find(id: created.id) == created)
        #expect(try await store.todoDAO.find(id: UUID()) == nil)
    }

    @Test("create links existing tags and a new location", arguments: StoreKind.allCases)
    func createWithLinks(kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let home = try await store.tagDAO.create(title: "home")
        let place = LocationModel(latitude: 48.854, longitude: 2.3325, altitude: 35, placeName: "Café de Flore")
        let todo = try await store.todoDAO.create(title: "Coffee", tagIds: [home.id], location: place)
        #expect(todo.tags == [home])
        #expect(todo.location == place)
        #expect(try await store.locationDAO.find(id: place.id) == place)
    }

    @Test("create with an unknown tag saves nothing", arguments: StoreKind.allCases)
    func createWithUnknownTag(kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let missing = UUID()
        await #expect(throws: TodoKitError.tagNotFound(missing)) {
            try await store.todoDAO.create(title: "Lost", tagIds: [missing])
        }
        #expect(try await store.todoDAO.allIds().isEmpty)
    }

    @Test("update saves title, completion, tags and location, and stamps the update", arguments: StoreKind.allCases)
    func update(kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let home = try await store.tagDAO.create(title: "home")
        let work = try await store.tagDAO.create(title: "work")
        var todo = try await store.todoDAO.create(title: "Draft", tagIds: [home.id], at: Date(timeIntervalSinceReferenceDate: 1))
        let done = Date(timeIntervalSinceReferenceDate: 50)
        todo.title = "Final"
        todo.completedAt = done
        todo.tags = [work]
        todo.location = LocationModel(latitude: -33.8568, longitude: 151.2153, placeName: "Sydney Opera House")
        let later = Date(timeIntervalSinceReferenceDate: 100)
        let updated = try await store.todoDAO.update(todo, at: later)
        #expect(updated.title == "Final" && updated.completedAt == done && updated.updatedAt == later)
        #expect(updated.createdAt == Date(timeIntervalSinceReferenceDate: 1))
        #expect(updated.tags == [work] && updated.location == todo.location)
        #expect(try await store.todoDAO.find(id: todo.id) == updated)
        // The inverse side follows: the tag left behind no longer counts the to-do.
        let counts = try await store.tagDAO.todoCounts()
        #expect(counts[home.id, default: 0] == 0 && counts[work.id] == 1)
    }

    @Test("update that moves a to-do deletes the place no to-do is at any more", arguments: StoreKind.allCases)
    func updateRemovesUnusedLocation(kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let first = LocationModel(latitude: 1, longitude: 2, placeName: "First")
        var todo = try await store.todoDAO.create(title: "Move", location: first)
        let other = try await store.todoDAO.create(title: "Stay", location: first)
        todo.location = LocationModel(latitude: 3, longitude: 4, placeName: "Second")
        todo = try await store.todoDAO.update(todo)
        #expect(try await store.locationDAO.find(id: first.id) == first, "another to-do is still there")
        var stay = other
        stay.location = nil
        _ = try await store.todoDAO.update(stay)
        #expect(try await store.locationDAO.find(id: first.id) == nil)
        #expect(try await store.locationDAO.find(id: todo.location?.id ?? UUID()) != nil)
    }

    @Test("update of an unknown to-do throws todoNotFound", arguments: StoreKind.allCases)
    func updateUnknown(kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let ghost = TodoModel(id: UUID(), title: "Ghost", createdAt: Date(), updatedAt: Date())
        await #expect(throws: TodoKitError.todoNotFound(ghost.id)) { try await store.todoDAO.update(ghost) }
    }

    @Test("delete removes the to-do and its lone location, and keeps its tags", arguments: StoreKind.allCases)
    func delete(kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let home = try await store.tagDAO.create(title: "home")
        let place = LocationModel(latitude: 10, longitude: 20)
        let todo = try await store.todoDAO.create(title: "Gone soon", tagIds: [home.id], location: place)
        try await store.todoDAO.delete(id: todo.id)
        #expect(try await store.todoDAO.find(id: todo.id) == nil)
        #expect(try await store.tagDAO.find(id: home.id) == home)
        #expect(try await store.locationDAO.find(id: place.id) == nil)
        await #expect(throws: TodoKitError.todoNotFound(todo.id)) { try await store.todoDAO.delete(id: todo.id) }
    }

    /// Issue 33: marking a to-do done through `update` writes its completion and stamp only;
    /// the title, tags and location it copies from the model keep their values and are not
    /// written (history would name them, and sync would tell other devices of a write nobody
    /// made). An update that changes nothing saves nothing.
    @Test("update writes only the properties that changed", arguments: StoreKind.allCases)
    func updateWritesOnlyWhatChanged(kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let home = try await store.tagDAO.create(title: "home")
        let place = LocationModel(latitude: 59.91, longitude: 10.75, placeName: "Oslo")
        var todo = try await store.todoDAO.create(title: "Buy oat milk", tagIds: [home.id], location: place)
        let before = try lastTransaction(in: store)
        let unchanged = try await store.todoDAO.update(todo, at: Date(timeIntervalSinceReferenceDate: 500))
        #expect(unchanged == todo)
        #expect(try lastTransaction(in: store)?.transactionNumber == before?.transactionNumber)
        todo.completedAt = Date(timeIntervalSinceReferenceDate: 600)
        _ = try await store.todoDAO.update(todo, at: Date(timeIntervalSinceReferenceDate: 600))
        let transaction = try #require(try lastTransaction(in: store))
        let changes = transaction.changes ?? []
        #expect(changes.count == 1)
        let written = Set(changes.first?.updatedProperties?.map(\.name) ?? [])
        #expect(written == ["completedAt", "updatedAt"])
    }

    private func lastTransaction(in store: TestStore) throws -> NSPersistentHistoryTransaction? {
        let context = store.persistence.newTaskContext()
        return try context.performAndWait {
            let request = NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)
            let result = try context.execute(request) as? NSPersistentHistoryResult
            return (result?.result as? [NSPersistentHistoryTransaction])?.last
        }
    }
}
