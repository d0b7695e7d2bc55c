import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle

/// Wakes long polls when a zone changes, on whichever instance the push arrived.
///
/// Each push's transaction runs `pg_notify('strata_sync_changes', zoneID)`, which PostgreSQL
/// delivers at commit to every session listening; each instance keeps one connection
/// listening (`run`), and counts notifications per zone. A long poll reads the count before it
/// queries, and waits only while the count is unchanged, so a push that commits between its
/// query and its wait is never missed.
public final class ChangeNotifier: Service, Sendable {
    private struct Waiter {
        var zoneID: Int64
        var generation: UInt64
        var continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var generations: [Int64: UInt64] = [:]
        var waiters: [UUID: Waiter] = [:]
        /// Whether the connection listens now: until it does, notifications could be lost.
        var isListening = false
        var listeningWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())
    private let client: PostgresClient
    private let logger: Logger

    init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    func generation(of zoneID: Int64) -> UInt64 {
        state.withLock { $0.generations[zoneID, default: 0] }
    }

    /// Returns when the zone's count passes `generation`, or at `deadline`, or when the task
    /// is cancelled (graceful shutdown ends long polls at once, answering what there is).
    func wait(for zoneID: Int64, after generation: UInt64, until deadline: ContinuousClock.Instant) async {
        let id = UUID()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withTaskCancellationHandler {
                    await withCheckedContinuation { continuation in
                        let resumeNow = self.state.withLock { state -> Bool in
                            if state.generations[zoneID, default: 0] != generation || Task.isCancelled { return true }
                            state.waiters[id] = Waiter(zoneID: zoneID, generation: generation, continuation: continuation)
                            return false
                        }
                        if resumeNow { continuation.resume() }
                    }
                } onCancel: {
                    self.resume(id)
                }
            }
            group.addTask {
                try? await Task.sleep(until: deadline, clock: .continuous)
                self.resume(id)
            }
            await group.next()
            group.cancelAll()
            self.resume(id)
        }
    }

    private func resume(_ id: UUID) {
        let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
        waiter?.continuation.resume()
    }

    /// Counts a change of the zone and wakes its waiters.
    func zoneChanged(_ zoneID: Int64) {
        let woken = state.withLock { state -> [Waiter] in
            state.generations[zoneID, default: 0] &+= 1
            let ids = state.waiters.filter { $0.value.zoneID == zoneID }.map(\.key)
            return ids.compactMap { state.waiters.removeValue(forKey: $0) }
        }
        for waiter in woken { waiter.continuation.resume() }
    }

    /// Returns once the listening connection is set up.
    func waitUntilListening() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if state.isListening { return true }
                state.listeningWaiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    private func setListening(_ listening: Bool) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.isListening = listening
            guard listening else { return [] }
            defer { state.listeningWaiters = [] }
            return state.listeningWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Listens until graceful shutdown, reconnecting after a lost connection. After a
    /// reconnect every zone counts as changed, since notifications may have been missed.
    public func run() async throws {
        await cancelWhenGracefulShutdown { await self.listen() }
    }

    private func listen() async {
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: SyncStore.notificationChannel) { notifications in
                        self.setListening(true)
                        self.wakeEveryone()
                        for try await notification in notifications {
                            if let zoneID = Int64(notification.payload) {
                                self.zoneChanged(zoneID)
                            }
                        }
                    }
                }
            } catch {
                if Task.isCancelled || Task.isShuttingDownGracefully { break }
                logger.warning("The change listener lost its connection: \(String(reflecting: error)); reconnecting")
            }
            setListening(false)
            try? await Task.sleep(for: .milliseconds(500))
        }
    }

    private func wakeEveryone() {
        let woken = state.withLock { state -> [Waiter] in
            for zoneID in Array(state.generations.keys) { state.generations[zoneID, default: 0] &+= 1 }
            for waiter in state.waiters.values { state.generations[waiter.zoneID, default: 0] &+= 1 }
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in woken { waiter.continuation.resume() }
    }
}
