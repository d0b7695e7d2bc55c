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
/// A noncopyable value the context keeps in place: its operations retain neither the context
/// nor a table object (the context has weak references to it, so each retain of it takes the
/// runtime's slow path). Touched only on the context's queue, like the rest of its state.
struct ObjectRegistry: ~Copyable {
    private struct Slot {
        var hash: Int
        /// Retained by the table; `nil` for an empty slot.
        var object: Unmanaged<NSManagedObject>?
    }

    /// Where a lookup that found nothing would put the object (`insert(_:at:)`).
    struct Vacancy {
        fileprivate let index: Int
        fileprivate let hash: Int
        fileprivate let version: Int
    }

    private var slots: UnsafeMutablePointer<Slot>
    private var mask: Int
    /// The number of objects registered.
    private(set) var count = 0
    /// Changed by every insert, removal and move, so that a vacancy found before some other
    /// change is known to be stale.
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

    /// The object registered with the ID, or where to insert one for it: a fetch's one probe
    /// per row. Makes room for one more object first, so that the vacancy is not moved by
    /// growing.
    mutating func lookup(_ objectID: NSManagedObjectID) -> (object: NSManagedObject?, vacancy: Vacancy) {
        reserve(count + 1)
        let hash = objectID.hashCode
        let (index, found) = probe(objectID, hash: hash)
        let vacancy = Vacancy(index: index, hash: hash, version: version)
        return (found ? slots[index].object?.takeUnretainedValue() : nil, vacancy)
    }

    /// Registers an object whose `storedObjectID` is the one `lookup(_:)` found vacant, there,
    /// or probes again when the table changed since.
    mutating func insert(_ object: NSManagedObject, at vacancy: Vacancy) {
        guard vacancy.version == version else { return insert(object) }
        slots[vacancy.index] = Slot(hash: vacancy.hash, object: .passRetained(object))
        count += 1
        version &+= 1
    }

    // MARK: Changes

    /// Registers the object under its ID, in place of any other object registered with it.
    mutating func insert(_ object: NSManagedObject) {
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
    mutating func remove(_ object: NSManagedObject) {
        guard let objectID = object.storedObjectID else { return }
        let (index, found) = probe(objectID, hash: objectID.hashCode)
        guard found, let registered = slots[index].object,
            registered.toOpaque() == Unmanaged.passUnretained(object).toOpaque()
        else { return }
        removeSlot(at: index)
        registered.release()
    }

    /// Empties the slot and moves back the entries after it that would no longer be found
    /// (Knuth's algorithm R for linear probing): entries only move into the hole, which starts
    /// at `removed` and moves forward. The caller releases the object.
    private mutating func removeSlot(at removed: Int) {
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

    /// Unregisters every object, and gives back the table's memory (a context reset after a
    /// fetch of a million objects would otherwise keep 32 MB of empty slots).
    mutating func removeAll() {
        let old = slots
        let oldCapacity = mask + 1
        slots = Self.allocate(capacity: 8)
        mask = 7
        count = 0
        version &+= 1
        for index in 0..<oldCapacity { old[index].object?.release() }
        old.deallocate()
    }

    /// The number of slots, for tests of the table's memory.
    var capacity: Int { mask + 1 }

    /// Room for `wanted` objects without growing again.
    mutating func reserve(_ wanted: Int) {
        guard wanted * 4 > (mask + 1) * 3 else { return }
        var capacity = mask + 1
        while wanted * 4 > capacity * 3 { capacity *= 2 }
        let old = slots
        let oldCapacity = mask + 1
        slots = Self.allocate(capacity: capacity)
        mask = capacity - 1
        version &+= 1
        for index in 0..<oldCapacity where old[index].object != nil {
            var slot = old[index].hash & mask
            while slots[slot].object != nil { slot = (slot &+ 1) & mask }
            slots[slot] = old[index]
        }
        old.deallocate()
    }

    /// Unregisters the objects nothing but the table holds; they are freed. In place: the scan
    /// starts after an empty slot, so that no run of entries wraps around past where it
    /// started, and a removal only moves entries the scan has not reached into the slot it
    /// looks at again.
    mutating func removeUnreferenced() {
        guard count > 0 else { return }
        var start = 0
        while slots[start].object != nil { start += 1 }
        var step = 1
        while step <= mask {
            let index = (start + step) & mask
            guard let object = slots[index].object, Self.isOnlyReference(slots + index) else {
                step += 1
                continue
            }
            removeSlot(at: index)
            object.release()
        }
    }

    /// Whether the slot's reference is the object's only strong one. (`Unmanaged<T>?` is laid
    /// out as `T?`, a pointer or zero, so the slot is read as the strong reference it holds.)
    private static func isOnlyReference(_ slot: UnsafeMutablePointer<Slot>) -> Bool {
        guard let offset = MemoryLayout<Slot>.offset(of: \Slot.object) else { return false }
        let field = UnsafeMutableRawPointer(slot) + offset
        return field.withMemoryRebound(to: NSManagedObject?.self, capacity: 1) { isKnownUniquelyReferenced(&$0.pointee) }
    }

    // MARK: Reading

    /// Calls `body` with every registered object.
    private func forEach(_ body: (NSManagedObject) -> Void) {
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
