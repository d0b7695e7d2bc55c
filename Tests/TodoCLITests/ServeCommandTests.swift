import Foundation
import Testing
import TodoKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `todo serve` as a person runs it: it prints its address, serves the page and the API, and
/// stops cleanly on SIGINT or SIGTERM.
@Suite("todo serve", .enabled(if: TodoProgram.isAvailable, "the built todo program is needed"))
struct ServeCommandTests {
    @Test("--port 0 --store: prints the address, serves; SIGINT stops it with the store closed and the to-do kept")
    func serveAndInterrupt() async throws {
        let todo = try TodoProgram()
        let server = try todo.start("--store", todo.store.path, "serve", "--port", "0")
        let base = try await Self.address(of: server)
        #expect(base.host == "127.0.0.1" && base.port != 8080)
        var request = URLRequest(url: base.appendingPathComponent("api/todos"))
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"title": "Served over HTTP", "tags": ["web"]}"#.utf8)
        let (created, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 201)
        #expect(try TodoJSON.decoder().decode(TodoModel.self, from: created).title == "Served over HTTP")
        let (page, pageResponse) = try await URLSession.shared.data(from: base)
        #expect((pageResponse as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: page, as: UTF8.self).contains(#"id="todo-list""#))

        #expect(try await server.stop(with: SIGINT) == 0)
        #expect(server.outputText.hasSuffix("Stopped; the store is closed.\n"))
        let list = try todo.json(TodoPage.self, "list")
        #expect(list.todos.map(\.title) == ["Served over HTTP"] && list.todos.first?.tags.map(\.title) == ["web"])
    }

    @Test("--in-memory --sample serves the demo; SIGTERM stops it")
    func sampleAndTerminate() async throws {
        let todo = try TodoProgram()
        let server = try todo.start("--in-memory", "--sample", "serve", "--port", "0")
        let base = try await Self.address(of: server)
        let (data, _) = try await URLSession.shared.data(from: base.appendingPathComponent("api/todos"))
        let page = try TodoJSON.decoder().decode(TodoPage.self, from: data)
        #expect(page.total == 7 && page.todos.contains { $0.title == "Meet Zoë for a crème brûlée" })
        #expect(try await server.stop(with: SIGTERM) == 0)
        #expect(server.outputText.contains("Stopped"))
    }

    @Test("an open page hears, within a second, of a to-do that `todo add` saves from another process")
    func anotherProcesssAddReachesTheLivePage() async throws {
        let todo = try TodoProgram()
        let server = try todo.start("--store", todo.store.path, "serve", "--port", "0")
        let port = try #require(try await Self.address(of: server).port)
        let page = try OpenEventStream(port: port)
        #expect(try await page.wait { $0.text.contains("event: ready") }, "no ready event: \(page.text)")
        let started = Date()
        #expect(try todo.run("add", "Added", "from", "a", "terminal").status == 0)
        #expect(try await page.wait(within: 3) { $0.text.contains("Added from a terminal") }, "events: \(page.text)")
        // The add's own process start and save are in this time too.
        #expect(Date().timeIntervalSince(started) < 3)
        #expect(try await server.stop(with: SIGTERM, within: 20) == 0)
    }

    @Test("SIGTERM with a page following the live events: the stream ends and the program stops")
    func terminateWithAnOpenEventStream() async throws {
        let todo = try TodoProgram()
        let server = try todo.start("--in-memory", "serve", "--port", "0")
        let port = try #require(try await Self.address(of: server).port)
        let page = try OpenEventStream(port: port)
        #expect(try await page.wait { $0.text.contains("event: ready") }, "no ready event: \(page.text)")
        // Without the stream's graceful-shutdown handler the server would wait for it forever.
        #expect(try await server.stop(with: SIGTERM, within: 20) == 0)
        #expect(try await page.wait(within: 5) { $0.hasEnded })
        // The last chunk of the body: the stream was ended, not cut.
        #expect(page.text.hasSuffix("0\r\n\r\n"), "the stream ended with: \(page.text.suffix(40).debugDescription)")
        #expect(server.outputText.contains("Stopped"))
    }

    @Test("a port in use ends with status 1 and a sentence; a port out of range with 64")
    func badPorts() async throws {
        let todo = try TodoProgram()
        let first = try todo.start("--in-memory", "serve", "--port", "0")
        let port = try #require(try await Self.address(of: first).port)
        let second = try todo.start("--in-memory", "serve", "--port", String(port))
        #expect(try await second.exitStatus() == 1)
        #expect(second.errorText.contains("Cannot listen on 127.0.0.1:\(port)"))
        #expect(try await first.stop(with: SIGINT) == 0)
        let outOfRange = try todo.run("serve", "--port", "70000")
        #expect(outOfRange.status == 64 && outOfRange.error.contains("--port must be between 0 and 65535"))
    }

    /// The address the server printed.
    static func address(of server: RunningProgram) async throws -> URL {
        let line = try await server.line(containing: "Serving the to-do list at ")
        let text = try #require(line.split(separator: " ").first { $0.hasPrefix("http://") })
        return try #require(URL(string: String(text)))
    }
}
