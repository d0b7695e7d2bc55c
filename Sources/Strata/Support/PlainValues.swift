import Foundation

/// Values of the types attributes hold most often, told by their exact type. A cast from
/// `Any` to a protocol (`AnyHashable`, `any BinaryInteger`) asks the runtime for a
/// conformance, which costs more than the rest of the work on the hot paths; comparing the
/// types' identifiers first and then casting to the one type named cannot fail and costs
/// little.
enum PlainValues {
    /// Whether two values of the same plain type are equal; `nil` when either value is of
    /// another type, or the two types differ.
    static func equal(_ lhs: Any, _ rhs: Any) -> Bool? {
        let type = ObjectIdentifier(Swift.type(of: lhs))
        guard type == ObjectIdentifier(Swift.type(of: rhs)) else { return nil }
        switch type {
        case ObjectIdentifier(Int.self): return same(lhs, rhs, as: Int.self)
        case ObjectIdentifier(Int16.self): return same(lhs, rhs, as: Int16.self)
        case ObjectIdentifier(Int32.self): return same(lhs, rhs, as: Int32.self)
        case ObjectIdentifier(Int64.self): return same(lhs, rhs, as: Int64.self)
        case ObjectIdentifier(Double.self): return same(lhs, rhs, as: Double.self)
        case ObjectIdentifier(Float.self): return same(lhs, rhs, as: Float.self)
        case ObjectIdentifier(Bool.self): return same(lhs, rhs, as: Bool.self)
        case ObjectIdentifier(String.self): return same(lhs, rhs, as: String.self)
        case ObjectIdentifier(Date.self): return same(lhs, rhs, as: Date.self)
        case ObjectIdentifier(UUID.self): return same(lhs, rhs, as: UUID.self)
        case ObjectIdentifier(Data.self): return same(lhs, rhs, as: Data.self)
        default: return nil
        }
    }

    @inline(__always)
    private static func same<T: Equatable>(_ lhs: Any, _ rhs: Any, as type: T.Type) -> Bool? {
        guard let lhs = value(lhs, as: T.self), let rhs = value(rhs, as: T.self) else { return nil }
        return lhs == rhs
    }

    /// The value as a `T`, read from its box without a dynamic cast where it can be.
    @inline(__always)
    private static func value<T>(_ value: Any, as type: T.Type) -> T? {
        _ManagedExactValue.read(value, as: T.self) ?? value as? T
    }
}
