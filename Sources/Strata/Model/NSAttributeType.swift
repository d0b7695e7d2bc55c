import Foundation

/// The type of an attribute's value, with the raw values of Apple's `NSAttributeType`.
///
/// The raw values are part of Core Data's persistent contract: they appear in compiled
/// models and in version hashes, so they never change.
///
/// ```swift
/// let attribute = NSAttributeDescription()
/// attribute.attributeType = .stringAttributeType
/// ```
public enum NSAttributeType: UInt, Sendable, CaseIterable {
    case undefinedAttributeType = 0
    case integer16AttributeType = 100
    case integer32AttributeType = 200
    case integer64AttributeType = 300
    case decimalAttributeType = 400
    case doubleAttributeType = 500
    case floatAttributeType = 600
    case stringAttributeType = 700
    case booleanAttributeType = 800
    case dateAttributeType = 900
    case binaryDataAttributeType = 1000
    case UUIDAttributeType = 1100
    case URIAttributeType = 1200
    case transformableAttributeType = 1800
    case objectIDAttributeType = 2000
    case compositeAttributeType = 2100

    /// The spelling Xcode writes in a model file's `attributeType` XML attribute, or `nil`
    /// for `undefinedAttributeType`, which Xcode writes by leaving the XML attribute out.
    public var xcodeModelName: String? {
        switch self {
        case .undefinedAttributeType: nil
        case .integer16AttributeType: "Integer 16"
        case .integer32AttributeType: "Integer 32"
        case .integer64AttributeType: "Integer 64"
        case .decimalAttributeType: "Decimal"
        case .doubleAttributeType: "Double"
        case .floatAttributeType: "Float"
        case .stringAttributeType: "String"
        case .booleanAttributeType: "Boolean"
        case .dateAttributeType: "Date"
        case .binaryDataAttributeType: "Binary"
        case .UUIDAttributeType: "UUID"
        case .URIAttributeType: "URI"
        case .transformableAttributeType: "Transformable"
        case .objectIDAttributeType: "ObjectID"
        case .compositeAttributeType: "Composite"
        }
    }

    /// Reads Xcode's `attributeType` spelling; `nil` for a spelling Xcode never writes.
    public init?(xcodeModelName: String) {
        guard let type = Self.allCases.first(where: { $0.xcodeModelName == xcodeModelName }) else {
            if xcodeModelName == "Undefined" {
                self = .undefinedAttributeType
                return
            }
            return nil
        }
        self = type
    }

    /// Whether values of this type are numbers (integers, floating point, decimal, Boolean).
    public var isNumeric: Bool {
        switch self {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType,
            .decimalAttributeType, .doubleAttributeType, .floatAttributeType, .booleanAttributeType:
            true
        default: false
        }
    }

    /// Whether values of this type are whole numbers.
    public var isInteger: Bool {
        switch self {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType: true
        default: false
        }
    }
}

extension NSAttributeDescription {
    /// The attribute types by name, as the iOS 15 SDK spells them (`.string`, `.integer64`…).
    public struct AttributeType: RawRepresentable, Hashable, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        init(_ type: NSAttributeType) { self.rawValue = type.rawValue }

        public static let undefined = AttributeType(.undefinedAttributeType)
        public static let integer16 = AttributeType(.integer16AttributeType)
        public static let integer32 = AttributeType(.integer32AttributeType)
        public static let integer64 = AttributeType(.integer64AttributeType)
        public static let decimal = AttributeType(.decimalAttributeType)
        public static let double = AttributeType(.doubleAttributeType)
        public static let float = AttributeType(.floatAttributeType)
        public static let string = AttributeType(.stringAttributeType)
        public static let boolean = AttributeType(.booleanAttributeType)
        public static let date = AttributeType(.dateAttributeType)
        public static let binaryData = AttributeType(.binaryDataAttributeType)
        public static let uuid = AttributeType(.UUIDAttributeType)
        public static let uri = AttributeType(.URIAttributeType)
        public static let transformable = AttributeType(.transformableAttributeType)
        public static let objectID = AttributeType(.objectIDAttributeType)
        public static let composite = AttributeType(.compositeAttributeType)
    }
}
