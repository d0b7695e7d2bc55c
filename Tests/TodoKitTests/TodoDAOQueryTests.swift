import Foundation
import Testing
import TodoKit

/// `TodoDAO.findMany`: search, tag filter, order and paging.
@Suite("TodoDAO.findMany")
struct TodoDAOQueryTests {
    /// To-dos created one second apart, the last one the newest.
    private func add(_ titles: [String], to store: TestStore, tagIds: [UUID] = []) async throws -> [TodoModel] {
        var todos: [TodoModel] = []
        for (index, title) in titles.enumerated() {
            let date = Date(timeIntervalSinceReferenceDate: 700_000_000 + Double(index))
            todos.append(try await store.todoDAO.create(title: title, tagIds: tagIds, at: date))
        }
        return todos
    }

    @Test("the title search ignores case and accents: 'cafe' finds 'Café'", arguments: StoreKind.allCases)
    func searchIgnoresCaseAndAccents(kind: StoreKind) async throws {
        let store = try TestStore(kind)
        _ = try await add(["Coffee at the Café", "CAFÉ crème", "Tea", "cafeteria lunch"], to: store)
        let found = try await store.todoDAO.findMany(TodoQuery(search: "cafe"))
        #expect(Set(found.todos.map(\.title)) == ["Coffee at the Café", "CAFÉ crème", "cafeteria lunch"])
        #expect(found.total == 3)
        let accented = try await store.todoDAO.findMany(TodoQuery(search: "CRÈME"))
        #expect(accented.todos.map(\.title) == ["CAFÉ crème"])
    }

    @Test("the tag filter keeps the to-dos that carry the tag", arguments: StoreKind.allCases)
    func tagFilter(kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let home = try await store.tagDAO.create(title: "home")
        let work = try await store.tagDAO.create(title: "work")
        _ = try await add(["Dishes", "Laundry"], to: store, tagIds: [home.id])
        _ = try await add(["Report"], to: store, tagIds: [work.id])
        _ = try await add(["Both"], to: store, tagIds: [home.id, work.id])
        let atHome = try await store.todoDAO.findMany(TodoQuery(tagId: home.id))
        #expect(Set(atHome.todos.map(\.title)) == ["Dishes", "Laundry", "Both"])
        let searched = try await store.todoDAO.findMany(TodoQuery(search: "o", tagId: work.id))
        #expect(Set(searched.todos.map(\.title)) == ["Report", "Both"])
        #expect(try await store.todoDAO.findMany(TodoQuery(tagId: UUID())).todos.isEmpty)
    }

    @Test("the newest update comes first", arguments: StoreKind.allCases)
    func newestFirst(kind: StoreKind) async throws {
        let store = try TestStore(kind)
        var todos = try await add(["one", "two", "three"], to: store)
        #expect(try await store.todoDAO.findMany(TodoQuery()).todos.map(\.title) == ["three", "two", "one"])
        todos[0].title = "one, edited"
        _ = try await store.todoDAO.update(todos[0], at: Date(timeIntervalSinceReferenceDate: 800_000_000))
        #expect(try await store.todoDAO.findMany(TodoQuery()).todos.map(\.title) == ["one, edited", "three", "two"])
    }

    @Test("pages cover every to-do once, without overlap, even with equal update times", arguments: StoreKind.allCases)
    func paging(kind: StoreKind) async throws {
        let store = try TestStore(kind)
        var ids = Set(try await add((1...7).map { "todo \($0)" }, to: store).map(\.id))
        // Three more saved at the same instant: the order still has to be total.
        let same = Date(timeIntervalSinceReferenceDate: 600_000_000)
        for title in ["tie a", "tie b", "tie c"] {
            ids.insert(try await store.todoDAO.create(title: title, at: same).id)
        }
        var seen: [UUID] = []
        for page in 1...4 {
            let result = try await store.todoDAO.findMany(TodoQuery(page: page, pageSize: 3))
            #expect(result.total == 10 && result.pageCount == 4 && result.page == page)
            #expect(result.todos.count == (page == 4 ? 1 : 3))
            seen += result.todos.map(\.id)
        }
        #expect(seen.count == 10 && Set(seen) == ids)
        #expect(try await store.todoDAO.findMany(TodoQuery(page: 5, pageSize: 3)).todos.isEmpty)
    }
}
