import Foundation
import Testing
import TodoKit

/// The to-do endpoints one by one: what each answers and what it leaves in the store.
@Suite("API: to-dos")
struct TodoEndpointTests {
    @Test("POST /api/todos makes a to-do (title trimmed, tags by title, a place) that GET returns", arguments: StoreKind.allCases)
    func createAndGet(kind: StoreKind) async throws {
        try await withServer(kind) { api in
            let created = try await api.expect(
                201, TodoModel.self, "POST", "api/todos",
                json: #"{"title": "  Book the Café de Flore table ", "tags": ["paris", "Dinner", "PARIS"],"#
                    + #" "location": {"latitude": 48.854, "longitude": 2.3325, "altitude": 35, "placeName": "Café de Flore"}}"#)
            #expect(created.title == "Book the Café de Flore table")
            #expect(created.tags.map(\.title) == ["Dinner", "paris"])
            #expect(created.completedAt == nil)
            #expect(created.location?.latitude == 48.854 && created.location?.longitude == 2.3325)
            #expect(created.location?.altitude == 35 && created.location?.placeName == "Café de Flore")
            let fetched = try await api.expect(200, TodoModel.self, "GET", created.path)
            #expect(fetched == created)
            #expect(try await api.services.todos.todo(id: created.id).asServed == created)
            // Ids are taken in lowercase too.
            let lowercase = try await api.expect(200, TodoModel.self, "GET", "api/todos/\(created.id.uuidString.lowercased())")
            #expect(lowercase.id == created.id)
        }
    }

    @Test("a new to-do reuses a tag whose title differs only in case and accents")
    func createReusesTags() async throws {
        try await withServer { api in
            let first = try await api.create("Coffee", tags: ["Café"])
            let second = try await api.create("Tea", tags: ["CAFE"])
            #expect(second.tags.map(\.id) == first.tags.map(\.id))
            #expect(try await api.tags().map(\.title) == ["Café"])
        }
    }

    @Test("PATCH changes the title, tags, completion and place it is given, and nothing else")
    func patch() async throws {
        try await withServer { api in
            let todo = try await api.create("Water the plants", tags: ["home"])
            let renamed = try await api.expect(200, TodoModel.self, "PATCH", todo.path, json: #"{"title": "Water the ferns"}"#)
            #expect(renamed.title == "Water the ferns" && renamed.tags.map(\.title) == ["home"])
            #expect(renamed.updatedAt >= todo.updatedAt && renamed.createdAt == todo.createdAt)
            let retagged = try await api.expect(200, TodoModel.self, "PATCH", todo.path, json: #"{"tags": ["garden", "weekly"]}"#)
            #expect(retagged.title == "Water the ferns" && retagged.tags.map(\.title) == ["garden", "weekly"])
            let done = try await api.expect(200, TodoModel.self, "PATCH", todo.path, json: #"{"completed": true}"#)
            #expect(done.completedAt != nil && done.tags.map(\.title) == ["garden", "weekly"])
            let located = try await api.expect(
                200, TodoModel.self, "PATCH", todo.path, json: #"{"location": {"latitude": -33.8568, "longitude": 151.2153}}"#)
            #expect(located.location?.latitude == -33.8568 && located.location?.longitude == 151.2153)
            #expect(located.completedAt == done.completedAt)
            let everything = try await api.expect(
                200, TodoModel.self, "PATCH", todo.path,
                json: #"{"title": "Water the garden", "tags": [], "completed": false, "location": null}"#)
            #expect(everything.title == "Water the garden" && everything.tags.isEmpty)
            #expect(everything.completedAt == nil && everything.location == nil)
            #expect(try await api.services.todos.todo(id: todo.id).asServed == everything)
        }
    }

    @Test("complete stamps the time once; reopen clears it")
    func completeAndReopen() async throws {
        try await withServer { api in
            let todo = try await api.create("Renew the passport")
            let done = try await api.expect(200, TodoModel.self, "POST", todo.path + "/complete")
            let completedAt = try #require(done.completedAt)
            let again = try await api.expect(200, TodoModel.self, "POST", todo.path + "/complete")
            #expect(again.completedAt == completedAt)
            let reopened = try await api.expect(200, TodoModel.self, "POST", todo.path + "/reopen")
            #expect(reopened.completedAt == nil)
            #expect(try await api.services.todos.todo(id: todo.id).completedAt == nil)
        }
    }

    @Test("DELETE answers 204; the to-do is gone and its tags stay")
    func delete() async throws {
        try await withServer { api in
            let todo = try await api.create("Fix the brakes", tags: ["bike"])
            let reply = try await api.send("DELETE", todo.path)
            #expect(reply.status == 204 && reply.data.isEmpty)
            try await api.expectError(404, "not_found", "GET", todo.path)
            try await api.expectError(404, "not_found", "DELETE", todo.path)
            #expect(try await api.tags().map(\.title) == ["bike"])
            #expect(try await api.list().total == 0)
        }
    }

    @Test("POST …/tags adds tags (new titles make tags); DELETE …/tags/:tagId takes one off")
    func tagAndUntag() async throws {
        try await withServer { api in
            let todo = try await api.create("See the opera", tags: ["culture"])
            let tagged = try await api.expect(
                200, TodoModel.self, "POST", todo.path + "/tags", json: #"{"tags": ["travel", "Culture", " sydney "]}"#)
            #expect(tagged.tags.map(\.title) == ["culture", "sydney", "travel"])
            let travel = try #require(tagged.tags.first { $0.title == "travel" })
            let untagged = try await api.expect(200, TodoModel.self, "DELETE", todo.path + "/tags/\(travel.id.uuidString)")
            #expect(untagged.tags.map(\.title) == ["culture", "sydney"])
            // A tag the to-do does not carry: nothing changes.
            let again = try await api.expect(200, TodoModel.self, "DELETE", todo.path + "/tags/\(travel.id.uuidString)")
            #expect(again.tags.map(\.title) == ["culture", "sydney"])
            #expect(try await api.tags().first { $0.title == "travel" }?.todoCount == 0)
        }
    }

    @Test("PUT …/location puts the to-do at a place, shared by equal places; DELETE …/location takes it away")
    func locate() async throws {
        try await withServer { api in
            let first = try await api.create("Coffee at Flore")
            let second = try await api.create("Lunch at Flore")
            let place = #"{"latitude": 48.854, "longitude": 2.3325, "altitude": 35, "placeName": " Café de Flore "}"#
            let one = try await api.expect(200, TodoModel.self, "PUT", first.path + "/location", json: place)
            let two = try await api.expect(200, TodoModel.self, "PUT", second.path + "/location", json: place)
            let location = try #require(one.location)
            #expect(location.placeName == "Café de Flore" && location.altitude == 35)
            #expect(two.location?.id == location.id)
            let cleared = try await api.expect(200, TodoModel.self, "DELETE", first.path + "/location")
            #expect(cleared.location == nil)
            #expect(try await api.services.todos.todo(id: second.id).location == location)
        }
    }
}
