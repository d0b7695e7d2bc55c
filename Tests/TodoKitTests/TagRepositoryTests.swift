import Foundation
import Testing
import TodoKit

@Suite("TagRepository")
struct TagRepositoryTests {
    @Test("tag(titled:) finds a tag ignoring case and accents, or makes it", arguments: StoreKind.allCases)
    func findOrMake(kind: StoreKind) async throws {
        let tags = try TestStore(kind).services.tags
        let cafe = try await tags.tag(titled: "Café")
        #expect(try await tags.tag(titled: "CAFE") == cafe)
        #expect(try await tags.allTags() == [cafe])
        await #expect(throws: TodoKitError.emptyTitle) { try await tags.tag(titled: " ") }
    }

    @Test("rename refuses another tag's title", arguments: StoreKind.allCases)
    func rename(kind: StoreKind) async throws {
        let tags = try TestStore(kind).services.tags
        let home = try await tags.tag(titled: "home")
        _ = try await tags.tag(titled: "work")
        #expect(try await tags.rename(id: home.id, to: "House").title == "House")
        #expect(try await tags.rename(id: home.id, to: "house").title == "house", "its own title in another case")
        await #expect(throws: TodoKitError.duplicateTagTitle("work")) { try await tags.rename(id: home.id, to: "Work") }
    }

    @Test("resolve takes a title or the start of an id", arguments: StoreKind.allCases)
    func resolve(kind: StoreKind) async throws {
        let tags = try TestStore(kind).services.tags
        let home = try await tags.tag(titled: "home")
        #expect(try await tags.resolve("HOME") == home)
        #expect(try await tags.resolve(String(home.id.uuidString.prefix(6))) == home)
        await #expect(throws: TodoKitError.noMatch(kind: "tag", reference: "garden")) { try await tags.resolve("garden") }
    }

    @Test("delete removes the tag and todoCounts forget it", arguments: StoreKind.allCases)
    func delete(kind: StoreKind) async throws {
        let services = try TestStore(kind).services
        let home = try await services.tags.tag(titled: "home")
        let todo = try await services.todos.add(title: "Sweep", tagIds: [home.id])
        #expect(try await services.tags.todoCounts()[home.id] == 1)
        try await services.tags.delete(id: home.id)
        #expect(try await services.tags.allTags().isEmpty)
        #expect(try await services.todos.todo(id: todo.id).tags.isEmpty)
    }
}
