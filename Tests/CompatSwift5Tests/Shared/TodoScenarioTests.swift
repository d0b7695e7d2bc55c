import CoreData
import Foundation
import Testing

/// The data layer of a to-do app (`TodoDAO`, `TagDAO`), written as on Apple's systems and
/// checked against Core Data's documented behaviour: delete rules, string options, paging,
/// background contexts, dictionary results, pending changes.
@Suite("Scenario: a to-do app's data layer")
struct TodoScenarioTests {
    /// Distinct, exactly stored times, so that "most recently updated first" has one answer.
    private static func time(_ minute: Int) -> Date {
        Date(timeIntervalSinceReferenceDate: 700_000_000 + Double(minute) * 60)
    }

    @Test("create, find one, update and delete a to-do")
    func lifeCycle() async throws {
        let store = try TestStore()
        let todos = TodoDAO(container: store.container)
        let tags = TagDAO(container: store.container)
        let home = try await tags.create(title: "home", at: Self.time(0))
        let urgent = try await tags.create(title: "urgent", at: Self.time(0))

        let created = try await todos.create(title: "Fix the sink", priority: 2, tagIds: [home.id], at: Self.time(1))
        #expect(created.title == "Fix the sink")
        #expect(created.priority == 2)
        #expect(!created.isDone)
        #expect(created.createdAt == Self.time(1))
        #expect(created.completedAt == nil)
        #expect(created.tagIds == [home.id])
        #expect(try await todos.find(id: created.id) == created)
        #expect(try await todos.find(id: UUID()) == nil)

        var edited = created
        edited.title = "Fix the kitchen sink"
        edited.isDone = true
        edited.tagIds = [urgent.id]
        let updated = try await todos.update(edited, at: Self.time(2))
        #expect(updated.title == "Fix the kitchen sink")
        #expect(updated.isDone)
        #expect(updated.completedAt == Self.time(2))
        #expect(updated.createdAt == Self.time(1))
        #expect(updated.updatedAt == Self.time(2))
        #expect(updated.tagIds == [urgent.id])
        #expect(try await todos.find(id: created.id) == updated)
        #expect(try await tags.todoCountsByTag() == ["home": 0, "urgent": 1])

        try await todos.delete(id: created.id)
        #expect(try await todos.find(id: created.id) == nil)
        #expect(try await todos.count() == 0)
        #expect(try await tags.todoCountsByTag() == ["home": 0, "urgent": 0])
        await #expect(throws: DataLayerError.todoNotFound(created.id)) {
            try await todos.delete(id: created.id)
        }
        await #expect(throws: DataLayerError.todoNotFound(created.id)) {
            _ = try await todos.update(edited)
        }
    }

    @Test("deleting an object removes it from the to-many relationships of the others (Nullify)")
    func deleteRulesNullify() async throws {
        let store = try TestStore()
        let todos = TodoDAO(container: store.container)
        let tags = TagDAO(container: store.container)
        let home = try await tags.create(title: "home")
        let work = try await tags.create(title: "work")
        let both = try await todos.create(title: "Plan the week", tagIds: [home.id, work.id], at: Self.time(1))
        let homeOnly = try await todos.create(title: "Water plants", tagIds: [home.id], at: Self.time(2))
        let workOnly = try await todos.create(title: "Send report", tagIds: [work.id], at: Self.time(3))
        #expect(try await tags.todoCountsByTag() == ["home": 2, "work": 2])

        try await tags.delete(id: home.id)
        #expect(try await tags.find(id: home.id) == nil)
        #expect(try await todos.find(id: both.id)?.tagIds == [work.id])
        #expect(try await todos.find(id: homeOnly.id)?.tagIds == [])
        #expect(try await todos.count() == 3)

        try await todos.delete(id: workOnly.id)
        #expect(try await tags.todoCountsByTag() == ["work": 1])
        #expect(try await todos.findMany(tagId: work.id).map(\.id) == [both.id])
    }

    @Test("search ignores case and diacritics: \"cafe\" finds \"Café\"")
    func search() async throws {
        let store = try TestStore()
        let todos = TodoDAO(container: store.container)
        let titles = ["Café crème", "CAFE society", "Buy coffee", "Cafeteria lunch", "Naïve plan", "Résumé", "Tea"]
        for (minute, title) in titles.enumerated() {
            _ = try await todos.create(title: title, at: Self.time(minute))
        }
        let newestFirst = ["Cafeteria lunch", "CAFE society", "Café crème"]
        #expect(try await todos.findMany(search: "cafe").map(\.title) == newestFirst)
        #expect(try await todos.findMany(search: "CAFÉ").map(\.title) == newestFirst)
        #expect(try await todos.findMany(search: "resume").map(\.title) == ["Résumé"])
        #expect(try await todos.findMany(search: "NAIVE").map(\.title) == ["Naïve plan"])
        #expect(try await todos.findMany(search: "TER").map(\.title) == ["Cafeteria lunch"])
        #expect(try await todos.findMany(search: "tofu").isEmpty)
        #expect(try await todos.count(search: "cafe") == 3)
        #expect(try await todos.findMany(search: "").count == titles.count)
    }

    @Test("a tag filter (ANY tags.tagId == %@) combines with the search and the open-only filter")
    func tagFilter() async throws {
        let store = try TestStore()
        let todos = TodoDAO(container: store.container)
        let tags = TagDAO(container: store.container)
        let errands = try await tags.create(title: "errands")
        let home = try await tags.create(title: "home")
        _ = try await todos.create(title: "Buy milk", tagIds: [errands.id], at: Self.time(1))
        let bread = try await todos.create(title: "Buy bread", tagIds: [errands.id, home.id], at: Self.time(2))
        _ = try await todos.create(title: "Buy a lamp", tagIds: [home.id], at: Self.time(3))
        _ = try await todos.create(title: "Post letter", tagIds: [errands.id], at: Self.time(4))

        #expect(try await todos.findMany(tagId: errands.id).map(\.title) == ["Post letter", "Buy bread", "Buy milk"])
        #expect(try await todos.findMany(search: "buy", tagId: errands.id).map(\.title) == ["Buy bread", "Buy milk"])
        #expect(try await todos.count(tagId: home.id) == 2)

        var done = bread
        done.isDone = true
        _ = try await todos.update(done, at: Self.time(5))
        #expect(try await todos.findMany(search: "buy", tagId: errands.id, onlyOpen: true).map(\.title) == ["Buy milk"])
        #expect(try await todos.findMany(tagId: UUID()).isEmpty)
    }

    @Test("pages follow the sort order, do not overlap, and cover every to-do once")
    func paging() async throws {
        let store = try TestStore()
        let todos = TodoDAO(container: store.container)
        var created: [TodoModel] = []
        for minute in 0..<25 {
            created.append(try await todos.create(title: "Task \(minute)", at: Self.time(minute)))
        }
        let pages = [
            try await todos.findMany(page: 0, pageSize: 10), try await todos.findMany(page: 1, pageSize: 10),
            try await todos.findMany(page: 2, pageSize: 10), try await todos.findMany(page: 3, pageSize: 10),
        ]
        #expect(pages.map(\.count) == [10, 10, 5, 0])
        let all = pages.flatMap { $0 }
        #expect(Set(all.map(\.id)).count == 25)
        #expect(all.map(\.id) == created.reversed().map(\.id))
        #expect(zip(all, all.dropFirst()).allSatisfy { $0.updatedAt > $1.updatedAt })
        #expect(try await todos.count() == 25)
    }

    @Test("to-dos created at once from many background contexts are all saved")
    func concurrentCreates() async throws {
        let store = try TestStore()
        let todos = TodoDAO(container: store.container)
        let ids = try await withThrowingTaskGroup(of: UUID.self) { group in
            for index in 0..<20 {
                group.addTask { try await todos.create(title: "Task \(index)").id }
            }
            var ids: [UUID] = []
            for try await id in group {
                ids.append(id)
            }
            return ids
        }
        #expect(Set(ids).count == 20)
        #expect(try await todos.count() == 20)
        #expect(try await todos.count(search: "task 1") == 11)
    }

    @Test("dictionary results count the to-dos of each tag and of each state")
    func reports() async throws {
        let store = try TestStore()
        let todos = TodoDAO(container: store.container)
        let tags = TagDAO(container: store.container)
        let home = try await tags.create(title: "home")
        let work = try await tags.create(title: "work")
        _ = try await tags.create(title: "someday")
        var first = try await todos.create(title: "Plan the week", tagIds: [home.id, work.id])
        _ = try await todos.create(title: "Water plants", tagIds: [home.id])
        _ = try await todos.create(title: "Read a book")
        first.isDone = true
        _ = try await todos.update(first)

        #expect(try await tags.todoCountsByTag() == ["home": 2, "work": 1, "someday": 0])
        #expect(try await todos.countsByState() == [false: 2, true: 1])
    }

    @Test("tags list in title order: on the view context, and ignoring case with caseInsensitiveCompare:")
    func tagOrder() async throws {
        let store = try TestStore()
        let tags = TagDAO(container: store.container)
        for title in ["cherry", "Banana", "apple", "Apricot"] {
            _ = try await tags.create(title: title)
        }
        #expect(try await tags.allTags().map(\.title) == ["Apricot", "Banana", "apple", "cherry"])
        #expect(try await tags.findMany().map(\.title) == ["apple", "Apricot", "Banana", "cherry"])
        #expect(try await tags.findMany(prefix: "A").map(\.title) == ["apple", "Apricot"])
        #expect(try await tags.findMany(page: 1, pageSize: 3).map(\.title) == ["cherry"])

        let banana = try #require(try await tags.findMany(prefix: "banana").first)
        #expect(try await tags.rename(id: banana.id, to: "Blueberry").title == "Blueberry")
        #expect(try await tags.find(id: banana.id)?.title == "Blueberry")
    }

    @Test("a context's fetches include its unsaved changes; other contexts see them after the save")
    func pendingChanges() throws {
        let store = try TestStore()
        try store.insert([(title: "Buy milk", priority: 1, tags: []), (title: "Call Ann", priority: 1, tags: [])])
        let editor = store.container.newBackgroundContext()
        let reader = store.container.newBackgroundContext()
        let request: NSFetchRequest<TodoEntity> = TodoEntity.fetchRequest()
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        let titles = { (context: NSManagedObjectContext) in
            try context.performAndWait { try context.fetch(request).map { $0.title ?? "" } }
        }
        try editor.performAndWait {
            let milk = try #require(try editor.fetch(request).first)
            editor.delete(milk)
            let todo = TodoEntity(context: editor)
            todo.title = "Bake bread"
        }
        #expect(try titles(editor) == ["Bake bread", "Call Ann"])
        #expect(try titles(reader) == ["Buy milk", "Call Ann"])
        try editor.performAndWait { try editor.save() }
        #expect(try titles(reader) == ["Bake bread", "Call Ann"])
    }
}
