import Foundation

/// The rows of a batched fetch (`fetchBatchSize`): the IDs come first, and the rows of a
/// batch load together when one of its objects is first read.
final class BatchFaultLoader {
    private let ids: [NSManagedObjectID]
    private let batchSize: Int
    private var loaded = Set<Int>()

    init(ids: [NSManagedObjectID], batchSize: Int) {
        self.ids = ids
        self.batchSize = max(1, batchSize)
    }

    /// The snapshots of the batch holding the position, once; empty when already loaded.
    func snapshots(around position: Int, store: any ObjectStore) -> [Snapshot] {
        let batch = position / batchSize
        guard loaded.insert(batch).inserted else { return [] }
        let start = batch * batchSize
        let slice = Array(ids[start..<min(ids.count, start + batchSize)])
        return (try? store.snapshots(for: slice)) ?? []
    }
}
