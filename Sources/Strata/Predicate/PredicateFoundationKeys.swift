import Foundation

/// The keys predicates read from values that are neither managed objects nor dictionaries,
/// as key-value coding answers them on Apple's systems: `description` of anything, a
/// string's `length` (in UTF-16 units, as `NSString` counts) and its number values, a
/// number's `stringValue`, a date's intervals, a URL's parts. Without Objective-C's
/// key-value coding, the stored properties of other Swift objects and values are read by
/// their names (Apple reads `@objc` properties; DEVIATIONS.md).
///
/// ```swift
/// NSPredicate(format: "description == 'Do'").evaluate(with: "Do")   // true
/// NSPredicate(format: "length > 3").evaluate(with: "Strata")         // true
/// ```
///
/// A collection's own count is `@count`: a plain key of an array or set is read from each
/// element, as `NSArray`'s `value(forKey:)` does (`PredicateKeyPaths`).
enum PredicateFoundationKeys {
    /// The value of the key, or nil when the value has no such key.
    static func value(forKey key: String, of value: Any) -> Any? {
        if let text = PredicateValues.string(value) { return string(text, key) }
        if let number = PredicateValues.number(value), !(value is Date) { return self.number(number, value, key) }
        switch value {
        case let date as Date: return self.date(date, key)
        case let uuid as UUID: return key == "UUIDString" ? uuid.uuidString : key == "description" ? uuid.uuidString : nil
        case let url as URL: return self.url(url, key)
        case let data as Data: return key == "length" ? Int64(data.count) : key == "description" ? data.description : nil
        default: break
        }
        if key == "description" { return (value as? NSObject)?.description ?? String(describing: value) }
        return storedProperty(key, of: value)
    }

    private static func string(_ text: String, _ key: String) -> Any? {
        switch key {
        case "length": Int64(text.utf16.count)
        case "description": text
        case "uppercaseString": text.uppercased()
        case "lowercaseString": text.lowercased()
        case "capitalizedString": text.capitalized
        case "intValue", "integerValue", "longLongValue": leadingInteger(text)
        case "doubleValue", "floatValue": leadingDouble(text)
        case "boolValue": leadingBool(text)
        default: nil
        }
    }

    private static func number(_ number: PredicateNumber, _ value: Any, _ key: String) -> Any? {
        switch key {
        case "description", "stringValue":
            switch number {
            case .integer(let integer): return String(integer)
            case .double(let double): return NSNumber(value: double).description
            case .decimal(let decimal): return decimal.description
            }
        case "intValue", "integerValue", "longLongValue", "int64Value":
            return number.doubleValue.isFinite ? Int64(exactly: number.doubleValue.rounded(.towardZero)) : nil
        case "doubleValue", "floatValue": return number.doubleValue
        case "boolValue": return number.doubleValue != 0
        default: return nil
        }
    }

    private static func date(_ date: Date, _ key: String) -> Any? {
        switch key {
        case "timeIntervalSinceReferenceDate": date.timeIntervalSinceReferenceDate
        case "timeIntervalSince1970": date.timeIntervalSince1970
        case "description": date.description
        default: nil
        }
    }

    private static func url(_ url: URL, _ key: String) -> Any? {
        switch key {
        case "absoluteString", "description": url.absoluteString
        case "path": url.path
        case "lastPathComponent": url.lastPathComponent
        case "pathExtension": url.pathExtension
        case "scheme": url.scheme
        case "host": url.host
        default: nil
        }
    }

    /// A stored property of a Swift object or value, by name, from the class up through its
    /// superclasses.
    private static func storedProperty(_ key: String, of value: Any) -> Any? {
        var mirror: Mirror? = Mirror(reflecting: value)
        while let current = mirror {
            if let child = current.children.first(where: { $0.label == key }) { return child.value }
            mirror = current.superclassMirror
        }
        return nil
    }

    // NSString's number values read a leading number and ignore what follows ("12abc" is 12).

    private static func leadingInteger(_ text: String) -> Int64 {
        let digits = text.drop { $0 == " " || $0 == "\t" || $0 == "\n" }
        var sign: Int64 = 1
        var rest = digits[...]
        if let first = rest.first, first == "-" || first == "+" {
            sign = first == "-" ? -1 : 1
            rest = rest.dropFirst()
        }
        var result: Int64 = 0
        for character in rest {
            guard let digit = character.wholeNumberValue, character.isASCII else { break }
            let (product, overflow) = result.multipliedReportingOverflow(by: 10)
            guard !overflow else { return sign > 0 ? .max : .min }
            result = product + Int64(digit)
        }
        return sign * result
    }

    private static func leadingDouble(_ text: String) -> Double {
        // The longest prefix shaped like a number: sign, digits, a point and digits, an exponent.
        let scalars = Array(text.unicodeScalars.drop { $0 == " " || $0 == "\t" || $0 == "\n" })
        var end = 0
        func digits() { while end < scalars.count, ("0"..."9").contains(scalars[end]) { end += 1 } }
        if end < scalars.count, scalars[end] == "-" || scalars[end] == "+" { end += 1 }
        digits()
        if end < scalars.count, scalars[end] == "." {
            end += 1
            digits()
        }
        if end < scalars.count, scalars[end] == "e" || scalars[end] == "E" {
            let mantissaEnd = end
            end += 1
            if end < scalars.count, scalars[end] == "-" || scalars[end] == "+" { end += 1 }
            let exponentStart = end
            digits()
            if end == exponentStart { end = mantissaEnd }
        }
        var prefix = String.UnicodeScalarView()
        prefix.append(contentsOf: scalars[0..<end])
        return Double(String(prefix)) ?? 0
    }

    /// `YES`, `true` or a leading non-zero number, as `NSString.boolValue` reads them.
    private static func leadingBool(_ text: String) -> Bool {
        let trimmed = text.drop { $0 == " " || $0 == "\t" || $0 == "\n" }.drop { $0 == "0" || $0 == "+" || $0 == "-" }
        guard let first = trimmed.first else { return false }
        return "YyTt123456789".contains(first)
    }
}
