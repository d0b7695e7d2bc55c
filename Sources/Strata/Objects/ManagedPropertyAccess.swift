import Foundation

/// Typed access to property values, used by `@Managed` properties and generated classes.
/// The names start with an underscore because applications call them only through
/// generated code.
///
/// The accessors are inlinable so that each is specialised for its property's type in the
/// app's module: reading an `Int16` is then one cast from the stored value, with no generic
/// metadata to look up (these run once per property read, the hottest path of all).
extension NSManagedObject {
    /// The value of an optional property, converted to the property's Swift type.
    @inlinable
    public func _managedValue<Value>(forKey key: String) -> Value? {
        _managedOptionalValue(forKey: key)
    }

    /// The value of a non-optional property whose type has a natural empty value (numbers,
    /// `Bool`, strings, data, collections); a missing value reads as that empty value.
    @inlinable
    public func _managedValue<Value: _ManagedDefaultValue>(forKey key: String) -> Value {
        _managedOptionalValue(forKey: key) ?? Value._managedDefaultValue
    }

    /// What both typed getters read: an attribute in place when it holds the property's type
    /// (`_managedRead`), cast when it holds another; anything else through `value(forKey:)`.
    @inlinable @inline(__always)
    func _managedOptionalValue<Value>(forKey key: String) -> Value? {
        switch _managedRead(forKey: key, typeWord: _managedTypeWord(Value.self)) {
        case .typed(let slot):
            let value = slot.load(as: Value.self)
            didAccessValue(forKey: key)
            return value
        case .absent:
            didAccessValue(forKey: key)
            return nil
        case .other(let index):
            defer { didAccessValue(forKey: key) }
            return _managedAttributeValue(at: index, as: Value.self)
        case .general:
            break
        }
        if let collection: Value? = _managedObjectCollection(forKey: key) { return collection }
        guard let raw = _managedStoredValue(forKey: key) else { return nil }
        if let value = _ManagedExactValue.read(raw, as: Value.self) { return value }
        if let value = raw as? Value { return value }
        return Self._managedConverted(raw, to: Value.self)
    }

    /// The value of a non-optional property of any other type. Like Core Data, reading a
    /// missing value through a non-optional property is a programming error.
    @_disfavoredOverload
    public func _managedValue<Value>(forKey key: String) -> Value {
        guard let value = ManagedValueBridge.cast(value(forKey: key), to: Value.self) else {
            preconditionFailure("\(entity.name ?? "?").\(key) is nil or not a \(Value.self), but its property is non-optional")
        }
        return value
    }

    /// Sets a property from its Swift value.
    @inlinable
    public func _setManagedValue<Value>(_ value: Value?, forKey key: String) {
        // Unwrapped here, so that the typed path is not asked for `Optional<Value>`'s metadata.
        if let value {
            _setManagedTypedValue(value, forKey: key)
        } else {
            _setManagedStoredValue(nil, forKey: key)
        }
    }

    /// Sets an attribute from a typed setter whose Swift type is the one the attribute stores
    /// (`Int64` for an Integer 64 attribute…): the value goes into the object's typed storage
    /// without an `Any`, between `willChangeValue` and `didChangeValue` as `setValue(_:forKey:)`
    /// would put it. Anything else (relationships, other types) goes the general way.
    @usableFromInline
    @_specialize(where Value == Int16)
    @_specialize(where Value == Int32)
    @_specialize(where Value == Int64)
    @_specialize(where Value == Double)
    @_specialize(where Value == Float)
    @_specialize(where Value == Bool)
    @_specialize(where Value == Date)
    @_specialize(where Value == String)
    func _setManagedTypedValue<Value>(_ value: Value, forKey key: String) {
        guard let index = layout.index(of: key), layout.kinds[index] == .attribute,
            !layout.properties[index].isReadOnly, layout.valueShape.holdsInPlace(Value.self, at: index)
        else { return _setManagedStoredValue(value, forKey: key) }
        willChangeValue(forKey: key)
        fireFault()
        if recordsUndo { noteUndoableChange(at: index) }
        values.set(value, at: index)
        keyHint = Int32(truncatingIfNeeded: index)
        didChangeValue(forKey: key)
    }

    /// How a typed accessor reads `key` (see `_ManagedRead`): for an attribute, after
    /// `willAccessValue(forKey:)` and with the fault fired, where its value lies when it is of
    /// the type whose metadata is `typeWord`; the caller then calls `didAccessValue(forKey:)`.
    /// One call that is not generic, so that reading an `Int16` costs a key lookup, the hooks
    /// and a load. Relationships, unknown keys and key-path probes answer `.general` before any
    /// hook, and are read through `value(forKey:)`.
    @usableFromInline
    final func _managedRead(forKey key: String, typeWord: UInt) -> _ManagedRead {
        guard let index = layout.index(of: key), case .attribute = layout.kinds[index], probe == nil else { return .general }
        willAccessValue(forKey: key)
        if faulted { fireFault() }
        return values.storage.typedRead(at: index, typeWord: typeWord)
    }

    /// A to-many relationship read as `Set<Book>` or `[Chapter]`, made from its members
    /// (`.some`); `nil` for other keys and other types (`NSSet?` and `NSOrderedSet?` are the
    /// relationship's own value, read the general way). Out of line, so that the attribute
    /// reads it sits beside keep a small frame.
    @inlinable @inline(never)
    final func _managedObjectCollection<Value>(forKey key: String) -> Value?? {
        guard let index = _managedToManyIndex(forKey: key) else { return nil }
        guard !ManagedValueBridge.isFoundationSet(Value.self),
            let collection = Value.self as? any _ManagedObjectCollection.Type
        else { return nil }
        willAccessValue(forKey: key)
        defer { didAccessValue(forKey: key) }
        return .some(collection._managedCollection(of: toManyObjects(at: index)) as? Value)
    }

    /// The position of the to-many relationship `key`, or `nil` for any other key and while a
    /// key path is being probed. Asked only when `_managedRead` answered `.general`, so that
    /// attribute reads pay nothing for it.
    @usableFromInline
    final func _managedToManyIndex(forKey key: String) -> Int? {
        guard probe == nil, let index = layout.index(of: key), layout.isToMany(index) else { return nil }
        return index
    }

    /// The word `_managedRead(forKey:typeWord:)` compares with a typed position's: the type's
    /// metadata, a constant once the accessor is specialized.
    @inlinable @inline(__always)
    final func _managedTypeWord<Value>(_ type: Value.Type) -> UInt {
        UInt(bitPattern: unsafeBitCast(Value.self as Any.Type, to: UnsafeRawPointer.self))
    }

    /// The position of an attribute that a typed accessor reads straight from the object's
    /// values, after `willAccessValue(forKey:)` and with the fault fired; the caller then calls
    /// `didAccessValue(forKey:)`. `nil` for relationships, unknown keys and key-path probes,
    /// which are read through `value(forKey:)`. (Core Data's generated accessors, too, read
    /// the object's storage without going through `value(forKey:)`.)
    @usableFromInline
    final func _managedAttributeIndex(forKey key: String) -> Int? {
        guard probe == nil, let index = layout.index(of: key), layout.kinds[index] == .attribute else { return nil }
        willAccessValue(forKey: key)
        fireFault()
        return index
    }

    /// The attribute value at `index` of `values` in the property's Swift type: a value of
    /// exactly that type is read in place (no copy of the existential, no dynamic cast);
    /// `nil` and `NSNull` read as `nil`; other values are cast or converted.
    @inlinable
    final func _managedAttributeValue<Value>(at index: Int, as type: Value.Type) -> Value? {
        if let exact = values.exactValue(at: index, as: Value.self) { return exact }
        guard let raw = Self._managedNonNull(values[index]) else { return nil }
        if let value = raw as? Value { return value }
        return Self._managedConverted(raw, to: Value.self)
    }

    /// The value, unless it is `nil` or `NSNull`.
    @usableFromInline
    static func _managedNonNull(_ value: Any?) -> Any? {
        guard let value, !ManagedValueCoercion.isNull(value) else { return nil }
        return value
    }

    /// A property's value as typed accessors read relationships (and any property while a
    /// key path is being probed): through `value(forKey:)`, `NSNull` as `nil`.
    @usableFromInline
    func _managedStoredValue(forKey key: String) -> Any? {
        guard let value = value(forKey: key), !ManagedValueCoercion.isNull(value) else { return nil }
        return value
    }

    /// A stored value of another representation in a property's Swift type (`NSNumber` to
    /// `Int16`, `NSSet` to `Set<Book>`…), or `nil`.
    @usableFromInline
    static func _managedConverted<Value>(_ raw: Any, to type: Value.Type) -> Value? {
        ManagedValueBridge.cast(raw, to: type)
    }

    /// Sets a property from a typed setter: Swift collections of a to-many relationship
    /// become the objects `setValue(_:forKey:)` expects; other values pass as they are.
    /// An attribute is set as `setValue(_:forKey:)` sets it (`willChangeValue`, the stored
    /// value, `didChangeValue`) without finding the key a second time; like Core Data's
    /// generated setters, it does not go through `setValue(_:forKey:)`.
    @usableFromInline
    func _setManagedStoredValue(_ value: Any?, forKey key: String) {
        guard let index = layout.index(of: key) else { return setValue(value, forKey: key) }
        switch layout.kinds[index] {
        case .toMany:
            setValue(ManagedValueBridge.objectValue(value), forKey: key)
        case .attribute where !layout.properties[index].isReadOnly:
            willChangeValue(forKey: key)
            setPrimitive(value, at: index)
            keyHint = Int32(truncatingIfNeeded: index)
            didChangeValue(forKey: key)
        default:
            setValue(value, forKey: key)
        }
    }
}

/// Primitive accessors (`@Managed var primitiveTitle: String?`): the stored value of a
/// property read and written without access or change notifications, as Core Data's dynamic
/// `primitive<Key>` accessors do (`primitiveValue(forKey:)`, `setPrimitiveValue(_:forKey:)`).
extension NSManagedObject {
    /// The property a primitive accessor names: its key as the macro derived it (`title` from
    /// `primitiveTitle`), else the key as written after `primitive` (`URL` from `primitiveURL`).
    func _primitiveKey(_ key: String) -> String {
        guard layout.index(of: key) == nil, let first = key.first else { return key }
        let written = first.uppercased() + key.dropFirst()
        return layout.index(of: written) == nil ? key : written
    }

    /// The stored value of an optional property, in the property's Swift type.
    public func _managedPrimitiveValue<Value>(forKey key: String) -> Value? {
        ManagedValueBridge.cast(primitiveValue(forKey: _primitiveKey(key)), to: Value.self)
    }

    /// The stored value of a non-optional property with a natural empty value.
    public func _managedPrimitiveValue<Value: _ManagedDefaultValue>(forKey key: String) -> Value {
        ManagedValueBridge.cast(primitiveValue(forKey: _primitiveKey(key)), to: Value.self) ?? Value._managedDefaultValue
    }

    /// The stored value of a non-optional property of any other type; a missing value is a
    /// programming error, as for `_managedValue`.
    @_disfavoredOverload
    public func _managedPrimitiveValue<Value>(forKey key: String) -> Value {
        guard let value = ManagedValueBridge.cast(primitiveValue(forKey: _primitiveKey(key)), to: Value.self) else {
            preconditionFailure("\(entity.name ?? "?").\(key) is nil or not a \(Value.self), but its property is non-optional")
        }
        return value
    }

    /// Sets the stored value, without notifications or inverse maintenance.
    public func _setManagedPrimitiveValue<Value>(_ value: Value?, forKey key: String) {
        setPrimitiveValue(ManagedValueBridge.objectValue(value), forKey: _primitiveKey(key))
    }
}

/// The value in an `Any` whose dynamic type is exactly `Value`, read without the runtime's
/// dynamic cast (`as?` costs a couple of hundred instructions, and typed accessors run once
/// per property read). Only for the types stored in every row: trivial types (numbers,
/// `Bool`, `Date`, `UUID`) and `String`, which all fit an existential's inline buffer, where
/// the value lies at its start. Anything else answers `nil`, and the caller casts.
public enum _ManagedExactValue {
    @inlinable @inline(__always)
    public static func read<Value>(_ raw: Any, as type: Value.Type) -> Value? {
        guard MemoryLayout<Any>.size == 4 * MemoryLayout<Int>.size,
            MemoryLayout<Value>.size <= 3 * MemoryLayout<Int>.size,
            MemoryLayout<Value>.alignment <= MemoryLayout<Int>.alignment,
            _isPOD(Value.self) || Value.self == String.self
        else { return nil }
        return withUnsafePointer(to: raw) { container in
            // An `Any` is three words of value buffer, then the value's type metadata; reading
            // that word costs less than `type(of:)`, which looks through boxed classes too.
            let buffer = UnsafeRawPointer(container)
            let metadata = buffer.load(fromByteOffset: 3 * MemoryLayout<Int>.size, as: UnsafeRawPointer.self)
            guard metadata == unsafeBitCast(Value.self as Any.Type, to: UnsafeRawPointer.self) else { return nil }
            return buffer.load(as: Value.self)
        }
    }
}

/// Types whose missing value reads as a natural empty value in non-optional properties.
public protocol _ManagedDefaultValue {
    static var _managedDefaultValue: Self { get }
}

extension Int: _ManagedDefaultValue { public static var _managedDefaultValue: Int { 0 } }
extension Int16: _ManagedDefaultValue { public static var _managedDefaultValue: Int16 { 0 } }
extension Int32: _ManagedDefaultValue { public static var _managedDefaultValue: Int32 { 0 } }
extension Int64: _ManagedDefaultValue { public static var _managedDefaultValue: Int64 { 0 } }
extension Double: _ManagedDefaultValue { public static var _managedDefaultValue: Double { 0 } }
extension Float: _ManagedDefaultValue { public static var _managedDefaultValue: Float { 0 } }
extension Bool: _ManagedDefaultValue { public static var _managedDefaultValue: Bool { false } }
extension Decimal: _ManagedDefaultValue { public static var _managedDefaultValue: Decimal { 0 } }
extension String: _ManagedDefaultValue { public static var _managedDefaultValue: String { "" } }
extension Data: _ManagedDefaultValue { public static var _managedDefaultValue: Data { Data() } }
extension Set: _ManagedDefaultValue { public static var _managedDefaultValue: Set<Element> { [] } }
extension Array: _ManagedDefaultValue { public static var _managedDefaultValue: [Element] { [] } }

/// Conversions between stored values and the Swift types of properties.
@usableFromInline
enum ManagedValueBridge {
    /// Whether `type` is one of the sets Xcode types to-many accessors with (`NSSet`,
    /// `NSOrderedSet`), which pass as the relationship's own value: told by identity, since
    /// asking the runtime whether a type conforms to a protocol costs thousands of instructions.
    @inlinable
    static func isFoundationSet(_ type: Any.Type) -> Bool {
        let type = ObjectIdentifier(type)
        return type == ObjectIdentifier(NSSet.self) || type == ObjectIdentifier(NSOrderedSet.self)
    }

    static func cast<Value>(_ raw: Any?, to type: Value.Type) -> Value? {
        guard let raw, !ManagedValueCoercion.isNull(raw) else { return nil }
        if let value = raw as? Value { return value }
        if let convertible = type as? _ManagedConvertible.Type, let value = convertible._fromManagedValue(raw) {
            return value as? Value
        }
        return nil
    }

    /// The stored form of a Swift value: Swift collections of objects become
    /// `NSSet`/`NSOrderedSet` in `setPrimitiveValue`, so arrays and sets pass as they are.
    static func objectValue<Value>(_ value: Value?) -> Any? {
        guard let value else { return nil }
        // The sets of `NSSet?`/`NSOrderedSet?` properties pass as they are, told by their type
        // (at every assignment of an import's to-dos' tags).
        if isFoundationSet(Swift.type(of: value as Any)) { return value }
        if let set = value as? any _ManagedCollection { return set._managedObjects }
        return value
    }
}

/// Swift types that can be built from a stored value of another representation.
protocol _ManagedConvertible {
    static func _fromManagedValue(_ raw: Any) -> Any?
}

/// The Swift collections a typed to-many accessor reads (`Set<Book>`, `[Chapter]`): made from
/// the relationship's members, each cast to the element's class. An `NSSet` made and bridged to
/// `Set<Book>` cost about 3,900 instructions an element on Linux (Foundation boxes and casts each
/// object as it builds the set and again as it enumerates it); this costs the set's hashing.
public protocol _ManagedObjectCollection {
    static func _managedCollection(of objects: [NSManagedObject]) -> Self
}

extension Set: _ManagedObjectCollection where Element: NSManagedObject {
    public static func _managedCollection(of objects: [NSManagedObject]) -> Set<Element> {
        var set = Set(minimumCapacity: objects.count)
        for object in objects {
            if let element = object as? Element { set.insert(element) }
        }
        return set
    }
}

extension Array: _ManagedObjectCollection where Element: NSManagedObject {
    /// In the relationship's order when it is ordered.
    public static func _managedCollection(of objects: [NSManagedObject]) -> [Element] {
        objects.compactMap { $0 as? Element }
    }
}

/// Swift collections stored as `NSSet`/`NSOrderedSet`.
protocol _ManagedCollection {
    var _managedObjects: [Any] { get }
}

extension Set: _ManagedConvertible, _ManagedCollection {
    static func _fromManagedValue(_ raw: Any) -> Any? {
        let objects: [Any]
        switch raw {
        case let set as NSSet: objects = set.allObjects
        case let set as NSOrderedSet: objects = set.array
        default: return nil
        }
        return Set(objects.compactMap { $0 as? Element })
    }
    var _managedObjects: [Any] { Array(self) }
}

extension Array: _ManagedConvertible, _ManagedCollection {
    static func _fromManagedValue(_ raw: Any) -> Any? {
        switch raw {
        case let set as NSOrderedSet: return set.array.compactMap { $0 as? Element }
        case let set as NSSet: return set.allObjects.compactMap { $0 as? Element }
        default: return nil
        }
    }
    var _managedObjects: [Any] { self }
}

extension Int: _ManagedConvertible {
    static func _fromManagedValue(_ raw: Any) -> Any? { NumberValue.int64(raw).flatMap { Int(exactly: $0) } }
}
extension Int16: _ManagedConvertible {
    static func _fromManagedValue(_ raw: Any) -> Any? { NumberValue.int64(raw).flatMap { Int16(exactly: $0) } }
}
extension Int32: _ManagedConvertible {
    static func _fromManagedValue(_ raw: Any) -> Any? { NumberValue.int64(raw).flatMap { Int32(exactly: $0) } }
}
extension Int64: _ManagedConvertible {
    static func _fromManagedValue(_ raw: Any) -> Any? { NumberValue.int64(raw) }
}
extension Double: _ManagedConvertible {
    static func _fromManagedValue(_ raw: Any) -> Any? { NumberValue.double(raw) }
}
extension Float: _ManagedConvertible {
    static func _fromManagedValue(_ raw: Any) -> Any? { NumberValue.double(raw).map { Float($0) } }
}
extension Bool: _ManagedConvertible {
    static func _fromManagedValue(_ raw: Any) -> Any? { NumberValue.int64(raw).map { $0 != 0 } }
}
extension Decimal: _ManagedConvertible {
    static func _fromManagedValue(_ raw: Any) -> Any? {
        ManagedValueCoercion.attributeValue(raw, type: .decimalAttributeType)
    }
}
extension NSNumber: _ManagedConvertible {
    static func _fromManagedValue(_ raw: Any) -> Any? {
        switch raw {
        case let value as Bool: NSNumber(value: value)
        case let value as Decimal: NSDecimalNumber(decimal: value)
        case let value as Double: NSNumber(value: value)
        case let value as Float: NSNumber(value: value)
        default: NumberValue.int64(raw).map { NSNumber(value: $0) }
        }
    }
}

/// Numbers in any of their stored forms.
enum NumberValue {
    static func int64(_ raw: Any) -> Int64? {
        ManagedValueCoercion.attributeValue(raw, type: .integer64AttributeType) as? Int64
    }

    static func double(_ raw: Any) -> Double? {
        ManagedValueCoercion.attributeValue(raw, type: .doubleAttributeType) as? Double
    }
}

/// What `_managedRead(forKey:typeWord:)` found.
@usableFromInline
enum _ManagedRead {
    /// A value of the accessor's type, at this address in the object's values: the caller
    /// loads it before anything else runs.
    case typed(UnsafeRawPointer)
    /// The attribute has no value.
    case absent
    /// The attribute at this position holds a value of another type, which the caller casts.
    case other(Int)
    /// Not an attribute read in place; no hook was called.
    case general
}
