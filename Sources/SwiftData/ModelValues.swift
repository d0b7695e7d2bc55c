import Foundation
import Strata

/// Attribute values between a model's Swift properties and the object's stored values.
@usableFromInline
enum ModelValues {
    /// Whether the store keeps values of the type as they are, so that the object's typed
    /// accessors read and write them with no conversion (the common attribute types; a
    /// constant once an accessor is specialised). Every type it names is one that
    /// `StoredValueType` stores plainly; others answer false and take the general path,
    /// which gives the same values.
    @inlinable @inline(__always)
    static func isStoredAsIs<Value>(_: Value.Type) -> Bool {
        let type = ObjectIdentifier(Value.self)
        return type == ObjectIdentifier(Int.self) || type == ObjectIdentifier(Int64.self)
            || type == ObjectIdentifier(Int32.self) || type == ObjectIdentifier(Int16.self)
            || type == ObjectIdentifier(Double.self) || type == ObjectIdentifier(Float.self)
            || type == ObjectIdentifier(Bool.self) || type == ObjectIdentifier(String.self)
            || type == ObjectIdentifier(Date.self) || type == ObjectIdentifier(Data.self)
            || type == ObjectIdentifier(UUID.self) || type == ObjectIdentifier(URL.self)
            || type == ObjectIdentifier(Decimal.self)
    }

    /// The value of an attribute in the property's type: through the object's typed storage,
    /// with Strata's conversions (`Int` from an Integer 64…); a `Codable` value of another
    /// kind from the data it is stored as.
    static func read<Value>(_ object: NSManagedObject, _ key: String, as type: Value.Type) -> Value? {
        if let value: Value = object._managedValue(forKey: key) { return value }
        if let raw = Value.self as? any RawRepresentable.Type, StoredValueType.isPrimitive(raw._rawValueType) {
            return raw._read(from: object, key) as? Value
        }
        guard let decodable = Value.self as? any Decodable.Type, !StoredValueType.isPrimitive(Value.self) else {
            return nil
        }
        if let composite = object.entity.compositeAttribute(named: key) {
            guard let dictionary = CompositeValues.dictionary(object.value(forKey: key)) else { return nil }
            return (try? CompositeCoding.decode(decodable, from: dictionary, as: composite)) as? Value
        }
        guard let data: Data = object._managedValue(forKey: key) else { return nil }
        return CodableValues.decode(decodable, from: data) as? Value
    }

    /// Sets an attribute: a `Codable` value of a type the store has no column type for is
    /// stored as its encoding.
    static func write<Value>(_ value: Value?, to object: NSManagedObject, _ key: String) {
        guard let value else {
            object._setManagedValue(nil as Value?, forKey: key)
            return
        }
        if writeConverted(value, of: Value.self, to: object, key) { return }
        object._setManagedValue(value, forKey: key)
    }

    /// Sets an attribute from a value of any type (one set before insertion).
    static func writeAny(_ value: Any, to object: NSManagedObject, _ key: String) {
        if writeConverted(value, of: type(of: value), to: object, key) { return }
        object.setValue(value, forKey: key)
    }

    /// Writes a value of a type the store keeps in another form — an enumeration's raw value,
    /// another `Codable` value's encoding — and says so; false for a value stored as it is.
    private static func writeConverted(_ value: Any, of type: Any.Type, to object: NSManagedObject, _ key: String) -> Bool {
        guard !StoredValueType.isPrimitive(type) else { return false }
        if let raw = value as? any RawRepresentable, StoredValueType.isPrimitive(Swift.type(of: raw)._rawValueType) {
            raw._write(to: object, key)
            return true
        }
        if let composite = object.entity.compositeAttribute(named: key) {
            // A value that does not encode as the composite's elements is left as it is, for the
            // save to refuse with a validation error naming the attribute.
            guard let encodable = value as? any Encodable,
                let dictionary = try? CompositeCoding.encode(encodable, as: composite)
            else { return false }
            object.setValue(dictionary, forKey: key)
            return true
        }
        guard let data = CodableValues.encode(value) else { return false }
        object._setManagedValue(data, forKey: key)
        return true
    }

    /// A stored value (as a row or a history tombstone keeps it) as a value of a property's
    /// type: numbers converted, an enumeration from its raw value, a `Codable` value from its
    /// composite's dictionary or its encoding; `nil` when it is none of these.
    static func value(fromStored stored: Any, as type: Any.Type) -> Any? {
        if Swift.type(of: stored) == type { return stored }
        if let number = PlainNumbers.convert(stored, toType: type) { return number }
        if let raw = type as? any RawRepresentable.Type, StoredValueType.isPrimitive(raw._rawValueType) {
            return PlainNumbers.convert(stored, toType: raw._rawValueType).flatMap { raw._make(rawValue: $0) }
                ?? raw._make(rawValue: stored)
        }
        guard let decodable = type as? any Decodable.Type else { return nil }
        if let dictionary = CompositeValues.dictionary(stored), let shape = StoredValueType.of(type).composite {
            return try? CompositeCoding.decode(
                decodable, from: dictionary, as: CompositeCoding.description(of: shape, name: ""))
        }
        return (stored as? Data).flatMap { CodableValues.decode(decodable, from: $0) }
    }

    /// What a non-optional property reads when its row has no value (or a value that does not
    /// decode as the property's type): the property's initial value when it has one, else the
    /// type's empty value. Only a type with neither stops the program.
    static func emptyValue<Value>(of type: Value.Type, in model: any PersistentModel.Type, key: String) -> Value {
        let info = ModelTypeInfo.of(model)
        if let initial = info.propertiesByName[key]?.defaultValue as? Value { return initial }
        if let empty = Value.self as? any _ManagedDefaultValue.Type, let value = empty._managedDefaultValue as? Value {
            return value
        }
        if Value.self == Date.self, let date = Date(timeIntervalSinceReferenceDate: 0) as? Value { return date }
        if Value.self == UUID.self, let uuid = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) as? Value {
            return uuid
        }
        preconditionFailure("\(info.entityName).\(key) has no value, and \(Value.self) has no initial or empty value")
    }
}

/// `Codable` values the store has no column type for (arrays and sets of values, structs), as
/// a binary property list, as SwiftData stores collections of values.
enum CodableValues {
    static func encode(_ value: Any) -> Data? {
        guard let encodable = value as? any Encodable else { return nil }
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        if let data = try? encoder.encode(encodable) { return data }
        return try? encoder.encode(Wrapper(value: encodable))
    }

    static func decode(_ type: any Decodable.Type, from data: Data) -> Any? {
        func decode<T: Decodable>(_: T.Type) -> Any? {
            if let value = try? PropertyListDecoder().decode(T.self, from: data) { return value }
            return try? PropertyListDecoder().decode(Unwrapper<T>.self, from: data).value
        }
        return decode(type)
    }

    /// A property list's top level is a dictionary or an array: a value that encodes as a
    /// single number or string (a custom `Codable`) is kept under a key.
    private struct Wrapper: Encodable {
        let value: any Encodable
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(value, forKey: .value)
        }
    }

    private struct Unwrapper<T: Decodable>: Decodable {
        let value: T
        init(from decoder: any Decoder) throws {
            value = try decoder.container(keyedBy: Key.self).decode(T.self, forKey: .value)
        }
    }

    private enum Key: String, CodingKey { case value = "v" }
}

extension RawRepresentable {
    static var _rawValueType: Any.Type { RawValue.self }
    var _rawValueAsAny: Any { rawValue }

    /// The value of the raw value stored under the key, if it is one of the type's.
    static func _read(from object: NSManagedObject, _ key: String) -> Self? {
        let raw: RawValue? = object._managedValue(forKey: key)
        return raw.flatMap(Self.init(rawValue:))
    }

    func _write(to object: NSManagedObject, _ key: String) {
        object._setManagedValue(rawValue, forKey: key)
    }
}

extension StoredValueType {
    /// Whether values of the type are stored as they are (a column type of their own): the
    /// common types told by identity, others by `of(_:)`, which tries each type in turn and
    /// makes a conversion closure.
    static func isPrimitive(_ type: Any.Type) -> Bool {
        if commonPlainTypes.contains(ObjectIdentifier(type)) { return true }
        return of(type).isPlain
    }

    private static let commonPlainTypes: Set<ObjectIdentifier> = [
        ObjectIdentifier(Int.self), ObjectIdentifier(Int64.self), ObjectIdentifier(Int32.self),
        ObjectIdentifier(Int16.self), ObjectIdentifier(Double.self), ObjectIdentifier(Float.self),
        ObjectIdentifier(Bool.self), ObjectIdentifier(String.self), ObjectIdentifier(Date.self),
        ObjectIdentifier(Data.self), ObjectIdentifier(UUID.self), ObjectIdentifier(URL.self),
        ObjectIdentifier(Decimal.self),
    ]
}
