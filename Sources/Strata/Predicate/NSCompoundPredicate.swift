import Foundation

/// A predicate made of other predicates: `AND`, `OR` or `NOT` of its subpredicates.
///
/// Foundation on Linux has an `NSCompoundPredicate` that evaluates but cannot print itself
/// (its `predicateFormat` reads `FALSEPREDICATE`); this is Core Data's, a subclass of it, so
/// that code written against either class keeps working. `NSPredicate(format:)` gives one
/// for every `AND`, `OR` and `NOT`, and one built here equals the parsed one and prints alike:
///
/// ```swift
/// let built = NSCompoundPredicate(andPredicateWithSubpredicates: [
///     NSPredicate(format: "done == NO"), NSPredicate(format: "priority > 2"),
/// ])
/// built.predicateFormat                                        // "done == NO AND priority > 2"
/// built == NSPredicate(format: "done == NO AND priority > 2")  // true
/// ```
///
/// An `AND` of no subpredicates holds and prints as `TRUEPREDICATE`, an `OR` of none does not
/// and prints as `FALSEPREDICATE`; a `NOT` of several subpredicates negates their `AND`.
open class NSCompoundPredicate: Foundation.NSCompoundPredicate {
    /// A compound predicate of the given type. (Disfavoured so that a file that sees both
    /// Foundation's class and this one still compiles, with Foundation's.)
    @_disfavoredOverload
    public override init(type: LogicalType, subpredicates: [NSPredicate]) {
        super.init(type: type, subpredicates: subpredicates)
    }

    open override var predicateFormat: String {
        if let node = try? PredicateConversion.node(of: self) { return PredicateFormatter.format(node) }
        // A block predicate among the subpredicates has no tree; print each part as it prints itself.
        let parts = subpredicates.map { part in
            (part as? Foundation.NSCompoundPredicate).map { "(\($0.predicateFormat))" } ?? part.predicateFormat
        }
        switch compoundPredicateType {
        case .and: return parts.isEmpty ? "TRUEPREDICATE" : parts.joined(separator: " AND ")
        case .or: return parts.isEmpty ? "FALSEPREDICATE" : parts.joined(separator: " OR ")
        case .not: return "NOT " + (parts.count == 1 ? parts[0] : "(" + parts.joined(separator: " AND ") + ")")
        @unknown default: return parts.joined(separator: " AND ")
        }
    }

    open override var description: String { predicateFormat }

    open override func evaluate(with object: Any?) -> Bool {
        evaluate(with: object, substitutionVariables: nil)
    }

    open override func evaluate(with object: Any?, substitutionVariables bindings: [String: Any]?) -> Bool {
        switch compoundPredicateType {
        case .and: return subpredicates.allSatisfy { $0.evaluate(with: object, substitutionVariables: bindings) }
        case .or: return subpredicates.contains { $0.evaluate(with: object, substitutionVariables: bindings) }
        case .not: return !subpredicates.allSatisfy { $0.evaluate(with: object, substitutionVariables: bindings) }
        @unknown default: return false
        }
    }

    open override func copy(with zone: NSZone? = nil) -> Any {
        NSCompoundPredicate(type: compoundPredicateType, subpredicates: subpredicates)
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSPredicate else { return false }
        if other === self { return true }
        guard let mine = try? PredicateConversion.node(of: self) else {
            guard let compound = other as? Foundation.NSCompoundPredicate else { return false }
            return compound.compoundPredicateType == compoundPredicateType
                && compound.subpredicates.count == subpredicates.count
                && zip(compound.subpredicates, subpredicates).allSatisfy { $0.isEqual($1) }
        }
        return (try? PredicateConversion.node(of: other)) == mine
    }

    open override var hash: Int { (try? PredicateConversion.node(of: self))?.hashValue ?? subpredicates.count }
}

/// The objects `NSPredicate(format:)` and the other makers of predicates give: an
/// `NSComparisonPredicate` for a comparison, an `NSCompoundPredicate` for `AND`, `OR` and
/// `NOT` (its parts made the same way), and Strata's constant predicate for `TRUEPREDICATE`
/// and `FALSEPREDICATE`, as Apple's parser returns its own classes for each.
enum PredicateObjects {
    static func predicate(for node: PredicateNode) -> NSPredicate {
        switch node {
        case .constant: FormatPredicate(node: node)
        case .comparison(let comparison): NSComparisonPredicate(node: comparison)
        case .and(let terms): NSCompoundPredicate(type: .and, subpredicates: terms.map(predicate(for:)))
        case .or(let terms): NSCompoundPredicate(type: .or, subpredicates: terms.map(predicate(for:)))
        case .not(let inner): NSCompoundPredicate(type: .not, subpredicates: [predicate(for: inner)])
        }
    }
}
