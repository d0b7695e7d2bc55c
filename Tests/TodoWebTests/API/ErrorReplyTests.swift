import Foundation
import Testing
import TodoKit

/// Every kind of bad request gets a 4xx with a JSON error naming the problem, and changes
/// nothing.
@Suite("API: bad requests")
struct ErrorReplyTests {
    @Test("malformed or missing bodies: not JSON, not an object, empty, a missing field, a wrong type, null")
    func malformedBodies() async throws {
        try await withServer { api in
            try await api.expectError(400, "invalid_json", "POST", "api/todos", json: #"{"title": "unclosed"#)
            try await api.expectError(400, "invalid_json", "POST", "api/todos", json: #"["a list"]"#)
            try await api.expectError(400, "missing_body", "POST", "api/todos")
            let missing = try await api.expectError(400, "missing_field", "POST", "api/todos", json: #"{"tags": ["x"]}"#)
            #expect(missing.contains("'title'"))
            let wrongType = try await api.expectError(400, "invalid_field", "POST", "api/todos", json: #"{"title": 42}"#)
            #expect(wrongType.contains("'title'") && wrongType.contains("string"))
            let wrongTag = try await api.expectError(
                400, "invalid_field", "POST", "api/todos", json: #"{"title": "a", "tags": ["ok", 7]}"#)
            #expect(wrongTag.contains("tags[1]"))
            try await api.expectError(400, "missing_field", "POST", "api/todos", json: #"{"title": null}"#)
            #expect(try await api.list().total == 0)
            #expect(try await api.tags().isEmpty)
        }
    }

    @Test("titles: empty or blank, and too long")
    func titles() async throws {
        try await withServer { api in
            let todo = try await api.create("Keep me")
            try await api.expectError(400, "empty_title", "POST", "api/todos", json: #"{"title": "   "}"#)
            try await api.expectError(400, "empty_title", "PATCH", todo.path, json: #"{"title": ""}"#)
            try await api.expectError(400, "empty_title", "POST", todo.path + "/tags", json: #"{"tags": ["ok", " "]}"#)
            let long = String(repeating: "x", count: 501)
            try await api.expectError(400, "title_too_long", "POST", "api/todos", json: #"{"title": "\#(long)"}"#)
            #expect(try await api.list().titles == ["Keep me"])
            #expect(try await api.tags().isEmpty)
        }
    }

    @Test("ids that are not UUIDs, in every place an id goes")
    func badIds() async throws {
        try await withServer { api in
            let todo = try await api.create("Real")
            let message = try await api.expectError(400, "invalid_id", "GET", "api/todos/not-an-id")
            #expect(message.contains("not-an-id"))
            try await api.expectError(400, "invalid_id", "PATCH", "api/todos/1234", json: #"{"title": "x"}"#)
            try await api.expectError(400, "invalid_id", "DELETE", "api/todos/26f28fc5")
            try await api.expectError(400, "invalid_id", "POST", "api/todos/zz/complete")
            try await api.expectError(400, "invalid_id", "DELETE", todo.path + "/tags/home")
            try await api.expectError(400, "invalid_id", "PATCH", "api/tags/home", json: #"{"title": "x"}"#)
            try await api.expectError(400, "invalid_id", "DELETE", "api/tags/home")
        }
    }

    @Test("well-formed ids that name nothing: 404 on every endpoint, and no tag made on the way")
    func unknownIds() async throws {
        try await withServer { api in
            let todo = try await api.create("Real", tags: ["kept"])
            let nobody = "api/todos/\(UUID().uuidString)"
            try await api.expectError(404, "not_found", "GET", nobody)
            try await api.expectError(404, "not_found", "PATCH", nobody, json: #"{"title": "x"}"#)
            try await api.expectError(404, "not_found", "DELETE", nobody)
            try await api.expectError(404, "not_found", "POST", nobody + "/complete")
            try await api.expectError(404, "not_found", "POST", nobody + "/reopen")
            try await api.expectError(404, "not_found", "POST", nobody + "/tags", json: #"{"tags": ["new"]}"#)
            try await api.expectError(404, "not_found", "DELETE", nobody + "/tags/\(todo.tags[0].id.uuidString)")
            try await api.expectError(404, "not_found", "PUT", nobody + "/location", json: #"{"latitude": 1, "longitude": 2}"#)
            try await api.expectError(404, "not_found", "DELETE", nobody + "/location")
            try await api.expectError(404, "not_found", "DELETE", todo.path + "/tags/\(UUID().uuidString)")
            try await api.expectError(404, "not_found", "PATCH", "api/tags/\(UUID().uuidString)", json: #"{"title": "x"}"#)
            #expect(try await api.tags().map(\.title) == ["kept"])
        }
    }

    /// Issue 32: `"tagIds": ["nope"]` was taken with a 201 and the tag silently dropped.
    @Test("tag ids: malformed ones are 400, unknown ones 404, unknown fields 400, and nothing is written")
    func tagIds() async throws {
        try await withServer { api in
            let todo = try await api.create("Real", tags: ["kept"])
            let kept = todo.tags[0]
            let malformed = try await api.expectError(
                400, "invalid_id", "POST", "api/todos", json: #"{"title": "New", "tagIds": ["nope"]}"#)
            #expect(malformed.contains("'nope'"))
            let stranger = UUID().uuidString
            try await api.expectError(
                404, "not_found", "POST", "api/todos", json: #"{"title": "New", "tags": ["fresh"], "tagIds": ["\#(stranger)"]}"#)
            try await api.expectError(400, "invalid_id", "PATCH", todo.path, json: #"{"tagIds": ["nope"]}"#)
            try await api.expectError(
                404, "not_found", "PATCH", todo.path, json: #"{"title": "Renamed", "tagIds": ["\#(stranger)"]}"#)
            try await api.expectError(400, "invalid_id", "POST", todo.path + "/tags", json: #"{"tagIds": ["nope"]}"#)
            try await api.expectError(
                404, "not_found", "POST", todo.path + "/tags", json: #"{"tags": ["fresh"], "tagIds": ["\#(stranger)"]}"#)
            try await api.expectError(400, "unknown_field", "POST", "api/todos", json: #"{"title": "New", "tagId": "x"}"#)
            // Nothing was written: no new to-do, no new tag, the to-do unchanged.
            #expect(try await api.list().titles == ["Real"])
            #expect(try await api.tags().map(\.title) == ["kept"])
            #expect(try await api.expect(200, TodoModel.self, "GET", todo.path) == todo)

            // Known ids work, alone or with titles.
            let made = try await api.expect(
                201, TodoModel.self, "POST", "api/todos",
                json: #"{"title": "Tagged", "tagIds": ["\#(kept.id.uuidString)"], "tags": ["extra"]}"#)
            #expect(Set(made.tags.map(\.title)) == ["kept", "extra"])
            let patched = try await api.expect(
                200, TodoModel.self, "PATCH", "api/todos/\(made.id.uuidString)", json: #"{"tagIds": ["\#(kept.id.uuidString)"]}"#)
            #expect(patched.tags.map(\.title) == ["kept"])
        }
    }

    @Test("coordinates out of range, or missing, change nothing")
    func badCoordinates() async throws {
        try await withServer { api in
            let todo = try await api.create("Somewhere")
            let latitude = try await api.expectError(
                400, "invalid_location", "PUT", todo.path + "/location", json: #"{"latitude": 95, "longitude": 0}"#)
            #expect(latitude.contains("latitude"))
            let longitude = try await api.expectError(
                400, "invalid_location", "PUT", todo.path + "/location", json: #"{"latitude": 0, "longitude": -180.5}"#)
            #expect(longitude.contains("longitude"))
            try await api.expectError(400, "missing_field", "PUT", todo.path + "/location", json: #"{"latitude": 10}"#)
            try await api.expectError(
                400, "invalid_field", "PUT", todo.path + "/location", json: #"{"latitude": "north", "longitude": 2}"#)
            try await api.expectError(
                400, "invalid_location", "POST", "api/todos",
                json: #"{"title": "x", "location": {"latitude": -91, "longitude": 0}}"#)
            // One bad field in a PATCH, and the good ones are not applied either.
            try await api.expectError(
                400, "invalid_location", "PATCH", todo.path,
                json: #"{"title": "Moved", "location": {"latitude": 0, "longitude": 999}}"#)
            let unchanged = try await api.expect(200, TodoModel.self, "GET", todo.path)
            #expect(unchanged == todo)
            #expect(try await api.list().total == 1)
        }
    }

    @Test("bad page numbers and sizes")
    func badPages() async throws {
        try await withServer { api in
            for page in ["0", "-1", "two", "1.5", ""] {
                try await api.expectError(400, "invalid_page", "GET", "api/todos?page=\(page)")
            }
            for size in ["0", "101", "ten", "-5"] {
                try await api.expectError(400, "invalid_page_size", "GET", "api/todos?pageSize=\(size)")
            }
        }
    }

    @Test("a PATCH with nothing to change, an empty tag list, a body past the limit")
    func emptyAndOversized() async throws {
        try await withServer { api in
            let todo = try await api.create("Plain")
            try await api.expectError(400, "no_changes", "PATCH", todo.path, json: #"{}"#)
            let unknown = try await api.expectError(400, "unknown_field", "PATCH", todo.path, json: #"{"colour": "red"}"#)
            #expect(unknown.contains("'colour'"))
            try await api.expectError(400, "missing_field", "POST", todo.path + "/tags", json: #"{"tags": []}"#)
            let huge = #"{"title": ""# + String(repeating: "x", count: 70_000) + #""}"#
            try await api.expectError(413, "body_too_large", "POST", "api/todos", json: huge)
            #expect(try await api.list().titles == ["Plain"])
        }
    }

    @Test("unknown paths and methods are JSON 404s")
    func unknownRoutes() async throws {
        try await withServer { api in
            let message = try await api.expectError(404, "not_found", "GET", "api/nothing")
            #expect(message.contains("/api/nothing"))
            try await api.expectError(404, "not_found", "PUT", "api/todos")
            try await api.expectError(404, "not_found", "POST", "api/tags")
        }
    }
}
