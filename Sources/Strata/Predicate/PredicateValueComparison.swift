import Foundation

/// A number as predicates compare it: integers stay exact, decimals stay decimal, and only a
/// mix with a binary floating-point value goes through `Double`. Every numeric type Swift and
/// Foundation hand us (`Int*`, `UInt*`, `Double`, `Float`, `Decimal`, `NSNumber`, `Bool` as
/// 0 and 1) becomes one of these, so that `1 == 1.0 == NSNumber(1) == true` as in Foundation.
enum PredicateNumber {
    case integer(Int64)
    case double(Double)
    case decimal(Decimal)

    var doubleValue: Double {
        switch self {
        case .integer(let value): Double(value)
        case .double(let value): value
        case .decimal(let value): NSDecimalNumber(decimal: value).doubleValue
        }
    }

    var decimalValue: Decimal? {
        switch self {
        case .integer(let value): Decimal(value)
        case .double(let value): value.isFinite ? Decimal(value) : nil
        case .decimal(let value): value.isNaN ? nil : value
        }
    }

    /// The value as a Swift value for callers: `Int64`, `Double` or `Decimal`.
    var runtimeValue: Any {
        switch self {
        case .integer(let value): value
        case .double(let value): value
        case .decimal(let value): value
        }
    }

    /// The order of two numbers by value; `nil` when either is NaN, which compares false with
    /// everything, itself included.
    static func compare(_ left: PredicateNumber, _ right: PredicateNumber) -> ComparisonResult? {
        switch (left, right) {
        case (.integer(let a), .integer(let b)): return order(a, b)
        case (.integer(let a), .double(let b)): return compare(a, b)
        case (.double(let a), .integer(let b)): return compare(b, a).map(reversed)
        case (.decimal(let a), .decimal(let b)): return a.isNaN || b.isNaN ? nil : order(a, b)
        case (.decimal(let a), .integer(let b)): return a.isNaN ? nil : order(a, Decimal(b))
        case (.integer(let a), .decimal(let b)): return b.isNaN ? nil : order(Decimal(a), b)
        default:
            let (a, b) = (left.doubleValue, right.doubleValue)
            return a.isNaN || b.isNaN ? nil : order(a, b)
        }
    }

    private static func order<T: Comparable>(_ a: T, _ b: T) -> ComparisonResult {
        a < b ? .orderedAscending : (a > b ? .orderedDescending : .orderedSame)
    }

    private static func reversed(_ result: ComparisonResult) -> ComparisonResult {
        switch result {
        case .orderedAscending: .orderedDescending
        case .orderedDescending: .orderedAscending
        case .orderedSame: .orderedSame
        }
    }

    /// An integer against a double, exactly: converting the integer to `Double` would make
    /// 2^53 + 1 equal to 2^53.
    private static func compare(_ integer: Int64, _ double: Double) -> ComparisonResult? {
        if double.isNaN { return nil }
        if double >= 9_223_372_036_854_775_808.0 { return .orderedAscending }
        if double < -9_223_372_036_854_775_808.0 { return .orderedDescending }
        let whole = double.rounded(.towardZero)
        let result = order(integer, Int64(whole))
        if result != .orderedSame { return result }
        return order(0, double - whole)
    }
}

/// Lets the evaluator see through `Optional`s that arrive boxed in `Any` (elements of
/// `[Any?]`, values of `[String: Any?]`), so that `Optional(5)` compares as 5.
protocol PredicateOptionalValue {
    var predicateWrappedValue: Any? { get }
}

extension Optional: PredicateOptionalValue {
    var predicateWrappedValue: Any? { self.map { $0 as Any } }
}

/// The shapes of runtime values the evaluator distinguishes, and how they compare. Values
/// are `Any?` as Swift code and Foundation produce them; these helpers never trap.
enum PredicateValues {
    /// The value without `Optional` boxes, with `NSNull` as nil.
    static func normalize(_ value: Any?) -> Any? {
        guard var current = value else { return nil }
        var depth = 0
        while let boxed = current as? PredicateOptionalValue, depth < 8 {
            guard let inner = boxed.predicateWrappedValue else { return nil }
            current = inner
            depth += 1
        }
        guard isObject(current) else { return current }
        if current is NSNull { return nil }
        if let object = current as? PredicateObject { return object.object }
        return current
    }

    /// Whether the value is a class instance. Casts to Foundation classes are only tried on
    /// these: on Linux, casting a Swift array to `NSSet` bridges the whole array first (and
    /// bridging some nested values recurses without end).
    static func isObject(_ value: Any) -> Bool { type(of: value) is AnyObject.Type }

    static func number(_ value: Any?) -> PredicateNumber? {
        guard let value = normalize(value) else { return nil }
        if type(of: value) is NSNumber.Type, let object = value as? NSNumber { return number(from: object) }
        switch value {
        case let value as Bool: return .integer(value ? 1 : 0)
        case let value as Int: return .integer(Int64(value))
        case let value as Int64: return .integer(value)
        case let value as Int32: return .integer(Int64(value))
        case let value as Int16: return .integer(Int64(value))
        case let value as Int8: return .integer(Int64(value))
        case let value as UInt: return unsigned(UInt64(value))
        case let value as UInt64: return unsigned(value)
        case let value as UInt32: return .integer(Int64(value))
        case let value as UInt16: return .integer(Int64(value))
        case let value as UInt8: return .integer(Int64(value))
        case let value as Double: return .double(value)
        case let value as Float: return .double(Double(value))
        case let value as Decimal: return .decimal(value)
        default: return nil
        }
    }

    private static func unsigned(_ value: UInt64) -> PredicateNumber {
        value <= UInt64(Int64.max) ? .integer(Int64(value)) : .decimal(Decimal(value))
    }

    private static func number(from number: NSNumber) -> PredicateNumber {
        if let decimal = number as? NSDecimalNumber { return .decimal(decimal.decimalValue) }
        switch UInt8(bitPattern: number.objCType.pointee) {
        case UInt8(ascii: "f"), UInt8(ascii: "d"): return .double(number.doubleValue)
        case UInt8(ascii: "Q"), UInt8(ascii: "L"): return unsigned(number.uint64Value)
        default: return .integer(number.int64Value)
        }
    }

    static func string(_ value: Any?) -> String? {
        switch normalize(value) {
        case let value as String: value
        case let value as Substring: String(value)
        case let value as Character: String(value)
        default: nil
        }
    }

    static func date(_ value: Any?) -> Date? { normalize(value) as? Date }

    /// The elements of an array, set or ordered set (Swift or Foundation), normalized; `nil`
    /// for anything else, strings and dictionaries included.
    static func elements(_ value: Any?) -> [Any?]? {
        guard let value = normalize(value) else { return nil }
        if isObject(value) {
            if let ordered = value as? NSOrderedSet { return ordered.array.map(normalize) }
            if let array = value as? NSArray { return array.map(normalize) }
            if let set = value as? NSSet { return set.allObjects.map(normalize) }
            return nil
        }
        if value is String { return nil }
        if let array = value as? [Any?] { return array.map(normalize) }
        if let set = value as? Set<AnyHashable> { return set.map { normalize($0.base) } }
        return nil
    }

    /// Whether a collection is unordered, so that `==` compares it as a multiset.
    static func isUnordered(_ value: Any?) -> Bool {
        guard let value = normalize(value) else { return false }
        if isObject(value) { return value is NSSet }
        return value is Set<AnyHashable>
    }

    /// A dictionary's entries by string key, or `nil` when the value is not a dictionary.
    static func dictionary(_ value: Any?) -> [String: Any]? {
        switch normalize(value) {
        case let value as [String: Any]: return value
        case let value as [AnyHashable: Any]:
            var result: [String: Any] = [:]
            for (key, entry) in value { result["\(key.base)"] = entry }
            return result
        default: return nil
        }
    }

    /// The value as a set element, when it is a hashable scalar or object; nil for
    /// collections and dictionaries (which would be bridged to Foundation to be hashed).
    static func hashable(_ value: Any?) -> AnyHashable? {
        guard let value = normalize(value), elements(value) == nil, dictionary(value) == nil else { return nil }
        return value as? AnyHashable
    }

    // MARK: Equality and order

    /// `==` as `NSComparisonPredicate` evaluates it: nil equals only nil (and `NSNull`),
    /// numbers by value across types, strings under the options, dates by time, collections
    /// element by element, objects by `isEqual`; values of different kinds are unequal.
    static func equal(_ left: Any?, _ right: Any?, _ options: ComparisonNode.Options = []) -> Bool {
        let left = normalize(left)
        let right = normalize(right)
        guard let left, let right else { return left == nil && right == nil }
        if let a = number(left), let b = number(right) { return PredicateNumber.compare(a, b) == .orderedSame }
        if let a = string(left), let b = string(right) { return PredicateStringMatching.equals(a, b, options) }
        if let a = left as? Date, let b = right as? Date { return a == b }
        if let a = left as? Data, let b = right as? Data { return a == b }
        if let a = left as? UUID, let b = right as? UUID { return a == b }
        if let a = left as? URL, let b = right as? URL { return a == b }
        if let a = elements(left), let b = elements(right) {
            guard a.count == b.count else { return false }
            if isUnordered(left) || isUnordered(right) { return sameElements(a, b, options) }
            return zip(a, b).allSatisfy { equal($0, $1, options) }
        }
        if let a = dictionary(left), let b = dictionary(right) {
            guard a.count == b.count else { return false }
            return a.allSatisfy { key, value in b[key].map { equal(value, $0, options) } ?? false }
        }
        if isObject(left) || isObject(right) {
            guard isObject(left), isObject(right) else { return false }
            let (a, b) = (left as AnyObject, right as AnyObject)
            if let a = a as? NSObject, let b = b as? NSObject { return a.isEqual(b) }
            return a === b
        }
        // Only values of one type: comparing `AnyHashable`s of different types can bridge them
        // to Foundation, and bridging a Swift set that holds a `Decimal` never returns on Linux.
        guard ObjectIdentifier(type(of: left)) == ObjectIdentifier(type(of: right)),
            let a = left as? AnyHashable, let b = right as? AnyHashable
        else { return false }
        return a == b
    }

    /// Multiset equality for sets: every element of one side matched by a distinct element of
    /// the other.
    private static func sameElements(_ left: [Any?], _ right: [Any?], _ options: ComparisonNode.Options) -> Bool {
        var remaining = right
        for element in left {
            guard let index = remaining.firstIndex(where: { equal(element, $0, options) }) else { return false }
            remaining.remove(at: index)
        }
        return true
    }

    /// The order of two values for `<`, `<=`, `>`, `>=`, `BETWEEN` and `@min`/`@max`: numbers
    /// by value, dates by time, strings by their Unicode scalars after the options' folding.
    /// `nil` when the values do not compare (nil, mixed kinds, NaN).
    static func order(_ left: Any?, _ right: Any?, _ options: ComparisonNode.Options = []) -> ComparisonResult? {
        let left = normalize(left)
        let right = normalize(right)
        guard let left, let right else { return nil }
        if let a = number(left), let b = number(right) { return PredicateNumber.compare(a, b) }
        if let a = string(left), let b = string(right) {
            let x = PredicateStringMatching.fold(a, options).unicodeScalars
            let y = PredicateStringMatching.fold(b, options).unicodeScalars
            if x.elementsEqual(y) { return .orderedSame }
            return x.lexicographicallyPrecedes(y) ? .orderedAscending : .orderedDescending
        }
        if let a = left as? Date, let b = right as? Date {
            return a < b ? .orderedAscending : (a > b ? .orderedDescending : .orderedSame)
        }
        return nil
    }

    // MARK: Operators

    /// One comparison between two values (after `ANY`/`ALL` picked the left element).
    static func compare(
        _ left: Any?, _ op: ComparisonNode.Operator, _ right: Any?, _ options: ComparisonNode.Options
    ) -> Bool {
        switch op {
        case .equalTo: return equal(left, right, options)
        case .notEqualTo: return !equal(left, right, options)
        case .lessThan: return order(left, right, options) == .orderedAscending
        case .lessThanOrEqualTo: return [.orderedAscending, .orderedSame].contains(order(left, right, options))
        case .greaterThan: return order(left, right, options) == .orderedDescending
        case .greaterThanOrEqualTo: return [.orderedDescending, .orderedSame].contains(order(left, right, options))
        case .between:
            guard let bounds = elements(right), bounds.count == 2 else { return false }
            return compare(left, .greaterThanOrEqualTo, bounds[0], options)
                && compare(left, .lessThanOrEqualTo, bounds[1], options)
        case .in: return isMember(left, of: right, options)
        case .contains:
            if let text = string(left) {
                return string(right).map { PredicateStringMatching.contains(text, $0, options) } ?? false
            }
            return isMember(right, of: left, options)
        case .beginsWith, .endsWith, .like, .matches:
            guard let text = string(left), let pattern = string(right) else { return false }
            switch op {
            case .beginsWith: return PredicateStringMatching.beginsWith(text, pattern, options)
            case .endsWith: return PredicateStringMatching.endsWith(text, pattern, options)
            case .like: return PredicateStringMatching.like(text, pattern, options)
            default: return PredicateStringMatching.matches(text, pattern, options)
            }
        }
    }

    /// `IN`: an element of a collection, a substring of a string, a value of a dictionary.
    static func isMember(_ value: Any?, of container: Any?, _ options: ComparisonNode.Options) -> Bool {
        if let text = string(container) {
            guard let part = string(value) else { return false }
            return PredicateStringMatching.contains(text, part, options)
        }
        if let elements = elements(container) { return elements.contains { equal(value, $0, options) } }
        if let dictionary = dictionary(container) { return dictionary.values.contains { equal(value, $0, options) } }
        return false
    }
}
