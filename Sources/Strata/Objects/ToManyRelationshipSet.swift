import Foundation

/// The mutable set `mutableSetValue(forKey:)` returns: a live view of a to-many
/// relationship whose changes go through `setValue(_:forKey:)`, so that change tracking and
/// inverse maintenance see them.
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

    override var count: Int { current.count }
    override func member(_ element: Any) -> Any? {
        guard let element = element as? AnyHashable else { return nil }
        return current.contains(element) ? element : nil
    }
    override func objectEnumerator() -> NSEnumerator { NSArray(array: Array(current)).objectEnumerator() }

    override func add(_ element: Any) {
        guard let element = element as? AnyHashable else { return }
        replace { $0.insert(element) }
    }
    override func remove(_ element: Any) {
        guard let element = element as? AnyHashable else { return }
        replace { $0.remove(element) }
    }
    override func removeAllObjects() { replace { $0.removeAll() } }
    override func addObjects(from array: [Any]) { replace { $0.formUnion(array.compactMap { $0 as? AnyHashable }) } }
    override func union(_ other: Set<AnyHashable>) { replace { $0.formUnion(other) } }
    override func minus(_ other: Set<AnyHashable>) { replace { $0.subtract(other) } }
    override func intersect(_ other: Set<AnyHashable>) { replace { $0.formIntersection(other) } }

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
/// ordered to-many relationship whose changes go through `setValue(_:forKey:)`.
final class OrderedToManyRelationshipSet: NSMutableOrderedSet {
    private let relationship: (object: NSManagedObject, key: String)?
    private var detached: [Any] = []

    init(object: NSManagedObject, key: String) {
        relationship = (object, key)
        super.init(capacity: 0)
    }

    override init(capacity numItems: Int) {
        relationship = nil
        super.init(capacity: numItems)
    }

    required init(arrayLiteral elements: Any...) {
        relationship = nil
        detached = NSOrderedSet(array: elements).array
        super.init(capacity: elements.count)
    }

    required convenience init?(coder: NSCoder) { nil }

    private var current: NSOrderedSet {
        guard let (object, key) = relationship else { return NSOrderedSet(array: detached) }
        switch object.value(forKey: key) {
        case let set as NSOrderedSet: return set
        case let set as NSSet: return NSOrderedSet(array: set.allObjects)
        default: return NSOrderedSet()
        }
    }

    override var count: Int { current.count }
    override func object(at index: Int) -> Any { current.object(at: index) }
    override func index(of element: Any) -> Int { current.index(of: element) }

    override func insert(_ element: Any, at index: Int) { replace { $0.insert(element, at: index) } }
    override func removeObject(at index: Int) { replace { $0.removeObject(at: index) } }
    override func replaceObject(at index: Int, with element: Any) { replace { $0.replaceObject(at: index, with: element) } }
    override func add(_ element: Any) { replace { $0.add(element) } }
    override func remove(_ element: Any) { replace { $0.remove(element) } }
    override func removeAllObjects() { replace { $0.removeAllObjects() } }

    private func replace(_ change: (NSMutableOrderedSet) -> Void) {
        let updated = NSMutableOrderedSet(array: current.array)
        change(updated)
        guard let (object, key) = relationship else {
            detached = updated.array
            return
        }
        object.setValue(NSOrderedSet(array: updated.array), forKey: key)
    }
}
