import Foundation

/// An attribute whose value the store computes at save from other values of the object:
/// a key-path copy (`author.name`), a string function (`uppercase:(title)`,
/// `lowercase:(name)`, `canonical:(name)`), a to-many aggregate (`pages.@count`,
/// `lines.@sum.amount`) or the save time (`now()`).
///
/// Derived attributes are read-only. Their in-memory value is stale until the object is
/// refreshed after a save, as in Core Data.
open class NSDerivedAttributeDescription: NSAttributeDescription, @unchecked Sendable {
    /// The derivation exactly as the model states it, in `NSExpression` format syntax.
    public var derivationExpressionFormat: String?

    public override var isReadOnly: Bool { true }

    override class func makeEmpty() -> NSPropertyDescription { NSDerivedAttributeDescription() }

    open override func copy(with zone: NSZone? = nil) -> Any {
        let copy = super.copy(with: zone)
        (copy as? NSDerivedAttributeDescription)?.derivationExpressionFormat = derivationExpressionFormat
        return copy
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard super.isEqual(object), let other = object as? NSDerivedAttributeDescription else { return false }
        return derivationExpressionFormat == other.derivationExpressionFormat
    }

    /// The key path the derivation reads from, and the form of the derivation; `nil` when
    /// the expression is not one of the forms Core Data supports.
    public var derivation: Derivation? { derivationExpressionFormat.flatMap(Derivation.init(format:)) }

    /// The forms of derivation Core Data's SQLite store supports.
    public enum Derivation: Equatable, Sendable {
        /// A copy of the value at a key path (through to-one relationships).
        case keyPath(String)
        /// A string function (`uppercase:`, `lowercase:`, `canonical:`) of a key path.
        case function(name: String, keyPath: String)
        /// The number of objects in a to-many relationship.
        case count(relationship: String)
        /// The sum of an attribute over a to-many relationship.
        case sum(relationship: String, attribute: String)
        /// The time of the save.
        case now

        /// Reads a derivation expression in the forms Xcode's model editor offers.
        public init?(format: String) {
            let text = format.trimmingCharacters(in: .whitespaces)
            let identifier = #"[A-Za-z_][A-Za-z0-9_]*"#
            let path = "\(identifier)(?:\\.\(identifier))*"
            if text.range(of: #"^now\(\s*\)$"#, options: .regularExpression) != nil {
                self = .now
            } else if let match = Self.groups(text, "^(\(path))\\.@count$") {
                self = .count(relationship: match[0])
            } else if let match = Self.groups(text, "^(\(path))\\.@sum\\.(\(path))$") {
                self = .sum(relationship: match[0], attribute: match[1])
            } else if let match = Self.groups(text, "^(uppercase|lowercase|canonical):\\(\\s*(\(path))\\s*\\)$") {
                self = .function(name: match[0] + ":", keyPath: match[1])
            } else if text.range(of: "^\(path)$", options: .regularExpression) != nil {
                self = .keyPath(text)
            } else {
                return nil
            }
        }

        /// The key path whose first component must be reachable from the entity, if any.
        public var sourceKeyPath: String? {
            switch self {
            case .keyPath(let path), .function(_, let path): path
            case .count(let relationship), .sum(let relationship, _): relationship
            case .now: nil
            }
        }

        private static func groups(_ text: String, _ pattern: String) -> [String]? {
            guard let regex = try? NSRegularExpression(pattern: pattern),
                let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text))
            else { return nil }
            return (1..<match.numberOfRanges).compactMap { index in
                Range(match.range(at: index), in: text).map { String(text[$0]) }
            }
        }
    }
}
