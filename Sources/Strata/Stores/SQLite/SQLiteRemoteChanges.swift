import Foundation
internal import GRDB

extension Notification.Name {
    /// Posted (on a private thread) after a store added with
    /// `NSPersistentStoreRemoteChangeNotificationPostOptionKey` changed: by this coordinator's
    /// own saves and batch requests, as Apple's store posts for every write, or by another
    /// coordinator or process. Writes close together are told once. The object is the
    /// coordinator; the user info holds `NSPersistentStoreURLKey`, `NSStoreUUIDKey` and, when
    /// the store tracks history, `NSPersistentHistoryTokenKey` (the token of the last
    /// transaction).
    public static let NSPersistentStoreRemoteChange = Notification.Name("NSPersistentStoreRemoteChangeNotification")
}

/// Notices the commits made to a SQLite store: a connection of its own asks SQLite's
/// `PRAGMA data_version`, which moves with every commit of any other connection (the store's
/// own writer, another coordinator's, another process's), four times a second (one page read of
/// the file header, not a read of the store), and at once after each commit of the store's own
/// writer. Commits made between two looks are told by one notification, whose token is the last
/// history transaction's.
final class SQLiteRemoteChangeWatcher: @unchecked Sendable {
    /// How often the file is looked at: a change is noticed within this and the post.
    static let interval: DispatchTimeInterval = .milliseconds(250)

    private weak var store: SQLiteStore?
    private weak var coordinator: NSPersistentStoreCoordinator?
    private let connection: DatabaseQueue
    private let timer: DispatchSourceTimer
    private let queue = DispatchQueue(label: "org.strata.remote-change")
    private var version: Int = 0
    private var lastTransaction: Int64 = 0
    /// Tells the watcher of the store's own commits; GRDB holds it weakly.
    private var commitObserver: CommitObserver?
    /// Whether a look asked for by a commit is queued: commits before it runs share it.
    private let lookQueued = Protected(false)

    init(store: SQLiteStore, coordinator: NSPersistentStoreCoordinator, url: URL, writer: (any DatabaseWriter)?) throws {
        self.store = store
        self.coordinator = coordinator
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(1)
        connection = try DatabaseQueue(path: url.path, configuration: configuration)
        (version, lastTransaction) = try connection.read { db in (try Self.dataVersion(db), try Self.lastTransaction(db)) }
        // Made once nothing can throw: a timer source released before it was ever resumed stops
        // the process (libdispatch traps on it).
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + Self.interval, repeating: Self.interval, leeway: .milliseconds(50))
        timer.setEventHandler { [weak self] in self?.look() }
        timer.resume()
        if let writer {
            let observer = CommitObserver { [weak self] in self?.lookSoon() }
            commitObserver = observer
            writer.add(transactionObserver: observer, extent: .observerLifetime)
        }
    }

    /// How long a look waits after the commit that asked for it, so that the commits of a
    /// burst are told together.
    static let coalescing: DispatchTimeInterval = .milliseconds(10)

    /// A commit of the store's own writer: a look on the watcher's queue shortly, unless one
    /// is queued.
    private func lookSoon() {
        let queued = lookQueued.withLock { queued -> Bool in
            defer { queued = true }
            return queued
        }
        guard !queued else { return }
        queue.asyncAfter(deadline: .now() + Self.coalescing) { [weak self] in
            guard let self else { return }
            self.lookQueued.withLock { $0 = false }
            self.look()
        }
    }

    func stop() {
        timer.cancel()
        queue.sync { try? connection.close() }
    }

    private static func dataVersion(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "PRAGMA data_version") ?? 0
    }

    private static func lastTransaction(_ db: Database) throws -> Int64 {
        guard try db.tableExists("ATRANSACTION") else { return 0 }
        return try Int64.fetchOne(db, sql: "SELECT max(Z_PK) FROM ATRANSACTION") ?? 0
    }

    /// One look at the file, on the watcher's queue.
    private func look() {
        guard let store, let coordinator else { return }
        // The connection stays outside a transaction between looks, so that data_version
        // compares the file's state now with its state at the last look.
        guard let (current, last) = try? connection.read({ db in (try Self.dataVersion(db), try Self.lastTransaction(db)) }),
            current != version
        else { return }
        version = current
        lastTransaction = max(last, lastTransaction)
        var info: [AnyHashable: Any] = [NSStoreUUIDKey: store.identifier ?? ""]
        if let url = store.url { info[NSPersistentStoreURLKey] = url }
        if store.tracksHistory, let identifier = store.identifier {
            info[NSPersistentHistoryTokenKey] = NSPersistentHistoryToken(transactionNumbers: [identifier: lastTransaction])
        }
        NotificationCenter.default.post(name: .NSPersistentStoreRemoteChange, object: coordinator, userInfo: info)
    }
}

/// Calls back after each commit of the connection it observes; it asks for no change events,
/// so that statements run as they would without it.
private final class CommitObserver: TransactionObserver, @unchecked Sendable {
    private let committed: () -> Void

    init(_ committed: @escaping () -> Void) { self.committed = committed }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseDidCommit(_ db: Database) { committed() }
    func databaseDidRollback(_ db: Database) {}
}
