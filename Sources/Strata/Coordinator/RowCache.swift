import Foundation

/// The coordinator's cache of row snapshots, shared by all its contexts: a fault fires from
/// here when another context already loaded or saved the row, or when a relationship fault
/// read the destinations' rows with their IDs.
///
/// It keeps the most recent `capacity` rows, and always the whole of the last batch stored
/// (a prefetch stores its rows here, then asks for them): objects hold their own snapshots,
/// so the cache only has to bridge the moment between reading rows and using them. Walking a
/// large store page by page then keeps memory flat instead of holding every row seen.
final class RowCache: @unchecked Sendable {
    /// A cached row and when it was stored (`DispatchTime` nanoseconds), for contexts whose
    /// `stalenessInterval` limits the age of the rows they take.
    private struct Entry {
        let snapshot: Snapshot
        let storedAt: UInt64
    }

    private struct State {
        var entries: [ObjectKey: Entry] = [:]
        /// The stored snapshots, oldest first from `head`: what to evict, in order.
        var order: [Snapshot] = []
        var head = 0
    }

    private let state = Protected(State())
    private let capacity: Int

    init(capacity: Int = 10_000) { self.capacity = capacity }

    func snapshot(for objectID: NSManagedObjectID) -> Snapshot? {
        state.withLock { $0.entries[ObjectKey(objectID)]?.snapshot }
    }

    /// The cached snapshot if it was stored at most `maximumAge` seconds ago.
    func snapshot(for objectID: NSManagedObjectID, maximumAge: TimeInterval) -> Snapshot? {
        let now = DispatchTime.now().uptimeNanoseconds
        return state.withLock { state in
            guard let entry = state.entries[ObjectKey(objectID)],
                Double(now &- entry.storedAt) / 1_000_000_000 <= maximumAge
            else { return nil }
            return entry.snapshot
        }
    }

    /// The cached snapshot of each ID, or `nil`, looked up under one lock.
    func snapshots(for objectIDs: [NSManagedObjectID]) -> [Snapshot?] {
        state.withLock { state in
            guard !state.entries.isEmpty else { return [Snapshot?](repeating: nil, count: objectIDs.count) }
            return objectIDs.map { state.entries[ObjectKey($0)]?.snapshot }
        }
    }

    func store(_ snapshots: some Sequence<Snapshot>) {
        let now = DispatchTime.now().uptimeNanoseconds
        state.withLock { state in
            var stored = 0
            for snapshot in snapshots {
                state.entries[ObjectKey(snapshot.objectID)] = Entry(snapshot: snapshot, storedAt: now)
                state.order.append(snapshot)
                stored += 1
            }
            // Evict the oldest, but never a row of this batch.
            let limit = max(capacity, stored)
            while state.order.count - state.head > limit {
                let oldest = state.order[state.head]
                state.head += 1
                let key = ObjectKey(oldest.objectID)
                if state.entries[key]?.snapshot.isSame(as: oldest) == true { state.entries[key] = nil }
            }
            if state.head > 1024 && state.head * 2 > state.order.count {
                state.order.removeFirst(state.head)
                state.head = 0
            }
        }
    }

    func remove(_ objectIDs: some Sequence<NSManagedObjectID>) {
        state.withLock { state in
            guard !state.entries.isEmpty else { return }
            for objectID in objectIDs { state.entries[ObjectKey(objectID)] = nil }
        }
    }

    /// Forgets the rows a save wrote or recomputed (nothing to do, and nothing asked of the
    /// result, while the cache is empty).
    func remove(rowsOf result: StoreSaveResult) {
        state.withLock { state in
            guard !state.entries.isEmpty else { return }
            result.forEachRowID { state.entries[ObjectKey($0)] = nil }
        }
    }

    func removeAll(of store: NSPersistentStore) {
        state.withLock { state in
            state.entries = state.entries.filter {
                $0.key.objectID.persistentStore !== store && $0.key.objectID.persistentStore != nil
            }
            state.order = state.order[state.head...].filter {
                state.entries[ObjectKey($0.objectID)]?.snapshot.isSame(as: $0) == true
            }
            state.head = 0
        }
    }
}
