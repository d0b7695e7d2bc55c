import Foundation

/// JSON text for the small documents the commands print (`--json`): values made with
/// `JSONSerialization`, keys sorted, so that scripts and tests read stable output.
enum JSONText {
    /// A JSON string literal.
    static func string(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20: result += String(format: "\\u%04x", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// A JSON document of property-list-like values (dictionaries, arrays, strings, numbers,
    /// booleans, `NSNull`), pretty-printed with sorted keys.
    static func document(_ value: Any) throws -> String {
        let data = try JSONSerialization.data(
            withJSONObject: value, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }
}
