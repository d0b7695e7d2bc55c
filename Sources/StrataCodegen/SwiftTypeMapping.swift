import Foundation
import Strata

/// The Swift types Xcode's generated classes give to model properties.
///
/// Attributes that use scalar types (`usesScalarValueType`) become Swift scalars
/// (`Int16`, `Int32`, `Int64`, `Double`, `Float`, `Bool`); other numbers become
/// `NSNumber?`, decimals `NSDecimalNumber?`. Object types are optional whatever the
/// attribute's optional flag, because a new object has no value until it is set.
enum SwiftTypeMapping {
    /// The type of an attribute's property.
    static func swiftType(of attribute: NSAttributeDescription, moduleName: String?) -> String {
        let scalar = attribute.usesScalarValueType
        switch attribute.attributeType {
        case .integer16AttributeType: return scalar ? "Int16" : "NSNumber?"
        case .integer32AttributeType: return scalar ? "Int32" : "NSNumber?"
        case .integer64AttributeType: return scalar ? "Int64" : "NSNumber?"
        case .doubleAttributeType: return scalar ? "Double" : "NSNumber?"
        case .floatAttributeType: return scalar ? "Float" : "NSNumber?"
        case .booleanAttributeType: return scalar ? "Bool" : "NSNumber?"
        case .decimalAttributeType: return "NSDecimalNumber?"
        case .stringAttributeType: return "String?"
        case .dateAttributeType: return "Date?"
        case .binaryDataAttributeType: return "Data?"
        case .UUIDAttributeType: return "UUID?"
        case .URIAttributeType: return "URL?"
        case .transformableAttributeType: return optional(customClassName(of: attribute, moduleName: moduleName) ?? "NSObject")
        case .objectIDAttributeType: return "NSManagedObjectID?"
        case .compositeAttributeType: return "[String: Any]?"
        case .undefinedAttributeType: return "NSObject?"
        }
    }

    /// The type of a relationship's property: the destination's class for a to-one,
    /// `NSSet?` for a to-many and `NSOrderedSet?` for an ordered to-many.
    static func swiftType(of relationship: NSRelationshipDescription, destinationClassName: String) -> String {
        guard relationship.isToMany else { return destinationClassName + "?" }
        return relationship.isOrdered ? "NSOrderedSet?" : "NSSet?"
    }

    /// A transformable attribute's custom class, without the qualification by the
    /// generated file's own module.
    private static func customClassName(of attribute: NSAttributeDescription, moduleName: String?) -> String? {
        guard let name = attribute.attributeValueClassName?.trimmingCharacters(in: .whitespaces), !name.isEmpty else {
            return nil
        }
        if let moduleName, name.hasPrefix(moduleName + ".") { return String(name.dropFirst(moduleName.count + 1)) }
        if name.hasPrefix(".") { return String(name.dropFirst()) }
        return name
    }

    private static func optional(_ type: String) -> String {
        type.hasSuffix("?") || type.hasSuffix("!") ? type : type + "?"
    }
}
