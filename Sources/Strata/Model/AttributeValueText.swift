import Foundation

/// The text forms of attribute values used by model files: `defaultValueString`,
/// `defaultDateTimeInterval`, and validation bounds.
enum AttributeValueText {
    /// The typed value for a model file's text, or `nil` when the text is not a value of
    /// the type (for example "abc" for an integer attribute).
    static func value(from text: String, type: NSAttributeType) -> Any? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch type {
        case .integer16AttributeType: return integer(trimmed).flatMap { Int16(exactly: $0) }
        case .integer32AttributeType: return integer(trimmed).flatMap { Int32(exactly: $0) }
        case .integer64AttributeType: return integer(trimmed)
        case .decimalAttributeType: return Decimal(string: trimmed, locale: Locale(identifier: "en_US_POSIX"))
        case .doubleAttributeType: return Double(trimmed)
        case .floatAttributeType: return Float(trimmed)
        case .stringAttributeType: return text
        case .booleanAttributeType:
            switch trimmed.uppercased() {
            case "YES", "TRUE", "1": return true
            case "NO", "FALSE", "0": return false
            default: return nil
            }
        case .dateAttributeType:
            return Double(trimmed).map { Date(timeIntervalSinceReferenceDate: $0) }
        case .UUIDAttributeType: return UUID(uuidString: trimmed)
        case .URIAttributeType: return URL(string: trimmed)
        case .binaryDataAttributeType: return Data(text.utf8)
        case .undefinedAttributeType, .transformableAttributeType, .objectIDAttributeType,
            .compositeAttributeType:
            return text
        }
    }

    /// The text Xcode would write for a value of the given type.
    static func text(for value: Any, type: NSAttributeType) -> String {
        switch value {
        case let bool as Bool where type == .booleanAttributeType: return bool ? "YES" : "NO"
        case let date as Date:
            let interval = date.timeIntervalSinceReferenceDate
            return interval.rounded() == interval && abs(interval) < 1e15 ? String(Int64(interval)) : String(interval)
        case let double as Double: return number(double)
        case let float as Float: return number(Double(float))
        case let decimal as Decimal: return NSDecimalNumber(decimal: decimal).stringValue
        case let uuid as UUID: return uuid.uuidString
        case let url as URL: return url.absoluteString
        case let data as Data: return String(decoding: data, as: UTF8.self)
        case let number as NSNumber where type == .booleanAttributeType: return number.boolValue ? "YES" : "NO"
        default: return String(describing: value)
        }
    }

    private static func integer(_ text: String) -> Int64? {
        if let value = Int64(text) { return value }
        // Xcode accepts "1.0" in an integer field and stores the whole number.
        if let double = Double(text), double.rounded() == double { return Int64(exactly: double) }
        return nil
    }

    private static func number(_ value: Double) -> String {
        if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) + ".0" }
        return String(value)
    }
}
