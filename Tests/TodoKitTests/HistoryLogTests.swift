import CoreData
import Foundation
import Testing
import TodoKit

@Suite("The store's history: todo log, and other processes' changes on the live stream", .timeLimit(.minutes(2)))
struct HistoryLogTests {
    @Test("recent history tells additions, changes and deletions of to-dos, tags and places in plain words")
    func plainWords() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("todokit-history-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let services = try TodoServices(store: .sqlite(folder.appendingPathComponent("Todos.sqlite")), author: "cli")
        let tag = try await services.tags.tag(titled: "errands")
        let todo = try await services.todos.add(title: "Buy oat milk", tagIds: [tag.id])
        _ = try await services.todos.locate(id: todo.id, at: LocationModel(latitude: 1, longitude: 2, placeName: "Corner shop"))
        _ = try await services.todos.complete(id: todo.id)
        let scratch = try await services.todos.add(title: "Scratch", tagIds: [])
        try await services.todos.delete(id: scratch.id)

        let entries = try await services.persistence.recentHistory(limit: 50)
        #expect(entries.allSatisfy { $0.author == "cli" })
        #expect(
            entries.map(\.words) == [
                "added the tag 'errands'",
                "added 'Buy oat milk'",
                "added the place 'Corner shop'",
                "changed 'Buy oat milk' (location)",
                "changed 'Buy oat milk' (completion)",
                // A deleted to-do's title is gone with it (the model preserves nothing in history).
                "added a to-do",
                "deleted a to-do",
            ])
        #expect(entries.first?.line.hasSuffix("  cli  added the tag 'errands'") == true)
        #expect(try await services.persistence.recentHistory(limit: 2).map(\.action) == [.added, .deleted])
    }

    @Test("a to-do added by another coordinator of the same file comes through the live stream")
    func remoteChangeOnTheStream() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("todokit-remote-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("Todos.sqlite")
        let watching = try TodoServices(store: .sqlite(url), author: "web")
        let stream = watching.persistence.todoChanges()
        let other = try TodoServices(store: .sqlite(url), author: "cli")
        let added = try await other.todos.add(title: "From elsewhere", tagIds: [])
        var iterator = stream.makeAsyncIterator()
        let change = await iterator.next()
        // The store looks at the file every quarter second; the change must come (the suite's
        // time limit bounds the wait), carrying the other coordinator's insert.
        #expect(change?.inserted.map(\.id) == [added.id])
        #expect(change?.inserted.first?.title == "From elsewhere")
    }
}
