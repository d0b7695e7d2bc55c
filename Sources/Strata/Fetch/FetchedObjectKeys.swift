import Foundation

/// The IDs of a fetch's rows kept in a few bytes each, for results that make their objects
/// one batch at a time (`LazyFetchResults`): a million IDs as objects take some 80 MB, as
/// this a megabyte or two.
///
/// Each row is its primary key's difference from the previous row's, zigzag-encoded as a
/// variable-length integer (one byte for the consecutive keys of an unsorted fetch), with a
/// flag bit for a change of entity or store (the slot number follows) or a jump too far to
/// encode as a difference (the key follows). The position of every `batchSize`-th row is
/// remembered, so that a batch decodes on its own.
struct FetchedObjectKeys {
    /// The entity and store of a run of rows.
    struct Slot {
        let entity: NSEntityDescription
        let store: NSPersistentStore
    }

    private struct Checkpoint {
        let offset: Int
        let previousKey: Int64
        let slot: Int
    }

    let batchSize: Int
    private(set) var count = 0
    private var slots: [Slot] = []
    private var bytes: [UInt8] = []
    private var checkpoints: [Checkpoint] = []
    private var previousKey: Int64 = 0
    private var currentSlot = -1

    init(batchSize: Int) {
        self.batchSize = max(1, batchSize)
    }

    var batchCount: Int { checkpoints.count }

    /// Adds a row's ID.
    mutating func append(entity: NSEntityDescription, store: NSPersistentStore, primaryKey: Int64) {
        if count % batchSize == 0 {
            checkpoints.append(Checkpoint(offset: bytes.count, previousKey: previousKey, slot: currentSlot))
        }
        var slot = currentSlot
        if slot < 0 || slots[slot].entity !== entity || slots[slot].store !== store {
            slot = slots.firstIndex { $0.entity === entity && $0.store === store } ?? slots.count
            if slot == slots.count { slots.append(Slot(entity: entity, store: store)) }
        }
        let delta = primaryKey &- previousKey
        let zigzag = UInt64(bitPattern: (delta << 1) ^ (delta >> 63))
        if zigzag >> 63 != 0 {
            // A jump too far for the flag bit (beyond ±2^62): the key itself follows.
            writeVarint(1)
            writeVarint(UInt64(slot) << 1 | 1)
            writeVarint(UInt64(bitPattern: primaryKey))
        } else if slot != currentSlot {
            writeVarint(zigzag << 1 | 1)
            writeVarint(UInt64(slot) << 1)
        } else {
            writeVarint(zigzag << 1)
        }
        previousKey = primaryKey
        currentSlot = slot
        count += 1
    }

    mutating func append(_ objectID: NSManagedObjectID) {
        guard let store = objectID.persistentStore else { return }
        append(entity: objectID.entity, store: store, primaryKey: objectID.primaryKey)
    }

    /// The IDs of batch `batch` (rows `batch * batchSize` up to the next batch).
    func objectIDs(ofBatch batch: Int) -> [NSManagedObjectID] {
        guard checkpoints.indices.contains(batch) else { return [] }
        let checkpoint = checkpoints[batch]
        let rows = min(batchSize, count - batch * batchSize)
        var offset = checkpoint.offset
        var key = checkpoint.previousKey
        var slot = checkpoint.slot
        var ids: [NSManagedObjectID] = []
        ids.reserveCapacity(rows)
        // What each slot's IDs share, looked up once (it takes the store's lock).
        let origins = slots.map { $0.store.idOrigin }
        for _ in 0..<rows {
            let word = readVarint(&offset)
            var absolute = false
            if word & 1 == 1 {
                let marker = readVarint(&offset)
                slot = Int(truncatingIfNeeded: marker >> 1)
                absolute = marker & 1 == 1
            }
            if absolute {
                key = Int64(bitPattern: readVarint(&offset))
            } else {
                let zigzag = word >> 1
                key = key &+ (Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1))
            }
            guard slots.indices.contains(slot) else { break }
            ids.append(NSManagedObjectID(entity: slots[slot].entity, primaryKey: key, origin: origins[slot]))
        }
        return ids
    }

    /// The bytes the keys take, for tests and for the memory figures of BENCHMARKS.md.
    var encodedSize: Int { bytes.count + checkpoints.count * MemoryLayout<Checkpoint>.stride }

    private mutating func writeVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    private func readVarint(_ offset: inout Int) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while offset < bytes.count {
            let byte = bytes[offset]
            offset += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 || shift >= 63 { break }
            shift += 7
        }
        return value
    }
}
