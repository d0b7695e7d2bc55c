import Strata

/// A context's models by their rows' objects, held weakly: a model no one holds is made
/// again from its object when next read.
///
/// Weak, not strong and pruned as the engine's registry is: a model holds its context (its
/// backing data does), so a registry holding models would keep a context the app let go alive
/// through its own models.
///
/// An open-addressing table with linear probing, keyed by the object's address: hashing one is a
/// multiplication, where a `Dictionary` keyed by `ObjectIdentifier` ran SipHash twice for each
/// fetched row (its lookup, then its insertion). An address is only a key while its object
/// lives, and an entry outlives its object when the model goes first (or was given another
/// object), so a lookup answers a model only if the model is alive and holds that object:
/// a stale entry is never taken for the model of another object made at the same address.
/// Tables with dead entries are rebuilt without them when they fill.
struct ModelRegistry {
    private struct Slot {
        /// The object's address; 0 for a slot never used, 1 for one whose entry was removed.
        var key: UInt = 0
        weak var model: (any PersistentModel)?
    }

    private static let empty: UInt = 0
    private static let removed: UInt = 1

    private var slots: [Slot] = []
    /// Slots holding an entry or a removal marker: probing stops only at empty ones.
    private var used = 0
    private var shift: UInt = 0

    private func home(of key: UInt) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// The slot holding the object's address, if the table has it.
    private func slot(of object: NSManagedObject) -> Int? {
        guard used > 0 else { return nil }
        let key = UInt(bitPattern: ObjectIdentifier(object))
        let mask = slots.count - 1
        var index = home(of: key)
        while true {
            let current = slots[index].key
            if current == key { return index }
            if current == Self.empty { return nil }
            index = (index + 1) & mask
        }
    }

    /// The model registered for the object, if it is alive and still the object's.
    func model(for object: NSManagedObject) -> (any PersistentModel)? {
        guard let index = slot(of: object), let model = slots[index].model else { return nil }
        return model._strataBacking.object === object ? model : nil
    }

    /// Registers the model for the object, in place of any entry the object's address had.
    mutating func register(_ model: any PersistentModel, for object: NSManagedObject) {
        reserve(1)
        let key = UInt(bitPattern: ObjectIdentifier(object))
        let mask = slots.count - 1
        var index = home(of: key)
        var reusable: Int?
        while true {
            let current = slots[index].key
            if current == key {
                slots[index].model = model
                return
            }
            if current == Self.empty { break }
            if current == Self.removed, reusable == nil { reusable = index }
            index = (index + 1) & mask
        }
        if let reusable {
            index = reusable
        } else {
            used += 1
        }
        slots[index].key = key
        slots[index].model = model
    }

    /// Forgets the entry of the object's address, if any.
    mutating func remove(_ object: NSManagedObject) {
        guard let index = slot(of: object) else { return }
        slots[index].key = Self.removed
        slots[index].model = nil
    }

    /// Makes room for `count` more entries (a fetch's), so that the table is rebuilt once
    /// rather than several times while the fetch's models are registered.
    mutating func reserve(_ count: Int) {
        if (used + count) * 4 > slots.count * 3 { rebuild(adding: count) }
    }

    /// Rebuilds the table with the entries whose models are alive, room for `count` more, and
    /// at most two thirds of it used (each slot costs its making: it holds a weak reference).
    /// Each entry's weak reference is read once, to see whether its model is alive, and the live
    /// ones are moved (swapped), not copied: a copy and the original's release would each touch
    /// the model's side table again, a cache miss apiece in a registry of many models.
    private mutating func rebuild(adding count: Int) {
        var old: [Slot] = []
        swap(&old, &slots)
        var live = 0
        for index in old.indices where old[index].key > Self.removed {
            if old[index].model == nil {
                old[index].key = Self.removed
            } else {
                live += 1
            }
        }
        var capacity = 16
        while capacity * 2 < (live + count) * 3 { capacity *= 2 }
        slots = Array(repeating: Slot(), count: capacity)
        shift = UInt(UInt.bitWidth - capacity.trailingZeroBitCount)
        used = live
        let mask = capacity - 1
        for source in old.indices where old[source].key > Self.removed {
            var index = home(of: old[source].key)
            while slots[index].key != Self.empty { index = (index + 1) & mask }
            swap(&slots[index], &old[source])
        }
    }
}
