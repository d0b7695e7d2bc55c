import Foundation

/// The values of format arguments (`%@`, and the numbers of `%d`, `%f`, …) as predicate
/// constants. Apple's `%@` takes any object; this accepts what Swift code passes in its
/// place: Foundation classes, their Swift value types, Swift numbers and collections.
enum PredicateArguments {
    /// The constant for a `%@` argument. Strings stay strings (never key paths), class
    /// instances the predicate language has no literal for (managed objects, object IDs)
    /// are compared by identity, and any other value is compared by its description.
    static func value(_ argument: Any?) -> PredicateValue {
        guard let argument = unwrapped(argument) else { return .null }
        if let value = plainValue(argument) { return value }
        if let value = argument as? PredicateValue { return value }
        if let convertible = argument as? any _PredicateArgumentConvertible {
            return value(convertible._predicateArgument)
        }
        // Class instances are tested first: on Linux, `as?` bridges Swift numbers to and from
        // `NSNumber`, so an `Int` would otherwise pass for an `NSNumber` and an `NSNumber` of
        // 1 for a `Bool`.
        if type(of: argument) is AnyObject.Type {
            return objectValue(argument as AnyObject)
        }
        switch argument {
        case let text as String: return .string(text)
        case let text as Substring: return .string(String(text))
        case let flag as Bool: return .bool(flag)
        case let number as any BinaryInteger:
            if let integer = Int64(exactly: number) { return .integer(integer) }
            return .double(Double(number))
        case let number as any BinaryFloatingPoint: return .double(Double(number))
        case let decimal as Decimal: return .decimal(decimal)
        case let date as Date: return .date(date)
        case let data as Data: return .data(data)
        case let uuid as UUID: return .uuid(uuid)
        case let url as URL: return .url(url)
        case let array as [Any]: return .array(array.map { value($0) })
        case let set as Set<AnyHashable>: return .set(sortedForStableOutput(set.map { value($0.base) }))
        case let dictionary as [AnyHashable: Any]: return dictionaryValue(dictionary.map { ($0.key.base, $0.value) })
        default: return .string(String(describing: argument))
        }
    }

    /// The common arguments, told by their exact type first: casting to `any BinaryInteger`
    /// (or to any protocol) asks the runtime for a conformance, which costs more than the
    /// rest of a small fetch on Linux. A cast to the one type the identifier names cannot fail.
    private static func plainValue(_ argument: Any) -> PredicateValue? {
        switch ObjectIdentifier(type(of: argument)) {
        case ObjectIdentifier(Int.self): (argument as? Int).map { .integer(Int64($0)) }
        case ObjectIdentifier(Int64.self): (argument as? Int64).map { .integer($0) }
        case ObjectIdentifier(Int32.self): (argument as? Int32).map { .integer(Int64($0)) }
        case ObjectIdentifier(Int16.self): (argument as? Int16).map { .integer(Int64($0)) }
        case ObjectIdentifier(Double.self): (argument as? Double).map { .double($0) }
        case ObjectIdentifier(Float.self): (argument as? Float).map { .double(Double($0)) }
        case ObjectIdentifier(Bool.self): (argument as? Bool).map { .bool($0) }
        case ObjectIdentifier(String.self): (argument as? String).map { .string($0) }
        case ObjectIdentifier(Date.self): (argument as? Date).map { .date($0) }
        default: nil
        }
    }

    /// Types that are never `Optional`, so that most arguments skip the protocol cast below.
    private static let plainTypes: Set<ObjectIdentifier> = [
        ObjectIdentifier(Int.self), ObjectIdentifier(Int64.self), ObjectIdentifier(Int32.self),
        ObjectIdentifier(Int16.self), ObjectIdentifier(Double.self), ObjectIdentifier(Float.self),
        ObjectIdentifier(Bool.self), ObjectIdentifier(String.self), ObjectIdentifier(Date.self),
    ]

    /// The argument with any `Optional` wrapping removed: an `Any?` array can hold an
    /// `Optional<Int>.none`, which is a nil argument.
    private static func unwrapped(_ argument: Any?) -> Any? {
        guard var current = argument else { return nil }
        if plainTypes.contains(ObjectIdentifier(type(of: current))) || type(of: current) is AnyObject.Type {
            return current
        }
        // A protocol cast, not `Mirror`: reflection costs more than the rest of a predicate.
        while let optional = current as? any OptionalArgument {
            guard let inner = optional.wrappedArgument else { return nil }
            current = inner
        }
        return current
    }

    private static func objectValue(_ object: AnyObject) -> PredicateValue {
        switch object {
        case is NSNull: return .null
        case let text as NSString: return .string(text as String)
        case let number as NSDecimalNumber: return .decimal(number.decimalValue)
        case let number as NSNumber: return numberValue(number)
        case let date as NSDate: return .date(Date(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate))
        case let data as NSData: return .data(Data(referencing: data))
        case let uuid as NSUUID:
            return UUID(uuidString: uuid.uuidString).map { .uuid($0) } ?? .object(PredicateObject(uuid))
        case let url as NSURL: return url.absoluteURL.map { .url($0) } ?? .object(PredicateObject(url))
        case let array as NSArray: return .array(array.map { value($0) })
        case let set as NSOrderedSet: return .array(set.array.map { value($0) })
        case let set as NSSet: return .set(sortedForStableOutput(set.allObjects.map { value($0) }))
        case let dictionary as NSDictionary: return dictionaryValue(dictionary.map { ($0.key, $0.value) })
        default: return .object(PredicateObject(object))
        }
    }

    /// An `NSNumber` by its type: Booleans, integers (unsigned ones above `Int64.max` become
    /// doubles), or doubles.
    private static func numberValue(_ number: NSNumber) -> PredicateValue {
        if isBoolean(number) { return .bool(number.boolValue) }
        switch String(cString: number.objCType) {
        case "f", "d": return .double(number.doubleValue)
        case "Q", "L":
            if number.uint64Value > UInt64(Int64.max) { return .double(number.doubleValue) }
            return .integer(number.int64Value)
        default: return .integer(number.int64Value)
        }
    }

    /// Whether an `NSNumber` was made from a Bool. On Linux only Boolean numbers have the
    /// type code `c` (an `Int8` number is `i`); on Apple platforms `c` is also `Int8`, and
    /// CoreFoundation tells Booleans apart.
    private static func isBoolean(_ number: NSNumber) -> Bool {
        #if canImport(Darwin)
            return CFGetTypeID(number) == CFBooleanGetTypeID()
        #else
            return String(cString: number.objCType) == "c"
        #endif
    }

    /// A dictionary by string keys; a key of another type is keyed by its description.
    private static func dictionaryValue(_ pairs: [(Any, Any)]) -> PredicateValue {
        var result: [String: PredicateValue] = [:]
        for (key, element) in pairs {
            let name = (key as? String) ?? (key as? NSString).map { $0 as String } ?? String(describing: key)
            result[name] = value(element)
        }
        return .dictionary(result)
    }

    /// Set elements in an order that does not depend on hashing, so that the same set gives
    /// the same tree (and the same `predicateFormat`) in every process.
    private static func sortedForStableOutput(_ values: [PredicateValue]) -> [PredicateValue] {
        values.map { (String(describing: $0), $0) }.sorted { $0.0 < $1.0 }.map(\.1)
    }
}

/// `Optional`, seen through `Any`: how `PredicateArguments` finds nil arguments.
private protocol OptionalArgument {
    var wrappedArgument: Any? { get }
}

extension Optional: OptionalArgument {
    fileprivate var wrappedArgument: Any? { self.map { $0 as Any } }
}

/// A value that stands for another in predicates: a SwiftData model for its context's
/// object (`#Predicate<Stop> { $0.trip == trip }`, `%@` arguments).
public protocol _PredicateArgumentConvertible {
    /// What the predicate compares in the value's place (nil when it stands for nothing).
    var _predicateArgument: Any? { get }
}
