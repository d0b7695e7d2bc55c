import Foundation

/// Lets Strata's initializers of Foundation's `NSPredicate` return instances of Strata's
/// subclass (an initializer declared in a protocol extension may replace `self`), so that
/// `NSPredicate(format:)` makes a predicate with a real `predicateFormat`, while
/// `NSPredicate` stays Foundation's one type and `[NSPredicate]` is never ambiguous in files
/// that import both Foundation and Core Data.
public protocol _StrataPredicateFactory {}

extension NSPredicate: _StrataPredicateFactory {}

extension _StrataPredicateFactory where Self == NSPredicate {
    /// A predicate parsed from a format string, with `%@`, `%K`, `%d`… arguments in order.
    ///
    /// ```swift
    /// let predicate = NSPredicate(format: "title CONTAINS[cd] %@ AND priority > %d", text, 2)
    /// ```
    ///
    /// A malformed string does not stop the program: the predicate matches nothing, and
    /// fetching with it throws the `PredicateSyntaxError` (use `NSPredicate.parse(format:_:)`
    /// to get the error at once).
    public init(format predicateFormat: String, _ args: Any?...) {
        self = FormatPredicate.make(predicateFormat, arguments: args)
    }

    /// A predicate parsed from a format string, with its arguments in an array.
    public init(format predicateFormat: String, argumentArray arguments: [Any]?) {
        self = FormatPredicate.make(predicateFormat, arguments: (arguments ?? []).map { $0 })
    }
}

extension NSPredicate {
    /// A predicate parsed from a format string; throws a `PredicateSyntaxError` naming the
    /// position and what was expected when the string is malformed. (A Strata addition.)
    public static func parse(format: String, _ args: Any?...) throws -> NSPredicate {
        PredicateObjects.predicate(for: try PredicateParser.parsePredicate(format, arguments: args))
    }

    /// The predicate with its `$VARIABLES` replaced by the given values.
    public func withSubstitutionVariables(_ variables: [String: Any]) -> NSPredicate {
        guard let node = try? PredicateConversion.node(of: self) else { return self }
        return PredicateObjects.predicate(for: PredicateSubstitution.substituting(variables, in: node))
    }

    /// Whether the predicate holds for the object with the given variables.
    public func evaluate(with object: Any?, substitutionVariables bindings: [String: Any]) -> Bool {
        evaluate(with: object, substitutionVariables: Optional(bindings))
    }
}

/// A predicate of Strata's predicate language that is neither a comparison nor a compound:
/// `TRUEPREDICATE`, `FALSEPREDICATE`, or the syntax error of the format string it was made from.
final class FormatPredicate: NSPredicate {
    let node: PredicateNode
    let syntaxError: PredicateSyntaxError?

    init(node: PredicateNode) {
        self.node = node
        self.syntaxError = nil
        super.init(value: true)
    }

    private init(error: PredicateSyntaxError) {
        self.node = .constant(false)
        self.syntaxError = error
        super.init(value: false)
    }

    static func make(_ format: String, arguments: [Any?]) -> NSPredicate {
        do {
            return PredicateObjects.predicate(for: try PredicateParser.parsePredicate(format, arguments: arguments))
        } catch {
            return FormatPredicate(error: error)
        }
    }

    override var predicateFormat: String {
        syntaxError?.format ?? PredicateFormatter.format(node)
    }

    override func evaluate(with object: Any?) -> Bool {
        evaluate(with: object, substitutionVariables: nil)
    }

    override func evaluate(with object: Any?, substitutionVariables bindings: [String: Any]?) -> Bool {
        guard syntaxError == nil else { return false }
        return PredicateEvaluator.evaluate(node, with: object, variables: bindings ?? [:])
    }

    override func copy(with zone: NSZone? = nil) -> Any { self }

    override func isEqual(_ object: Any?) -> Bool {
        if let error = syntaxError {
            return (object as? FormatPredicate)?.syntaxError?.format == error.format
        }
        guard let other = object as? NSPredicate, let theirs = try? PredicateConversion.node(of: other) else { return false }
        return node == theirs
    }

    override var hash: Int { node.hashValue }
    override var description: String { predicateFormat }
}

/// The predicate tree of any `NSPredicate`: Strata's own, Foundation's compound predicates
/// of them, and `NSPredicate(value:)`.
enum PredicateConversion {
    static func node(of predicate: NSPredicate) throws -> PredicateNode {
        switch predicate {
        case let strata as FormatPredicate:
            if let error = strata.syntaxError { throw error }
            return strata.node
        case let comparison as NSComparisonPredicate:
            return .comparison(comparison.node)
        case let compound as Foundation.NSCompoundPredicate:
            let parts = try compound.subpredicates.map { try node(of: $0) }
            switch compound.compoundPredicateType {
            case .and: return .and(parts)
            case .or: return .or(parts)
            case .not: return .not(parts.count == 1 ? parts[0] : .and(parts))
            @unknown default: return .and(parts)
            }
        default:
            switch predicate.predicateFormat {
            case "TRUEPREDICATE": return .constant(true)
            case "FALSEPREDICATE": return .constant(false)
            default:
                throw CoreDataError.make(
                    NSCoreDataError,
                    "A block predicate cannot be translated for a store; use a format string or NSComparisonPredicate.")
            }
        }
    }
}
