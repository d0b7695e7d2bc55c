import Foundation

/// The mutable set `mutableSetValue(forKey:)` returns: a live view of a to-many
/// relationship. Adding and removing objects changes the relationship in place, with the
/// notifications, change tracking and inverse maintenance of `setValue(_:forKey:)` and at a
/// cost that does not grow with the relationship (the generated `addToTags(_:)` accessors
/// come here); other changes, and keys that are not to-many relationships, set the whole
/// changed set through `setValue(_:forKey:)`.
///
/// Foundation's required initializers create a detached set with its own storage; only
/// `mutableSetValue(forKey:)` creates the live view.
final class ToManyRelationshipSet: NSMutableSet {
    private let relationship: (object: NSManagedObject, key: String)?
    private var detached: Set<AnyHashable> = []

    init(object: NSManagedObject, key: String) {
        relationship = (object, key)
        super.init(capacity: 0)
    }

    required init(capacity numItems: Int) {
        relationship = nil
        super.init(capacity: numItems)
    }

    required convenience init?(coder: NSCoder) { nil }

    private var current: Set<AnyHashable> {
        guard let (object, key) = relationship else { return detached }
        switch object.value(forKey: key) {
        case let set as NSSet: return Set(set.allObjects.compactMap { $0 as? AnyHashable })
        case let set as NSOrderedSet: return Set(set.array.compactMap { $0 as? AnyHashable })
        default: return []
        }
    }

    /// The relationship's object and position when `key` is a to-many relationship of it,
    /// with the access hooks `value(forKey:)` would call around the read that follows.
    private var toMany: (object: NSManagedObject, index: Int)? {
        guard let (object, key) = relationship, let index = object.layout.index(of: key),
            object.layout.isToMany(index), object.probe == nil
        else { return nil }
        return (object, index)
    }

    override var count: Int {
        guard let (object, index) = toMany else { return current.count }
        object.willAccessValue(forKey: object.layout.name(at: index))
        defer { object.didAccessValue(forKey: object.layout.name(at: index)) }
        return object.toManyCount(at: index)
    }
    override func member(_ element: Any) -> Any? {
        guard let element = element as? AnyHashable else { return nil }
        if let (object, index) = toMany {
            guard let candidate = element as? NSManagedObject else { return nil }
            object.willAccessValue(forKey: object.layout.name(at: index))
            defer { object.didAccessValue(forKey: object.layout.name(at: index)) }
            return object.toManyMembers(at: index).contains(candidate) ? element : nil
        }
        return current.contains(element) ? element : nil
    }
    override func objectEnumerator() -> NSEnumerator { NSArray(array: Array(current)).objectEnumerator() }

    override func add(_ element: Any) {
        guard let element = element as? AnyHashable else { return }
        if change(adding: [element], removing: []) { return }
        replace { $0.insert(element) }
    }
    override func remove(_ element: Any) {
        guard let element = element as? AnyHashable else { return }
        if change(adding: [], removing: [element]) { return }
        replace { $0.remove(element) }
    }
    override func removeAllObjects() { replace { $0.removeAll() } }
    override func addObjects(from array: [Any]) {
        if change(adding: array, removing: []) { return }
        replace { $0.formUnion(array.compactMap { $0 as? AnyHashable }) }
    }
    override func union(_ other: Set<AnyHashable>) {
        if change(adding: Array(other), removing: []) { return }
        replace { $0.formUnion(other) }
    }
    override func minus(_ other: Set<AnyHashable>) {
        if change(adding: [], removing: Array(other)) { return }
        replace { $0.subtract(other) }
    }
    override func intersect(_ other: Set<AnyHashable>) { replace { $0.formIntersection(other) } }

    /// Adds and removes objects of a to-many relationship in place; `false` (nothing done)
    /// for a detached set, another key, or elements that are not managed objects, which
    /// take the whole-set way.
    private func change(adding added: [Any], removing removed: [Any]) -> Bool {
        guard let (object, index) = toMany else { return false }
        let adding = added.compactMap { $0 as? NSManagedObject }
        let removing = removed.compactMap { $0 as? NSManagedObject }
        guard adding.count == added.count, removing.count == removed.count else { return false }
        object.changeToMany(at: index, adding: adding, removing: removing)
        return true
    }

    private func replace(_ change: (inout Set<AnyHashable>) -> Void) {
        var updated = current
        change(&updated)
        guard let (object, key) = relationship else {
            detached = updated
            return
        }
        object.setValue(NSSet(array: Array(updated)), forKey: key)
    }
}

/// The mutable ordered set `mutableOrderedSetValue(forKey:)` returns: a live view of an
/// ordered to-many relationship. Appending and removing an object, and inserting, removing,
/// replacing and reading one at an index, work on the relationship in place, as
/// `ToManyRelationshipSet` does, at O(log n) each (`OrderedMemberTree`). Other changes set the
/// whole changed set through `setValue(_:forKey:)`.
///
/// As `NSMutableOrderedSet` does, inserting an object already there changes nothing, and so
/// does replacing an object with one already there (at that index or another).
///
/// Foundation on Linux answers `array`, `set`, `firstObject`, `lastObject`, the object
/// enumerators and iteration from `NSOrderedSet`'s own storage, and a subclass cannot answer
/// them itself (they are not `open`). So the view keeps that storage equal to the relationship:
/// filled when the view is made, and changed with each change of the relationship's members,
/// whoever makes it (`ToManyMembers` tells its views). A relationship set whole gets new
/// members; the view copies them when `setValue` replaces them, and when a rollback, refresh,
/// undo, merge or merge policy puts back the relationship: its object keeps its live views and
/// tells them (`keepLiveViewsCurrent()`). Keeping that copy costs an `NSMutableArray`
/// insert per change, O(n): the generated accessors change the relationship without a view
/// (`OrderedToManyEditor`), and a context keeps its last few views, so that calling
/// `mutableOrderedSetValue(forKey:)` again does not copy the relationship again.
final class OrderedToManyRelationshipSet: NSMutableOrderedSet {
    private let relationship: (object: NSManagedObject, key: String)?
    private var detached: [Any] = []
    /// The members Foundation's storage holds the objects of, and is told the changes of.
    private weak var mirrored: ToManyMembers?
    /// While Foundation's storage is being changed: the reads its own mutators make (`count`,
    /// `contains`, `object(at:)`) answer from that storage.
    private var mirroring = false

    init(object: NSManagedObject, key: String) {
        relationship = (object, key)
        super.init(capacity: 0)
        object.noteLiveView(self)
        keepMirror()
    }

    override init(capacity numItems: Int) {
        relationship = nil
        super.init(capacity: numItems)
    }

    required init(arrayLiteral elements: Any...) {
        relationship = nil
        detached = NSOrderedSet(array: elements).array
        super.init(capacity: elements.count)
        refillMirror(with: detached)
    }

    required convenience init?(coder: NSCoder) { nil }

    /// The object and key this view shows, when it shows one.
    var shown: (object: NSManagedObject, key: String)? { relationship }

    private var current: NSOrderedSet {
        guard let (object, key) = relationship else { return NSOrderedSet(array: detached) }
        switch object.value(forKey: key) {
        case let set as NSOrderedSet: return set
        case let set as NSSet: return NSOrderedSet(array: set.allObjects)
        default: return NSOrderedSet()
        }
    }

    /// The relationship's object and position when `key` is an ordered to-many relationship.
    private var toMany: (object: NSManagedObject, index: Int)? {
        guard let (object, key) = relationship, let index = object.orderedToManyPosition(forKey: key) else { return nil }
        return (object, index)
    }

    /// The relationship's members, with Foundation's storage made to hold them if the
    /// relationship was set whole since it was filled.
    private func members(of object: NSManagedObject, at position: Int) -> ToManyMembers {
        let members = object.toManyMembers(at: position)
        if members !== mirrored { mirror(members, of: object) }
        return members
    }

    /// Fills Foundation's storage with what the view shows, unless it holds it already.
    func keepMirror() {
        if let (object, position) = toMany {
            _ = members(of: object, at: position)
        } else if relationship != nil {
            refillMirror(with: current.array)
        }
    }

    private func mirror(_ members: ToManyMembers, of object: NSManagedObject) {
        mirrored = members
        members.observe(by: self)
        object.noteRelationshipCopy(members.count)
        refillMirror(with: members.objects)
    }

    private func refillMirror(with objects: [Any]) {
        mirroring = true
        defer { mirroring = false }
        super.removeAllObjects()
        super.addObjects(from: objects)
    }

    /// Its object's values were put back whole (a rollback, refresh, undo or merge) or its fault
    /// fired: the view copies the relationship's members unless it holds them already. A fault
    /// is not fired for it: the relationship as the store has it is copied, and the members are
    /// copied again when the fault fires.
    func objectValuesWerePutBack() {
        guard let (object, position) = toMany else { return }
        guard object.faulted else {
            _ = members(of: object, at: position)
            return
        }
        mirrored = nil
        refillMirror(with: object.managedObjectContext?.storedRelationship(of: object, at: position) ?? [])
    }

    /// A change of the members, copied into Foundation's storage.
    func membersChanged(_ members: ToManyMembers, _ change: OrderedMembersChange) {
        guard members === mirrored else { return }
        mirroring = true
        defer { mirroring = false }
        switch change {
        case .inserted(let object, let index): super.insert(object, at: index)
        case .removed(let index): super.removeObject(at: index)
        case .replaced(let index, let object): super.replaceObject(at: index, with: object)
        }
    }

    override var count: Int {
        if mirroring { return super.count }
        guard let (object, index) = toMany else { return current.count }
        object.willAccessValue(forKey: object.layout.name(at: index))
        defer { object.didAccessValue(forKey: object.layout.name(at: index)) }
        return members(of: object, at: index).count
    }
    override func object(at index: Int) -> Any {
        if mirroring { return super.object(at: index) }
        guard let (object, position) = toMany else { return current.object(at: index) }
        object.willAccessValue(forKey: object.layout.name(at: position))
        defer { object.didAccessValue(forKey: object.layout.name(at: position)) }
        let members = members(of: object, at: position)
        precondition(index >= 0 && index < members.count, "index \(index) beyond bounds [0 .. \(members.count - 1)]")
        return members.object(at: index) ?? current.object(at: index)
    }
    // Foundation on Linux answers these from `NSOrderedSet`'s own storage too; they ask the
    // relationship's set instead, so that they need not wait for that storage to be refilled
    // after the relationship was set whole.
    override func contains(_ object: Any) -> Bool {
        if mirroring { return super.contains(object) }
        return index(of: object) != NSNotFound
    }
    override func copy(with zone: NSZone? = nil) -> Any { current.copy() }
    override func mutableCopy(with zone: NSZone? = nil) -> Any { current.mutableCopy() }
    override func enumerateObjects(_ block: (Any, Int, UnsafeMutablePointer<ObjCBool>) -> Void) {
        current.enumerateObjects(block)
    }
    override func enumerateObjects(
        options opts: NSEnumerationOptions = [], using block: (Any, Int, UnsafeMutablePointer<ObjCBool>) -> Void
    ) {
        current.enumerateObjects(options: opts, using: block)
    }
    override func enumerateObjects(
        at s: IndexSet, options opts: NSEnumerationOptions = [],
        using block: (Any, Int, UnsafeMutablePointer<ObjCBool>) -> Void
    ) {
        current.enumerateObjects(at: s, options: opts, using: block)
    }
    override func index(
        _ opts: NSEnumerationOptions = [], ofObjectPassingTest predicate: (Any, Int, UnsafeMutablePointer<ObjCBool>) -> Bool
    ) -> Int {
        current.index(opts, ofObjectPassingTest: predicate)
    }
    override func index(
        ofObjectAt s: IndexSet, options opts: NSEnumerationOptions = [],
        passingTest predicate: (Any, Int, UnsafeMutablePointer<ObjCBool>) -> Bool
    ) -> Int {
        current.index(ofObjectAt: s, options: opts, passingTest: predicate)
    }
    override func index(ofObjectPassingTest predicate: (Any, Int, UnsafeMutablePointer<ObjCBool>) -> Bool) -> Int {
        current.index(ofObjectPassingTest: predicate)
    }
    override func indexes(
        options opts: NSEnumerationOptions = [],
        ofObjectsPassingTest predicate: (Any, Int, UnsafeMutablePointer<ObjCBool>) -> Bool
    ) -> IndexSet {
        current.indexes(options: opts, ofObjectsPassingTest: predicate)
    }
    override func indexes(ofObjectsPassingTest predicate: (Any, Int, UnsafeMutablePointer<ObjCBool>) -> Bool) -> IndexSet {
        current.indexes(ofObjectsPassingTest: predicate)
    }
    override func indexes(
        ofObjectsAt s: IndexSet, options opts: NSEnumerationOptions = [],
        passingTest predicate: (Any, Int, UnsafeMutablePointer<ObjCBool>) -> Bool
    ) -> IndexSet {
        current.indexes(ofObjectsAt: s, options: opts, passingTest: predicate)
    }
    override func index(
        of object: Any, inSortedRange range: NSRange, options opts: NSBinarySearchingOptions = [],
        usingComparator cmp: (Any, Any) -> ComparisonResult
    ) -> Int {
        current.index(of: object, inSortedRange: range, options: opts, usingComparator: cmp)
    }
    override func sortedArray(comparator cmptr: (Any, Any) -> ComparisonResult) -> [Any] {
        current.sortedArray(comparator: cmptr)
    }
    override func sortedArray(
        options opts: NSSortOptions = [], usingComparator cmptr: (Any, Any) -> ComparisonResult
    ) -> [Any] {
        current.sortedArray(options: opts, usingComparator: cmptr)
    }
    override func intersects(_ other: NSOrderedSet) -> Bool { current.intersects(other) }
    override func intersectsSet(_ set: Set<AnyHashable>) -> Bool { current.intersectsSet(set) }
    override func isSubset(of other: NSOrderedSet) -> Bool { current.isSubset(of: other) }
    override func isSubset(of set: Set<AnyHashable>) -> Bool { current.isSubset(of: set) }

    override func index(of element: Any) -> Int {
        if mirroring { return super.index(of: element) }
        guard let (object, position) = toMany else { return current.index(of: element) }
        guard let candidate = element as? NSManagedObject else { return NSNotFound }
        object.willAccessValue(forKey: object.layout.name(at: position))
        defer { object.didAccessValue(forKey: object.layout.name(at: position)) }
        return members(of: object, at: position).index(of: candidate) ?? NSNotFound
    }

    override func insert(_ element: Any, at index: Int) {
        guard let (object, position) = toMany, let inserted = element as? NSManagedObject else {
            return replace { $0.insert(element, at: index) }
        }
        _ = members(of: object, at: position)
        object.insertIntoOrderedToMany(inserted, at: index, position: position)
    }
    override func removeObject(at index: Int) {
        guard let (object, position) = toMany else { return replace { $0.removeObject(at: index) } }
        _ = members(of: object, at: position)
        object.removeFromOrderedToMany(at: index, position: position)
    }
    override func replaceObject(at index: Int, with element: Any) {
        guard let (object, position) = toMany, let replacement = element as? NSManagedObject else {
            return replace { $0.replaceObject(at: index, with: element) }
        }
        _ = members(of: object, at: position)
        object.replaceInOrderedToMany(at: index, with: replacement, position: position)
    }
    override func add(_ element: Any) {
        guard let (object, position) = toMany, let added = element as? NSManagedObject else { return replace { $0.add(element) } }
        _ = members(of: object, at: position)
        object.changeToMany(at: position, adding: [added], removing: [])
    }
    override func remove(_ element: Any) {
        guard let (object, position) = toMany, let removed = element as? NSManagedObject else {
            return replace { $0.remove(element) }
        }
        _ = members(of: object, at: position)
        object.changeToMany(at: position, adding: [], removing: [removed])
    }
    override func removeAllObjects() { replace { $0.removeAllObjects() } }
    // Foundation on Linux makes these changes in `NSOrderedSet`'s own storage, not through the
    // primitives above: left to it, they changed the view's copy and not the relationship.
    override func addObjects(from array: [Any]) {
        for element in array { add(element) }
    }
    override func add(_ objects: UnsafePointer<AnyObject>?, count: Int) {
        for element in UnsafeBufferPointer(start: objects, count: count) { add(element) }
    }
    override func exchangeObject(at idx1: Int, withObjectAt idx2: Int) {
        replace { $0.exchangeObject(at: idx1, withObjectAt: idx2) }
    }
    // Not Foundation's `intersect` on a copy: on Linux it overwrites each object it drops with
    // the next one instead of moving the rest up, leaving duplicates.
    override func intersect(_ other: NSOrderedSet) {
        for element in current.array where !other.contains(element) { remove(element) }
    }
    override func sort(comparator cmptr: (Any, Any) -> ComparisonResult) { replace { $0.sort(comparator: cmptr) } }
    override func sort(options opts: NSSortOptions = [], usingComparator cmptr: (Any, Any) -> ComparisonResult) {
        replace { $0.sort(options: opts, usingComparator: cmptr) }
    }
    override func sortRange(
        _ range: NSRange, options opts: NSSortOptions = [], usingComparator cmptr: (Any, Any) -> ComparisonResult
    ) {
        replace { $0.sortRange(range, options: opts, usingComparator: cmptr) }
    }
    override func sort(using sortDescriptors: [NSSortDescriptor]) { replace { $0.sort(using: sortDescriptors) } }

    private func replace(_ change: (NSMutableOrderedSet) -> Void) {
        let updated = NSMutableOrderedSet(array: current.array)
        change(updated)
        guard let (object, key) = relationship else {
            detached = updated.array
            return refillMirror(with: detached)
        }
        object.setValue(NSOrderedSet(array: updated.array), forKey: key)
        keepMirror()
    }
}
