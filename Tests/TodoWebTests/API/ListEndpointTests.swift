import Foundation
import Testing
import TodoKit

/// `GET /api/todos`: order, paging, search and the tag filter.
@Suite("API: the list")
struct ListEndpointTests {
    @Test("pages: newest update first, with the page, its size, the total and the number of pages")
    func paging() async throws {
        try await withServer(.sqlite) { api in
            for number in 1...25 {
                _ = try await api.create("To-do \(number)")
            }
            let first = try await api.list("pageSize=10")
            #expect(first.titles == (16...25).reversed().map { "To-do \($0)" })
            #expect(first.page == 1 && first.pageSize == 10 && first.total == 25 && first.pageCount == 3)
            let third = try await api.list("page=3&pageSize=10")
            #expect(third.titles == (1...5).reversed().map { "To-do \($0)" })
            #expect(third.page == 3 && third.total == 25)
            let beyond = try await api.list("page=4&pageSize=10")
            #expect(beyond.todos.isEmpty && beyond.page == 4 && beyond.total == 25 && beyond.pageCount == 3)
            let standard = try await api.list()
            #expect(standard.todos.count == 20 && standard.pageSize == 20 && standard.pageCount == 2)
            let all = try await api.list("pageSize=100")
            #expect(Set(all.todos.map(\.id)).count == 25)
        }
    }

    @Test("a change moves a to-do to the top")
    func newestUpdateFirst() async throws {
        try await withServer { api in
            let old = try await api.create("Older")
            _ = try await api.create("Newer")
            #expect(try await api.list().titles == ["Newer", "Older"])
            _ = try await api.expect(200, TodoModel.self, "POST", old.path + "/complete")
            #expect(try await api.list().titles == ["Older", "Newer"])
        }
    }

    @Test("search ignores case and accents, either way round, and takes + and %-escapes for spaces")
    func search() async throws {
        try await withServer(sample: true) { api in
            #expect(try await api.list("search=CAFE").titles == ["Buy coffee beans at the café"])
            #expect(try await api.list("search=caf%C3%A9").titles == ["Buy coffee beans at the café"])
            #expect(try await api.list("search=creme+brulee").titles == ["Meet Zoë for a crème brûlée"])
            #expect(try await api.list("search=CR%C3%88ME%20BR%C3%9BL%C3%89E").titles == ["Meet Zoë for a crème brûlée"])
            #expect(try await api.list("search=zoe").total == 1)
            #expect(try await api.list("search=zurich").total == 0)
            let none = try await api.list("search=nothing+like+this")
            #expect(none.todos.isEmpty && none.total == 0 && none.pageCount == 1)
            #expect(try await api.list("search=").total == 7)
        }
    }

    @Test("tag filters by id or by title (ignoring case), and combines with search")
    func tagFilter() async throws {
        try await withServer(sample: true) { api in
            let work = try #require(try await api.tags().first { $0.title == "work" })
            let byId = try await api.list("tag=\(work.id.uuidString)")
            #expect(Set(byId.titles) == ["Write the quarterly report", "Review the Strata pull request"])
            #expect(try await api.list("tag=WORK").titles == byId.titles)
            #expect(try await api.list("tag=errands&search=BIKE").titles == ["Fix the bike's brakes"])
            #expect(try await api.list("tag=home&pageSize=2").pageCount == 2)
            try await api.expectError(404, "not_found", "GET", "api/todos?tag=nowhere")
            try await api.expectError(404, "not_found", "GET", "api/todos?tag=\(UUID().uuidString)")
        }
    }
}
