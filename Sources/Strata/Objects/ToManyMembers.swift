/// The objects of a to-many relationship that changed in memory, kept so that adding,
/// removing or finding one object costs the same whatever the relationship holds.
///
/// A relationship that is only read keeps the plain `[NSManagedObject]` it was loaded as (no
/// table, no extra memory); its first change turns it into members, which its object keeps
/// in that position of its values from then on. An array in an `Any` cannot grow in place
/// (the copy cast out of the `Any` shares its buffer), so each link copied the whole
/// relationship: linking 10k to-dos to one tag copied 50M references.
///
/// An unordered relationship keeps its objects in an array, in any order: a removed object's
/// slot takes the last object. An ordered one keeps them in an `OrderedMemberTree`, where
/// changes at a position cost O(log n) too.
///
/// Members belong to one object: only that object's values hold them (a save's copy of the
/// values replaces them with IDs), which is what lets them change in place.
final class ToManyMembers {
    /// The objects of an unordered relationship.
    private var slots: [NSManagedObject] = []
    /// Each object's slot, by identity, for the slots before `indexed`: made when a search
    /// finds the relationship past `tableThreshold` objects (below that, a scan is as quick,
    /// and most relationships stay small), and brought up to date at each search. Appends
    /// leave it alone: B11's tags, 15k to-dos each, are never searched while an import links
    /// new to-dos to them, and each search or insert in a table that size is a cache miss.
    /// An `IdentityPositions` table: one multiplication to hash instead of SipHash.
    private var positions: IdentityPositions?
    /// How many slots, from the first, `positions` holds: the slots past it were appended
    /// since the last search. A removal searches first, so the table then holds every slot.
    private var indexed = 0
    /// No object created after this serial (`NSManagedObject.creationSerial`) was ever added:
    /// such an object is not here, told without a search.
    private var newestSerial: UInt32 = 0
    /// The objects of an ordered relationship.
    private let tree: OrderedMemberTree?
    var isOrdered: Bool { tree != nil }
    /// The objects as an array, made at the first read after a change.
    private var dense: [NSManagedObject]?
    /// The `NSSet` or `NSOrderedSet` last read, until the next change: it is immutable, so
    /// every reader until then can share it.
    var published: AnyObject?
    /// The live views of this ordered relationship (`mutableOrderedSetValue(forKey:)`), told of
    /// each change so that the copy Foundation's `NSOrderedSet` keeps inside each stays equal to
    /// the members; `nil` (one load at each change) while there are none.
    private var views: [OrderedViewReference]?

    static let tableThreshold = 16

    /// Members holding `objects`, which are distinct. `treeCapacity` sets the leaves of an
    /// ordered relationship's tree (tests make them small).
    init(_ objects: [NSManagedObject], ordered: Bool, treeCapacity: Int = OrderedMemberTree.defaultCapacity) {
        dense = objects
        if ordered {
            tree = OrderedMemberTree(objects, capacity: treeCapacity)
        } else {
            tree = nil
            slots = objects
            // Every object given was created by now.
            if !objects.isEmpty { newestSerial = NSManagedObject.latestSerial }
        }
    }

    /// How many objects the relationship holds.
    var count: Int { tree?.count ?? slots.count }

    /// Whether `objects` reads without making the array (it was made since the last change).
    var hasObjects: Bool { dense != nil }

    /// The objects in order (any order when unordered).
    var objects: [NSManagedObject] {
        if let dense { return dense }
        let made = tree?.objects ?? slots
        dense = made
        return made
    }

    func contains(_ object: NSManagedObject) -> Bool {
        if let tree { return tree.contains(object) }
        if object.creationSerial > newestSerial { return false }
        return slot(of: object) != nil
    }

    /// Adds `object` at the end; `false` when it is already there.
    @discardableResult
    func append(_ object: NSManagedObject) -> Bool {
        guard !contains(object) else { return false }
        appendAbsent(object)
        return true
    }

    /// Adds `object`, which the caller found absent, at the end (inverse upkeep asks first,
    /// to send its change notifications only for a change: a second search would cost a
    /// second hash).
    func appendAbsent(_ object: NSManagedObject) {
        if let tree {
            tree.append(object)
            if views != nil { tell(.inserted(object, at: tree.count - 1)) }
        } else {
            slots.append(object)
            newestSerial = max(newestSerial, object.creationSerial)
        }
        changed()
    }

    /// Removes `object`; `false` when it is not there.
    @discardableResult
    func remove(_ object: NSManagedObject) -> Bool {
        if let tree {
            let position = views == nil ? nil : tree.index(of: object)
            guard tree.remove(object) else { return false }
            if let position { tell(.removed(at: position)) }
        } else {
            guard let slot = slot(of: object) else { return false }
            positions?.removeValue(forKey: ObjectIdentifier(object))
            let last = slots.removeLast()
            if slot < slots.count {
                slots[slot] = last
                positions?.update(ObjectIdentifier(last), slot)
            }
            // The search indexed every slot; one fewer is left.
            if positions != nil { indexed = slots.count }
        }
        changed()
        return true
    }

    private func slot(of object: NSManagedObject) -> Int? {
        guard slots.count > Self.tableThreshold || positions != nil else { return slots.firstIndex { $0 === object } }
        if positions == nil { positions = IdentityPositions() }
        while indexed < slots.count {
            positions?.insert(ObjectIdentifier(slots[indexed]), indexed)
            indexed += 1
        }
        return positions?[ObjectIdentifier(object)]
    }

    private func changed() {
        dense = nil
        published = nil
    }
}

/// Changes at a position, for ordered relationships only (an unordered relationship's members
/// have no order to keep: these answer as an empty relationship and change nothing).
extension ToManyMembers {
    /// The object at `index`, which is less than `count`.
    func object(at index: Int) -> NSManagedObject? { tree?.object(at: index) }

    /// The position of `object`, or `nil` when it is not there.
    func index(of object: NSManagedObject) -> Int? { tree?.index(of: object) }

    /// Inserts `object` at `index` (at most `count`); `false` when it is already there, as
    /// `NSMutableOrderedSet` refuses a duplicate.
    @discardableResult
    func insert(_ object: NSManagedObject, at index: Int) -> Bool {
        precondition(index >= 0 && index <= count, "index \(index) beyond bounds [0 .. \(count)]")
        guard let tree, !tree.contains(object) else { return false }
        tree.insert(object, at: index)
        changed()
        if views != nil { tell(.inserted(object, at: index)) }
        return true
    }

    /// Removes the object at `index` (less than `count`) and returns it.
    @discardableResult
    func remove(at index: Int) -> NSManagedObject? {
        guard let tree else { return nil }
        let removed = tree.remove(at: index)
        changed()
        if views != nil { tell(.removed(at: index)) }
        return removed
    }

    /// Replaces the object at `index` (less than `count`) with `object` and returns the object
    /// replaced; `nil` (nothing changed) when `object` is already there, at that position or
    /// another.
    @discardableResult
    func replace(at index: Int, with object: NSManagedObject) -> NSManagedObject? {
        precondition(index >= 0 && index < count, "index \(index) beyond bounds [0 .. \(count - 1)]")
        guard let tree, !tree.contains(object) else { return nil }
        let replaced = tree.replace(at: index, with: object)
        changed()
        if views != nil { tell(.replaced(at: index, with: object)) }
        return replaced
    }

    /// Tells `view` of each change from now on, until it is gone.
    func observe(by view: OrderedToManyRelationshipSet) {
        var kept = views?.filter { $0.view != nil && $0.view !== view } ?? []
        kept.append(OrderedViewReference(view: view))
        views = kept
    }

    private func tell(_ change: OrderedMembersChange) {
        guard let views else { return }
        for reference in views { reference.view?.membersChanged(self, change) }
    }

    #if DEBUG
        /// The ordered relationship's tree, for tests.
        var orderedTree: OrderedMemberTree? { tree }
    #endif
}

/// One change of an ordered relationship's members, as its live views copy it.
enum OrderedMembersChange {
    case inserted(NSManagedObject, at: Int)
    case removed(at: Int)
    case replaced(at: Int, with: NSManagedObject)
}

/// A live view that members tell of their changes, held weakly: a view the app let go is not
/// kept for its relationship's sake.
struct OrderedViewReference {
    weak var view: OrderedToManyRelationshipSet?
}

extension ToManyMembers {
    /// The objects a to-many position of an object's values holds, loaded or changed; `nil`
    /// while the relationship is not loaded.
    static func loadedObjects(in value: Any?) -> [NSManagedObject]? {
        if let members = held(in: value) { return members.objects }
        return value as? [NSManagedObject]
    }

    /// The members a to-many position holds, told by the value's dynamic type (a failed `as?`
    /// from the array a loaded relationship holds tries Foundation's bridging first: 1,400
    /// instructions at each read of B7's relationships), then read in place
    /// (`ClassReferences`): `as?` would cost 450 instructions and `as AnyObject` 2,800, at
    /// every link of B11 (three reads each).
    @inline(__always)
    static func held(in value: Any?) -> ToManyMembers? { ClassReferences.exact(value, as: ToManyMembers.self) }
}
