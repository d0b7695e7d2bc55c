import Foundation

/// Changes an ordered to-many relationship at positions, as the live set
/// `mutableOrderedSetValue(forKey:)` returns does, without making that set: what the accessors
/// Strata writes for Xcode's (`insertIntoChapters(_:at:)`, `removeFromChapters(at:)`…) call, in
/// generated classes and in code `strata port --fix` gave bodies.
///
/// The live set keeps a copy of the relationship inside it for Foundation (see
/// `OrderedToManyRelationshipSet`), which costs an array insert, O(n), per change; an editor
/// keeps nothing, so each change costs O(log n) however large the relationship. The changes and
/// their effects are the same: change notifications, inverses, undo, and nothing done for an
/// object already there. For a key that is not an ordered to-many relationship of the object,
/// each change goes through `mutableOrderedSetValue(forKey:)`.
public struct OrderedToManyEditor {
    private let object: NSManagedObject
    private let key: String
    /// The relationship's position in the object's values; nil when `key` is not an ordered
    /// to-many relationship.
    private let position: Int?

    init(object: NSManagedObject, key: String) {
        self.object = object
        self.key = key
        position = object.orderedToManyPosition(forKey: key)
    }

    /// Inserts `value` at `index`, as `NSMutableOrderedSet.insert(_:at:)`.
    public func insert(_ value: Any, at index: Int) {
        guard let position, let inserted = value as? NSManagedObject else {
            return object.mutableOrderedSetValue(forKey: key).insert(value, at: index)
        }
        object.insertIntoOrderedToMany(inserted, at: index, position: position)
    }

    /// Removes the object at `index`, as `NSMutableOrderedSet.removeObject(at:)`.
    public func removeObject(at index: Int) {
        guard let position else { return object.mutableOrderedSetValue(forKey: key).removeObject(at: index) }
        object.removeFromOrderedToMany(at: index, position: position)
    }

    /// Replaces the object at `index` with `value`, as `NSMutableOrderedSet.replaceObject(at:with:)`.
    public func replaceObject(at index: Int, with value: Any) {
        guard let position, let replacement = value as? NSManagedObject else {
            return object.mutableOrderedSetValue(forKey: key).replaceObject(at: index, with: value)
        }
        object.replaceInOrderedToMany(at: index, with: replacement, position: position)
    }

    /// Appends `value` unless it is there already, as `NSMutableOrderedSet.add(_:)`.
    public func add(_ value: Any) {
        guard let position, let added = value as? NSManagedObject else {
            return object.mutableOrderedSetValue(forKey: key).add(value)
        }
        object.changeToMany(at: position, adding: [added], removing: [])
    }

    /// Removes `value` if it is there, as `NSMutableOrderedSet.remove(_:)`.
    public func remove(_ value: Any) {
        guard let position, let removed = value as? NSManagedObject else {
            return object.mutableOrderedSetValue(forKey: key).remove(value)
        }
        object.changeToMany(at: position, adding: [], removing: [removed])
    }
}

extension NSManagedObject {
    /// An editor of the ordered to-many relationship `key`: the changes of
    /// `mutableOrderedSetValue(forKey:)` without its live set. Strata's generated accessors use
    /// it; an app can too.
    public final func orderedToManyEditor(forKey key: String) -> OrderedToManyEditor {
        OrderedToManyEditor(object: self, key: key)
    }

    /// The position of `key` in the values when it is an ordered to-many relationship that can
    /// be changed in place (not while a key-path probe records reads).
    func orderedToManyPosition(forKey key: String) -> Int? {
        guard let index = layout.index(of: key), layout.kinds[index] == .toMany(ordered: true), probe == nil else {
            return nil
        }
        return index
    }

    /// Inserts `object` at `index` of the ordered relationship at `position`; nothing when it
    /// is there already.
    func insertIntoOrderedToMany(_ object: NSManagedObject, at index: Int, position: Int) {
        changeToMany(at: position) { members in
            members.insert(object, at: index) ? ([], [object]) : ([], [])
        }
    }

    /// Removes the object at `index` of the ordered relationship at `position`.
    func removeFromOrderedToMany(at index: Int, position: Int) {
        changeToMany(at: position) { members in
            precondition(index >= 0 && index < members.count, "index \(index) beyond bounds [0 .. \(members.count - 1)]")
            return (members.remove(at: index).map { [$0] } ?? [], [])
        }
    }

    /// Replaces the object at `index` of the ordered relationship at `position`; nothing when
    /// `object` is there already.
    func replaceInOrderedToMany(at index: Int, with object: NSManagedObject, position: Int) {
        changeToMany(at: position) { members in
            guard let replaced = members.replace(at: index, with: object) else { return ([], []) }
            return ([replaced], [object])
        }
    }
}
