import Foundation
import Testing
import TodoKit
import TodoWeb

/// `GET /api/events` over a real socket, as a browser's `EventSource` reads it: the headers,
/// the events as they come, pages that go away, many pages, and the end of the server.
@Suite("Live updates over HTTP", .timeLimit(.minutes(2)))
struct EventStreamTests {
    @Test("a text/event-stream that starts with ready and then carries each change the API saves")
    func eventsOverHTTP() async throws {
        try await withServer(.sqlite) { api in
            let page = try EventStreamClient(port: try #require(api.base.port))
            defer { page.hangUp() }
            let ready = try await page.wait(for: "ready") { $0.contains { $0.name == "ready" } }
            #expect(page.status == 200)
            #expect(page.headers["content-type"] == "text/event-stream; charset=utf-8")
            #expect(page.headers["cache-control"] == "no-cache")
            #expect(page.headers["transfer-encoding"] == "chunked")
            #expect(ready.first == .init(name: "ready", id: "0", data: #"{"version":0}"#, retry: 1000))

            let todo = try await api.create("Call the plumber", tags: ["home"])
            let events = try await page.wait(for: "the change") { $0.contains { $0.name == "change" } }
            let change = try #require(events.first { $0.name == "change" })
            #expect(change.id == "1")
            let live = try TodoJSON.decoder().decode(LiveEvent.self, from: Data((change.data ?? "").utf8))
            // Both went through the same JSON once (the API's answer and the event).
            #expect(live.version == 1 && live.inserted == [todo])
            // Kept on one line: a JSON value with line breaks would need a data line for each.
            #expect(change.data?.contains("\n") == false)
            // The to-do as the API serves it from the store, so that the page's refetch after the
            // change finds the item it drew unchanged (and leaves its element alone).
            #expect(live.inserted.first == (try await api.expect(200, TodoModel.self, "GET", todo.path)))
        }
    }

    @Test("a page that goes away ends its stream, and its subscriber is removed")
    func pageGoesAway() async throws {
        try await withServer(keepAliveInterval: .milliseconds(100)) { api in
            let page = try EventStreamClient(port: try #require(api.base.port))
            try await page.wait(for: "ready") { $0.contains { $0.name == "ready" } }
            #expect(api.live.subscriberCount == 1)
            try await page.wait(for: "a keep-alive") { $0.contains { $0.comment == "keep-alive" } }
            page.hangUp()
            #expect(try await Self.waitUntil { api.live.subscriberCount == 0 }, "the closed page is still subscribed")
            // The server serves on.
            #expect(try await api.list().total == 0)
        }
    }

    @Test("many pages at once each get every change")
    func manyPages() async throws {
        try await withServer(keepAliveInterval: .milliseconds(200)) { api in
            let port = try #require(api.base.port)
            let pages = try (0..<24).map { _ in try EventStreamClient(port: port) }
            for page in pages {
                try await page.wait(for: "ready") { $0.contains { $0.name == "ready" } }
            }
            #expect(api.live.subscriberCount == 24)
            _ = try await api.create("One for everyone")
            _ = try await api.create("And another")
            for page in pages {
                let events = try await page.wait(for: "two changes") { $0.filter { $0.name == "change" }.count == 2 }
                #expect(events.filter { $0.name == "change" }.map(\.id) == ["1", "2"])
            }
            for page in pages { page.hangUp() }
            #expect(try await Self.waitUntil { api.live.subscriberCount == 0 }, "\(api.live.subscriberCount) pages left")
        }
    }

    @Test("stopping the server ends every stream")
    func serverStops() async throws {
        let services = try TodoServices(store: .inMemory)
        let server = TodoServer(services: services, port: 0, logLevel: .critical)
        let (addresses, continuation) = AsyncStream<String>.makeStream()
        let serving = Task {
            defer { continuation.finish() }
            try await server.runUntilCancelled { continuation.yield($0) }
        }
        var iterator = addresses.makeAsyncIterator()
        let address = try #require(await iterator.next())
        let page = try EventStreamClient(port: try #require(URL(string: address)?.port))
        try await page.wait(for: "ready") { $0.contains { $0.name == "ready" } }
        serving.cancel()
        _ = try? await serving.value
        #expect(try await page.waitForEnd(), "the stream is still open after the server stopped")
        #expect(server.liveUpdates.subscriberCount == 0)
    }

    /// Polls `condition` for up to a minute (a bound for "never", generous because this task
    /// may wait long for a thread in a full test run on two cores).
    static func waitUntil(_ condition: () -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(60)
        while !condition() {
            guard Date() < deadline else { return false }
            try await Task.sleep(for: .milliseconds(20))
        }
        return true
    }
}
