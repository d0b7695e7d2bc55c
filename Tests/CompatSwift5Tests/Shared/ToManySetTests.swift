import CoreData
import Foundation
import Testing

/// COMPAT 4: generated to-many properties are `NSSet?`, and the ways app code reads and
/// empties them compile and work, inverses included.
@Suite("COMPAT 4: NSSet idioms on to-many relationships")
struct ToManySetTests {
    @Test("allObjects as? [TagEntity], as? Set<TagEntity>, iteration and count read the tags")
    func readingTags() throws {
        let store = try TestStore()
        let context = store.container.newBackgroundContext()
        context.performAndWait {
            let todo = TodoEntity(context: context)
            let home = TagEntity(context: context)
            let work = TagEntity(context: context)
            home.title = "home"
            work.title = "work"
            todo.addToTags(home)
            todo.addToTags(NSSet(array: [work]))

            let tags = todo.tags?.allObjects as? [TagEntity] ?? []
            #expect(tags.compactMap { $0.title }.sorted() == ["home", "work"])
            #expect((todo.tags as? Set<TagEntity>) == [home, work])
            #expect(todo.tags?.count == 2)
            #expect(todo.tags?.contains(home) == true)
            var seen: [String] = []
            for case let tag as TagEntity in todo.tags ?? [] {
                seen.append(tag.title ?? "")
            }
            #expect(seen.sorted() == ["home", "work"])
            #expect((home.todos?.allObjects as? [TodoEntity])?.first === todo)
        }
    }

    @Test("removeFromTags(tags ?? []) empties the relationship and its inverses, and saves")
    func removingAllTags() throws {
        let store = try TestStore()
        let ids = try store.insert([(title: "Fix sink", priority: 1, tags: ["home", "urgent"])])
        let context = store.container.newBackgroundContext()
        try context.performAndWait {
            let todo = try #require(try context.existingObject(with: ids[0]) as? TodoEntity)
            let tags = todo.tags?.allObjects as? [TagEntity] ?? []
            #expect(tags.count == 2)
            todo.removeFromTags(todo.tags ?? [])
            #expect(todo.tags?.count ?? 0 == 0)
            #expect(tags.allSatisfy { $0.todos?.count ?? 0 == 0 })
            try context.save()
        }
        let reader = store.container.newBackgroundContext()
        try reader.performAndWait {
            let todo = try #require(try reader.existingObject(with: ids[0]) as? TodoEntity)
            #expect(todo.tags?.count ?? 0 == 0)
            let tags = try reader.fetch(TagEntity.fetchRequest())
            #expect(tags.count == 2)
            #expect(tags.allSatisfy { ($0.todos?.allObjects as? [TodoEntity])?.isEmpty ?? true })
        }
    }

    @Test("a new object's empty to-many reads as an empty set through ?? []")
    func emptyRelationship() throws {
        let store = try TestStore()
        let context = store.container.newBackgroundContext()
        context.performAndWait {
            let todo = TodoEntity(context: context)
            let tags: NSSet = todo.tags ?? []
            #expect(tags.count == 0)
            todo.removeFromTags(todo.tags ?? [])
            #expect((todo.tags?.allObjects as? [TagEntity])?.isEmpty ?? true)
        }
    }
}
