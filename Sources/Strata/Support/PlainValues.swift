import Foundation

/// Values of the types attributes hold most often, told by their exact type. A cast from
/// `Any` to a protocol (`AnyHashable`, `any BinaryInteger`) asks the runtime for a
/// conformance, which costs more than the rest of the work on the hot paths; comparing the
/// types' identifiers first and then casting to the one type named cannot fail and costs
/// little.
enum PlainValues {
    /// Whether two optional values of the same plain type are equal, read in place from their
    /// existential containers (no copy of either, no cast): `true` for two `nil`s, `nil` when
    /// the types differ or are not among the plain ones. A validation hook that leaves a value
    /// as it was is told so this way for every property of every saved object.
    static func equalInPlace(_ lhs: Any?, _ rhs: Any?) -> Bool? {
        guard MemoryLayout<Any?>.size == 4 * MemoryLayout<Int>.size else { return nil }
        return withUnsafeBytes(of: lhs) { left in
            withUnsafeBytes(of: rhs) { right -> Bool? in
                // The fourth word is the type's metadata (zero for `nil`); the value is at
                // the start of the inline buffer for every type below.
                let offset = 3 * MemoryLayout<Int>.size
                let type = left.load(fromByteOffset: offset, as: UInt.self)
                guard type == right.load(fromByteOffset: offset, as: UInt.self) else { return nil }
                if type == 0 { return true }
                switch type {
                case metadata(Int.self): return left.load(as: Int.self) == right.load(as: Int.self)
                case metadata(Int16.self): return left.load(as: Int16.self) == right.load(as: Int16.self)
                case metadata(Int32.self): return left.load(as: Int32.self) == right.load(as: Int32.self)
                case metadata(Int64.self): return left.load(as: Int64.self) == right.load(as: Int64.self)
                case metadata(Double.self): return left.load(as: Double.self) == right.load(as: Double.self)
                case metadata(Float.self): return left.load(as: Float.self) == right.load(as: Float.self)
                case metadata(Bool.self): return left.load(as: Bool.self) == right.load(as: Bool.self)
                case metadata(Date.self): return left.load(as: Date.self) == right.load(as: Date.self)
                case metadata(String.self): return left.load(as: String.self) == right.load(as: String.self)
                default: return nil
                }
            }
        }
    }

    /// The type word of an optional value's container, read in place: the value's type for
    /// values of value types, 0 for `nil`; for a class instance, possibly a superclass (the
    /// type it was boxed as), so that it is only ever compared with value types.
    static func containerType(_ value: Any?) -> UInt {
        guard MemoryLayout<Any?>.size == 4 * MemoryLayout<Int>.size else { return 0 }
        return withUnsafeBytes(of: value) { $0.load(fromByteOffset: 3 * MemoryLayout<Int>.size, as: UInt.self) }
    }

    /// Whether an optional value holds a value of one of the plain types (so neither `nil`
    /// nor `NSNull`), told from its container's type word without copying it. `false` means
    /// "not known to be": the caller looks further.
    static func isPresentPlainValue(_ value: Any?) -> Bool {
        guard MemoryLayout<Any?>.size == 4 * MemoryLayout<Int>.size else { return false }
        let type = withUnsafeBytes(of: value) { $0.load(fromByteOffset: 3 * MemoryLayout<Int>.size, as: UInt.self) }
        switch type {
        case metadata(String.self), metadata(Int16.self), metadata(Int32.self), metadata(Int64.self),
            metadata(Double.self), metadata(Float.self), metadata(Bool.self), metadata(Date.self), metadata(Int.self):
            return true
        default:
            return false
        }
    }

    @inline(__always)
    private static func metadata(_ type: Any.Type) -> UInt {
        UInt(bitPattern: unsafeBitCast(type, to: UnsafeRawPointer.self))
    }

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
