import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import Synchronization
import TodoKit

/// The web interface of the to-do list: the page at `/`, the JSON API under `/api`, and the
/// live list's events at `/api/events` (`LiveUpdates`), served by Hummingbird over the
/// repositories of one store.
///
/// ```swift
/// let services = try TodoServices(store: .standard)
/// let server = TodoServer(services: services, port: 8080)
/// try await server.run { url in print("Serving at \(url)") }   // until SIGINT or SIGTERM
/// try services.persistence.close()
/// ```
public struct TodoServer: Sendable {
    public let services: TodoServices
    /// The address to listen on; `127.0.0.1` keeps the list to this machine.
    public let host: String
    /// The port; 0 lets the system pick a free one, which `onListening` then tells.
    public let port: Int
    public var logger: Logger
    /// The open pages, which get every change of the store while the server runs.
    public let liveUpdates: LiveUpdates

    public init(
        services: TodoServices, host: String = "127.0.0.1", port: Int = 8080, logLevel: Logger.Level = .warning,
        keepAliveInterval: Duration = .seconds(15)
    ) {
        self.services = services
        self.host = host
        self.port = port
        liveUpdates = LiveUpdates(keepAliveInterval: keepAliveInterval)
        var logger = Logger(label: "todo-serve")
        logger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0) } ?? logLevel
        self.logger = logger
    }

    /// Serves until SIGINT or SIGTERM, then stops taking connections and returns once the
    /// requests under way have been answered. `onListening` gets the page's address
    /// (`http://127.0.0.1:8080/`) as soon as the socket is bound.
    public func run(onListening: @escaping @Sendable (String) async -> Void = { _ in }) async throws {
        try await serve(onListening: onListening) { try await $0.runService() }
    }

    /// Serves until the calling task is cancelled, with no signal handling: for tests and for
    /// programs that embed the server.
    ///
    /// Cancelling shuts the server down gracefully, as SIGTERM does for `run`: cancelling the
    /// server's own task while a connection has been accepted but not yet served stops the
    /// process in swift-nio ("Deinited NIOAsyncWriter without calling finish()", swift-nio issue
    /// 3481), which a page reconnecting at that moment made happen in a test.
    public func runUntilCancelled(onListening: @escaping @Sendable (String) async -> Void = { _ in }) async throws {
        let logger = logger
        try await serve(onListening: onListening) { application in
            let group = ServiceGroup(services: [application], logger: logger)
            let running = Task { try await group.run() }
            try await withTaskCancellationHandler {
                try await running.value
            } onCancel: {
                Task { await group.triggerGracefulShutdown() }
            }
        }
    }

    private func serve(
        onListening: @escaping @Sendable (String) async -> Void,
        _ run: (Application<RouterResponder<TodoRequestContext>>) async throws -> Void
    ) async throws {
        let listening = ListeningFlag()
        // Followed from before the socket is bound, so that no save a page could see is missed.
        let changes = services.persistence.todoChanges()
        let updates = liveUpdates
        let host = host
        let urlHost = host.contains(":") ? "[\(host)]" : host
        let application = Application(
            router: router(),
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "todo"),
            onServerRunning: { channel in
                listening.set()
                await onListening("http://\(urlHost):\(channel.localAddress?.port ?? 0)/")
            },
            logger: logger
        )
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await updates.follow(changes) }
                defer { group.cancelAll() }
                try await run(application)
            }
        } catch {
            guard listening.isSet else {
                throw TodoServerError.cannotListen(host: host, port: port, reason: "\(error)")
            }
            throw error
        }
    }

    /// The routes: the page, then the API. The error middleware comes first, so that it wraps
    /// every route and the router's own "not found".
    func router() -> Router<TodoRequestContext> {
        let router = Router(context: TodoRequestContext.self)
        router.add(middleware: APIErrorMiddleware())
        router.get("/") { _, _ in HomePage.response }
        let writes = WriteQueue()
        TodoRoutes(services: services, writes: writes).register(on: router.group("api/todos"))
        TagRoutes(services: services, writes: writes).register(on: router.group("api/tags"))
        EventRoutes(updates: liveUpdates).register(on: router.group("api/events"))
        return router
    }
}

/// Whether the server has bound its socket: an error before that is a failure to listen.
private final class ListeningFlag: Sendable {
    private let value = Mutex(false)

    var isSet: Bool { value.withLock { $0 } }

    func set() {
        value.withLock { $0 = true }
    }
}

/// Why the server could not start.
public enum TodoServerError: Error, LocalizedError, Equatable {
    /// The address could not be bound (a port in use, a host that is not this machine's).
    case cannotListen(host: String, port: Int, reason: String)

    public var errorDescription: String? {
        switch self {
        case .cannotListen(let host, let port, let reason): "Cannot listen on \(host):\(port): \(reason)"
        }
    }
}
