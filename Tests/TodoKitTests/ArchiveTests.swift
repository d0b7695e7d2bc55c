import Foundation
import Testing
import TodoKit

@Suite("Export and import")
struct ArchiveTests {
    /// A graph with every kind of link: shared tags, a shared place, a to-do with neither,
    /// a done one, an unused tag, and dates with fractions of microseconds.
    private func fill(_ store: TestStore) async throws {
        let services = store.services
        let home = try await services.tags.tag(titled: "home")
        let work = try await services.tags.tag(titled: "Work")
        _ = try await services.tags.tag(titled: "unused")
        let place = LocationModel(latitude: 48.854, longitude: 2.3325, altitude: 35.5, placeName: "Café de Flore")
        let a = try await store.todoDAO.create(
            title: "Crème brûlée", tagIds: [home.id, work.id], location: place,
            at: Date(timeIntervalSinceReferenceDate: 785_000_000.123456789))
        let b = try await services.todos.add(title: "Report", tagIds: [work.id])
        _ = try await services.todos.locate(id: b.id, at: place)
        _ = try await services.todos.complete(id: a.id)
        _ = try await services.todos.add(title: "Alone", tagIds: [])
        _ = try await services.todos.locate(
            id: try await services.todos.add(title: "South", tagIds: []).id,
            at: LocationModel(latitude: -33.8568, longitude: 151.2153))
    }

    @Test("export → import into an empty store → export gives the same graph and the same bytes", arguments: StoreKind.allCases)
    func roundTrip(kind: StoreKind) async throws {
        let source = try TestStore(kind)
        try await fill(source)
        let exported = try await source.services.archive.exportArchive()
        #expect(exported.todos.count == 4 && exported.tags.count == 3 && exported.locations.count == 2)
        let data = try exported.jsonData()

        let target = try TestStore(kind)
        let summary = try await target.services.archive.importArchive(try TodoArchive(jsonData: data))
        #expect(summary == ArchiveDAO.ImportSummary(todos: 4, tags: 3, locations: 2))
        let reexported = try await target.services.archive.exportArchive()
        #expect(reexported == exported)
        #expect(try reexported.jsonData() == data)
        let sourcePage = try await source.services.todos.todos(matching: TodoQuery())
        let targetPage = try await target.services.todos.todos(matching: TodoQuery())
        #expect(targetPage == sourcePage)
    }

    @Test("importing into the store it came from changes nothing", arguments: StoreKind.allCases)
    func reimport(kind: StoreKind) async throws {
        let store = try TestStore(kind)
        try await fill(store)
        let exported = try await store.services.archive.exportArchive()
        _ = try await store.services.archive.importArchive(exported)
        #expect(try await store.services.archive.exportArchive() == exported)
    }

    @Test("import replaces the values and links of objects already in the store", arguments: StoreKind.allCases)
    func importUpdates(kind: StoreKind) async throws {
        let store = try TestStore(kind)
        try await fill(store)
        let exported = try await store.services.archive.exportArchive()
        var edited = exported
        edited.todos[0].title = "Changed"
        edited.todos[0].tagIds = []
        edited.todos[0].locationId = nil
        _ = try await store.services.archive.importArchive(edited)
        let todo = try await store.services.todos.todo(id: exported.todos[0].id)
        #expect(todo.title == "Changed" && todo.tags.isEmpty && todo.location == nil)
    }

    @Test("a file that breaks the rules imports nothing, and says every problem", arguments: StoreKind.allCases)
    func badFileImportsNothing(kind: StoreKind) async throws {
        let source = try TestStore(kind)
        try await fill(source)
        var archive = try await source.services.archive.exportArchive()
        let ghostTag = UUID()
        archive.todos[1].tagIds.append(ghostTag)
        archive.locations[0].latitude = 123
        archive.tags.append(archive.tags[0])

        let target = try TestStore(kind)
        let existing = try await target.services.todos.add(title: "Already here", tagIds: [])
        let before = try await target.services.archive.exportArchive()
        do {
            _ = try await target.services.archive.importArchive(archive)
            Issue.record("the import should have failed")
        } catch TodoKitError.invalidArchive(let problems) {
            #expect(problems.count == 3)
            #expect(problems.contains { $0.contains(ghostTag.uuidString.lowercased()) })
            #expect(problems.contains { $0.contains("latitude 123.0") })
            #expect(problems.contains { $0.hasPrefix("tags[3] repeats the id") })
        }
        #expect(try await target.services.archive.exportArchive() == before)
        #expect(try await target.services.todos.todo(id: existing.id).title == "Already here")
    }

    @Test("a file that is not an export is refused with the place of the fault")
    func unreadable() throws {
        #expect(throws: TodoKitError.unreadableArchive("it is not valid JSON.")) {
            try TodoArchive(jsonData: Data("{ not json".utf8))
        }
        #expect(throws: TodoKitError.unreadableArchive("todos is missing.")) {
            try TodoArchive(jsonData: Data(#"{"version": 1, "tags": [], "locations": []}"#.utf8))
        }
        let wrongDate =
            #"{"version": 1, "tags": [], "locations": [], "todos": [{"id": "3F2A9C1D-0000-4000-8000-000000000001", "title": "x", "createdAt": "yesterday", "updatedAt": 0, "tagIds": []}]}"#
        do {
            _ = try TodoArchive(jsonData: Data(wrongDate.utf8))
            Issue.record("the date should not have decoded")
        } catch TodoKitError.unreadableArchive(let reason) {
            #expect(reason.hasPrefix("todos[0].createdAt:"))
        }
    }

    @Test("an archive of another version is refused")
    func version() {
        var archive = TodoArchive(tags: [], locations: [], todos: [])
        archive.version = 2
        #expect(archive.problems() == ["version 2 is not supported (this program reads version 1)"])
    }
}
