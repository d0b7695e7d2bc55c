/// A dictionary keyed by object IDs that hashes and compares them as `ObjectKey` does, without
/// `isEqual(_:)`: a save looks each of its objects up in several of these, and `NSObject`'s
/// `==` (a cast from `Any` in `isEqual(_:)` at every probe) was a tenth of an insert's time.
struct ObjectIDDictionary<Value> {
    private var storage: [ObjectKey: Value] = [:]

    init() {}

    subscript(objectID: NSManagedObjectID) -> Value? {
        get { storage[ObjectKey(objectID)] }
        set { storage[ObjectKey(objectID)] = newValue }
    }

    var count: Int { storage.count }
    var isEmpty: Bool { storage.isEmpty }

    /// The IDs, in no particular order.
    var keys: [NSManagedObjectID] { storage.keys.map(\.objectID) }

    mutating func reserveCapacity(_ capacity: Int) {
        storage.reserveCapacity(capacity)
    }

    /// Adds the other dictionary's entries; for an ID in both, `combine` picks the value.
    mutating func merge(_ other: ObjectIDDictionary<Value>, uniquingKeysWith combine: (Value, Value) -> Value) {
        storage.merge(other.storage, uniquingKeysWith: combine)
    }
}
