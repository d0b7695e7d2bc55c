import Foundation

/// A number as written in a JSON file: its text, so that it converts exactly to the
/// attribute's type (`JSONSerialization` on Linux rounds some doubles on the way).
struct JSONNumberText: CustomStringConvertible {
    let text: String
    var description: String { text }
}

/// A small JSON parser for export files: objects become `[String: Any]`, arrays `[Any]`,
/// strings `String`, numbers `JSONNumberText`, `true`/`false` `Bool`, `null` `NSNull`.
struct ExportJSONParser {
    /// A syntax error with the byte offset where parsing stopped.
    struct SyntaxError: Error, CustomStringConvertible {
        let offset: Int
        let reason: String
        var description: String { "\(reason) at byte \(offset)" }
    }

    private let bytes: [UInt8]
    private var index = 0

    static func parse(_ data: Data) throws -> Any {
        var parser = ExportJSONParser(bytes: [UInt8](data))
        let value = try parser.value()
        parser.skipSpace()
        guard parser.index == parser.bytes.count else { throw parser.error("text after the JSON value") }
        return value
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private func error(_ reason: String) -> SyntaxError { SyntaxError(offset: index, reason: reason) }

    private mutating func skipSpace() {
        while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
    }

    private mutating func value() throws -> Any {
        skipSpace()
        guard index < bytes.count else { throw error("unexpected end of file") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return try string()
        case UInt8(ascii: "t"): return try literal("true", true)
        case UInt8(ascii: "f"): return try literal("false", false)
        case UInt8(ascii: "n"): return try literal("null", NSNull())
        default: return try number()
        }
    }

    private mutating func literal(_ word: String, _ value: Any) throws -> Any {
        let expected = Array(word.utf8)
        guard index + expected.count <= bytes.count, Array(bytes[index..<index + expected.count]) == expected else {
            throw error("unexpected character")
        }
        index += expected.count
        return value
    }

    private mutating func object() throws -> [String: Any] {
        index += 1
        var result: [String: Any] = [:]
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return result
        }
        while true {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a key") }
            let key = try string()
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
            index += 1
            result[key] = try value()
            skipSpace()
            guard index < bytes.count else { throw error("unexpected end of file") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return result
            } else {
                throw error("expected ',' or '}'")
            }
        }
    }

    private mutating func array() throws -> [Any] {
        index += 1
        var result: [Any] = []
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return result
        }
        while true {
            result.append(try value())
            skipSpace()
            guard index < bytes.count else { throw error("unexpected end of file") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return result
            } else {
                throw error("expected ',' or ']'")
            }
        }
    }

    private mutating func string() throws -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var start = index
        var pending: [UInt8] = []
        while true {
            guard index < bytes.count else { throw error("unterminated string") }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                pending.append(contentsOf: bytes[start..<index])
                index += 1
                break
            }
            guard byte == UInt8(ascii: "\\") else {
                index += 1
                continue
            }
            pending.append(contentsOf: bytes[start..<index])
            scalars.append(contentsOf: String(decoding: pending, as: UTF8.self).unicodeScalars)
            pending.removeAll()
            index += 1
            guard index < bytes.count else { throw error("unterminated string") }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""): scalars.append("\"")
            case UInt8(ascii: "\\"): scalars.append("\\")
            case UInt8(ascii: "/"): scalars.append("/")
            case UInt8(ascii: "b"): scalars.append("\u{08}")
            case UInt8(ascii: "f"): scalars.append("\u{0C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "u"):
                var code = try hex4()
                if (0xD800..<0xDC00).contains(code), index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                    bytes[index + 1] == UInt8(ascii: "u")
                {
                    index += 2
                    let low = try hex4()
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(code) else { throw error("invalid \\u escape") }
                scalars.append(scalar)
            default:
                throw error("invalid escape")
            }
            start = index
        }
        scalars.append(contentsOf: String(decoding: pending, as: UTF8.self).unicodeScalars)
        return String(scalars)
    }

    private mutating func hex4() throws -> UInt32 {
        guard index + 4 <= bytes.count, let code = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
        else { throw error("invalid \\u escape") }
        index += 4
        return code
    }

    private mutating func number() throws -> JSONNumberText {
        let start = index
        while index < bytes.count, Self.numberBytes.contains(bytes[index]) { index += 1 }
        guard index > start else { throw error("unexpected character") }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard Double(text) != nil else { throw error("invalid number") }
        return JSONNumberText(text: text)
    }

    private static let numberBytes = Set("0123456789+-.eE".utf8)
}
