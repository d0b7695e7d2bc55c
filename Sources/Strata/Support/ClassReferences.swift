/// Class instances read out of an `Any` in place, once their dynamic type is known: the hot
/// paths of relationships hold objects, sets and members in `Any` containers, and the
/// runtime's cast out of one costs 450 instructions (`as?` to a class), 2,800 when it asks for
/// bridging (`as AnyObject`); reading the reference costs a load.
///
/// A class instance is stored in an `Any` as its reference, in the first word of the
/// container, whether it was boxed as its class, a superclass, `AnyObject` or a class-bound
/// existential. The caller checks the dynamic type (`type(of:)` opens nested existentials)
/// before reading: a value of any other type would be read as garbage.
enum ClassReferences {
    /// The instance `value` holds, whose dynamic type the caller found to be `T` or a
    /// subclass of it.
    @inline(__always)
    static func read<T: AnyObject>(_ value: Any, as type: T.Type) -> T {
        withUnsafeBytes(of: value) { $0.load(as: T.self) }
    }

    /// The instance `value` holds when its dynamic type is exactly `T`, else `nil`.
    @inline(__always)
    static func exact<T: AnyObject>(_ value: Any?, as type: T.Type) -> T? {
        guard let value, ObjectIdentifier(Swift.type(of: value)) == ObjectIdentifier(T.self) else { return nil }
        return read(value, as: T.self)
    }

    /// The instance `value` holds when it is a `T` (of `T` or a subclass), else `nil`.
    @inline(__always)
    static func instance<T: AnyObject>(_ value: Any, of type: T.Type) -> T? {
        guard Swift.type(of: value) is T.Type else { return nil }
        return read(value, as: T.self)
    }

    /// The managed object `value` holds, when it holds one (of any entity class).
    @inline(__always)
    static func managedObject(_ value: Any) -> NSManagedObject? { instance(value, of: NSManagedObject.self) }
}
