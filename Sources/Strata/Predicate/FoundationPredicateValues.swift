import Foundation

/// Names the key paths of a type for typed predicates and sort descriptors, when Swift
/// cannot: a key path's description names stored properties (`\Book.title`), but on Linux
/// a computed property (an `@Managed` one among them) is described by the address of its
/// getter (`\Book.<computed 0x… (String)>`). A class that lists its key paths, as
/// SwiftData's `schemaMetadata` does, can be used in `#Predicate` fetches there:
///
/// ```swift
/// extension Book: _PredicateKeyPathNaming {
///     static func _predicateKeyName(for keyPath: AnyKeyPath) -> String? {
///         switch keyPath {
///         case \Book.title: "title"
///         case \Book.author: "author"
///         default: nil
///         }
///     }
/// }
/// ```
///
/// `#Predicate` reads one property per key path (`$0.author?.name` is `\Book.author`, then
/// `\Author.name`); sort descriptors can pass longer ones. Key paths are rooted at the type
/// a predicate or descriptor is written for, which may be a subclass of the conforming type.
public protocol _PredicateKeyPathNaming {
    /// The property name, or dotted key path (`author.name`), a key path rooted at this
    /// type reads; nil when unknown.
    static func _predicateKeyName(for keyPath: AnyKeyPath) -> String?
}

/// Property names of key paths, and the collection and string members (`count`,
/// `isEmpty`) that the predicate language spells differently.
package enum FoundationPredicateKeyPaths {
    /// The dotted property path a key path reads: from the root type's
    /// `_PredicateKeyPathNaming`, or from the key path's description with optional-chaining
    /// marks dropped (`\Book.author?.name` → `author.name`).
    static func name(of keyPath: AnyKeyPath, rootType: Any.Type) throws -> String {
        if let naming = rootType as? any _PredicateKeyPathNaming.Type, let name = naming._predicateKeyName(for: keyPath) {
            return name
        }
        let description = String(describing: keyPath)
        if let path = path(fromDescription: description, rootType: rootType) { return path }
        if description.contains("<computed") {
            throw CoreDataError.make(
                NSCoreDataError,
                "The key path \(description) reads a computed property, whose name Swift does not give on this "
                    + "platform; \(rootType) can name it through _PredicateKeyPathNaming.")
        }
        throw CoreDataError.make(NSCoreDataError, "The key path \(description) does not name properties.")
    }

    /// `\Root.a?.b!.c` → `a.b.c`; nil when a component is not a property name.
    static func path(fromDescription description: String, rootType: Any.Type) -> String? {
        guard let components = components(fromDescription: description, rootType: rootType),
            components.allSatisfy(isIdentifier)
        else { return nil }
        return components.isEmpty ? nil : components.joined(separator: ".")
    }

    /// The components of a key path's description after its root, optional-chaining marks
    /// dropped: `\Root.a?.b!.c` → `a`, `b`, `c`. A component Swift cannot name stays as it
    /// describes it (`<computed 0x… (Optional<Trip>)>`: dots inside brackets do not split it);
    /// nil when the description has no root. (SwiftData names computed components by their
    /// accessors with it.)
    package static func components(fromDescription description: String, rootType: Any.Type) -> [Substring]? {
        guard description.hasPrefix("\\") else { return nil }
        var body = Substring(description.dropFirst())
        let rootName = String(describing: rootType) + "."
        if body.hasPrefix(rootName) {
            body = body.dropFirst(rootName.count)
        } else {
            // The root type's name, up to the first dot outside generic arguments.
            var depth = 0
            var start: Substring.Index?
            for index in body.indices {
                switch body[index] {
                case "<": depth += 1
                case ">": depth -= 1
                case "." where depth == 0: start = body.index(after: index)
                default: break
                }
                if start != nil { break }
            }
            guard let start else { return nil }
            body = body[start...]
        }
        var components: [Substring] = []
        var componentStart = body.startIndex
        var depth = 0
        for index in body.indices {
            switch body[index] {
            case "<", "(": depth += 1
            case ">", ")": depth -= 1
            case "." where depth == 0:
                components.append(body[componentStart..<index])
                componentStart = body.index(after: index)
            default: break
            }
        }
        components.append(body[componentStart...])
        return components.map { component in
            var name = component
            while let last = name.last, last == "?" || last == "!" { name = name.dropLast() }
            return name
        }
    }

    private static func isIdentifier(_ text: Substring) -> Bool {
        guard let first = text.first, first == "_" || first.isLetter else { return false }
        return text.allSatisfy { $0 == "_" || $0.isLetter || $0.isNumber }
    }

    /// What a collection or string member read by a key path is in the predicate language.
    enum Member {
        /// `collection.count` → `collection.@count`.
        case count
        /// `collection.isEmpty` → `collection.@count == 0`.
        case isEmpty
        /// `string.count` → `length:(string)`.
        case length
        /// `string.isEmpty` → `string == ""`.
        case isEmptyString
        /// A member that stands for the value it is read from: an enumeration's `rawValue`
        /// (the store holds the raw value), a model's identifier (`_PredicateIdentityKeyPath`).
        case same
    }

    /// The member a key path reads from a collection or string of the given type, if it is
    /// one the predicate language has.
    static func member(_ keyPath: AnyKeyPath, of type: Any.Type) -> Member? {
        if let member = (type as? any _StrataPredicateMembers.Type)?._predicateMember(keyPath) { return member }
        if let identity = type as? any _PredicateIdentityKeyPath.Type, identity._predicateIsIdentity(keyPath) {
            return .same
        }
        if let raw = type as? any RawRepresentable.Type, raw._strataIsRawValue(keyPath) { return .same }
        return nil
    }
}

/// Types a key path of which stands for the value itself in predicates: a SwiftData model's
/// `persistentModelID` (`$0.trip?.persistentModelID == id` compares the objects).
public protocol _PredicateIdentityKeyPath {
    static func _predicateIsIdentity(_ keyPath: AnyKeyPath) -> Bool
}

extension RawRepresentable {
    /// Whether the key path reads the raw value. A concrete `\Mood.rawValue` differs from the
    /// protocol's `\Self.rawValue` as key paths, so a case-iterable type's key path of the
    /// raw value's type is also taken when it reads each case's raw value.
    static func _strataIsRawValue(_ keyPath: AnyKeyPath) -> Bool {
        if keyPath == \Self.rawValue { return true }
        guard type(of: keyPath).valueType == RawValue.self, let iterable = Self.self as? any CaseIterable.Type else {
            return false
        }
        let cases = iterable._strataCases.compactMap { $0 as? Self }
        return !cases.isEmpty
            && cases.allSatisfy { value in
                guard let read = value[keyPath: keyPath] as? AnyHashable, let raw = value.rawValue as? AnyHashable else {
                    return false
                }
                return read == raw
            }
    }
}

extension CaseIterable {
    static var _strataCases: [Any] { allCases.map { $0 } }
}

/// Types with members the predicate language spells its own way; found by comparing key
/// paths, since their descriptions do not name computed properties on Linux.
protocol _StrataPredicateMembers {
    static func _predicateMember(_ keyPath: AnyKeyPath) -> FoundationPredicateKeyPaths.Member?
}

extension Array: _StrataPredicateMembers {
    static func _predicateMember(_ keyPath: AnyKeyPath) -> FoundationPredicateKeyPaths.Member? {
        keyPath == \Self.count ? .count : keyPath == \Self.isEmpty ? .isEmpty : nil
    }
}

extension ContiguousArray: _StrataPredicateMembers {
    static func _predicateMember(_ keyPath: AnyKeyPath) -> FoundationPredicateKeyPaths.Member? {
        keyPath == \Self.count ? .count : keyPath == \Self.isEmpty ? .isEmpty : nil
    }
}

extension Set: _StrataPredicateMembers {
    static func _predicateMember(_ keyPath: AnyKeyPath) -> FoundationPredicateKeyPaths.Member? {
        keyPath == \Self.count ? .count : keyPath == \Self.isEmpty ? .isEmpty : nil
    }
}

extension Dictionary: _StrataPredicateMembers {
    static func _predicateMember(_ keyPath: AnyKeyPath) -> FoundationPredicateKeyPaths.Member? {
        keyPath == \Self.count ? .count : keyPath == \Self.isEmpty ? .isEmpty : nil
    }
}

extension String: _StrataPredicateMembers {
    static func _predicateMember(_ keyPath: AnyKeyPath) -> FoundationPredicateKeyPaths.Member? {
        keyPath == \Self.count ? .length : keyPath == \Self.isEmpty ? .isEmptyString : nil
    }
}

extension Substring: _StrataPredicateMembers {
    static func _predicateMember(_ keyPath: AnyKeyPath) -> FoundationPredicateKeyPaths.Member? {
        keyPath == \Self.count ? .length : keyPath == \Self.isEmpty ? .isEmptyString : nil
    }
}

// MARK: Constants

extension FoundationPredicateTranslation {
    /// The constant for a value captured by a typed predicate: numbers, strings, Booleans,
    /// dates, decimals, UUIDs, URLs, data, nil, arrays and sets of them. Class instances
    /// (managed objects, object IDs, Foundation objects) are read as `%@` arguments are.
    static func constant(_ value: Any) throws -> PredicateValue {
        if let convertible = value as? any _PredicateArgumentConvertible {
            return PredicateArguments.value(convertible._predicateArgument)
        }
        if let optional = value as? any _StrataPredicateOptional {
            guard let wrapped = optional._predicateWrapped else { return .null }
            return try constant(wrapped)
        }
        // Before the value types: on Linux `as?` bridges Swift numbers and `NSNumber`.
        if type(of: value) is AnyObject.Type { return PredicateArguments.value(value) }
        switch value {
        case let flag as Bool: return .bool(flag)
        case let text as String: return .string(text)
        case let text as Substring: return .string(String(text))
        case let character as Character: return .string(String(character))
        case let number as any BinaryInteger:
            if let integer = Int64(exactly: number) { return .integer(integer) }
            return .double(Double(number))
        case let number as any BinaryFloatingPoint: return .double(Double(number))
        case let decimal as Decimal: return .decimal(decimal)
        case let date as Date: return .date(date)
        case let uuid as UUID: return .uuid(uuid)
        case let url as URL: return .url(url)
        case let data as Data: return .data(data)
        case let collection as any _StrataPredicateCollectionConstant:
            let elements = try collection._predicateElements.map(constant)
            guard !type(of: collection)._predicateIsOrdered else { return .array(elements) }
            // In an order that does not depend on hashing, as set arguments are.
            return .set(elements.map { (String(describing: $0), $0) }.sorted { $0.0 < $1.0 }.map(\.1))
        case let enumeration as any RawRepresentable:
            // A value with a raw value (an enumeration) as its raw value, which is what a
            // store keeps of it (SwiftData's raw-value attributes).
            return try constant(enumeration.rawValue)
        default:
            throw CoreDataError.make(
                NSCoreDataError,
                "A typed predicate compares with a value of type \(type(of: value)), which fetch requests cannot use.")
        }
    }
}

protocol _StrataPredicateOptional {
    var _predicateWrapped: Any? { get }
}

extension Optional: _StrataPredicateOptional {
    var _predicateWrapped: Any? {
        switch self {
        case .some(let wrapped): wrapped
        case .none: nil
        }
    }
}

protocol _StrataPredicateCollectionConstant {
    var _predicateElements: [Any] { get }
    static var _predicateIsOrdered: Bool { get }
}

extension Array: _StrataPredicateCollectionConstant {
    var _predicateElements: [Any] { map { $0 } }
    static var _predicateIsOrdered: Bool { true }
}

extension ContiguousArray: _StrataPredicateCollectionConstant {
    var _predicateElements: [Any] { map { $0 } }
    static var _predicateIsOrdered: Bool { true }
}

extension ArraySlice: _StrataPredicateCollectionConstant {
    var _predicateElements: [Any] { map { $0 } }
    static var _predicateIsOrdered: Bool { true }
}

extension Set: _StrataPredicateCollectionConstant {
    var _predicateElements: [Any] { map { $0 } }
    static var _predicateIsOrdered: Bool { false }
}

/// Captured ranges (`let r = 1...5; … r.contains($0.n)`).
protocol _StrataPredicateRangeConstant {
    var _predicateBounds: (lower: Any, upper: Any, closed: Bool) { get }
}

extension ClosedRange: _StrataPredicateRangeConstant {
    var _predicateBounds: (lower: Any, upper: Any, closed: Bool) { (lowerBound, upperBound, true) }
}

extension Range: _StrataPredicateRangeConstant {
    var _predicateBounds: (lower: Any, upper: Any, closed: Bool) { (lowerBound, upperBound, false) }
}
