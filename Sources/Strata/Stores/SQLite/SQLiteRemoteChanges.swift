import Foundation
internal import GRDB

extension Notification.Name {
    /// Posted (on a private thread) after another coordinator or process changed a store added
    /// with `NSPersistentStoreRemoteChangeNotificationPostOptionKey`. The object is the
    /// coordinator; the user info holds `NSPersistentStoreURLKey`, `NSStoreUUIDKey` and, when
    /// the store tracks history, `NSPersistentHistoryTokenKey`.
    public static let NSPersistentStoreRemoteChange = Notification.Name("NSPersistentStoreRemoteChangeNotification")
}

/// Notices commits other connections make to a SQLite store: a connection of its own asks
/// SQLite's `PRAGMA data_version` four times a second (one page read of the file header, not
/// a read of the store), and when it moved, the history transactions since the last look tell
/// whether someone other than this store object wrote them.
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

    init(store: SQLiteStore, coordinator: NSPersistentStoreCoordinator, url: URL) throws {
        self.store = store
        self.coordinator = coordinator
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(1)
        connection = try DatabaseQueue(path: url.path, configuration: configuration)
        timer = DispatchSource.makeTimerSource(queue: queue)
        (version, lastTransaction) = try connection.read { db in (try Self.dataVersion(db), try Self.lastTransaction(db)) }
        timer.schedule(deadline: .now() + Self.interval, repeating: Self.interval, leeway: .milliseconds(50))
        timer.setEventHandler { [weak self] in self?.look() }
        timer.resume()
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
        let since = lastTransaction
        lastTransaction = max(last, since)
        if let history = store.history {
            guard last > since else { return }
            // Transactions this store object wrote itself are not remote.
            let foreign = history.ownTransactions.withLock { own -> Bool in
                let new = (since + 1)...last
                let isForeign = new.contains { !own.contains($0) }
                own = own.filter { $0 > last }
                return isForeign
            }
            guard foreign else { return }
        }
        var info: [AnyHashable: Any] = [NSStoreUUIDKey: store.identifier ?? ""]
        if let url = store.url { info[NSPersistentStoreURLKey] = url }
        if store.tracksHistory, let identifier = store.identifier {
            info[NSPersistentHistoryTokenKey] = NSPersistentHistoryToken(transactionNumbers: [identifier: lastTransaction])
        }
        NotificationCenter.default.post(name: .NSPersistentStoreRemoteChange, object: coordinator, userInfo: info)
    }
}
