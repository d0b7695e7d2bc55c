import Foundation

/// Values of the types attributes hold most often, told by the type word of their `Any?`
/// container and read in place. A cast from `Any` to a protocol (`AnyHashable`,
/// `any BinaryInteger`) asks the runtime for a conformance, which costs more than the rest of
/// the work on the hot paths.
enum PlainValues {
    /// Whether two optional values of the same plain type are equal, read in place from their
    /// existential containers (no copy of either, no cast): `true` for two `nil`s, `nil` when
    /// the types differ or are not among the plain ones. A validation hook that leaves a value
    /// as it was is told so this way for every property of every saved object.
    static func equalInPlace(_ lhs: Any?, _ rhs: Any?) -> Bool? {
        guard MemoryLayout<Any?>.size == 4 * MemoryLayout<Int>.size else { return nil }
        let type = containerType(lhs)
        guard type == containerType(rhs) else { return nil }
        if type == 0 { return true }
        return withUnsafeBytes(of: lhs) { left in
            withUnsafeBytes(of: rhs) { right -> Bool? in
                // Each of these types lies at the start of the container's inline buffer.
                switch type {
                case metadata(Int.self): left.load(as: Int.self) == right.load(as: Int.self)
                case metadata(Int16.self): left.load(as: Int16.self) == right.load(as: Int16.self)
                case metadata(Int32.self): left.load(as: Int32.self) == right.load(as: Int32.self)
                case metadata(Int64.self): left.load(as: Int64.self) == right.load(as: Int64.self)
                case metadata(Double.self): left.load(as: Double.self) == right.load(as: Double.self)
                case metadata(Float.self): left.load(as: Float.self) == right.load(as: Float.self)
                case metadata(Bool.self): left.load(as: Bool.self) == right.load(as: Bool.self)
                case metadata(Date.self): left.load(as: Date.self) == right.load(as: Date.self)
                case metadata(String.self): left.load(as: String.self) == right.load(as: String.self)
                case metadata(UUID.self): left.load(as: UUID.self) == right.load(as: UUID.self)
                case metadata(Data.self): left.load(as: Data.self) == right.load(as: Data.self)
                default: nil
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

    /// The type word of a value's container, read in place without wrapping the value in an
    /// optional (which copies it): as `containerType(_:)`, for a value that is there.
    @inline(__always)
    static func typeWord(of value: Any) -> UInt {
        guard MemoryLayout<Any>.size == 4 * MemoryLayout<Int>.size else { return 0 }
        // `as Any` keeps the container: an `Any` passed bare to a generic parameter is opened,
        // and the bytes would be the value's own.
        return withUnsafeBytes(of: value as Any) { $0.load(fromByteOffset: 3 * MemoryLayout<Int>.size, as: UInt.self) }
    }

    /// Whether an optional value holds a value of one of the plain types (so neither `nil`
    /// nor `NSNull`), told from its container's type word without copying it. `false` means
    /// "not known to be": the caller looks further.
    static func isPresentPlainValue(_ value: Any?) -> Bool {
        switch containerType(value) {
        case metadata(String.self), metadata(Int16.self), metadata(Int32.self), metadata(Int64.self),
            metadata(Double.self), metadata(Float.self), metadata(Bool.self), metadata(Date.self), metadata(Int.self):
            true
        default:
            false
        }
    }

    /// The type word a container holds for a value of `type`.
    @inline(__always)
    static func metadata(_ type: Any.Type) -> UInt {
        UInt(bitPattern: unsafeBitCast(type, to: UnsafeRawPointer.self))
    }
}
