import Foundation
import Strata

/// How attribute values are written in an export and read back by an import, so that every
/// type round-trips exactly:
///
/// | type | JSON |
/// |---|---|
/// | integers, Boolean | number, `true`/`false` |
/// | Double, Float | number (the shortest text that reads back to the same value; a Float as the Double it widens to); `"NaN"`, `"Infinity"`, `"-Infinity"` as strings |
/// | Decimal | string (`"10.11"`: every digit) |
/// | String, URI | string |
/// | Date | number: seconds since 2001-01-01 00:00:00 UTC, as Core Data stores it |
/// | UUID | string |
/// | Binary, Transformable | base64 string (a transformable value as its transformer's data) |
enum GraphValueCoding {
    /// Orders ids by entity name, then by primary key as a number.
    static func idOrder(_ left: String, _ right: String) -> Bool {
        let (leftEntity, leftKey) = split(left)
        let (rightEntity, rightKey) = split(right)
        if leftEntity != rightEntity { return leftEntity < rightEntity }
        return leftKey < rightKey
    }

    private static func split(_ id: String) -> (Substring, Int64) {
        guard let slash = id.lastIndex(of: "/") else { return (Substring(id), 0) }
        // `pN`: the key's digits follow the `p`.
        let digits = id[id.index(after: slash)...].dropFirst()
        return (id[..<slash], Int64(digits) ?? 0)
    }

    static func write(_ value: Any, of attribute: NSAttributeDescription, to output: OutputStream) throws {
        switch attribute.attributeType {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
            output.write(integerText(value) ?? "0")
        case .booleanAttributeType:
            output.write(((value as? Bool) ?? ((value as? NSNumber)?.boolValue ?? false)) ? "true" : "false")
        case .doubleAttributeType:
            writeDouble(doubleValue(value), to: output)
        case .floatAttributeType:
            if let float = value as? Float {
                writeDouble(Double(float), to: output)
            } else {
                writeDouble(doubleValue(value), to: output)
            }
        case .decimalAttributeType:
            let decimal = (value as? Decimal) ?? (value as? NSDecimalNumber)?.decimalValue ?? Decimal(doubleValue(value))
            output.appendJSONString(decimal.description)
        case .stringAttributeType:
            output.appendJSONString((value as? String) ?? String(describing: value))
        case .dateAttributeType:
            guard let date = value as? Date else { throw unexpected(value, attribute) }
            writeDouble(date.timeIntervalSinceReferenceDate, to: output)
        case .UUIDAttributeType:
            guard let uuid = value as? UUID else { throw unexpected(value, attribute) }
            output.appendJSONString(uuid.uuidString)
        case .URIAttributeType:
            guard let url = value as? URL else { throw unexpected(value, attribute) }
            output.appendJSONString(url.absoluteString)
        case .binaryDataAttributeType:
            guard let data = value as? Data else { throw unexpected(value, attribute) }
            output.appendJSONString(data.base64EncodedString())
        case .transformableAttributeType:
            output.appendJSONString(try transformedData(value, of: attribute).base64EncodedString())
        default:
            output.write("null")
        }
    }

    private static func unexpected(_ value: Any, _ attribute: NSAttributeDescription) -> StoreToolFailure {
        StoreToolFailure(
            "export: \(attribute.entity.name ?? "?").\(attribute.name) holds a \(type(of: value)), not a \(attribute.attributeType)"
        )
    }

    static func integerText(_ value: Any) -> String? {
        switch value {
        case let value as Int16: String(value)
        case let value as Int32: String(value)
        case let value as Int64: String(value)
        case let value as Int: String(value)
        case let value as NSNumber: String(value.int64Value)
        default: nil
        }
    }

    static func doubleValue(_ value: Any) -> Double {
        switch value {
        case let value as Double: value
        case let value as Float: Double(value)
        case let value as NSNumber: value.doubleValue
        default: 0
        }
    }

    private static func writeDouble(_ value: Double, to output: OutputStream) {
        if value.isNaN {
            output.write("\"NaN\"")
        } else if value.isInfinite {
            output.write(value > 0 ? "\"Infinity\"" : "\"-Infinity\"")
        } else {
            output.write(value.description)
        }
    }

    /// The bytes a transformable value is stored as: the value itself when Strata handed back
    /// data (no transformer registered under the model's name), else its transformer's data.
    static func transformedData(_ value: Any, of attribute: NSAttributeDescription) throws -> Data {
        if let data = value as? Data { return data }
        if let transformer = transformer(of: attribute), let data = transformer.reverseTransformedValue(value) as? Data {
            return data
        }
        if let data = try? NSKeyedArchiver.archivedData(withRootObject: value, requiringSecureCoding: false) { return data }
        throw StoreToolFailure(
            "export: the value of \(attribute.entity.name ?? "?").\(attribute.name) (a \(type(of: value))) cannot be archived")
    }

    /// The transformer a model names, when one is registered under that name.
    static func transformer(of attribute: NSAttributeDescription) -> ValueTransformer? {
        guard let name = attribute.valueTransformerName, !name.isEmpty else { return nil }
        return ValueTransformer(forName: NSValueTransformerName(name))
    }

    // MARK: Reading

    /// The value to set for a JSON value read from an export, or a failure naming the object
    /// and attribute when it has the wrong type.
    static func read(_ json: Any, for attribute: NSAttributeDescription, object id: String) throws -> Any? {
        if json is NSNull { return nil }
        func wrong() -> StoreToolFailure {
            StoreToolFailure(
                "import: \(id).\(attribute.name): \(String(describing: json).prefix(40)) is not a valid \(attribute.attributeType.xcodeModelName ?? "Undefined")"
            )
        }
        switch attribute.attributeType {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
            guard let number = json as? JSONNumberText, let integer = Int64(number.text) else { throw wrong() }
            switch attribute.attributeType {
            case .integer16AttributeType:
                guard let value = Int16(exactly: integer) else { throw wrong() }
                return value
            case .integer32AttributeType:
                guard let value = Int32(exactly: integer) else { throw wrong() }
                return value
            default: return integer
            }
        case .booleanAttributeType:
            if let bool = json as? Bool { return bool }
            guard let number = json as? JSONNumberText, let integer = Int64(number.text) else { throw wrong() }
            return integer != 0
        case .doubleAttributeType:
            guard let value = double(json) else { throw wrong() }
            return value
        case .floatAttributeType:
            guard let value = double(json) else { throw wrong() }
            return Float(value)
        case .decimalAttributeType:
            if let text = json as? String {
                if text == "NaN" { return Decimal.nan }
                if let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) { return decimal }
            }
            if let number = json as? JSONNumberText,
                let decimal = Decimal(string: number.text, locale: Locale(identifier: "en_US_POSIX"))
            {
                return decimal
            }
            throw wrong()
        case .stringAttributeType:
            guard let text = json as? String else { throw wrong() }
            return text
        case .dateAttributeType:
            guard let seconds = double(json) else { throw wrong() }
            return Date(timeIntervalSinceReferenceDate: seconds)
        case .UUIDAttributeType:
            guard let text = json as? String, let uuid = UUID(uuidString: text) else { throw wrong() }
            return uuid
        case .URIAttributeType:
            guard let text = json as? String, let url = URL(string: text) else { throw wrong() }
            return url
        case .binaryDataAttributeType:
            guard let text = json as? String, let data = Data(base64Encoded: text) else { throw wrong() }
            return data
        case .transformableAttributeType:
            // The stored bytes; `GraphImport` writes them as they are after its save.
            guard let text = json as? String, let data = Data(base64Encoded: text) else { throw wrong() }
            return data
        default:
            return nil
        }
    }

    private static func double(_ json: Any) -> Double? {
        if let text = json as? String {
            switch text {
            case "NaN": return .nan
            case "Infinity": return .infinity
            case "-Infinity": return -.infinity
            default: return nil
            }
        }
        return (json as? JSONNumberText).flatMap { Double($0.text) }
    }
}
