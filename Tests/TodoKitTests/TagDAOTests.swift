import Foundation
import Testing
import TodoKit

@Suite("TagDAO")
struct TagDAOTests {
    @Test("create, find by id and by title (ignoring case and accents)", arguments: StoreKind.allCases)
    func createAndFind(kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let tag = try await store.tagDAO.create(title: "Café")
        #expect(try await store.tagDAO.find(id: tag.id) == tag)
        #expect(try await store.tagDAO.find(title: "cafe") == tag)
        #expect(try await store.tagDAO.find(title: "tea") == nil)
        #expect(try await store.tagDAO.find(id: UUID()) == nil)
    }

    @Test("update renames and stamps the update", arguments: StoreKind.allCases)
    func update(kind: StoreKind) async throws {
        let store = try TestStore(kind)
        var tag = try await store.tagDAO.create(title: "hom", at: Date(timeIntervalSinceReferenceDate: 1))
        tag.title = "home"
        let later = Date(timeIntervalSinceReferenceDate: 2)
        let updated = try await store.tagDAO.update(tag, at: later)
        #expect(updated.title == "home" && updated.updatedAt == later && updated.createdAt == tag.createdAt)
        #expect(try await store.tagDAO.find(id: tag.id) == updated)
        let ghost = TagModel(id: UUID(), title: "x", createdAt: later, updatedAt: later)
        await #expect(throws: TodoKitError.tagNotFound(ghost.id)) { try await store.tagDAO.update(ghost) }
    }

    @Test("delete leaves the to-dos that carried the tag, without it", arguments: StoreKind.allCases)
    func delete(kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let tag = try await store.tagDAO.create(title: "temporary")
        let todo = try await store.todoDAO.create(title: "Keep me", tagIds: [tag.id])
        try await store.tagDAO.delete(id: tag.id)
        #expect(try await store.tagDAO.find(id: tag.id) == nil)
        #expect(try await store.todoDAO.find(id: todo.id)?.tags == [])
        await #expect(throws: TodoKitError.tagNotFound(tag.id)) { try await store.tagDAO.delete(id: tag.id) }
    }

    @Test("findMany sorts by title ignoring case, searches and pages", arguments: StoreKind.allCases)
    func findMany(kind: StoreKind) async throws {
        let store = try TestStore(kind)
        for title in ["work", "Errands", "home", "Homework"] {
            _ = try await store.tagDAO.create(title: title)
        }
        #expect(try await store.tagDAO.findMany().map(\.title) == ["Errands", "home", "Homework", "work"])
        #expect(try await store.tagDAO.findMany(search: "WORK").map(\.title) == ["Homework", "work"])
        #expect(try await store.tagDAO.findMany(page: 2, pageSize: 3).map(\.title) == ["work"])
    }

    @Test("todoCounts counts the to-dos of each tag in the store", arguments: StoreKind.allCases)
    func todoCounts(kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let home = try await store.tagDAO.create(title: "home")
        let work = try await store.tagDAO.create(title: "work")
        let idle = try await store.tagDAO.create(title: "idle")
        _ = try await store.todoDAO.create(title: "a", tagIds: [home.id, work.id])
        _ = try await store.todoDAO.create(title: "b", tagIds: [home.id])
        let counts = try await store.tagDAO.todoCounts()
        #expect(counts[home.id] == 2 && counts[work.id] == 1 && counts[idle.id, default: 0] == 0)
        #expect(Set(try await store.tagDAO.allIds()) == [home.id, work.id, idle.id])
    }
}
