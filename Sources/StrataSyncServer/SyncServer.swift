import Foundation
import Hummingbird
import Logging
import PostgresNIO
import ServiceLifecycle

/// One `strata-sync` instance: Hummingbird serving the endpoints of `SyncPaths` over
/// PostgreSQL. Instances keep no state of their own, so any number of them may share one
/// database behind a load balancer.
///
/// At start it migrates its schema (under an advisory lock: instances starting together take
/// turns), starts listening for other instances' changes, then binds its port.
///
/// ```swift
/// let server = try SyncServer(configuration: configuration)
/// try await server.run { url in print("Listening on \(url)") }   // until SIGTERM or SIGINT
/// ```
public struct SyncServer: Sendable {
    public let configuration: SyncServerConfiguration
    public let logger: Logger
    private let database: PostgresClient
    let store: SyncStore

    public init(configuration: SyncServerConfiguration, logger: Logger? = nil) throws {
        let logger =
            logger
            ?? {
                var logger = Logger(label: "strata-sync")
                logger.logLevel = configuration.logLevel
                return logger
            }()
        self.configuration = configuration
        self.logger = logger
        var databaseConfiguration = try DatabaseURL.configuration(configuration.databaseURL)
        databaseConfiguration.options.maximumConnections = max(2, configuration.maxDatabaseConnections)
        var databaseLogger = logger
        databaseLogger.logLevel = max(logger.logLevel, .notice)
        database = PostgresClient(configuration: databaseConfiguration, backgroundLogger: databaseLogger)
        let notifier = ChangeNotifier(client: database, logger: logger)
        store = SyncStore(client: database, configuration: configuration, notifier: notifier, logger: databaseLogger)
    }

    /// Serves until SIGTERM or SIGINT, then stops taking connections, answers the requests
    /// under way (long polls end at once with what they have) and returns.
    public func run(onListening: @escaping @Sendable (String) async -> Void = { _ in }) async throws {
        let application = try await makeApplication(onListening: onListening)
        try await application.runService()
    }

    /// Serves until the calling task is cancelled, without signal handling: for tests and
    /// programs that run several instances in one process. Cancelling shuts the server down
    /// gracefully, as SIGTERM does for `run` (cancelling the server's own task while a
    /// connection has been accepted but not yet served stops the process in swift-nio).
    public func runUntilCancelled(onListening: @escaping @Sendable (String) async -> Void = { _ in }) async throws {
        let group = ServiceGroup(services: [try await makeApplication(onListening: onListening)], logger: logger)
        let running = Task { try await group.run() }
        try await withTaskCancellationHandler {
            try await running.value
        } onCancel: {
            Task { await group.triggerGracefulShutdown() }
        }
    }

    /// The server as a service, for a `ServiceGroup` of the caller's: shut down gracefully
    /// with the group (`triggerGracefulShutdown()`), as SIGTERM does.
    public func service(onListening: @escaping @Sendable (String) async -> Void = { _ in }) async throws -> any Service {
        try await makeApplication(onListening: onListening)
    }

    /// Purges tombstones older than `age` in every zone now (instances also do it every
    /// `tombstonePurgeInterval`); how many were purged. Needs the server running.
    @discardableResult
    public func purgeTombstones(olderThan age: Duration) async throws -> Int {
        try await store.purgeTombstones(olderThan: age)
    }

    private func makeApplication(
        onListening: @escaping @Sendable (String) async -> Void
    ) async throws -> some ApplicationProtocol {
        let verifier = try await TokenVerifier(configuration.jwt)
        let router = Router(context: SyncRequestContext.self)
        router.add(middleware: SyncErrorMiddleware())
        SyncRoutes(store: store, maxBodyBytes: configuration.maxBodyBytes)
            .register(on: router, verifier: verifier, rateLimiter: RateLimiter(requestsPerSecond: configuration.rateLimit))
        let host = configuration.hostname
        let urlHost = host.contains(":") ? "[\(host)]" : host
        let store = store
        let logger = logger
        var application = Application(
            router: router,
            configuration: ApplicationConfiguration(
                address: .hostname(host, port: configuration.port), serverName: "strata-sync"),
            services: [
                database, store.notifier, TombstonePurger(store: store, interval: configuration.tombstonePurgeInterval),
                IndexBuildService(store: store),
            ],
            onServerRunning: { channel in
                let url = "http://\(urlHost):\(channel.localAddress?.port ?? 0)"
                logger.notice("strata-sync listening on \(url)")
                await onListening(url)
            },
            logger: logger
        )
        application.beforeServerStarts {
            try await SyncSchema.migrate(store.client, logger: logger)
            store.indexBuilder.wake()
            await store.notifier.waitUntilListening()
        }
        return application
    }
}

/// Purges expired tombstones every `interval` until graceful shutdown.
struct TombstonePurger: Service {
    let store: SyncStore
    let interval: Duration?

    func run() async throws {
        guard let interval else {
            try? await gracefulShutdown()
            return
        }
        do {
            try await cancelWhenGracefulShutdown {
                while !Task.isCancelled {
                    try await Task.sleep(for: interval)
                    do {
                        try await store.purgeTombstones(olderThan: store.configuration.tombstoneRetention)
                    } catch {
                        if Task.isCancelled { return }
                        store.logger.warning("Purging tombstones failed: \(String(reflecting: error))")
                    }
                }
            }
        } catch is CancellationError {
            // Graceful shutdown during the sleep.
        }
    }
}
