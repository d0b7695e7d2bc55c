import Foundation
import Strata

/// Attribute values between a model's Swift properties and the object's stored values.
enum ModelValues {
    /// The value of an attribute in the property's type: through the object's typed storage,
    /// with Strata's conversions (`Int` from an Integer 64…); a `Codable` value of another
    /// kind from the data it is stored as.
    static func read<Value>(_ object: NSManagedObject, _ key: String, as type: Value.Type) -> Value? {
        if let value: Value = object._managedValue(forKey: key) { return value }
        guard let decodable = Value.self as? any Decodable.Type, !StoredValueType.isPrimitive(Value.self),
            let data: Data = object._managedValue(forKey: key)
        else { return nil }
        return CodableValues.decode(decodable, from: data) as? Value
    }

    /// Sets an attribute: a `Codable` value of a type the store has no column type for is
    /// stored as its encoding.
    static func write<Value>(_ value: Value?, to object: NSManagedObject, _ key: String) {
        guard let value else {
            object._setManagedValue(nil as Value?, forKey: key)
            return
        }
        if !StoredValueType.isPrimitive(Value.self), let data = CodableValues.encode(value) {
            object._setManagedValue(data, forKey: key)
            return
        }
        object._setManagedValue(value, forKey: key)
    }

    /// Sets an attribute from a value of any type (one set before insertion).
    static func writeAny(_ value: Any, to object: NSManagedObject, _ key: String) {
        if !StoredValueType.isPrimitive(type(of: value)), let data = CodableValues.encode(value) {
            object.setValue(data, forKey: key)
            return
        }
        object.setValue(value, forKey: key)
    }

    /// What a non-optional property reads when its row has no value.
    static func emptyValue<Value>(of type: Value.Type, entity: String, key: String) -> Value {
        if let empty = Value.self as? any _ManagedDefaultValue.Type, let value = empty._managedDefaultValue as? Value {
            return value
        }
        if Value.self == Date.self, let date = Date(timeIntervalSinceReferenceDate: 0) as? Value { return date }
        if Value.self == UUID.self, let uuid = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) as? Value {
            return uuid
        }
        preconditionFailure("\(entity).\(key) has no value, but its property is non-optional")
    }
}

/// `Codable` values the store has no column type for, as data.
enum CodableValues {
    static func encode(_ value: Any) -> Data? {
        guard let encodable = value as? any Encodable else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try? encoder.encode(encodable)
    }

    static func decode(_ type: any Decodable.Type, from data: Data) -> Any? {
        try? JSONDecoder().decode(type, from: data)
    }
}

extension StoredValueType {
    /// Whether values of the type are stored as they are (a column type of their own).
    static func isPrimitive(_ type: Any.Type) -> Bool {
        of(type).attributeType != .binaryDataAttributeType || type == Data.self
    }
}
