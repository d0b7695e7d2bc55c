/// The objects a context has registered, by ID: an open-addressing table of strong
/// references, each beside its ID's hash.
///
/// A fetch asks it once for every row: is the row's object here, and if not, where does the
/// new one go. `[ObjectKey: NSManagedObject]` answered that with a lookup and then an insert
/// that hashed and probed again (about 300 instructions a row of B3 between them, the
/// dictionary's generic paths included); here one probe answers both. An object's key is its
/// `storedObjectID`, which the context sets before registering it and changes only after
/// unregistering it (`reassign`), so the table keeps no ID of its own: a slot holds the
/// object and the hash, 16 bytes.
///
/// Linear probing, at most three quarters full; removal shifts the entries after the slot
/// back, so there are no tombstones and a probe ends at the first empty slot. IDs hash their
/// keys by an odd multiplication, which maps any run of consecutive primary keys of one entity
/// to distinct slots: the rows of a table mostly fall into a slot of their own.
///
/// Touched only on the context's queue, like the rest of the context's state.
final class ObjectRegistry {
    private struct Slot {
        var hash: Int
        /// Retained by the table; `nil` for an empty slot.
        var object: Unmanaged<NSManagedObject>?
    }

    private var slots: UnsafeMutablePointer<Slot>
    private var mask: Int
    /// The number of objects registered.
    private(set) var count = 0
    /// Changed by every insert and removal, so that a caller that made an object between a
    /// probe and its insert knows whether the slot it found still stands.
    private var version = 0

    init() {
        mask = 7
        slots = Self.allocate(capacity: 8)
    }

    deinit {
        for index in 0...mask { slots[index].object?.release() }
        slots.deallocate()
    }

    private static func allocate(capacity: Int) -> UnsafeMutablePointer<Slot> {
        let slots = UnsafeMutablePointer<Slot>.allocate(capacity: capacity)
        slots.initialize(repeating: Slot(hash: 0, object: nil), count: capacity)
        return slots
    }

    var isEmpty: Bool { count == 0 }

    // MARK: Lookup

    /// The slot of the object registered with the ID, or the empty slot where it would go
    /// (`found` false).
    @inline(__always)
    private func probe(_ objectID: NSManagedObjectID, hash: Int) -> (index: Int, found: Bool) {
        var index = hash & mask
        while let object = slots[index].object {
            if slots[index].hash == hash,
                object._withUnsafeGuaranteedRef({ $0.storedObjectID?.names(sameObjectAs: objectID) ?? false })
            {
                return (index, true)
            }
            index = (index &+ 1) & mask
        }
        return (index, false)
    }

    /// The object registered with the ID.
    subscript(objectID: NSManagedObjectID) -> NSManagedObject? {
        let (index, found) = probe(objectID, hash: objectID.hashCode)
        return found ? slots[index].object?.takeUnretainedValue() : nil
    }

    /// Whether `object` itself is registered under its ID.
    func contains(_ object: NSManagedObject) -> Bool {
        guard let objectID = object.storedObjectID else { return false }
        let (index, found) = probe(objectID, hash: objectID.hashCode)
        return found && slots[index].object?.toOpaque() == Unmanaged.passUnretained(object).toOpaque()
    }

    /// The object registered with the ID, or the one `make` returns, registered under it in
    /// the same probe. `make` must return an object whose `storedObjectID` is `objectID`.
    func object(for objectID: NSManagedObjectID, orInsert make: () -> NSManagedObject) -> NSManagedObject {
        reserve(count + 1)
        let hash = objectID.hashCode
        let (index, found) = probe(objectID, hash: hash)
        if found, let object = slots[index].object { return object.takeUnretainedValue() }
        let before = version
        let object = make()
        if version != before {
            // `make` registered objects itself (an initializer of the app's): probe again.
            insert(object)
            return object
        }
        slots[index] = Slot(hash: hash, object: .passRetained(object))
        count += 1
        version &+= 1
        return object
    }

    // MARK: Changes

    /// Registers the object under its ID, in place of any other object registered with it.
    func insert(_ object: NSManagedObject) {
        reserve(count + 1)
        let objectID = object.objectID
        let hash = objectID.hashCode
        let (index, found) = probe(objectID, hash: hash)
        let previous = found ? slots[index].object : nil
        if !found { count += 1 }
        slots[index] = Slot(hash: hash, object: .passRetained(object))
        version &+= 1
        previous?.release()
    }

    /// Unregisters the object, if it is the one registered under its ID.
    func remove(_ object: NSManagedObject) {
        guard let objectID = object.storedObjectID else { return }
        let (index, found) = probe(objectID, hash: objectID.hashCode)
        guard found, let registered = slots[index].object,
            registered.toOpaque() == Unmanaged.passUnretained(object).toOpaque()
        else { return }
        removeSlot(at: index)
        registered.release()
    }

    /// Empties the slot and moves back the entries after it that would no longer be found
    /// (Knuth's algorithm R for linear probing). The caller releases the object.
    private func removeSlot(at removed: Int) {
        var hole = removed
        var index = removed
        while true {
            index = (index &+ 1) & mask
            guard slots[index].object != nil else { break }
            let home = slots[index].hash & mask
            // The entry stays when its home lies cyclically in (hole, index].
            let stays = hole <= index ? (hole < home && home <= index) : (hole < home || home <= index)
            if stays { continue }
            slots[hole] = slots[index]
            hole = index
        }
        slots[hole] = Slot(hash: 0, object: nil)
        count -= 1
        version &+= 1
    }

    /// Unregisters every object.
    func removeAll() {
        guard count > 0 else { return }
        for index in 0...mask {
            slots[index].object?.release()
            slots[index] = Slot(hash: 0, object: nil)
        }
        count = 0
        version &+= 1
    }

    /// Room for `wanted` objects without growing again.
    func reserve(_ wanted: Int) {
        guard wanted * 4 > (mask + 1) * 3 else { return }
        var capacity = mask + 1
        while wanted * 4 > capacity * 3 { capacity *= 2 }
        rehash(capacity: capacity, keeping: { _ in true })
    }

    /// Moves the entries that `keep` accepts into a table of `capacity` slots and releases the
    /// others.
    private func rehash(capacity: Int, keeping keep: (inout NSManagedObject) -> Bool) {
        let old = slots
        let oldCapacity = mask + 1
        slots = Self.allocate(capacity: capacity)
        mask = capacity - 1
        count = 0
        version &+= 1
        for index in 0..<oldCapacity {
            guard let entry = old[index].object else { continue }
            // The table's reference moves into `object`, and back into the new table if kept.
            var object = entry.takeRetainedValue()
            guard keep(&object) else { continue }
            var slot = old[index].hash & mask
            while slots[slot].object != nil { slot = (slot &+ 1) & mask }
            slots[slot] = Slot(hash: old[index].hash, object: .passRetained(object))
            count += 1
        }
        old.deallocate()
    }

    /// Unregisters the objects nothing but the table holds. They are freed.
    func removeUnreferenced() {
        rehash(capacity: mask + 1, keeping: { !isKnownUniquelyReferenced(&$0) })
    }

    // MARK: Reading

    /// Calls `body` with every registered object.
    func forEach(_ body: (NSManagedObject) -> Void) {
        for index in 0...mask {
            guard let object = slots[index].object else { continue }
            body(object.takeUnretainedValue())
        }
    }

    /// The registered objects.
    var objects: [NSManagedObject] {
        var objects: [NSManagedObject] = []
        objects.reserveCapacity(count)
        forEach { objects.append($0) }
        return objects
    }
}
