import Foundation

/// Brings values set through key-value coding to the form stored for a property: integers
/// to the attribute's width, numbers from `NSNumber`, strings from `NSString`, to-many
/// relationships to `NSSet`/`NSOrderedSet`. Values that do not fit are kept as given, for
/// validation to report at save.
enum ManagedValueCoercion {
    /// Whether a value is `NSNull`, told by its type: `value is NSNull` would first bridge a
    /// Swift number to an `NSNumber` (an allocation on Linux) to ask.
    static func isNull(_ value: Any) -> Bool {
        ObjectIdentifier(type(of: value)) == ObjectIdentifier(NSNull.self)
    }

    /// The Swift type an attribute's values are stored as, when there is exactly one: a
    /// value already of that type needs no coercion.
    static func storedType(of type: NSAttributeType) -> Any.Type? {
        switch type {
        case .integer16AttributeType: Int16.self
        case .integer32AttributeType: Int32.self
        case .integer64AttributeType: Int64.self
        case .doubleAttributeType: Double.self
        case .floatAttributeType: Float.self
        case .booleanAttributeType: Bool.self
        case .decimalAttributeType: Decimal.self
        case .stringAttributeType: String.self
        case .dateAttributeType: Date.self
        case .binaryDataAttributeType: Data.self
        case .UUIDAttributeType: UUID.self
        case .URIAttributeType: URL.self
        default: nil
        }
    }

    static func storedValue(_ value: Any?, for property: NSPropertyDescription) -> Any? {
        guard let value, !isNull(value) else { return nil }
        switch property {
        case let attribute as NSAttributeDescription:
            return attributeValue(value, type: attribute.attributeType) ?? value
        case let relationship as NSRelationshipDescription where relationship.isToMany:
            return toManyValue(value, ordered: relationship.isOrdered) ?? value
        default:
            return value
        }
    }

    static func attributeValue(_ value: Any, type: NSAttributeType) -> Any? {
        switch type {
        case .integer16AttributeType: return integer(value).flatMap { Int16(exactly: $0) }
        case .integer32AttributeType: return integer(value).flatMap { Int32(exactly: $0) }
        case .integer64AttributeType: return integer(value)
        case .doubleAttributeType: return double(value)
        case .floatAttributeType: return double(value).map { Float($0) }
        case .booleanAttributeType:
            if let bool = value as? Bool { return bool }
            return integer(value).map { $0 != 0 }
        case .decimalAttributeType:
            if let decimal = value as? Decimal { return decimal }
            if let number = value as? NSDecimalNumber { return number.decimalValue }
            if let integer = integer(value) { return Decimal(integer) }
            return double(value).map { Decimal($0) }
        case .stringAttributeType:
            if let string = value as? String { return string }
            return (value as? NSString).map { $0 as String }
        case .dateAttributeType:
            if let date = value as? Date { return date }
            return (value as? NSDate).map { $0 as Date }
        case .binaryDataAttributeType:
            if let data = value as? Data { return data }
            return (value as? NSData).map { $0 as Data }
        case .UUIDAttributeType:
            if let uuid = value as? UUID { return uuid }
            return (value as? NSUUID).map { $0 as UUID }
        case .URIAttributeType:
            if let url = value as? URL { return url }
            return (value as? NSURL).map { $0 as URL }
        default:
            return value
        }
    }

    static func toManyValue(_ value: Any, ordered: Bool) -> Any? {
        let objects: [Any]
        switch value {
        case let set as NSOrderedSet: objects = set.array
        case let set as NSSet: objects = set.allObjects
        case let array as [Any]: objects = array
        case let set as Set<AnyHashable>: objects = Array(set)
        default: return nil
        }
        return ordered ? NSOrderedSet(array: objects) : NSSet(array: objects)
    }

    private static func integer(_ value: Any) -> Int64? {
        switch value {
        case let value as Int64: value
        case let value as Int: Int64(value)
        case let value as Int32: Int64(value)
        case let value as Int16: Int64(value)
        case let value as Int8: Int64(value)
        case let value as UInt8: Int64(value)
        case let value as UInt16: Int64(value)
        case let value as UInt32: Int64(value)
        case let value as UInt64: Int64(exactly: value)
        case let value as UInt: Int64(exactly: value)
        case let value as Bool: value ? 1 : 0
        case let value as Double: Int64(exactly: value)
        case let value as Float: Int64(exactly: value)
        case let value as NSNumber: value.int64Value
        default: nil
        }
    }

    private static func double(_ value: Any) -> Double? {
        switch value {
        case let value as Double: value
        case let value as Float: Double(value)
        case let value as Decimal: NSDecimalNumber(decimal: value).doubleValue
        case let value as NSNumber: value.doubleValue
        default: integer(value).map(Double.init)
        }
    }
}
