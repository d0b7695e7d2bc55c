import Foundation
import Testing
import TodoKit
import TodoWeb

/// Starting the server: the address it tells, and a port it cannot have.
@Suite("The server")
struct ServerTests {
    @Test("port 0 binds a free port of 127.0.0.1 and tells its address")
    func freePort() async throws {
        try await withServer { api in
            #expect(api.base.scheme == "http" && api.base.host == "127.0.0.1")
            let port = try #require(api.base.port)
            #expect(port > 0 && port != 8080)
            #expect(try await api.list().total == 0)
        }
    }

    @Test("a port another server holds is a cannotListen error, not a crash")
    func portInUse() async throws {
        try await withServer { api in
            let port = try #require(api.base.port)
            let second = TodoServer(services: try TodoServices(store: .inMemory), port: port)
            await #expect {
                try await second.runUntilCancelled()
            } throws: { error in
                guard case .cannotListen(let host, let failedPort, _) = error as? TodoServerError else { return false }
                return host == "127.0.0.1" && failedPort == port
            }
            // The first server is still serving.
            #expect(try await api.list().total == 0)
        }
    }

    @Test("cancelling a server while connections arrive shuts it down, without stopping the process")
    func cancelledWhileConnectionsArrive() async throws {
        // Cancelling the server's own task with connections accepted but not yet served stopped
        // the process in swift-nio; runUntilCancelled now shuts down gracefully instead.
        for _ in 0..<10 {
            let server = TodoServer(services: try TodoServices(store: .inMemory), port: 0, logLevel: .critical)
            let (addresses, continuation) = AsyncStream<String>.makeStream()
            let serving = Task {
                defer { continuation.finish() }
                try await server.runUntilCancelled { continuation.yield($0) }
            }
            var iterator = addresses.makeAsyncIterator()
            let port = try #require(await iterator.next().flatMap { URL(string: $0)?.port })
            let connections = LoopbackHTTP.connections(to: port, count: 32)
            serving.cancel()
            let result = await serving.result
            LoopbackHTTP.closeAll(connections)
            #expect(connections.count == 32)
            #expect(throws: Never.self) { try result.get() }
        }
    }

    @Test("a query string whose escapes are not UTF-8 is a 400")
    func malformedQuery() async throws {
        try await withServer { api in
            let message = try await api.expectError(400, "invalid_query", "GET", "api/todos?search=caf%E9")
            #expect(message.contains("caf%E9"))
        }
    }
}
