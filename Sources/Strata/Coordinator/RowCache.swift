import Foundation

/// The coordinator's cache of row snapshots, shared by all its contexts: a fault fires from
/// here when another context already loaded or saved the row.
final class RowCache: @unchecked Sendable {
    private let entries = Protected([NSManagedObjectID: Snapshot]())
    /// Past this many rows the cache starts over, so that walking a large store does not
    /// keep every row in memory.
    private let capacity: Int

    init(capacity: Int = 200_000) { self.capacity = capacity }

    func snapshot(for objectID: NSManagedObjectID) -> Snapshot? {
        entries.withLock { $0[objectID] }
    }

    func store(_ snapshots: some Sequence<Snapshot>) {
        entries.withLock { entries in
            for snapshot in snapshots {
                if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
                entries[snapshot.objectID] = snapshot
            }
        }
    }

    func remove(_ objectIDs: some Sequence<NSManagedObjectID>) {
        entries.withLock { entries in
            for objectID in objectIDs { entries[objectID] = nil }
        }
    }

    func removeAll(of store: NSPersistentStore) {
        entries.withLock { entries in
            entries = entries.filter { $0.key.persistentStore !== store && $0.key.persistentStore != nil }
        }
    }
}
