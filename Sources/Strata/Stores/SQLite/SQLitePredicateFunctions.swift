import Foundation
internal import GRDB

/// The SQL functions and collations that compiled predicates and sort keys call
/// (`SQLitePredicateCompiler`). They run the very Swift functions the in-memory evaluator
/// runs (`PredicateStringMatching`, `PredicateSortComparison`), so that a predicate gives
/// the same answer in SQL as in memory. Registered on every connection of a SQLite store.
enum SQLitePredicateFunctions {
    /// `STRATA_MATCH(operator, options, left, right)`: 1 when the string operator holds, else
    /// 0, never NULL. `operator` is `==`, `!=`, `BEGINSWITH`, `ENDSWITH`, `CONTAINS`, `LIKE` or
    /// `MATCHES`; `options` the raw value of `ComparisonNode.Options`. NULL operands make
    /// `==` true only when both are NULL, `!=` its opposite, the other operators false.
    static let match = "STRATA_MATCH"
    /// `STRATA_FOLD(value, options)`: a string as the options compare it (`[c]`, `[d]`); other
    /// values unchanged.
    static let fold = "STRATA_FOLD"
    /// `STRATA_UPPERCASE(value)`, `STRATA_LOWERCASE(value)`: `uppercase:` and `lowercase:`.
    static let uppercase = "STRATA_UPPERCASE"
    static let lowercase = "STRATA_LOWERCASE"
    /// `STRATA_CANONICAL(value)`: `canonical:`, the case- and diacritic-folded string.
    static let canonical = "STRATA_CANONICAL"
    /// `STRATA_LENGTH(value)`: `length:`, the string's length in UTF-16 units (`NSString.length`).
    static let length = "STRATA_LENGTH"
    /// `STRATA_MATH(name, x[, y])`: `sqrt:`, `log:`, `ln:`, `exp:`, `floor:`, `ceiling:`,
    /// `trunc:`, `abs:`, `modulus:by:`, `raise:toPower:` on doubles.
    static let math = "STRATA_MATH"
    /// Collations of the sort selectors `localizedCompare:` and `localizedStandardCompare:`.
    static let localizedCollation = "STRATA_LOCALIZED"
    static let localizedStandardCollation = "STRATA_LOCALIZED_STANDARD"

    /// Adds the functions and collations to a connection.
    static func register(in db: Database) {
        db.add(function: DatabaseFunction(match, argumentCount: 4, pure: true) { values in matchValue(values) })
        db.add(function: DatabaseFunction(fold, argumentCount: 2, pure: true) { values in foldValue(values) })
        db.add(
            function: DatabaseFunction(uppercase, argumentCount: 1, pure: true) { values in
                text(values[0])?.uppercased()
            })
        db.add(
            function: DatabaseFunction(lowercase, argumentCount: 1, pure: true) { values in
                text(values[0])?.lowercased()
            })
        db.add(
            function: DatabaseFunction(canonical, argumentCount: 1, pure: true) { values in
                text(values[0]).map { PredicateStringMatching.fold($0, [.caseInsensitive, .diacriticInsensitive]) }
            })
        db.add(
            function: DatabaseFunction(length, argumentCount: 1, pure: true) { values in
                text(values[0]).map { Int64($0.utf16.count) }
            })
        db.add(function: DatabaseFunction(math, pure: true) { values in mathValue(values) })
        db.add(
            collation: DatabaseCollation(localizedCollation) { a, b in
                PredicateSortComparison.compareText(a, b, using: .localizedCompare)
            })
        db.add(
            collation: DatabaseCollation(localizedStandardCollation) { a, b in
                PredicateSortComparison.compareText(a, b, using: .localizedStandardCompare)
            })
    }

    /// The text of a column value: strings, and UTF-8 blobs (some stores hold strings so).
    static func text(_ value: DatabaseValue) -> String? {
        switch value.storage {
        case .string(let text): text
        case .blob(let data): String(data: data, encoding: .utf8)
        default: nil
        }
    }

    private static func matchValue(_ values: [DatabaseValue]) -> Int64 {
        guard case .string(let name) = values[0].storage, case .int64(let raw) = values[1].storage else { return 0 }
        let options = ComparisonNode.Options(rawValue: UInt(truncatingIfNeeded: raw))
        let (left, right) = (values[2], values[3])
        switch name {
        case "==": return equals(left, right, options) ? 1 : 0
        case "!=": return equals(left, right, options) ? 0 : 1
        default: break
        }
        guard let subject = text(left), let other = text(right) else { return 0 }
        let result: Bool
        switch name {
        case "BEGINSWITH": result = PredicateStringMatching.beginsWith(subject, other, options)
        case "ENDSWITH": result = PredicateStringMatching.endsWith(subject, other, options)
        case "CONTAINS": result = PredicateStringMatching.contains(subject, other, options)
        case "LIKE": result = PredicateStringMatching.like(subject, other, options)
        case "MATCHES": result = PredicateStringMatching.matches(subject, other, options)
        default: result = false
        }
        return result ? 1 : 0
    }

    private static func equals(_ a: DatabaseValue, _ b: DatabaseValue, _ options: ComparisonNode.Options) -> Bool {
        if a.isNull || b.isNull { return a.isNull && b.isNull }
        if let subject = text(a), let other = text(b) { return PredicateStringMatching.equals(subject, other, options) }
        return a == b
    }

    private static func foldValue(_ values: [DatabaseValue]) -> DatabaseValue {
        guard case .string(let text) = values[0].storage, case .int64(let raw) = values[1].storage else {
            return values[0]
        }
        let options = ComparisonNode.Options(rawValue: UInt(truncatingIfNeeded: raw))
        return PredicateStringMatching.fold(text, options).databaseValue
    }

    private static func number(_ value: DatabaseValue) -> Double? {
        switch value.storage {
        case .int64(let number): Double(number)
        case .double(let number): number
        case .string(let text): Double(text)
        default: nil
        }
    }

    private static func mathValue(_ values: [DatabaseValue]) -> Double? {
        guard values.count >= 2, case .string(let name) = values[0].storage, let x = number(values[1]) else {
            return nil
        }
        if values.count == 3 {
            guard let y = number(values[2]) else { return nil }
            switch name {
            case "modulus": return fmod(x, y)
            case "raise": return pow(x, y)
            default: return nil
            }
        }
        switch name {
        case "sqrt": return x.squareRoot()
        case "log": return log10(x)
        case "ln": return Foundation.log(x)
        case "exp": return Foundation.exp(x)
        case "floor": return x.rounded(.down)
        case "ceiling": return x.rounded(.up)
        case "trunc": return x.rounded(.towardZero)
        case "abs": return Swift.abs(x)
        default: return nil
        }
    }
}
