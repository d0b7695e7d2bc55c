import Foundation

/// How sort descriptors order two values, in one place: the in-memory sort calls this, and
/// the SQLite store sorts by the same rules (its SQL functions and collations call it), so
/// that a fetch gives the same order in memory and in SQL.
///
/// Values of different kinds order as SQLite orders its storage classes: `nil` first, then
/// numbers (Booleans, integers, decimals, doubles and dates, which SQLite stores as seconds
/// since 2001, all by value), then strings (and URLs, by their text), then data (and UUIDs,
/// by their 16 bytes).
///
/// Strings compare per the sort descriptor's selector:
/// - `compare:` by Unicode scalars (SQLite's `BINARY` order of UTF-8);
/// - `caseInsensitiveCompare:` and `localizedCaseInsensitiveCompare:` by the Unicode scalars
///   of the `[c]`-folded strings (`PredicateStringMatching.fold`), so "Straße" sorts with
///   "STRASSE";
/// - `localizedCompare:` with Foundation's comparison in the current locale;
/// - `localizedStandardCompare:` with Foundation's Finder-style comparison: case and
///   diacritics only break ties, and runs of digits compare by their numeric value
///   ("file2" before "File10").
enum PredicateSortComparison {
    static func compare(_ a: Any?, _ b: Any?, using comparison: FetchPlan.SortComparison) -> ComparisonResult {
        compareValues(SortValue(a), SortValue(b), using: comparison)
    }

    /// Two values already reduced to their storage classes (a fetched results controller keeps
    /// its objects' sort values so, to compare them without casting them again).
    static func compareValues(
        _ left: SortValue, _ right: SortValue, using comparison: FetchPlan.SortComparison
    ) -> ComparisonResult {
        if left.rank != right.rank { return left.rank < right.rank ? .orderedAscending : .orderedDescending }
        switch (left, right) {
        case (.integer(let x), .integer(let y)): return order(x, y)
        case (.decimal(let x), .decimal(let y)): return order(x, y)
        case (.string(let x), .string(let y)): return compareText(x, y, using: comparison)
        case (.data(let x), .data(let y)): return compareBytes(x, y)
        default:
            guard let x = left.doubleValue, let y = right.doubleValue else { return .orderedSame }
            return order(x, y)
        }
    }

    /// Two strings per the comparison; the SQLite collations of the store call this.
    static func compareText(_ a: String, _ b: String, using comparison: FetchPlan.SortComparison) -> ComparisonResult {
        switch comparison {
        case .compare:
            return compareScalars(a, b)
        case .caseInsensitiveCompare, .localizedCaseInsensitiveCompare:
            return compareScalars(
                PredicateStringMatching.fold(a, .caseInsensitive), PredicateStringMatching.fold(b, .caseInsensitive))
        case .localizedCompare:
            return a.compare(b, options: [], range: nil, locale: Locale.current)
        case .localizedStandardCompare:
            return a.localizedStandardCompare(b)
        }
    }

    /// The text a case-insensitive sort orders by: the `[c]`-folded string.
    static func caseInsensitiveSortKey(_ text: String) -> String {
        PredicateStringMatching.fold(text, .caseInsensitive)
    }

    private static func compareScalars(_ a: String, _ b: String) -> ComparisonResult {
        // UTF-8 byte order is Unicode scalar order, and SQLite's BINARY collation.
        compareBytes(a.utf8, b.utf8)
    }

    private static func compareBytes<C: Sequence>(_ a: C, _ b: C) -> ComparisonResult where C.Element == UInt8 {
        var left = a.makeIterator()
        var right = b.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return .orderedSame
            case (nil, _): return .orderedAscending
            case (_, nil): return .orderedDescending
            case (let x?, let y?):
                if x != y { return x < y ? .orderedAscending : .orderedDescending }
            }
        }
    }

    private static func order<T: Comparable>(_ a: T, _ b: T) -> ComparisonResult {
        a < b ? .orderedAscending : (a > b ? .orderedDescending : .orderedSame)
    }

    /// A value sorted, reduced to the storage class SQLite would give it.
    enum SortValue {
        case null
        case integer(Int64)
        case double(Double)
        case decimal(Decimal)
        case string(String)
        case data(Data)
        case other

        init(_ value: Any?) {
            guard let value, !(value is NSNull) else {
                self = .null
                return
            }
            if let number = Self.swiftNumber(value) {
                self = number
                return
            }
            switch value {
            case let text as String: self = .string(text)
            case let text as NSString: self = .string(text as String)
            case let url as URL: self = .string(url.absoluteString)
            case let date as Date: self = .double(date.timeIntervalSinceReferenceDate)
            case let data as Data: self = .data(data)
            case let uuid as UUID: self = .data(withUnsafeBytes(of: uuid.uuid) { Data($0) })
            case let decimal as Decimal: self = .decimal(decimal)
            case let bool as Bool: self = .integer(bool ? 1 : 0)
            case let number as NSNumber: self = Self.number(number)
            default:
                if let integer = value as? any BinaryInteger, let exact = Int64(exactly: integer) {
                    self = .integer(exact)
                } else if let floating = value as? any BinaryFloatingPoint {
                    self = .double(Double(floating))
                } else {
                    self = .other
                }
            }
        }

        /// Swift's own numbers, told by their exact type: the casts below would first try them
        /// as `NSNumber`, which bridges (a CFNumber made for each value compared). An `NSNumber`
        /// itself is not taken here, as `as? Int64` would take an integral decimal number.
        private static func swiftNumber(_ value: Any) -> SortValue? {
            let kind = type(of: value)
            if kind == Int64.self, let integer = value as? Int64 { return .integer(integer) }
            if kind == Double.self, let double = value as? Double { return .double(double) }
            if kind == Int.self, let integer = value as? Int { return .integer(Int64(integer)) }
            if kind == Int32.self, let integer = value as? Int32 { return .integer(Int64(integer)) }
            if kind == Int16.self, let integer = value as? Int16 { return .integer(Int64(integer)) }
            if kind == Float.self, let float = value as? Float { return .double(Double(float)) }
            return nil
        }

        private static func number(_ number: NSNumber) -> SortValue {
            if let decimal = number as? NSDecimalNumber { return .decimal(decimal.decimalValue) }
            let double = number.doubleValue
            if double.rounded() == double, Int64(exactly: double) != nil, Double(number.int64Value) == double {
                return .integer(number.int64Value)
            }
            return .double(double)
        }

        /// nil, numbers, strings, data, and anything else last.
        var rank: Int {
            switch self {
            case .null: 0
            case .integer, .double, .decimal: 1
            case .string: 2
            case .data: 3
            case .other: 4
            }
        }

        var doubleValue: Double? {
            switch self {
            case .integer(let value): Double(value)
            case .double(let value): value
            case .decimal(let value): NSDecimalNumber(decimal: value).doubleValue
            default: nil
            }
        }
    }
}
