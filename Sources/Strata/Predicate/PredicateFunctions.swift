import Foundation

/// `NSExpression`'s built-in functions, by Apple's selector names (`add:to:`, `uppercase:`,
/// `now`), on evaluated arguments. A function Strata does not know, or arguments it cannot
/// take (nil, a string to `sqrt:`, division by zero), give nil rather than an exception.
enum PredicateFunctions {
    static func call(_ name: String, _ arguments: [Any?]) -> Any? {
        let first = arguments.first.flatMap(PredicateValues.normalize)
        let second = arguments.count > 1 ? PredicateValues.normalize(arguments[1]) : nil
        switch name {
        case "sum:": return aggregate(arguments).flatMap { PredicateAggregates.sum($0) }
        case "count:": return aggregate(arguments).map { Int64($0.count) }
        case "min:": return aggregate(arguments).flatMap { PredicateAggregates.extreme($0, .orderedAscending) }
        case "max:": return aggregate(arguments).flatMap { PredicateAggregates.extreme($0, .orderedDescending) }
        case "average:": return aggregate(arguments).flatMap { PredicateAggregates.average($0) }
        case "median:": return aggregate(arguments).flatMap { PredicateAggregates.median($0) }
        case "mode:": return aggregate(arguments).flatMap { PredicateAggregates.mode($0) }
        case "stddev:": return aggregate(arguments).flatMap { PredicateAggregates.standardDeviation($0) }
        case "add:to:", "from:subtract:", "multiply:by:", "divide:by:", "modulus:by:":
            return PredicateArithmetic.binary(name, first, second)
        case "sqrt:", "log:", "ln:", "exp:", "floor:", "ceiling:", "trunc:", "abs:", "raise:toPower:":
            return PredicateArithmetic.math(name, first, second)
        case "bitwiseAnd:with:", "bitwiseOr:with:", "bitwiseXor:with:", "leftshift:by:", "rightshift:by:",
            "onesComplement:":
            return PredicateArithmetic.bitwise(name, first, second)
        case "uppercase:": return PredicateValues.string(first)?.uppercased()
        case "lowercase:": return PredicateValues.string(first)?.lowercased()
        case "canonical:":
            return PredicateValues.string(first).map {
                PredicateStringMatching.fold($0, [.caseInsensitive, .diacriticInsensitive])
            }
        case "length:": return PredicateValues.string(first).map { Int64($0.utf16.count) }
        case "random": return Double.random(in: 0..<1)
        case "random:":
            guard let bound = PredicateArithmetic.integer(first), bound > 0 else { return nil }
            return Int64.random(in: 0..<bound)
        case "now": return Date()
        case "noindex:": return first
        case "castObject:toType:": return PredicateValues.string(second).flatMap { cast(first, to: $0) }
        case "objectFrom:withIndex:": return PredicateIndexing.element(of: first, at: second)
        default:
            // `FUNCTION(receiver, 'selector', …)` with a selector of the receiver rather than
            // one of the list above: a receiver that answers selectors itself (a migration
            // manager, an entity migration policy), else the Foundation methods Strata knows.
            let rest = Array(arguments.dropFirst())
            if let target = first as? PredicateFunctionTarget { return target.predicateFunctionValue(name, arguments: rest) }
            return PredicateObjectMethods.call(name, on: first, arguments: rest)
        }
    }

    /// The values an aggregate function works on: the elements of its one collection
    /// argument (`sum:(items.price)`, `sum:({1, 2})`), or its arguments themselves.
    private static func aggregate(_ arguments: [Any?]) -> [Any?]? {
        if arguments.count == 1 {
            if let elements = PredicateValues.elements(arguments[0]) { return elements }
            if PredicateValues.normalize(arguments[0]) == nil { return nil }
        }
        return arguments.map(PredicateValues.normalize)
    }

    /// `CAST(value, 'Type')`: to `NSDate` from seconds since 2001 (or a date), to `NSNumber`
    /// from a number, a numeric string or a date (its seconds since 2001), to `NSString` from
    /// anything by its description. Other types give nil.
    static func cast(_ value: Any?, to type: String) -> Any? {
        guard let value = PredicateValues.normalize(value) else { return nil }
        switch type {
        case "NSDate", "Date":
            if let date = value as? Date { return date }
            if let number = PredicateValues.number(value) { return date(number.doubleValue) }
            return PredicateValues.string(value).flatMap(parseNumber).flatMap { date($0.doubleValue) }
        case "NSNumber", "NSDecimalNumber":
            let number: PredicateNumber?
            if let date = value as? Date {
                number = .double(date.timeIntervalSinceReferenceDate)
            } else if let text = PredicateValues.string(value) {
                number = parseNumber(text)
            } else {
                number = PredicateValues.number(value)
            }
            guard let number else { return nil }
            if type == "NSDecimalNumber" { return number.decimalValue }
            return number.runtimeValue
        case "NSString", "String":
            return description(of: value)
        default:
            return nil
        }
    }

    /// A date of seconds since 2001, nil when they are not finite: Foundation traps when it
    /// describes a date of NaN seconds.
    static func date(_ seconds: Double) -> Date? {
        seconds.isFinite ? Date(timeIntervalSinceReferenceDate: seconds) : nil
    }

    private static func parseNumber(_ text: String) -> PredicateNumber? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if let integer = Int64(trimmed) { return .integer(integer) }
        if let double = Double(trimmed) { return .double(double) }
        return nil
    }

    /// A value as `description` writes it, with integral doubles as integers ("2", as
    /// `NSNumber` prints 2.0). Dates outside Foundation's printable range and collections
    /// (whose elements could be such dates) have none.
    private static func description(of value: Any) -> String? {
        if let text = PredicateValues.string(value) { return text }
        switch PredicateValues.number(value) {
        case .integer(let integer): return String(integer)
        case .decimal(let decimal): return "\(decimal)"
        case .double(let double):
            if double.isFinite, double == double.rounded(), abs(double) < 1e15 { return String(Int64(double)) }
            return String(double)
        case nil: break
        }
        if let date = value as? Date {
            return abs(date.timeIntervalSinceReferenceDate) < 1e10 ? date.description : nil
        }
        if let uuid = value as? UUID { return uuid.uuidString }
        if let url = value as? URL { return url.absoluteString }
        if PredicateValues.elements(value) != nil || PredicateValues.dictionary(value) != nil { return nil }
        return String(describing: value)
    }
}

/// Arithmetic of predicate numbers that never traps: integer overflow continues in
/// `Decimal`, division by zero gives nil, integers divide as doubles (Foundation's
/// `divide:by:` of 1 and 2 is 0.5).
enum PredicateArithmetic {
    static func add(_ a: PredicateNumber, _ b: PredicateNumber) -> PredicateNumber? {
        combine(a, b, { $0.addingReportingOverflow($1) }, { $0 + $1 }, { $0 + $1 })
    }

    static func binary(_ name: String, _ left: Any?, _ right: Any?) -> Any? {
        if let date = left as? Date, let number = PredicateValues.number(right) {
            let seconds = date.timeIntervalSinceReferenceDate
            switch name {
            case "add:to:": return PredicateFunctions.date(seconds + number.doubleValue)
            case "from:subtract:": return PredicateFunctions.date(seconds - number.doubleValue)
            default: return nil
            }
        }
        if name == "add:to:", let number = PredicateValues.number(left), let date = right as? Date {
            return PredicateFunctions.date(date.timeIntervalSinceReferenceDate + number.doubleValue)
        }
        if name == "from:subtract:", let a = left as? Date, let b = right as? Date {
            return a.timeIntervalSince(b)
        }
        guard let a = PredicateValues.number(left), let b = PredicateValues.number(right) else { return nil }
        let result: PredicateNumber?
        switch name {
        case "add:to:": result = add(a, b)
        case "from:subtract:": result = combine(a, b, { $0.subtractingReportingOverflow($1) }, { $0 - $1 }, { $0 - $1 })
        case "multiply:by:":
            result = combine(a, b, { $0.multipliedReportingOverflow(by: $1) }, { $0 * $1 }, { $0 * $1 })
        case "divide:by:": result = divide(a, b)
        default: result = modulus(a, b)
        }
        return result?.runtimeValue
    }

    /// Integers exactly (overflow into `Decimal`), decimals in `Decimal`, anything with a
    /// `Double` in `Double`.
    private static func combine(
        _ a: PredicateNumber, _ b: PredicateNumber,
        _ integers: (Int64, Int64) -> (partialValue: Int64, overflow: Bool),
        _ decimals: (Decimal, Decimal) -> Decimal,
        _ doubles: (Double, Double) -> Double
    ) -> PredicateNumber? {
        switch (a, b) {
        case (.integer(let x), .integer(let y)):
            let result = integers(x, y)
            return result.overflow ? .decimal(decimals(Decimal(x), Decimal(y))) : .integer(result.partialValue)
        case (.double, _), (_, .double):
            return .double(doubles(a.doubleValue, b.doubleValue))
        default:
            guard let x = a.decimalValue, let y = b.decimalValue else { return nil }
            let result = decimals(x, y)
            return result.isNaN ? nil : .decimal(result)
        }
    }

    private static func divide(_ a: PredicateNumber, _ b: PredicateNumber) -> PredicateNumber? {
        switch (a, b) {
        case (.decimal, .decimal), (.decimal, .integer), (.integer, .decimal):
            guard let x = a.decimalValue, let y = b.decimalValue, !y.isZero else { return nil }
            let result = x / y
            return result.isNaN ? nil : .decimal(result)
        default:
            let divisor = b.doubleValue
            return divisor == 0 ? nil : .double(a.doubleValue / divisor)
        }
    }

    private static func modulus(_ a: PredicateNumber, _ b: PredicateNumber) -> PredicateNumber? {
        if case .integer(let x) = a, case .integer(let y) = b {
            guard y != 0 else { return nil }
            let result = x.remainderReportingOverflow(dividingBy: y)
            return result.overflow ? .integer(0) : .integer(result.partialValue)
        }
        let divisor = b.doubleValue
        return divisor == 0 ? nil : .double(a.doubleValue.truncatingRemainder(dividingBy: divisor))
    }

    /// `sqrt: log: ln: exp: floor: ceiling: trunc: abs: raise:toPower:`.
    static func math(_ name: String, _ value: Any?, _ other: Any?) -> Any? {
        guard let number = PredicateValues.number(value) else { return nil }
        let x = number.doubleValue
        switch name {
        case "sqrt:": return x.squareRoot()
        case "log:": return log10(x)
        case "ln:": return Foundation.log(x)
        case "exp:": return Foundation.exp(x)
        case "raise:toPower:":
            guard let exponent = PredicateValues.number(other) else { return nil }
            return pow(x, exponent.doubleValue)
        case "floor:": return rounded(number, .down)
        case "ceiling:": return rounded(number, .up)
        case "trunc:": return rounded(number, .towardZero)
        default:
            switch number {
            case .integer(let integer):
                return integer == .min ? Decimal(integer).magnitude : abs(integer)
            case .double(let double): return abs(double)
            case .decimal(let decimal): return decimal.magnitude
            }
        }
    }

    private static func rounded(_ number: PredicateNumber, _ rule: FloatingPointRoundingRule) -> Any {
        switch number {
        case .integer(let integer): return integer
        case .double(let double): return double.rounded(rule)
        case .decimal(var decimal):
            var result = Decimal()
            let mode: NSDecimalNumber.RoundingMode
            switch rule {
            case .down: mode = .down
            case .up: mode = .up
            default: mode = decimal < 0 ? .up : .down
            }
            NSDecimalRound(&result, &decimal, 0, mode)
            return result
        }
    }

    /// The bitwise functions on 64-bit integers; shifts past the width give 0 (or -1), as
    /// Swift's smart shifts do, instead of trapping.
    static func bitwise(_ name: String, _ left: Any?, _ right: Any?) -> Any? {
        guard let a = integer(left) else { return nil }
        if name == "onesComplement:" { return ~a }
        guard let b = integer(right) else { return nil }
        switch name {
        case "bitwiseAnd:with:": return a & b
        case "bitwiseOr:with:": return a | b
        case "bitwiseXor:with:": return a ^ b
        case "leftshift:by:": return a << b
        default: return a >> b
        }
    }

    /// A number as an `Int64`, truncating a fraction as `longLongValue` does; nil when it is
    /// not a number or does not fit.
    static func integer(_ value: Any?) -> Int64? {
        guard let number = PredicateValues.number(value) else { return nil }
        if case .integer(let integer) = number { return integer }
        let whole = number.doubleValue.rounded(.towardZero)
        return whole.isFinite ? Int64(exactly: whole) : nil
    }
}
