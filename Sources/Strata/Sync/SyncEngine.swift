import Foundation
internal import GRDB
import StrataSyncProtocol

/// One store's sync with a server: sets the zone up, exports local history as batches and
/// pushes them, pulls the zone's changes (a long poll, so that another client's change arrives
/// at once) and applies them. Failures are reported as events and retried with a growing
/// delay, so that a device offline catches up when the server is back.
///
/// Work that touches the store's sync metadata runs one at a time per store file (across the
/// engines of every container of the process), so that a container built anew on the same
/// store (sync switched off and on) never races the old one; waiting on the server does not
/// hold that turn.
final class SyncEngine: @unchecked Sendable {
    let coordinator: NSPersistentStoreCoordinator
    let store: NSPersistentStore
    let metadata: SyncMetadata
    let client: SyncServerClient
    let zone: String
    let longPollSeconds: Int
    let syncsAutomatically: Bool
    private weak var container: NSPersistentCloudKitContainer?
    private let turn: SyncTurn
    private let state = Protected(State())
    /// The most record changes one push request carries (CloudKit takes 400 per operation).
    var maximumChangesPerRequest = 400
    /// The most records one pull page asks for.
    var pageSize = 1000

    private struct State {
        var stopped = false
        var isSetUp = false
        var loop: Task<Void, Never>?
        var exporting = false
        var exportAgain = false
        var observers: [any NSObjectProtocol] = []
        var lastError: String?
    }

    init(
        container: NSPersistentCloudKitContainer, store: NSPersistentStore, metadata: SyncMetadata,
        options: NSPersistentCloudKitContainerOptions, serverURL: URL
    ) {
        self.container = container
        self.coordinator = container.persistentStoreCoordinator
        self.store = store
        self.metadata = metadata
        self.client = SyncServerClient(serverURL: serverURL, tokenProvider: options.tokenProvider)
        self.zone = options.zoneName
        self.longPollSeconds = options.longPollSeconds
        self.syncsAutomatically = options.syncsAutomatically
        self.turn = SyncTurn.forStore(store.url?.standardizedFileURL.path ?? UUID().uuidString)
    }

    // MARK: Running

    func start() {
        guard syncsAutomatically else { return }
        let saves = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: nil, queue: nil) {
            [weak self] notification in
            guard let self, let context = notification.object as? NSManagedObjectContext,
                context.persistentStoreCoordinator === self.coordinator,
                context.transactionAuthor != NSPersistentCloudKitContainer.importAuthor
            else { return }
            self.exportSoon()
        }
        let remote = NotificationCenter.default.addObserver(
            forName: .NSPersistentStoreRemoteChange, object: coordinator, queue: nil
        ) { [weak self] _ in self?.exportSoon() }
        let loop = Task.detached { [weak self] in
            guard let self else { return }
            await self.run()
        }
        state.withLock { state in
            state.observers = [saves, remote]
            state.loop = loop
        }
    }

    /// Stops syncing: no work starts after this returns (work under way finishes its turn).
    func stop() {
        let (observers, loop) = state.withLock { state -> ([any NSObjectProtocol], Task<Void, Never>?) in
            state.stopped = true
            defer {
                state.observers = []
                state.loop = nil
            }
            return (state.observers, state.loop)
        }
        for observer in observers { NotificationCenter.default.removeObserver(observer) }
        loop?.cancel()
    }

    var isStopped: Bool { state.withLock { $0.stopped } }

    private func run() async {
        var delay: Double = 1
        while !isStopped {
            do {
                try await setUpIfNeeded()
                try await exportCycle()
                while try await importCycle(wait: longPollSeconds) {}
                delay = 1
            } catch {
                if isStopped || Task.isCancelled { return }
                forgetSetUpIfZoneIsGone(error)
                try? await Task.sleep(nanoseconds: UInt64(Self.retryDelay(after: error, current: delay) * 1e9))
                delay = min(delay * 2, 30)
            }
        }
    }

    /// How long to wait before retrying: the server's `Retry-After` when it gave one.
    static func retryDelay(after error: any Error, current: Double) -> Double {
        (error as NSError).userInfo[SyncServerError.retryAfterKey] as? Double ?? current
    }

    /// Exports and pushes after a local save, without waiting for the loop's long poll.
    private func exportSoon() {
        let start = state.withLock { state -> Bool in
            guard !state.stopped, state.isSetUp else { return false }
            if state.exporting {
                state.exportAgain = true
                return false
            }
            state.exporting = true
            return true
        }
        guard start else { return }
        Task.detached { [weak self] in
            while let self {
                try? await self.exportCycle()
                let again = self.state.withLock { state -> Bool in
                    if state.exportAgain && !state.stopped {
                        state.exportAgain = false
                        return true
                    }
                    state.exporting = false
                    return false
                }
                if !again { return }
            }
        }
    }

    /// Exports, pushes and pulls until the server has nothing more: what `syncNow()` does.
    func synchronize() async throws {
        do {
            try await setUpIfNeeded()
            try await exportCycle()
            while try await importCycle(wait: 0) {}
            try await exportCycle()
        } catch {
            forgetSetUpIfZoneIsGone(error)
            throw error
        }
    }

    /// A zone deleted on the server (404) is made again at the next setup; its new epoch then
    /// answers the old pull token with 410, which resyncs.
    private func forgetSetUpIfZoneIsGone(_ error: any Error) {
        let error = error as NSError
        guard error.domain == SyncServerError.domain, error.code == SyncServerError.Code.zoneNotFound.rawValue else {
            return
        }
        state.withLock { $0.isSetUp = false }
    }

    // MARK: Setup

    private func setUpIfNeeded() async throws {
        guard !state.withLock({ $0.isSetUp }) else { return }
        let event = post(.setup)
        do {
            _ = try await client.createZone(zone)
            try await turn.run {
                try self.metadata.write { db in
                    _ = try SyncMetadata.clientID(in: db)
                    try SyncMetadata.setValue(self.zone, for: .zone, in: db)
                }
            }
            state.withLock { $0.isSetUp = true }
            finish(event, error: nil)
        } catch {
            finish(event, error: error)
            throw error
        }
    }

    // MARK: Export

    /// Turns new local history into batches, then pushes every batch waiting.
    func exportCycle() async throws {
        try await turn.run {
            guard !self.isStopped else { return }
            let pending = try self.metadata.read { db in try SyncMetadata.outboxCount(in: db) }
            let event = Protected<NSPersistentCloudKitContainer.Event?>(nil)
            do {
                let made = try self.enqueueLocalChanges()
                if made > 0 || pending > 0 { event.withLock { $0 = self.post(.export) } }
                try await self.pushOutbox()
                if let started = event.withLock({ $0 }) {
                    try self.metadata.write { db in try SyncMetadata.setDate(Date(), for: .lastExport, in: db) }
                    self.finish(started, error: nil)
                }
            } catch {
                let started = event.withLock { $0 } ?? self.post(.export)
                self.finish(started, error: error)
                throw error
            }
        }
    }

    /// Runs the exporter on a context of its own; returns the changes enqueued.
    @discardableResult
    private func enqueueLocalChanges(localOnly: Bool = false, knownToServer: Set<String>? = nil) throws -> Int {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let exporter = SyncExporter(store: store, metadata: metadata, maximumChangesPerBatch: maximumChangesPerRequest)
        return try context.performAndWait {
            var clock = try currentClock()
            return try exporter.enqueuePending(
                context: context, clock: &clock, localOnly: localOnly, knownToServer: knownToServer)
        }
    }

    private func currentClock() throws -> SyncClock {
        try metadata.read { db in
            let node = try SyncMetadata.value(.clientID, in: db) ?? "unregistered"
            return SyncClock(
                node: node, last: try SyncMetadata.value(.clock, in: db).flatMap(HybridLogicalClock.init),
                sightings: SyncClock.sightings(from: try SyncMetadata.value(.sightings, in: db)))
        }
    }

    /// Pushes the outbox in order, in requests of at most `maximumChangesPerRequest` changes,
    /// uploading assets first. A push the server refuses as out of order resumes where the
    /// server says it stopped.
    private func pushOutbox() async throws {
        var refusals = 0
        while !isStopped {
            let limit = maximumChangesPerRequest
            let (clientID, request) = try metadata.read { db in
                (try SyncMetadata.clientID(in: db), try SyncMetadata.outboxRequest(maximumChanges: limit, in: db))
            }
            guard !request.isEmpty else { return }
            try await uploadAssets(of: request)
            do {
                let answer = try await client.push(clientID: clientID, batches: request.map(\.body), zone: zone)
                let last = max(answer.lastBatchSequence, request.last?.batchSequence ?? 0)
                try metadata.write { db in try SyncMetadata.removeFromOutbox(through: last, in: db) }
                refusals = 0
            } catch {
                guard let last = SyncServerError.lastAppliedBatch(error), refusals < 3 else { throw error }
                refusals += 1
                try metadata.write { db in try Self.renumberOutbox(after: last, in: db) }
            }
        }
    }

    /// After the server said its last applied batch is `last`: batches up to it are done, and
    /// those waiting are numbered on from it without gaps.
    static func renumberOutbox(after last: Int64, in db: Database) throws {
        try SyncMetadata.removeFromOutbox(through: last, in: db)
        let waiting = try SyncMetadata.outbox(limit: Int.max, in: db)
        guard let first = waiting.first, first.batchSequence != last + 1 else { return }
        try db.execute(sql: "DELETE FROM \(SyncMetadata.outboxTable)")
        var next = last + 1
        for var batch in waiting {
            batch.batchSequence = next
            try SyncMetadata.enqueue(batch, in: db)
            next += 1
        }
        try SyncMetadata.setValue(String(next), for: .nextBatch, in: db)
    }

    private func uploadAssets(of batches: [SyncMetadata.StoredBatch]) async throws {
        for sha in Set(batches.flatMap(\.assets)).sorted() {
            guard let bytes = try metadata.read({ db in try SyncMetadata.asset(sha, in: db) }) else { continue }
            try await client.uploadAsset(bytes, sha256: sha, zone: zone)
            try metadata.write { db in try SyncMetadata.removeAsset(sha, in: db) }
        }
    }

    // MARK: Import

    /// Pulls one page (waiting up to `wait` seconds for news) and applies it. Returns whether
    /// more waits at once. A 410 resyncs the zone.
    func importCycle(wait: Int) async throws -> Bool {
        let (token, clientID) = try metadata.read { db in
            (try SyncMetadata.value(.pullToken, in: db), try SyncMetadata.value(.clientID, in: db))
        }
        let answer: ChangesResponse
        do {
            // Records this client alone wrote are left out: it has them. (A resync pulls them
            // too, to learn what the server has.)
            answer = try await client.changes(
                zone: zone, since: token, limit: pageSize, wait: wait, excludingOwnOf: clientID)
        } catch  where SyncServerError.isResyncRequired(error) {
            try await resync()
            return false
        }
        if answer.records.isEmpty && answer.nextToken == token { return false }
        let event = answer.records.isEmpty ? nil : post(.import)
        do {
            let assets = try await download(SyncImporter.assets(in: answer.records))
            try await turn.run {
                guard !self.isStopped else { return }
                // Another run applied this page already.
                let current = try self.metadata.read { db in try SyncMetadata.value(.pullToken, in: db) }
                guard current == token else { return }
                try self.enqueueLocalChanges()
                try self.applyWithRetries(answer.records, nextToken: answer.nextToken, assets: assets)
            }
            if let event { finish(event, error: nil) }
        } catch {
            finish(event ?? post(.import), error: error)
            throw error
        }
        return answer.hasMore
    }

    private func download(_ hashes: Set<String>) async throws -> [String: Data] {
        var assets: [String: Data] = [:]
        for sha in hashes.sorted() { assets[sha] = try await client.downloadAsset(sha, zone: zone) }
        return assets
    }

    /// Applies a page; a local save that raced the importer's (a version conflict) makes it
    /// export that save and apply again.
    @discardableResult
    private func applyWithRetries(
        _ records: [RecordState], nextToken: String?, assets: [String: Data]
    ) throws
        -> SyncImporter.Outcome
    {
        var attempt = 0
        while true {
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            context.transactionAuthor = NSPersistentCloudKitContainer.importAuthor
            context.name = "NSCloudKitMirroringDelegate"
            let importer = SyncImporter(store: store, metadata: metadata)
            do {
                let outcome = try context.performAndWait {
                    var clock = try currentClock()
                    return try importer.apply(records, nextToken: nextToken, assets: assets, context: context, clock: &clock)
                }
                if outcome.applied > 0 { postRemoteChange() }
                return outcome
            } catch {
                attempt += 1
                guard attempt < 5, (error as NSError).domain == NSCocoaErrorDomain else { throw error }
                try enqueueLocalChanges()
            }
        }
    }

    /// Tells the app's contexts that the store changed (as Apple posts after an import).
    private func postRemoteChange() {
        guard NSPersistentStore.flag(store.options?[NSPersistentStoreRemoteChangeNotificationPostOptionKey]) else { return }
        var info: [AnyHashable: Any] = [NSStoreUUIDKey: store.identifier ?? ""]
        if let url = store.url { info[NSPersistentStoreURLKey] = url }
        if let token = coordinator.currentPersistentHistoryToken(fromStores: [store]) {
            info[NSPersistentHistoryTokenKey] = token
        }
        NotificationCenter.default.post(name: .NSPersistentStoreRemoteChange, object: coordinator, userInfo: info)
    }

    /// The server no longer has the changes after our token (410): pull the whole zone, then
    /// send again every object and link the server does not have.
    func resync() async throws {
        try await turn.run {
            try self.metadata.write { db in try SyncMetadata.resetForResync(in: db) }
        }
        var token: String?
        var seen = Set<String>()
        var more = true
        while more {
            let answer = try await client.changes(zone: zone, since: token, limit: pageSize, wait: 0)
            let assets = try await download(SyncImporter.assets(in: answer.records))
            for record in answer.records where !record.deleted { seen.insert(record.recordName) }
            try await turn.run {
                guard !self.isStopped else { return }
                try self.applyWithRetries(answer.records, nextToken: answer.nextToken, assets: assets)
            }
            token = answer.nextToken
            more = answer.hasMore
        }
        let known = seen
        try await turn.run {
            guard !self.isStopped else { return }
            try self.forgetLinks(unknownTo: known)
            try self.enqueueLocalChanges(localOnly: true, knownToServer: known)
        }
        try await exportCycle()
    }

    /// Forgets the links the server lost, so that the exporter's look at every object's
    /// relationships (after a resync) sends them again.
    private func forgetLinks(unknownTo knownToServer: Set<String>) throws {
        try metadata.write { db in
            let names = try String.fetchAll(db, sql: "SELECT ZNAME FROM \(SyncMetadata.linkTable)")
            for name in names where !knownToServer.contains(name) { try SyncMetadata.removeLink(name, in: db) }
        }
    }

    // MARK: Events

    private func post(_ type: NSPersistentCloudKitContainer.EventType) -> NSPersistentCloudKitContainer.Event {
        let event = NSPersistentCloudKitContainer.Event(type: type, storeIdentifier: store.identifier ?? "")
        send(event)
        return event
    }

    private func finish(_ event: NSPersistentCloudKitContainer.Event, error: (any Error)?) {
        let ended = event.ended(error: error)
        if let error {
            let text = (error as NSError).localizedDescription
            try? metadata.write { db in try SyncMetadata.setValue(text, for: .lastError, in: db) }
        } else if event.type != .setup {
            try? metadata.write { db in try SyncMetadata.setValue(nil, for: .lastError, in: db) }
        }
        send(ended)
    }

    private func send(_ event: NSPersistentCloudKitContainer.Event) {
        guard let container else { return }
        NotificationCenter.default.post(
            name: NSPersistentCloudKitContainer.eventChangedNotification, object: container,
            userInfo: [NSPersistentCloudKitContainer.eventNotificationUserInfoKey: event])
    }
}

/// One store file's turn: sync work on a store's metadata runs one at a time.
actor SyncTurn {
    private static let turns = Protected<[String: SyncTurn]>([:])

    /// The turn of a store file, shared by every engine of the process.
    static func forStore(_ path: String) -> SyncTurn {
        turns.withLock { turns in
            if let turn = turns[path] { return turn }
            let turn = SyncTurn()
            turns[path] = turn
            return turn
        }
    }

    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func run<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        if busy {
            await withCheckedContinuation { waiting.append($0) }
        } else {
            busy = true
        }
        defer {
            if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
        }
        return try await body()
    }
}
