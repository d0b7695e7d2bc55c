import Foundation
internal import GRDB

/// Attribute values to and from the column values of Core Data's SQLite layout
/// (STORE-FORMAT §1.3): dates as seconds since 2001-01-01, UUIDs as 16-byte blobs, URIs as
/// strings, Booleans as 0/1, decimals with numeric affinity, binary data with the external
/// storage marker byte when the attribute allows external storage.
enum SQLiteValueCodec {
    /// The first byte of a binary value stored in the row itself.
    static let inlineMarker: UInt8 = 0x01
    /// The first byte of a binary value stored in a file beside the store.
    static let externalMarker: UInt8 = 0x02

    static func decode(
        _ value: DatabaseValue, attribute: NSAttributeDescription, externalData: (String) -> Data?
    ) -> Any? {
        switch value.storage {
        case .null: return nil
        case .int64(let number): return fromInteger(number, type: attribute.attributeType)
        case .double(let number): return fromDouble(number, type: attribute.attributeType)
        case .string(let text): return fromString(text, type: attribute.attributeType)
        case .blob(let data): return fromBlob(data, attribute: attribute, externalData: externalData)
        }
    }

    private static func fromInteger(_ number: Int64, type: NSAttributeType) -> Any? {
        switch type {
        case .integer16AttributeType: Int16(truncatingIfNeeded: number)
        case .integer32AttributeType: Int32(truncatingIfNeeded: number)
        case .integer64AttributeType: number
        case .booleanAttributeType: number != 0
        case .doubleAttributeType: Double(number)
        case .floatAttributeType: Float(number)
        case .decimalAttributeType: Decimal(number)
        case .dateAttributeType: Date(timeIntervalSinceReferenceDate: Double(number))
        case .stringAttributeType: String(number)
        default: number
        }
    }

    private static func fromDouble(_ number: Double, type: NSAttributeType) -> Any? {
        switch type {
        case .integer16AttributeType: Int16(exactly: number.rounded(.towardZero)) ?? 0
        case .integer32AttributeType: Int32(exactly: number.rounded(.towardZero)) ?? 0
        case .integer64AttributeType: Int64(exactly: number.rounded(.towardZero)) ?? 0
        case .booleanAttributeType: number != 0
        case .doubleAttributeType: number
        case .floatAttributeType: Float(number)
        // The shortest text of the double ("10.11"), not its binary expansion.
        case .decimalAttributeType: Decimal(string: String(number)) ?? Decimal(number)
        case .dateAttributeType: Date(timeIntervalSinceReferenceDate: number)
        case .stringAttributeType: String(number)
        default: number
        }
    }

    private static func fromString(_ text: String, type: NSAttributeType) -> Any? {
        switch type {
        case .stringAttributeType: text
        case .URIAttributeType: URL(string: text)
        case .UUIDAttributeType: UUID(uuidString: text)
        case .decimalAttributeType: text == "NaN" ? Decimal.nan : Decimal(string: text)
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType:
            Int64(text).flatMap { fromInteger($0, type: type) }
        case .doubleAttributeType, .floatAttributeType, .dateAttributeType:
            Double(text).flatMap { fromDouble($0, type: type) }
        case .binaryDataAttributeType: Data(text.utf8)
        default: text
        }
    }

    private static func fromBlob(_ data: Data, attribute: NSAttributeDescription, externalData: (String) -> Data?) -> Any? {
        switch attribute.attributeType {
        case .UUIDAttributeType:
            guard data.count == 16 else { return nil }
            return data.withUnsafeBytes { raw in
                UUID(uuid: raw.loadUnaligned(as: uuid_t.self))
            }
        case .binaryDataAttributeType where attribute.allowsExternalBinaryDataStorage:
            guard let marker = data.first else { return data }
            switch marker {
            case inlineMarker: return Data(data.dropFirst())
            case externalMarker:
                let identifier = String(decoding: data.dropFirst().prefix { $0 != 0 }, as: UTF8.self)
                return externalData(identifier)
            default: return data
            }
        case .transformableAttributeType:
            return TransformableValue.reverse(data, attribute: attribute)
        case .compositeAttributeType:
            // A composite kept in one column (a history tombstone): a property list of its elements.
            return (attribute as? NSCompositeAttributeDescription).flatMap {
                PropertyListValues.compositeValue(from: data, attribute: $0)
            }
        case .stringAttributeType:
            return String(data: data, encoding: .utf8)
        default:
            return data
        }
    }

    /// The column value of an attribute value; throws when the value cannot be stored.
    /// Large binary values go to files through `external` when the attribute allows it.
    static func encode(
        _ value: Any?, attribute: NSAttributeDescription, external: SQLiteExternalStorage? = nil
    ) throws -> DatabaseValue {
        guard let value, !(value is NSNull) else { return .null }
        switch attribute.attributeType {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType:
            if let bool = value as? Bool { return (bool ? 1 : 0).databaseValue }
            if let number = NumberValue.int64(value) { return number.databaseValue }
        case .doubleAttributeType, .floatAttributeType:
            if let number = NumberValue.double(value) { return number.databaseValue }
        case .decimalAttributeType:
            if let decimal = ManagedValueCoercion.attributeValue(value, type: .decimalAttributeType) as? Decimal {
                return NSDecimalNumber(decimal: decimal).stringValue.databaseValue
            }
        case .stringAttributeType:
            if let text = value as? String { return text.databaseValue }
        case .dateAttributeType:
            if let date = value as? Date { return date.timeIntervalSinceReferenceDate.databaseValue }
        case .UUIDAttributeType:
            if let uuid = value as? UUID {
                return withUnsafeBytes(of: uuid.uuid) { Data($0) }.databaseValue
            }
        case .URIAttributeType:
            if let url = value as? URL { return url.absoluteString.databaseValue }
        case .binaryDataAttributeType:
            if let data = value as? Data {
                guard attribute.allowsExternalBinaryDataStorage else { return data.databaseValue }
                return try external?.columnValue(for: data) ?? (Data([inlineMarker]) + data).databaseValue
            }
        case .transformableAttributeType:
            return try TransformableValue.forward(value, attribute: attribute).databaseValue
        case .compositeAttributeType:
            // Rows keep a composite in its leaves' columns; where one column must hold it all
            // (a history tombstone), it is a binary property list of its elements.
            guard let composite = attribute as? NSCompositeAttributeDescription,
                let data = try PropertyListValues.compositeData(value, attribute: composite)
            else { return .null }
            return data.databaseValue
        default:
            return .null
        }
        throw CoreDataError.make(
            NSManagedObjectValidationError,
            "The value \(value) of \(attribute.entity?.name ?? "?").\(attribute.name) is not a \(attribute.attributeType.xcodeModelName ?? "value").",
            userInfo: [NSValidationKeyErrorKey: attribute.name, NSValidationValueErrorKey: value])
    }
}
