/// The objects of a to-many relationship that changed in memory, kept so that adding,
/// removing or finding one object costs the same whatever the relationship holds.
///
/// A relationship that is only read keeps the plain `[NSManagedObject]` it was loaded as (no
/// table, no extra memory); its first change turns it into members, which its object keeps
/// in that position of its values from then on. An array in an `Any` cannot grow in place
/// (the copy cast out of the `Any` shares its buffer), so each link copied the whole
/// relationship: linking 10k to-dos to one tag copied 50M references.
///
/// Members belong to one object: only that object's values hold them (a save's copy of the
/// values replaces them with IDs), which is what lets them change in place.
final class ToManyMembers {
    /// The objects, in order for an ordered relationship. `nil` marks where an object of an
    /// ordered relationship was removed: the others keep their slots (and their entries in
    /// `positions`), and the holes go all at once when they are half the slots. An unordered
    /// relationship has no holes: its last object takes the removed one's slot.
    private var slots: [NSManagedObject?]
    private var holes = 0
    /// Each object's slot, by identity; made when the relationship passes `tableThreshold`
    /// objects (below that, a scan is as quick, and most relationships stay small).
    private var positions: [ObjectIdentifier: Int]?
    let isOrdered: Bool
    /// The objects without holes, made at the first read after a change.
    private var dense: [NSManagedObject]?
    /// The `NSSet` or `NSOrderedSet` last read, until the next change: it is immutable, so
    /// every reader until then can share it.
    var published: AnyObject?

    static let tableThreshold = 16

    /// Members holding `objects`, which are distinct.
    init(_ objects: [NSManagedObject], ordered: Bool) {
        slots = objects.map { $0 }
        dense = objects
        isOrdered = ordered
        if objects.count > Self.tableThreshold { makeTable() }
    }

    /// How many objects the relationship holds.
    var count: Int { slots.count - holes }

    /// Whether `objects` reads without making the array (it was made since the last change).
    var hasObjects: Bool { dense != nil }

    /// The objects in order (any order when unordered).
    var objects: [NSManagedObject] {
        if let dense { return dense }
        let made = slots.compactMap { $0 }
        dense = made
        return made
    }

    func contains(_ object: NSManagedObject) -> Bool { slot(of: object) != nil }

    /// Adds `object` at the end; `false` when it is already there.
    @discardableResult
    func append(_ object: NSManagedObject) -> Bool {
        guard slot(of: object) == nil else { return false }
        slots.append(object)
        positions?[ObjectIdentifier(object)] = slots.count - 1
        if positions == nil && count > Self.tableThreshold { makeTable() }
        changed()
        return true
    }

    /// Removes `object`; `false` when it is not there.
    @discardableResult
    func remove(_ object: NSManagedObject) -> Bool {
        guard let slot = slot(of: object) else { return false }
        positions?[ObjectIdentifier(object)] = nil
        if isOrdered {
            slots[slot] = nil
            holes += 1
            // Dropping the holes costs a pass over the slots, paid for by the removals since
            // the last pass, which are at least as many as the objects left.
            if holes > Self.tableThreshold && holes * 2 > slots.count { compact() }
        } else {
            let last = slots.removeLast()
            if slot < slots.count, let last {
                slots[slot] = last
                positions?[ObjectIdentifier(last)] = slot
            }
        }
        changed()
        return true
    }

    private func slot(of object: NSManagedObject) -> Int? {
        if let positions { return positions[ObjectIdentifier(object)] }
        return slots.firstIndex { $0 === object }
    }

    private func changed() {
        dense = nil
        published = nil
    }

    private func makeTable() {
        var table = [ObjectIdentifier: Int](minimumCapacity: slots.count)
        for (slot, object) in slots.enumerated() {
            if let object { table[ObjectIdentifier(object)] = slot }
        }
        positions = table
    }

    /// Drops the holes of an ordered relationship, renumbering the slots.
    private func compact() {
        slots.removeAll { $0 == nil }
        holes = 0
        if positions != nil { makeTable() }
    }
}

extension ToManyMembers {
    /// The objects a to-many position of an object's values holds, loaded or changed; `nil`
    /// while the relationship is not loaded.
    static func loadedObjects(in value: Any?) -> [NSManagedObject]? {
        if let members = held(in: value) { return members.objects }
        return value as? [NSManagedObject]
    }

    /// The members a to-many position holds, told by the value's type: a failed `as?` from the
    /// array a loaded relationship holds tries Foundation's bridging first (1,400 instructions
    /// at each read of B7's relationships).
    @inline(__always)
    static func held(in value: Any?) -> ToManyMembers? {
        guard let value, ObjectIdentifier(type(of: value)) == ObjectIdentifier(ToManyMembers.self) else { return nil }
        return unsafeDowncast(value as AnyObject, to: ToManyMembers.self)
    }
}
