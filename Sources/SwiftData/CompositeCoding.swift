import Foundation
import Strata

/// `Codable` structs stored as composite attributes, as SwiftData stores them: one element per
/// value the struct's `Codable` conformance writes under a key (a nested struct a nested
/// composite), so that each lands in a column of the entity's table. A type is a composite when
/// decoding it asks for a keyed container; its elements are found without an instance, by
/// decoding one from a decoder that records the keys and types asked for and answers with
/// placeholder values. Types that ask for another kind of container (arrays, sets,
/// dictionaries, single values), and types the recording cannot make a value of, keep being
/// stored as their binary property list.
enum CompositeCoding {
    /// What a composite type is made of.
    struct Shape {
        var typeName: String
        var elements: [Element]
    }

    struct Element {
        var name: String
        var isOptional: Bool
        var kind: Kind
    }

    enum Kind {
        /// A value stored as it is, or as its raw value: the attribute type.
        case leaf(NSAttributeType)
        /// A nested composite.
        case composite(Shape)
        /// A value with no column type of its own (an array, a set…): its binary property list.
        case encoded
    }

    /// The shape of a type stored as a composite; `nil` for a type that is not one. Found once
    /// per type.
    /// (Asked by `StoredValueType.of(_:)` for the types it does not store as they are.)
    static func shape(of type: Any.Type) -> Shape? {
        let key = ObjectIdentifier(type)
        if let known = shapes.withLock({ $0[key] }) { return known }
        let found = discover(type)
        shapes.withLock { $0[key] = .some(found) }
        return found
    }

    private static let shapes = ShapeCache()

    private final class ShapeCache: @unchecked Sendable {
        private let lock = NSLock()
        private var shapes: [ObjectIdentifier: Shape?] = [:]

        func withLock<T>(_ body: (inout [ObjectIdentifier: Shape?]) -> T) -> T {
            lock.lock()
            defer { lock.unlock() }
            return body(&shapes)
        }
    }

    private static func discover(_ type: Any.Type) -> Shape? {
        guard let decodable = type as? any Decodable.Type, type is any Encodable.Type, !(type is any Collection.Type)
        else { return nil }
        if let raw = type as? any RawRepresentable.Type, StoredValueType.isPrimitive(raw._rawValueType) { return nil }
        let recorder = ShapeRecorder(depth: 0)
        guard let placeholder = try? decodable.init(from: recorder), recorder.asked == .keyed, !recorder.elements.isEmpty
        else { return nil }
        let shape = Shape(typeName: String(describing: type), elements: recorder.elements)
        // What is written must read back: the placeholder goes through the composite coders.
        let description = description(of: shape, name: "_")
        guard let encodable = placeholder as? any Encodable,
            let dictionary = try? encode(encodable, as: description),
            (try? decode(decodable, from: dictionary, as: description)) != nil
        else { return nil }
        return shape
    }

    /// The composite attribute description of a shape (its elements, its type's name).
    static func description(of shape: Shape, name: String) -> NSCompositeAttributeDescription {
        let composite = NSCompositeAttributeDescription()
        composite.name = name
        composite.compositeTypeName = shape.typeName
        composite.elements = shape.elements.map { element in
            let attribute: NSAttributeDescription
            switch element.kind {
            case .leaf(let type):
                attribute = NSAttributeDescription()
                attribute.attributeType = type
            case .composite(let nested):
                attribute = description(of: nested, name: element.name)
            case .encoded:
                attribute = NSAttributeDescription()
                attribute.attributeType = .binaryDataAttributeType
            }
            attribute.name = element.name
            attribute.isOptional = element.isOptional
            return attribute
        }
        return composite
    }

    // MARK: Values

    /// A value as the composite's dictionary of stored element values.
    static func encode(_ value: any Encodable, as composite: NSCompositeAttributeDescription) throws -> [String: Any] {
        let encoder = CompositeEncoder(composite: composite)
        try value.encode(to: encoder)
        return encoder.box.values
    }

    /// A value of `type` from the composite's dictionary.
    static func decode(
        _ type: any Decodable.Type, from dictionary: [String: Any], as composite: NSCompositeAttributeDescription
    ) throws -> Any {
        func open<T: Decodable>(_: T.Type) throws -> Any {
            try T(from: CompositeDecoder(dictionary: dictionary, composite: composite, codingPath: []))
        }
        return try open(type)
    }

    /// An element's value in its stored form (`Int` as `Int64`, an enumeration as its raw value,
    /// an encoded element as its property list); `nil` when it has none.
    fileprivate static func stored(_ value: Any, for element: NSAttributeDescription) throws -> Any? {
        if let nested = element as? NSCompositeAttributeDescription {
            guard let encodable = value as? any Encodable else { return nil }
            return try encode(encodable, as: nested)
        }
        if element.attributeType == .binaryDataAttributeType, !(value is Data) {
            return CodableValues.encode(value)
        }
        if let raw = value as? any RawRepresentable, StoredValueType.isPrimitive(type(of: raw)._rawValueType) {
            return StoredValueType.of(type(of: raw)._rawValueType).storedValue(raw._rawValueAsAny)
        }
        return StoredValueType.of(type(of: value)).storedValue(value)
    }

    /// An element's value as `type`, from its stored form.
    fileprivate static func value<T: Decodable>(
        _ type: T.Type, from stored: Any, element: NSAttributeDescription, codingPath: [any CodingKey]
    ) throws -> T {
        func mismatch() -> DecodingError {
            .typeMismatch(
                T.self, .init(codingPath: codingPath, debugDescription: "the stored value is \(Swift.type(of: stored))"))
        }
        if let nested = element as? NSCompositeAttributeDescription {
            guard let dictionary = CompositeValues.dictionary(stored) else { throw mismatch() }
            return try T(from: CompositeDecoder(dictionary: dictionary, composite: nested, codingPath: codingPath))
        }
        if let plain = PlainNumbers.convert(stored, to: T.self) { return plain }
        if let raw = T.self as? any RawRepresentable.Type, StoredValueType.isPrimitive(raw._rawValueType) {
            guard let rawValue = PlainNumbers.convert(stored, toType: raw._rawValueType),
                let value = raw._make(rawValue: rawValue) as? T
            else { throw mismatch() }
            return value
        }
        if element.attributeType == .binaryDataAttributeType, T.self != Data.self, let data = stored as? Data,
            let value = CodableValues.decode(T.self, from: data) as? T
        {
            return value
        }
        throw mismatch()
    }
}

extension RawRepresentable {
    /// A value of the type from a raw value of any type, when it is one of the type's.
    static func _make(rawValue: Any) -> Self? {
        (rawValue as? RawValue).flatMap(Self.init(rawValue:))
    }
}

extension CaseIterable {
    fileprivate static var _firstCase: Any? { allCases.first }
}

/// Conversions between the stored forms of numbers and the Swift types elements have.
enum PlainNumbers {
    static func convert<T>(_ stored: Any, to type: T.Type) -> T? {
        if let value = stored as? T { return value }
        return convert(stored, toType: T.self) as? T
    }

    static func convert(_ stored: Any, toType type: Any.Type) -> Any? {
        if Swift.type(of: stored) == type { return stored }
        func integer() -> Int64? {
            switch stored {
            case let value as Int64: value
            case let value as Int: Int64(value)
            case let value as Int32: Int64(value)
            case let value as Int16: Int64(value)
            case let value as Bool: value ? 1 : 0
            case let value as Double: Int64(exactly: value.rounded(.towardZero))
            case let value as NSNumber: value.int64Value
            default: nil
            }
        }
        func floating() -> Double? {
            switch stored {
            case let value as Double: value
            case let value as Float: Double(value)
            case let value as Int64: Double(value)
            case let value as NSNumber: value.doubleValue
            default: nil
            }
        }
        switch type {
        case is Int.Type: return integer().flatMap { Int(exactly: $0) }
        case is Int64.Type: return integer()
        case is Int32.Type: return integer().flatMap { Int32(exactly: $0) }
        case is Int16.Type: return integer().flatMap { Int16(exactly: $0) }
        case is Int8.Type: return integer().flatMap { Int8(exactly: $0) }
        case is UInt.Type: return integer().map { UInt(truncatingIfNeeded: $0) }
        case is UInt64.Type: return integer().map { UInt64(truncatingIfNeeded: $0) }
        case is UInt32.Type: return integer().flatMap { UInt32(exactly: $0) }
        case is UInt16.Type: return integer().flatMap { UInt16(exactly: $0) }
        case is UInt8.Type: return integer().flatMap { UInt8(exactly: $0) }
        case is Bool.Type: return integer().map { $0 != 0 }
        case is Double.Type: return floating()
        case is Float.Type: return floating().map { Float($0) }
        default: return nil
        }
    }
}

// MARK: - Finding a type's elements

/// A decoder that makes a value of a type from placeholders and notes, for each key the type
/// decodes, the element it stands for.
private final class ShapeRecorder: Decoder {
    enum Container { case keyed, unkeyed, single }

    let depth: Int
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] = [:]
    var asked: Container?
    var elements: [CompositeCoding.Element] = []
    /// The key whose value was last asked whether it is nil.
    var askedNil: String?

    init(depth: Int) { self.depth = depth }

    struct Unsupported: Error {}

    func container<Key: CodingKey>(keyedBy _: Key.Type) throws -> KeyedDecodingContainer<Key> {
        if asked == nil { asked = .keyed }
        return KeyedDecodingContainer(ShapeKeyedContainer<Key>(recorder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        if asked == nil { asked = .unkeyed }
        return EmptyUnkeyedContainer(codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        if asked == nil { asked = .single }
        return PlaceholderSingleValue(codingPath: codingPath)
    }

    func note(_ name: String, optional: Bool, _ kind: CompositeCoding.Kind) {
        guard !elements.contains(where: { $0.name == name }) else { return }
        elements.append(CompositeCoding.Element(name: name, isOptional: optional, kind: kind))
    }

    /// A placeholder of `type` for the key, noting the element it stands for.
    func placeholder<T: Decodable>(_ type: T.Type, forKey key: String, optional: Bool) throws -> T {
        if let value = PlaceholderValues.plain(T.self) {
            note(key, optional: optional, .leaf(StoredValueType.of(T.self).attributeType))
            return value
        }
        if let raw = T.self as? any RawRepresentable.Type, StoredValueType.isPrimitive(raw._rawValueType) {
            let value = (T.self as? any CaseIterable.Type)?._firstCase as? T
            guard let value = value ?? (try? T(from: ShapeRecorder(depth: depth + 1))) else { throw Unsupported() }
            note(key, optional: optional, .leaf(StoredValueType.of(raw._rawValueType).attributeType))
            return value
        }
        guard depth < CompositeValues.depthLimit else { throw Unsupported() }
        let nested = ShapeRecorder(depth: depth + 1)
        let value = try T(from: nested)
        if nested.asked == .keyed, !(T.self is any Collection.Type), !nested.elements.isEmpty {
            note(key, optional: optional, .composite(.init(typeName: String(describing: T.self), elements: nested.elements)))
        } else {
            note(key, optional: optional, .encoded)
        }
        return value
    }
}

private struct ShapeKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let recorder: ShapeRecorder
    var codingPath: [any CodingKey] { recorder.codingPath }
    var allKeys: [Key] { [] }

    func contains(_: Key) -> Bool { true }

    /// Asked by `decodeIfPresent` (the standard library's for the common types, before their
    /// `decode`): the value it then decodes is optional.
    func decodeNil(forKey key: Key) throws -> Bool {
        recorder.askedNil = key.stringValue
        return false
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let optional = recorder.askedNil == key.stringValue
        recorder.askedNil = nil
        return try recorder.placeholder(T.self, forKey: key.stringValue, optional: optional)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try recorder.placeholder(T.self, forKey: key.stringValue, optional: true)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy _: NestedKey.Type, forKey _: Key
    ) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        throw ShapeRecorder.Unsupported()
    }

    func nestedUnkeyedContainer(forKey _: Key) throws -> any UnkeyedDecodingContainer {
        throw ShapeRecorder.Unsupported()
    }

    func superDecoder() throws -> any Decoder { throw ShapeRecorder.Unsupported() }
    func superDecoder(forKey _: Key) throws -> any Decoder { throw ShapeRecorder.Unsupported() }
}

/// Placeholder values of the types stored as they are.
private enum PlaceholderValues {
    static func plain<T>(_ type: T.Type) -> T? {
        let value: Any? =
            switch type {
            case is String.Type: ""
            case is Bool.Type: false
            case is Int.Type: 0 as Int
            case is Int64.Type: 0 as Int64
            case is Int32.Type: 0 as Int32
            case is Int16.Type: 0 as Int16
            case is Int8.Type: 0 as Int8
            case is UInt.Type: 0 as UInt
            case is UInt64.Type: 0 as UInt64
            case is UInt32.Type: 0 as UInt32
            case is UInt16.Type: 0 as UInt16
            case is UInt8.Type: 0 as UInt8
            case is Double.Type: 0 as Double
            case is Float.Type: 0 as Float
            case is Date.Type: Date(timeIntervalSinceReferenceDate: 0)
            case is Data.Type: Data()
            case is UUID.Type: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
            case is URL.Type: URL(string: "about:blank")
            case is Decimal.Type: Decimal(0)
            default: nil
            }
        return value as? T
    }
}

private struct PlaceholderSingleValue: SingleValueDecodingContainer {
    let codingPath: [any CodingKey]
    func decodeNil() -> Bool { false }
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        guard let value = PlaceholderValues.plain(T.self) else { throw ShapeRecorder.Unsupported() }
        return value
    }
}

private struct EmptyUnkeyedContainer: UnkeyedDecodingContainer {
    let codingPath: [any CodingKey]
    var count: Int? { 0 }
    var isAtEnd: Bool { true }
    var currentIndex: Int { 0 }
    mutating func decodeNil() throws -> Bool { throw ShapeRecorder.Unsupported() }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { throw ShapeRecorder.Unsupported() }
    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy _: NestedKey.Type
    ) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        throw ShapeRecorder.Unsupported()
    }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { throw ShapeRecorder.Unsupported() }
    mutating func superDecoder() throws -> any Decoder { throw ShapeRecorder.Unsupported() }
}

// MARK: - Encoding

/// What a value's keyed container writes: the stored values by element name.
private final class CompositeBox {
    var values: [String: Any] = [:]
}

private struct CompositeCodingError: Error, CustomStringConvertible {
    let description: String
}

/// Encodes a value into the dictionary of a composite: a keyed container whose keys are the
/// composite's elements.
private final class CompositeEncoder: Encoder {
    let composite: NSCompositeAttributeDescription
    let box = CompositeBox()
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] = [:]

    init(composite: NSCompositeAttributeDescription) { self.composite = composite }

    func container<Key: CodingKey>(keyedBy _: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(CompositeKeyedEncoder<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        UnsupportedUnkeyedEncoder(codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        UnsupportedSingleValueEncoder(codingPath: codingPath)
    }
}

private struct CompositeKeyedEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: CompositeEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil(forKey key: Key) throws { encoder.box.values[key.stringValue] = nil }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        guard let element = encoder.composite.elements.first(where: { $0.name == key.stringValue }) else {
            throw CompositeCodingError(description: "\(key.stringValue) is not an element of \(encoder.composite.name)")
        }
        encoder.box.values[key.stringValue] = try CompositeCoding.stored(value, for: element)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy _: NestedKey.Type, forKey key: Key
    )
        -> KeyedEncodingContainer<NestedKey>
    {
        // Not a shape a composite has: what it writes is not kept, and `encode` then fails
        // through the unsupported containers of a nested encoder.
        let nested = CompositeEncoder(composite: NSCompositeAttributeDescription())
        return nested.container(keyedBy: NestedKey.self)
    }

    mutating func nestedUnkeyedContainer(forKey _: Key) -> any UnkeyedEncodingContainer {
        UnsupportedUnkeyedEncoder(codingPath: codingPath)
    }

    mutating func superEncoder() -> any Encoder { CompositeEncoder(composite: NSCompositeAttributeDescription()) }
    mutating func superEncoder(forKey _: Key) -> any Encoder {
        CompositeEncoder(composite: NSCompositeAttributeDescription())
    }
}

/// The containers a composite cannot hold: every write throws.
private struct UnsupportedUnkeyedEncoder: UnkeyedEncodingContainer {
    let codingPath: [any CodingKey]
    var count: Int { 0 }
    private func refuse() -> CompositeCodingError {
        CompositeCodingError(description: "a composite holds keyed values, not an unkeyed list")
    }
    mutating func encodeNil() throws { throw refuse() }
    mutating func encode<T: Encodable>(_: T) throws { throw refuse() }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy _: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        CompositeEncoder(composite: NSCompositeAttributeDescription()).container(keyedBy: NestedKey.self)
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
    mutating func superEncoder() -> any Encoder { CompositeEncoder(composite: NSCompositeAttributeDescription()) }
}

private struct UnsupportedSingleValueEncoder: SingleValueEncodingContainer {
    let codingPath: [any CodingKey]
    private func refuse() -> CompositeCodingError {
        CompositeCodingError(description: "a composite holds keyed values, not a single value")
    }
    mutating func encodeNil() throws { throw refuse() }
    mutating func encode<T: Encodable>(_: T) throws { throw refuse() }
}

// MARK: - Decoding

private struct CompositeDecoder: Decoder {
    let dictionary: [String: Any]
    let composite: NSCompositeAttributeDescription
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy _: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(CompositeKeyedDecoder<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch(
            [Any].self, .init(codingPath: codingPath, debugDescription: "a composite holds keyed values"))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw DecodingError.typeMismatch(
            Any.self, .init(codingPath: codingPath, debugDescription: "a composite holds keyed values"))
    }
}

private struct CompositeKeyedDecoder<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: CompositeDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }
    var allKeys: [Key] { decoder.dictionary.keys.compactMap { Key(stringValue: $0) } }

    private func stored(_ key: Key) -> Any? {
        guard let value = decoder.dictionary[key.stringValue], !(value is NSNull) else { return nil }
        return value
    }

    func contains(_ key: Key) -> Bool { stored(key) != nil }
    func decodeNil(forKey key: Key) throws -> Bool { stored(key) == nil }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        guard let value = stored(key) else {
            throw DecodingError.keyNotFound(
                key, .init(codingPath: codingPath, debugDescription: "the composite has no value for \(key.stringValue)"))
        }
        guard let element = decoder.composite.elements.first(where: { $0.name == key.stringValue }) else {
            throw DecodingError.keyNotFound(
                key, .init(codingPath: codingPath, debugDescription: "\(key.stringValue) is not an element"))
        }
        return try CompositeCoding.value(T.self, from: value, element: element, codingPath: codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy _: NestedKey.Type, forKey key: Key
    ) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no nested containers"))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no nested containers"))
    }

    func superDecoder() throws -> any Decoder {
        throw DecodingError.typeMismatch(Any.self, .init(codingPath: codingPath, debugDescription: "no super decoder"))
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no super decoder"))
    }
}
