import Foundation

/// A token of a predicate format string. Format arguments are already substituted: the
/// lexer reads them left to right, so that the parser may back up and re-read tokens without
/// consuming an argument twice.
struct PredicateToken: Sendable {
    enum Kind: Hashable, Sendable {
        /// An identifier or a keyword, as written; `keyword` tells which.
        case word(String)
        /// `#name`: an identifier even when it spells a reserved word.
        case escapedWord(String)
        /// `@count`, `@sum`, …, with the `@`.
        case collectionOperator(String)
        /// `$name`, without the `$`.
        case variable(String)
        case string(String)
        case number(Number)
        /// `%@`, `%d`, `%f`, `%s`, …: the argument's value.
        case argument(PredicateValue)
        /// `%K`: the argument's key path.
        case keyPathArgument(String)
        case symbol(Symbol)
        /// Characters that start no token (`~`, `?`, a lone `&`): the parser reports them
        /// where it finds them, with what it expected there.
        case invalid
        case end
    }

    /// A numeric literal before its sign is known: the parser negates `-5` into the literal
    /// -5, and `-9223372036854775808` only fits as a negated magnitude.
    enum Number: Hashable, Sendable {
        case integer(UInt64)
        case real(Double)
    }

    enum Symbol: Hashable, Sendable {
        case openParen, closeParen, openBrace, closeBrace, openBracket, closeBracket
        case comma, dot, colon, assign
        case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual
        case and, or, not
        case plus, minus, times, divide, power
        /// `%%`: a literal percent sign, which no rule of the grammar accepts.
        case percent
    }

    var kind: Kind
    /// The Unicode scalar offsets of the token in the format string.
    let start: Int
    let end: Int
    /// The reserved word the token spells (any case), when it is an unescaped word.
    let keyword: PredicateKeyword?

    init(kind: Kind, start: Int, end: Int) {
        self.kind = kind
        self.start = start
        self.end = end
        if case .word(let word) = kind { keyword = PredicateKeyword(word) } else { keyword = nil }
    }
}

/// The reserved words of the predicate language. They are case-insensitive, and are never
/// key path components unless escaped with `#`.
enum PredicateKeyword: String, CaseIterable, Sendable {
    case and = "AND", or = "OR", not = "NOT", any = "ANY", someQuantifier = "SOME", all = "ALL", noneQuantifier = "NONE"
    case `in` = "IN", like = "LIKE", matches = "MATCHES", contains = "CONTAINS", beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH", between = "BETWEEN", null = "NULL", nilLiteral = "NIL", selfKeyword = "SELF"
    case trueLiteral = "TRUE", yes = "YES", falseLiteral = "FALSE", no = "NO", first = "FIRST", last = "LAST"
    case size = "SIZE", anyKey = "ANYKEY", subquery = "SUBQUERY", fetch = "FETCH", cast = "CAST"
    case truePredicate = "TRUEPREDICATE", falsePredicate = "FALSEPREDICATE", function = "FUNCTION"
    case ternary = "TERNARY", union = "UNION", intersect = "INTERSECT", minus = "MINUS"
    case caseInsensitive = "CASEINSENSITIVE", ci = "CI"
    case utiConformsTo = "UTI-CONFORMS-TO", utiEquals = "UTI-EQUALS"

    /// The keyword a word spells. Only ASCII words qualify: `"ın".uppercased()` is "IN".
    init?(_ word: String) {
        let utf8 = word.utf8
        guard utf8.count >= 2, utf8.count <= 15 else { return nil }
        // ASCII upper case by bytes (every word of a format goes through here, and
        // `uppercased()` handles all of Unicode), then one hashed lookup.
        var isASCII = true
        let upper = String(unsafeUninitializedCapacity: utf8.count) { buffer in
            var count = 0
            for byte in utf8 {
                if byte >= 0x80 { isASCII = false }
                buffer[count] = (0x61...0x7A).contains(byte) ? byte - 0x20 : byte
                count += 1
            }
            return count
        }
        guard isASCII, let keyword = Self.byName[upper] else { return nil }
        self = keyword
    }

    private static let byName: [String: PredicateKeyword] = Dictionary(
        uniqueKeysWithValues: allCases.map { ($0.rawValue, $0) })
}

/// Splits a format string into tokens, substituting the format arguments.
struct PredicateLexer {
    private let format: String
    private let scalars: [Unicode.Scalar]
    private let arguments: [Any?]
    private var position = 0
    private var nextArgument = 0
    /// Set while splitting a format for `LexedFormat`: each specifier becomes a placeholder
    /// token, and its kind is left here for the caller to note.
    private var defersArguments = false
    private var deferredKind: ArgumentKind?

    init(format: String, arguments: [Any?]) {
        self.format = format
        self.scalars = Array(format.unicodeScalars)
        self.arguments = arguments
    }

    /// All the tokens, the last being `.end`, and the scalars of the format they index.
    ///
    /// A format with arguments is split once and kept (`LexedFormat`): apps pass the same
    /// format again and again with new values, and splitting it was most of parsing it.
    static func tokens(
        of format: String, arguments: [Any?]
    ) throws(PredicateSyntaxError) -> (tokens: [PredicateToken], scalars: [Unicode.Scalar]) {
        if !arguments.isEmpty, let lexed = LexedFormat.lexed(format) {
            return (try lexed.tokens(with: arguments), lexed.scalars)
        }
        var lexer = PredicateLexer(format: format, arguments: arguments)
        var tokens: [PredicateToken] = []
        while true {
            let token = try lexer.nextToken()
            tokens.append(token)
            if token.kind == .end { return (tokens, lexer.scalars) }
        }
    }

    /// A format split into tokens before its arguments: each specifier's token waits for the
    /// argument it takes. Arguments change no token but their own, so filling them in gives
    /// the tokens `tokens(of:arguments:)` would, and the same error for a missing or mistyped
    /// argument. A format whose splitting fails for another reason is not kept: it is split
    /// with its arguments, which reports the first error in the order of the format.
    struct LexedFormat {
        let format: String
        let tokens: [PredicateToken]
        let scalars: [Unicode.Scalar]
        /// The specifiers' tokens, in order, with the kind of argument each takes.
        let specifiers: [(token: Int, kind: ArgumentKind)]

        /// Formats kept; dropped all at once past `capacity` (an app has a few dozen).
        private static let kept = Protected([String: LexedFormat]())
        static let capacity = 256

        /// The format split, from the kept ones or split now; `nil` when splitting fails
        /// or the format takes no argument.
        static func lexed(_ format: String) -> LexedFormat? {
            if let lexed = kept.withLock({ $0[format] }) { return lexed }
            var lexer = PredicateLexer(format: format, arguments: [])
            lexer.defersArguments = true
            var tokens: [PredicateToken] = []
            var specifiers: [(token: Int, kind: ArgumentKind)] = []
            while true {
                guard let token = try? lexer.nextToken() else { return nil }
                if let kind = lexer.deferredKind {
                    specifiers.append((tokens.count, kind))
                    lexer.deferredKind = nil
                }
                tokens.append(token)
                if token.kind == .end { break }
            }
            guard !specifiers.isEmpty else { return nil }
            let lexed = LexedFormat(format: format, tokens: tokens, scalars: lexer.scalars, specifiers: specifiers)
            kept.withLock { kept in
                if kept.count >= capacity { kept.removeAll() }
                kept[format] = lexed
            }
            return lexed
        }

        /// The tokens with `arguments` in their specifiers' places.
        func tokens(with arguments: [Any?]) throws(PredicateSyntaxError) -> [PredicateToken] {
            var filled = tokens
            for (number, specifier) in specifiers.enumerated() {
                let token = tokens[specifier.token]
                var text: String { PredicateLexer.text(of: scalars, token.start..<token.end) }
                guard number < arguments.count else {
                    throw PredicateLexer.error(
                        in: format, atScalar: token.start, expected: "an argument for \(text) (too few arguments)",
                        found: text)
                }
                guard let kind = PredicateLexer.convert(arguments[number], as: specifier.kind) else {
                    throw PredicateLexer.error(
                        in: format, atScalar: token.start, expected: "\(specifier.kind.description) argument for \(text)",
                        found: String(String(describing: arguments[number] ?? "nil").prefix(40)))
                }
                filled[specifier.token].kind = kind
            }
            return filled
        }
    }

    /// The error at a scalar offset of the format string, with the offset in `Character`s.
    static func error(
        in format: String, atScalar offset: Int, expected: String, found: String
    ) -> PredicateSyntaxError {
        let scalars = format.unicodeScalars
        let index = scalars.index(scalars.startIndex, offsetBy: min(max(offset, 0), scalars.count))
        let characters = String(scalars[..<index]).count
        return PredicateSyntaxError(format: format, offset: characters, expected: expected, found: found)
    }

    private func error(at offset: Int, expected: String, length: Int = 1) -> PredicateSyntaxError {
        let end = min(offset + min(max(length, 0), 30), scalars.count)
        let found = offset < end ? text(offset..<end) : ""
        return Self.error(in: format, atScalar: offset, expected: expected, found: found)
    }

    private func text(_ range: Range<Int>) -> String { Self.text(of: scalars, range) }

    /// The text of a token (at most `limit` scalars of it), for error messages.
    static func text(of scalars: [Unicode.Scalar], _ range: Range<Int>, limit: Int = .max) -> String {
        let slice = scalars[range.clamped(to: 0..<scalars.count).prefix(limit)]
        // Encoded straight into the string's storage: appending scalars one at a time to a
        // `UnicodeScalarView` cost most of a short format's lexing.
        return String(unsafeUninitializedCapacity: slice.count * 4) { buffer in
            var count = 0
            for scalar in slice {
                UTF8.encode(scalar) { unit in
                    buffer[count] = unit
                    count += 1
                }
            }
            return count
        }
    }

    private func peek(_ ahead: Int = 0) -> Unicode.Scalar? {
        position + ahead < scalars.count ? scalars[position + ahead] : nil
    }

    private mutating func nextToken() throws(PredicateSyntaxError) -> PredicateToken {
        while let scalar = peek(), Self.isWhitespace(scalar) { position += 1 }
        let start = position
        guard let scalar = peek() else { return PredicateToken(kind: .end, start: start, end: start) }
        let kind: PredicateToken.Kind
        switch scalar {
        case "\"", "'": kind = .string(try readString(quote: scalar))
        case "0"..."9": kind = .number(try readNumber())
        case "%": kind = try readFormatSpecifier()
        case "#", "@", "$":
            position += 1
            guard let next = peek(), Self.isIdentifierStart(next) else {
                return PredicateToken(kind: .invalid, start: start, end: position)
            }
            let name = readIdentifier()
            switch scalar {
            case "#": kind = .escapedWord(name)
            case "@": kind = .collectionOperator("@" + name)
            default: kind = .variable(name)
            }
        default:
            if Self.isIdentifierStart(scalar) {
                kind = .word(readWord())
            } else if let symbol = readSymbol() {
                kind = .symbol(symbol)
            } else {
                position += 1
                while let next = peek(), !Self.isWhitespace(next), !Self.isIdentifierContinue(next),
                    !Self.tokenStarts.unicodeScalars.contains(next)
                {
                    position += 1
                }
                kind = .invalid
            }
        }
        return PredicateToken(kind: kind, start: start, end: position)
    }

    /// The characters that begin tokens other than words and numbers.
    private static let tokenStarts = "()[]{},.:=!<>&|+-*/%$#@'\""

    private static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return scalar == " " || ("\t"..."\r").contains(scalar) }
        return scalar.properties.isWhitespace
    }

    static func isIdentifierStart(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || scalar == "_" }
        return scalar.properties.isAlphabetic
    }

    static func isIdentifierContinue(_ scalar: Unicode.Scalar) -> Bool {
        if isIdentifierStart(scalar) { return true }
        if scalar.isASCII { return ("0"..."9").contains(scalar) }
        switch scalar.properties.generalCategory {
        case .decimalNumber, .nonspacingMark, .spacingMark, .connectorPunctuation: return true
        default: return false
        }
    }

    private mutating func readIdentifier() -> String {
        let start = position
        while let scalar = peek(), Self.isIdentifierContinue(scalar) { position += 1 }
        return text(start..<position)
    }

    /// A word; `UTI-CONFORMS-TO` and `UTI-EQUALS` are single words despite their hyphens.
    private mutating func readWord() -> String {
        let word = readIdentifier()
        guard word.utf8.count == 3, word.uppercased() == "UTI" else { return word }
        for suffix in ["-CONFORMS-TO", "-EQUALS"] {
            let end = position + suffix.unicodeScalars.count
            guard end <= scalars.count, text(position..<end).uppercased() == suffix else { continue }
            if end < scalars.count, Self.isIdentifierContinue(scalars[end]) { continue }
            position = end
            return word + suffix
        }
        return word
    }

    private mutating func readSymbol() -> PredicateToken.Symbol? {
        guard let first = peek() else { return nil }
        let second = peek(1)
        let symbol: PredicateToken.Symbol
        var length = 1
        switch (first, second) {
        case ("*", "*"): (symbol, length) = (.power, 2)
        case ("=", "="): (symbol, length) = (.equal, 2)
        case ("=", "<"), ("<", "="): (symbol, length) = (.lessOrEqual, 2)
        case ("=", ">"), (">", "="): (symbol, length) = (.greaterOrEqual, 2)
        case ("!", "="), ("<", ">"): (symbol, length) = (.notEqual, 2)
        case ("&", "&"): (symbol, length) = (.and, 2)
        case ("|", "|"): (symbol, length) = (.or, 2)
        case (":", "="): (symbol, length) = (.assign, 2)
        case ("(", _): symbol = .openParen
        case (")", _): symbol = .closeParen
        case ("{", _): symbol = .openBrace
        case ("}", _): symbol = .closeBrace
        case ("[", _): symbol = .openBracket
        case ("]", _): symbol = .closeBracket
        case (",", _): symbol = .comma
        case (".", _): symbol = .dot
        case (":", _): symbol = .colon
        case ("=", _): symbol = .equal
        case ("<", _): symbol = .less
        case (">", _): symbol = .greater
        case ("!", _): symbol = .not
        case ("+", _): symbol = .plus
        case ("-", _): symbol = .minus
        case ("*", _): symbol = .times
        case ("/", _): symbol = .divide
        default: return nil
        }
        position += length
        return symbol
    }

    // MARK: Literals

    private mutating func readString(quote: Unicode.Scalar) throws(PredicateSyntaxError) -> String {
        let start = position
        position += 1
        var result = String.UnicodeScalarView()
        while true {
            guard let scalar = peek() else {
                throw error(at: start, expected: "a closing \(quote) for this string", length: position - start)
            }
            position += 1
            if scalar == quote { return String(result) }
            if scalar == "\\" {
                result.append(try readEscape(at: position - 1))
            } else {
                result.append(scalar)
            }
        }
    }

    /// One escape sequence after its backslash: `\" \' \\ \n \t \r \a \b \f \v`, octal
    /// `\ooo`, `\xhh`, and `\uhhhh` (a surrogate pair is two `\u` escapes).
    private mutating func readEscape(at backslash: Int) throws(PredicateSyntaxError) -> Unicode.Scalar {
        guard let scalar = peek() else { throw error(at: backslash, expected: "an escape sequence") }
        position += 1
        switch scalar {
        case "\"", "'", "\\": return scalar
        case "n": return "\n"
        case "t": return "\t"
        case "r": return "\r"
        case "a": return "\u{07}"
        case "b": return "\u{08}"
        case "f": return "\u{0C}"
        case "v": return "\u{0B}"
        case "0"..."7":
            position -= 1
            let value = readDigits(radix: 8, maximum: 3)
            if let result = Unicode.Scalar(value) { return result }
        case "x":
            let digitsStart = position
            let value = readDigits(radix: 16, maximum: 2)
            if position > digitsStart, let result = Unicode.Scalar(value) { return result }
        case "u":
            let value = try readFourHexDigits(backslash: backslash)
            if (0xD800..<0xDC00).contains(value), peek() == "\\", peek(1) == "u" {
                position += 2
                let low = try readFourHexDigits(backslash: backslash)
                if (0xDC00..<0xE000).contains(low),
                    let result = Unicode.Scalar(0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00))
                {
                    return result
                }
            } else if let result = Unicode.Scalar(value) {
                return result
            }
        default: break
        }
        throw error(at: backslash, expected: "a valid escape sequence", length: position - backslash)
    }

    private mutating func readFourHexDigits(backslash: Int) throws(PredicateSyntaxError) -> UInt32 {
        let digitsStart = position
        let value = readDigits(radix: 16, maximum: 4)
        guard position - digitsStart == 4 else {
            throw error(at: backslash, expected: "four hexadecimal digits after \\u", length: position - backslash)
        }
        return value
    }

    private mutating func readDigits(radix: UInt32, maximum: Int) -> UInt32 {
        var value: UInt32 = 0
        var count = 0
        while count < maximum, let scalar = peek(), let digit = Self.digit(scalar, radix: radix) {
            value = value * radix + digit
            position += 1
            count += 1
        }
        return value
    }

    private static func digit(_ scalar: Unicode.Scalar, radix: UInt32) -> UInt32? {
        let value: UInt32
        switch scalar {
        case "0"..."9": value = scalar.value - 48
        case "a"..."z": value = scalar.value - 97 + 10
        case "A"..."Z": value = scalar.value - 65 + 10
        default: return nil
        }
        return value < radix ? value : nil
    }

    /// A number: decimal with optional fraction and exponent, or `0x`, `0o`, `0b` integers.
    private mutating func readNumber() throws(PredicateSyntaxError) -> PredicateToken.Number {
        let start = position
        let radixes: [Unicode.Scalar: UInt64] = ["x": 16, "X": 16, "o": 8, "O": 8, "b": 2, "B": 2]
        if peek() == "0", let prefix = peek(1), let radix = radixes[prefix] {
            position += 2
            var value: UInt64 = 0
            var digits = 0
            var overflow = false
            while let scalar = peek(), let digit = Self.digit(scalar, radix: UInt32(radix)) {
                let (shifted, over1) = value.multipliedReportingOverflow(by: radix)
                let (sum, over2) = shifted.addingReportingOverflow(UInt64(digit))
                overflow = overflow || over1 || over2
                value = sum
                digits += 1
                position += 1
            }
            try endOfNumber(start: start, valid: digits > 0 && !overflow)
            return .integer(value)
        }
        var isReal = false
        while let scalar = peek(), ("0"..."9").contains(scalar) { position += 1 }
        if peek() == ".", let next = peek(1), ("0"..."9").contains(next) {
            isReal = true
            position += 1
            while let scalar = peek(), ("0"..."9").contains(scalar) { position += 1 }
        }
        if peek() == "e" || peek() == "E" {
            let sign = peek(1) == "+" || peek(1) == "-" ? 1 : 0
            if let digit = peek(1 + sign), ("0"..."9").contains(digit) {
                isReal = true
                position += 1 + sign
                while let scalar = peek(), ("0"..."9").contains(scalar) { position += 1 }
            }
        }
        try endOfNumber(start: start, valid: true)
        let literal = text(start..<position)
        if !isReal, let integer = UInt64(literal) { return .integer(integer) }
        guard let real = Double(literal) else { throw error(at: start, expected: "a number", length: position - start) }
        return .real(real)
    }

    /// A number runs into no letter or digit: `12abc` and `0x` are errors, not two tokens.
    private mutating func endOfNumber(start: Int, valid: Bool) throws(PredicateSyntaxError) {
        var end = position
        while end < scalars.count, Self.isIdentifierContinue(scalars[end]) { end += 1 }
        guard valid, end == position else {
            throw error(at: start, expected: "a number", length: end - start)
        }
    }

    // MARK: Format arguments

    private mutating func readFormatSpecifier() throws(PredicateSyntaxError) -> PredicateToken.Kind {
        let start = position
        position += 1
        if peek() == "%" {
            position += 1
            return .symbol(.percent)
        }
        while let scalar = peek(), "hlqLzjt".unicodeScalars.contains(scalar), position - start < 4 { position += 1 }
        guard let conversion = peek() else {
            throw error(at: start, expected: "a format specifier (%@, %K, %d, %f, %s, %%)", length: position - start)
        }
        position += 1
        var specifier: String { text(start..<position) }
        let kind: ArgumentKind
        switch conversion {
        case "@": kind = .object
        case "K": kind = .keyPath
        case "d", "i", "o", "u", "x", "X", "c", "C": kind = .integer
        case "f", "F", "e", "E", "g", "G", "a", "A": kind = .real
        case "s", "S": kind = .string
        default:
            throw error(at: start, expected: "a format specifier (%@, %K, %d, %f, %s, %%)", length: position - start)
        }
        if defersArguments {
            deferredKind = kind
            return .argument(.null)
        }
        guard nextArgument < arguments.count else {
            let expected = "an argument for \(specifier) (too few arguments)"
            throw error(at: start, expected: expected, length: position - start)
        }
        let argument = arguments[nextArgument]
        nextArgument += 1
        if let converted = Self.convert(argument, as: kind) { return converted }
        throw Self.error(
            in: format, atScalar: start, expected: "\(kind.description) argument for \(specifier)",
            found: String(String(describing: argument ?? "nil").prefix(40)))
    }

    enum ArgumentKind: CustomStringConvertible {
        case object, keyPath, integer, real, string
        var description: String {
            switch self {
            case .object: "an object"
            case .keyPath: "a non-empty string key path"
            case .integer: "an integer"
            case .real: "a floating-point"
            case .string: "a string"
            }
        }
    }

    static func convert(_ argument: Any?, as kind: ArgumentKind) -> PredicateToken.Kind? {
        if kind == .string {
            if let pointer = argument as? UnsafePointer<CChar> {
                return .argument(.string(String(cString: pointer)))
            }
            if let pointer = argument as? UnsafeMutablePointer<CChar> {
                return .argument(.string(String(cString: pointer)))
            }
        }
        let value = PredicateArguments.value(argument)
        switch (kind, value) {
        case (.object, _): return .argument(value)
        case (.keyPath, .string(let path)) where !path.isEmpty: return .keyPathArgument(path)
        case (.integer, .integer), (.real, .double), (.string, .string): return .argument(value)
        case (.integer, .bool(let flag)): return .argument(.integer(flag ? 1 : 0))
        case (.integer, .double(let real)) where real.isFinite && abs(real) < 9.2e18:
            return .argument(.integer(Int64(real)))
        case (.integer, .decimal(let decimal)): return convert(NSDecimalNumber(decimal: decimal).int64Value, as: kind)
        case (.real, .integer(let integer)): return .argument(.double(Double(integer)))
        case (.real, .bool(let flag)): return .argument(.double(flag ? 1 : 0))
        case (.real, .decimal(let decimal)): return .argument(.double(NSDecimalNumber(decimal: decimal).doubleValue))
        default: return nil
        }
    }
}
