import Strata

/// A context's models by their rows' objects, held by unowned references: a model no one
/// holds is made again from its object when next read.
///
/// Not strong, and not pruned as the engine's registry of objects is: a model holds its context
/// (its backing data does), so a registry holding models would keep a context the app let go
/// alive through its own models. Not weak either: a weak reference gives its model a side
/// table, which makes every retain and release of the model, wherever the app passes it, a slow
/// one. An unowned reference keeps the model's memory (not the model) allocated while the table
/// names it, in the object's own reference count, so its address is never another object's;
/// whether the model is still alive is asked of the runtime as the load of a weak reference
/// asks it (`swift_tryRetain`, which retains it only if it is not being deinitialised).
///
/// An open-addressing table with linear probing, keyed by the object's address: hashing one is a
/// multiplication, where a `Dictionary` keyed by `ObjectIdentifier` ran SipHash twice for each
/// fetched row (its lookup, then its insertion). An address is only a key while its object
/// lives, and an entry outlives its object when the model goes first (or was given another
/// object), so a lookup answers a model only if the model is alive and holds that object:
/// a stale entry is never taken for the model of another object made at the same address.
/// Tables with dead entries are rebuilt without them when they fill.
///
/// The model of an object of a SwiftData container's class (`_ModelObject`, every object of a
/// `Schema`'s model) is named by the object itself, not in the table: the table is for objects
/// of other classes.
struct ModelRegistry {
    private struct Slot {
        /// The object's address; 0 for a slot never used, 1 for one whose entry was removed.
        var key: UInt = 0
        /// The model.
        var model = UnownedModel()
    }

    private static let empty: UInt = 0
    private static let removed: UInt = 1

    private var slots: [Slot] = []
    /// Slots holding an entry or a removal marker: probing stops only at empty ones.
    private var used = 0
    private var shift: UInt = 0
    /// Changed by every change of the table, so that a slot found before one is not used after.
    private var version = 0

    private func home(of key: UInt) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// The slot holding the object's address, if the table has it.
    private func slot(of object: NSManagedObject) -> Int? {
        guard used > 0 else { return nil }
        let found = place(of: UInt(bitPattern: ObjectIdentifier(object)))
        return found.isHeld ? found.index : nil
    }

    /// The slot's model, if it is alive.
    private func liveModel(at index: Int) -> (any PersistentModel)? {
        slots[index].model.model
    }

    /// The slot's model, if it is alive and still the object's.
    private func liveModel(at index: Int, of object: NSManagedObject) -> (any PersistentModel)? {
        guard let model = liveModel(at: index), model._strataRow.object === object else { return nil }
        return model
    }

    /// The model registered for the object, if it is alive and still the object's.
    func model(for object: NSManagedObject) -> (any PersistentModel)? {
        if let linking = _ModelObject.of(object) { return Self.linkedModel(of: linking) }
        return slot(of: object).flatMap { liveModel(at: $0, of: object) }
    }

    /// The model an object names, if it is alive and still the object's.
    private static func linkedModel(of object: _ModelObject) -> (any PersistentModel)? {
        guard let model = object.model, model._strataRow.object === object else { return nil }
        return model
    }

    /// What the table has for an object: its live model, or where a model of it goes.
    enum Lookup {
        case model(any PersistentModel)
        /// The slot for `register(_:for:at:)`, valid while the table is not changed.
        case vacancy(Vacancy)
    }

    /// Where `register(_:for:at:)` puts a model: a slot, and the table's version it was
    /// found in (a table changed since is probed again).
    struct Vacancy {
        fileprivate let index: Int
        fileprivate let isUnused: Bool
        fileprivate let version: Int
    }

    /// The slot of the key: the one holding it (`isHeld`), else where an entry of it goes (the
    /// first removed slot on the way, else the empty one that ended the probe: `isUnused`).
    /// The table must not be empty.
    private func place(of key: UInt) -> (index: Int, isHeld: Bool, isUnused: Bool) {
        let mask = slots.count - 1
        var index = home(of: key)
        var reusable: Int?
        while true {
            let current = slots[index].key
            if current == key { return (index, true, false) }
            if current == Self.empty {
                if let reusable { return (reusable, false, false) }
                return (index, false, true)
            }
            if current == Self.removed, reusable == nil { reusable = index }
            index = (index + 1) & mask
        }
    }

    /// The object's live model, or the slot a model of it goes in: one probe of the table for
    /// a fetched row, which a lookup and then a registration would probe twice. The table must
    /// have room for one more entry (`reserve(_:)`).
    func lookup(_ object: NSManagedObject) -> Lookup {
        if let linking = _ModelObject.of(object) {
            // Nothing linked (a row fetched for the first time) needs no test of a model.
            if linking.hasLink, let model = Self.linkedModel(of: linking) { return .model(model) }
            return .vacancy(Vacancy(index: -1, isUnused: true, version: version))
        }
        guard !slots.isEmpty else { return .vacancy(Vacancy(index: -1, isUnused: true, version: version)) }
        let found = place(of: UInt(bitPattern: ObjectIdentifier(object)))
        if found.isHeld, let model = liveModel(at: found.index, of: object) { return .model(model) }
        return .vacancy(Vacancy(index: found.index, isUnused: found.isUnused, version: version))
    }

    /// Registers the model for the object in the slot `lookup(_:)` found, or as
    /// `register(_:for:)` does if the table changed since.
    mutating func register(_ model: any PersistentModel, for object: NSManagedObject, at vacancy: Vacancy) {
        // A vacancy of an object that names its model (index -1) goes to `register(_:for:)`.
        guard vacancy.version == version, vacancy.index >= 0 else {
            register(model, for: object)
            return
        }
        if vacancy.isUnused { used += 1 }
        store(model, for: object, at: vacancy.index)
    }

    /// Registers the model for the object, in place of any entry the object's address had.
    mutating func register(_ model: any PersistentModel, for object: NSManagedObject) {
        if let linking = _ModelObject.of(object) {
            linking.link(model)
            return
        }
        reserve(1)
        let found = place(of: UInt(bitPattern: ObjectIdentifier(object)))
        if found.isUnused { used += 1 }
        store(model, for: object, at: found.index)
    }

    private mutating func store(_ model: any PersistentModel, for object: NSManagedObject, at index: Int) {
        version &+= 1
        slots[index].key = UInt(bitPattern: ObjectIdentifier(object))
        slots[index].model = UnownedModel(model)
    }

    /// Forgets the entry of the object's address, if any.
    mutating func remove(_ object: NSManagedObject) {
        if let linking = _ModelObject.of(object) {
            linking.unlink()
            return
        }
        guard let index = slot(of: object) else { return }
        version &+= 1
        slots[index] = Slot(key: Self.removed)
    }

    /// Makes room for `count` more entries (a fetch's), so that the table is rebuilt once
    /// rather than several times while the fetch's models are registered.
    mutating func reserve(_ count: Int) {
        guard count > 0 else { return }
        if (used + count) * 4 > slots.count * 3 { rebuild(adding: count) }
    }

    /// Rebuilds the table with the entries whose models are alive, room for `count` more, and
    /// at most two thirds of it used. The live entries are moved (swapped), not copied, so that
    /// their models' reference counts are not touched again; the others are let go, which frees
    /// the memory of their models.
    private mutating func rebuild(adding count: Int) {
        version &+= 1
        var old: [Slot] = []
        swap(&old, &slots)
        var live = 0
        for index in old.indices where old[index].key > Self.removed {
            if old[index].model.isAlive {
                live += 1
            } else {
                old[index] = Slot(key: Self.removed)
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

/// A registry reflects (`dump`, `Mirror`, a test library describing a context) as its count of
/// entries: its slots hold unowned references, which a mirror would load strongly, and the
/// loading of one whose model is gone stops the program.
extension ModelRegistry: CustomReflectable {
    var customMirror: Mirror {
        Mirror(self, children: ["entries": used], displayStyle: .struct)
    }
}
