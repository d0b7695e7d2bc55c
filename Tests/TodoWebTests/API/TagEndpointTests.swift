import Foundation
import Testing
import TodoKit

/// The tag endpoints: the list with counts, one tag, rename and delete.
@Suite("API: tags")
struct TagEndpointTests {
    @Test("GET /api/tags lists every tag by title with its number of to-dos")
    func list() async throws {
        try await withServer(sample: true) { api in
            let tags = try await api.tags()
            #expect(tags.map(\.title) == ["errands", "home", "work"])
            #expect(tags.map(\.todoCount) == [3, 3, 2])
            let home = try #require(tags.first { $0.title == "home" })
            let one = try await api.expect(200, TagReply.self, "GET", "api/tags/\(home.id.uuidString)")
            #expect(one == home)
        }
    }

    @Test("PATCH /api/tags/:id renames; a title another tag has is a 409")
    func rename() async throws {
        try await withServer { api in
            let todo = try await api.create("Dinner", tags: ["paris", "food"])
            let paris = try #require(todo.tags.first { $0.title == "paris" })
            let renamed = try await api.expect(
                200, TagModel.self, "PATCH", "api/tags/\(paris.id.uuidString)", json: #"{"title": " Paris "}"#)
            #expect(renamed.id == paris.id && renamed.title == "Paris")
            #expect(try await api.expect(200, TodoModel.self, "GET", todo.path).tags.map(\.title) == ["food", "Paris"])
            let message = try await api.expectError(
                409, "duplicate_tag", "PATCH", "api/tags/\(paris.id.uuidString)", json: #"{"title": "FOOD"}"#)
            #expect(message.contains("food"))
            try await api.expectError(400, "empty_title", "PATCH", "api/tags/\(paris.id.uuidString)", json: #"{"title": " "}"#)
            #expect(try await api.tags().map(\.title) == ["food", "Paris"])
        }
    }

    @Test("DELETE /api/tags/:id deletes the tag; its to-dos stay without it")
    func delete() async throws {
        try await withServer { api in
            let todo = try await api.create("Dinner", tags: ["paris", "food"])
            let food = try #require(todo.tags.first { $0.title == "food" })
            let reply = try await api.send("DELETE", "api/tags/\(food.id.uuidString)")
            #expect(reply.status == 204)
            #expect(try await api.tags().map(\.title) == ["paris"])
            #expect(try await api.expect(200, TodoModel.self, "GET", todo.path).tags.map(\.title) == ["paris"])
            try await api.expectError(404, "not_found", "DELETE", "api/tags/\(food.id.uuidString)")
            try await api.expectError(404, "not_found", "GET", "api/tags/\(food.id.uuidString)")
        }
    }
}
