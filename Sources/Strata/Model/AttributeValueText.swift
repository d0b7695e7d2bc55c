import Foundation

/// The text forms of attribute values used by model files: `defaultValueString`,
/// `defaultDateTimeInterval`, and validation bounds.
enum AttributeValueText {
    /// A default value text read as Core Data reads it, and whether the text is a plain
    /// value of the type. Xcode compiles a model whose default text does not fit the type
    /// ("YES" for an integer, "0.0" for a Boolean); Core Data reads numbers and Booleans
    /// from such text as `NSString` does ("YES" is 0 as an integer, "0.0" is false), and
    /// so does Strata. UUIDs and URLs have no such reading: a text that is none gives no
    /// default value.
    static func defaultValue(from text: String, type: NSAttributeType) -> (value: Any?, isExact: Bool) {
        if let exact = value(from: text, type: type) { return (exact, true) }
        return (lenientValue(from: text, type: type), false)
    }

    /// The typed value for a model file's text, or `nil` when the text is not a value of
    /// the type (for example "abc" for an integer attribute).
    static func value(from text: String, type: NSAttributeType) -> Any? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch type {
        case .integer16AttributeType: return integer(trimmed).flatMap { Int16(exactly: $0) }
        case .integer32AttributeType: return integer(trimmed).flatMap { Int32(exactly: $0) }
        case .integer64AttributeType: return integer(trimmed)
        case .decimalAttributeType:
            guard LenientNumberText.decimalPrefix(trimmed)?.isWhole == true else { return nil }
            return Decimal(string: trimmed, locale: Locale(identifier: "en_US_POSIX"))
        case .doubleAttributeType:
            return LenientNumberText.decimalPrefix(trimmed)?.isWhole == true ? Double(trimmed) : nil
        case .floatAttributeType:
            return LenientNumberText.decimalPrefix(trimmed)?.isWhole == true ? Float(trimmed) : nil
        case .stringAttributeType: return text
        case .booleanAttributeType:
            switch trimmed.uppercased() {
            case "YES", "TRUE", "1": return true
            case "NO", "FALSE", "0": return false
            default: return nil
            }
        case .dateAttributeType:
            guard LenientNumberText.decimalPrefix(trimmed)?.isWhole == true else { return nil }
            return Double(trimmed).map { Date(timeIntervalSinceReferenceDate: $0) }
        case .UUIDAttributeType: return UUID(uuidString: trimmed)
        case .URIAttributeType: return URL(string: trimmed)
        case .binaryDataAttributeType: return Data(text.utf8)
        case .undefinedAttributeType, .transformableAttributeType, .objectIDAttributeType,
            .compositeAttributeType:
            return text
        }
    }

    /// The value `NSString`'s number readings give a text that is no plain value of the type;
    /// `nil` where there is none (UUIDs, URLs).
    private static func lenientValue(from text: String, type: NSAttributeType) -> Any? {
        switch type {
        case .integer16AttributeType: return LenientNumberText.integer(text, as: Int16.self)
        case .integer32AttributeType: return LenientNumberText.integer(text, as: Int32.self)
        case .integer64AttributeType: return LenientNumberText.integer(text)
        case .decimalAttributeType:
            let prefix = LenientNumberText.decimalPrefix(text).map { String($0.text) } ?? "0"
            return Decimal(string: prefix, locale: Locale(identifier: "en_US_POSIX")) ?? Decimal(0)
        case .doubleAttributeType: return LenientNumberText.double(text)
        case .floatAttributeType: return Float(LenientNumberText.double(text))
        case .booleanAttributeType: return LenientNumberText.bool(text)
        case .dateAttributeType: return Date(timeIntervalSinceReferenceDate: LenientNumberText.double(text))
        default: return nil
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
        // Xcode accepts "1.0" in an integer field and stores the whole number. Only the plain
        // decimal form counts: "1e3" is no integer text, and Core Data reads it as 1.
        guard !text.contains(where: { $0 == "e" || $0 == "E" }), let double = Double(text),
            double.rounded() == double
        else { return nil }
        return Int64(exactly: double)
    }

    private static func number(_ value: Double) -> String {
        if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) + ".0" }
        return String(value)
    }
}
