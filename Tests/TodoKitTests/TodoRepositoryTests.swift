import Foundation
import Testing
import TodoKit

@Suite("TodoRepository")
struct TodoRepositoryTests {
    @Test("add trims the title and refuses an empty one", arguments: StoreKind.allCases)
    func addChecksTitle(kind: StoreKind) async throws {
        let todos = try TestStore(kind).services.todos
        #expect(try await todos.add(title: "  Buy milk \n", tagIds: []).title == "Buy milk")
        await #expect(throws: TodoKitError.emptyTitle) { try await todos.add(title: "   ", tagIds: []) }
    }

    @Test("todo(id:) throws todoNotFound for an unknown id", arguments: StoreKind.allCases)
    func unknownId(kind: StoreKind) async throws {
        let todos = try TestStore(kind).services.todos
        let id = UUID()
        await #expect(throws: TodoKitError.todoNotFound(id)) { try await todos.todo(id: id) }
    }

    @Test("complete, reopen and rename go through save", arguments: StoreKind.allCases)
    func completion(kind: StoreKind) async throws {
        let todos = try TestStore(kind).services.todos
        let todo = try await todos.add(title: "Call mum", tagIds: [])
        let done = try await todos.complete(id: todo.id, at: Date(timeIntervalSinceReferenceDate: 9))
        #expect(done.completedAt == Date(timeIntervalSinceReferenceDate: 9) && done.isCompleted)
        #expect(try await todos.complete(id: todo.id).completedAt == done.completedAt, "done stays done when it was")
        #expect(try await todos.reopen(id: todo.id).completedAt == nil)
        #expect(try await todos.rename(id: todo.id, to: "Call dad").title == "Call dad")
        await #expect(throws: TodoKitError.emptyTitle) { try await todos.rename(id: todo.id, to: "") }
    }

    @Test("tag adds only new tags, untag removes the given ones", arguments: StoreKind.allCases)
    func tagging(kind: StoreKind) async throws {
        let services = try TestStore(kind).services
        let home = try await services.tags.tag(titled: "home")
        let work = try await services.tags.tag(titled: "work")
        let todo = try await services.todos.add(title: "Plan", tagIds: [home.id])
        #expect(try await services.todos.tag(id: todo.id, with: [home, work]).tags.map(\.title) == ["home", "work"])
        #expect(try await services.todos.untag(id: todo.id, removing: [home]).tags.map(\.title) == ["work"])
    }

    @Test("locate reuses a stored place with the same values, and clears", arguments: StoreKind.allCases)
    func locate(kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let todos = store.services.todos
        let first = try await todos.add(title: "First", tagIds: [])
        let second = try await todos.add(title: "Second", tagIds: [])
        let located = try await todos.locate(id: first.id, at: LocationModel(latitude: 45, longitude: 7, placeName: "Torino"))
        let shared = try await todos.locate(id: second.id, at: LocationModel(latitude: 45, longitude: 7, placeName: "Torino"))
        #expect(shared.location?.id == located.location?.id)
        #expect(try await store.locationDAO.findMany().count == 1)
        #expect(try await todos.locate(id: first.id, at: nil).location == nil)
        await #expect(throws: TodoKitError.invalidLocation("latitude -91.0 is not between -90 and 90")) {
            try await todos.locate(id: first.id, at: LocationModel(latitude: -91, longitude: 0))
        }
    }

    @Test("resolve takes an unambiguous start of an id, with or without hyphens", arguments: StoreKind.allCases)
    func resolve(kind: StoreKind) async throws {
        let todos = try TestStore(kind).services.todos
        let todo = try await todos.add(title: "Find me", tagIds: [])
        let text = todo.id.uuidString
        #expect(try await todos.resolve(String(text.prefix(8)).lowercased()) == todo.id)
        #expect(try await todos.resolve(text) == todo.id)
        #expect(try await todos.resolve(text.replacingOccurrences(of: "-", with: "").prefix(12).description) == todo.id)
        await #expect(throws: TodoKitError.notAnId("milk")) { try await todos.resolve("milk") }
        let other = text.hasPrefix("0") ? "1" : "0"
        await #expect(throws: TodoKitError.noMatch(kind: "to-do", reference: other)) { try await todos.resolve(other) }
    }
}
