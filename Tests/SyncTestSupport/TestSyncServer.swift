import Foundation
import Logging
import ServiceLifecycle
import StrataSyncServer

/// A `SyncServer` running in this process on a free loopback port, until `stop()`.
///
/// ```swift
/// let server = try await TestSyncServer.start(databaseURL: url)
/// defer { server.stop() }
/// let client = SyncTestClient(base: server.url, token: try await TestTokens.token(for: "alice"))
/// ```
public final class TestSyncServer: Sendable {
    public let url: URL
    public let server: SyncServer
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    private init(url: URL, server: SyncServer, group: ServiceGroup, task: Task<Void, any Error>) {
        self.url = url
        self.server = server
        self.group = group
        self.task = task
    }

    /// The configuration tests start from: the test secret, loopback, any port, limits as
    /// given, a rate high enough not to interfere.
    public static func configuration(databaseURL: String) -> SyncServerConfiguration {
        var configuration = SyncServerConfiguration(databaseURL: databaseURL)
        configuration.port = 0
        configuration.jwt = JWTConfiguration(hmacSecret: TestTokens.secret, audience: TestTokens.audience)
        configuration.rateLimit = 0
        configuration.tombstonePurgeInterval = nil
        configuration.logLevel = .warning
        // Tests run in parallel, each with its own servers, against one cluster whose
        // `max_connections` is 100: a server of a test needs few.
        configuration.maxDatabaseConnections = 4
        return configuration
    }

    public static func start(databaseURL: String) async throws -> TestSyncServer {
        try await start(configuration: configuration(databaseURL: databaseURL))
    }

    public static func start(configuration: SyncServerConfiguration) async throws -> TestSyncServer {
        let server = try SyncServer(configuration: configuration)
        let (addresses, continuation) = AsyncStream<String>.makeStream()
        let service = try await server.service { url in continuation.yield(url) }
        let group = ServiceGroup(configuration: .init(services: [service], logger: server.logger))
        let task = Task {
            defer { continuation.finish() }
            try await group.run()
        }
        for await address in addresses {
            guard let url = URL(string: address) else { break }
            return TestSyncServer(url: url, server: server, group: group, task: task)
        }
        // The server ended before it listened: its error says why.
        try await task.value
        throw TestPostgresError(message: "The sync server stopped before it listened")
    }

    /// Stops the server as SIGTERM does (requests under way are answered, long polls at
    /// once) and waits until it has.
    public func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await task.value
    }
}
