import Foundation
import Testing
import TodoKit

/// Many requests at once, as several browser tabs or scripts send them: no change is lost and
/// nothing fails.
@Suite("API: concurrent requests")
struct ConcurrentRequestTests {
    @Test("tags added to one to-do by 24 requests at once are all kept", arguments: StoreKind.allCases)
    func concurrentTagging(kind: StoreKind) async throws {
        try await withServer(kind) { api in
            let todo = try await api.create("Popular")
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for number in 1...24 {
                    group.addTask {
                        try await api.send("POST", todo.path + "/tags", json: #"{"tags": ["tag-\#(number)"]}"#).status
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 200, count: 24))
            let tagged = try await api.expect(200, TodoModel.self, "GET", todo.path)
            #expect(Set(tagged.tags.map(\.title)) == Set((1...24).map { "tag-\($0)" }))
        }
    }

    @Test("edits of different fields of one to-do at the same moment all land")
    func concurrentFieldEdits() async throws {
        try await withServer(.sqlite) { api in
            let todo = try await api.create("Original", tags: ["first"])
            let requests: [(String, String, String?)] = [
                ("PATCH", todo.path, #"{"title": "Renamed"}"#),
                ("POST", todo.path + "/complete", nil),
                ("PUT", todo.path + "/location", #"{"latitude": 47.3779, "longitude": 8.5403, "placeName": "Zürich"}"#),
                ("POST", todo.path + "/tags", #"{"tags": ["second"]}"#),
                ("POST", todo.path + "/tags", #"{"tags": ["third"]}"#),
                ("POST", todo.path + "/tags", #"{"tags": ["fourth"]}"#),
            ]
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for (method, path, json) in requests {
                    group.addTask { try await api.send(method, path, body: json.map { Data($0.utf8) }).status }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 200, count: requests.count))
            let result = try await api.services.todos.todo(id: todo.id)
            #expect(result.title == "Renamed")
            #expect(result.completedAt != nil)
            #expect(result.location?.placeName == "Zürich")
            #expect(result.tags.map(\.title) == ["first", "fourth", "second", "third"])
        }
    }

    @Test("30 to-dos made at once with the same new tag: 30 to-dos, one tag, while lists are read")
    func concurrentCreates() async throws {
        try await withServer(.sqlite) { api in
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for number in 1...30 {
                    group.addTask {
                        try await api.send("POST", "api/todos", json: #"{"title": "Task \#(number)", "tags": ["shared"]}"#).status
                    }
                    group.addTask { try await api.send("GET", "api/todos?tag=shared&pageSize=5").status }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            // A list read before the first to-do made the tag finds no such tag.
            #expect(statuses.filter { $0 == 201 }.count == 30)
            #expect(statuses.allSatisfy { [200, 201, 404].contains($0) })
            let list = try await api.list("pageSize=100")
            #expect(list.total == 30 && Set(list.titles) == Set((1...30).map { "Task \($0)" }))
            #expect(try await api.tags().map(\.title) == ["shared"])
            #expect(try await api.tags().first?.todoCount == 30)
        }
    }
}
