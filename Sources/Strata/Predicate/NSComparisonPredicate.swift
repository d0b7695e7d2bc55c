import Foundation

/// A comparison of two expressions: `left OPERATOR[options] right`, possibly under `ANY` or
/// `ALL`.
///
/// Foundation on Linux declares `NSComparisonPredicate` but cannot make one; this is Core
/// Data's, and a subclass of Foundation's `NSPredicate`. A file that imports both Foundation
/// and Core Data and names the type (rather than calling its initializer) needs
/// `typealias NSComparisonPredicate = CoreData.NSComparisonPredicate`, which Strata's build
/// plugin writes into every target it runs on.
///
/// ```swift
/// let predicate = NSComparisonPredicate(
///     leftExpression: NSExpression(forKeyPath: "title"), rightExpression: NSExpression(forConstantValue: "Dune"),
///     modifier: .direct, type: .equalTo, options: [.caseInsensitive])
/// ```
open class NSComparisonPredicate: NSPredicate {
    /// `ANY`/`SOME`, `ALL`, or a direct comparison.
    public enum Modifier: UInt, Sendable {
        case direct = 0
        case all = 1
        case any = 2
    }

    /// The comparison operators, with Apple's raw values.
    public enum Operator: UInt, Sendable {
        case lessThan = 0
        case lessThanOrEqualTo = 1
        case greaterThan = 2
        case greaterThanOrEqualTo = 3
        case equalTo = 4
        case notEqualTo = 5
        case matches = 6
        case like = 7
        case beginsWith = 8
        case endsWith = 9
        case `in` = 10
        case customSelector = 11
        case contains = 99
        case between = 100
    }

    /// `[c]`, `[d]`, `[n]`.
    public struct Options: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let caseInsensitive = Options(rawValue: 1)
        public static let diacriticInsensitive = Options(rawValue: 2)
        public static let normalized = Options(rawValue: 4)
    }

    let node: ComparisonNode

    init(node: ComparisonNode) {
        self.node = node
        super.init(value: true)
    }

    /// A comparison of two expressions.
    public convenience init(
        leftExpression lhs: NSExpression, rightExpression rhs: NSExpression, modifier: Modifier, type: Operator,
        options: Options = []
    ) {
        self.init(
            node: ComparisonNode(
                left: lhs.node, op: ComparisonNode.Operator(rawValue: type.rawValue) ?? .equalTo, right: rhs.node,
                modifier: ComparisonNode.Modifier(rawValue: modifier.rawValue) ?? .direct,
                options: ComparisonNode.Options(rawValue: options.rawValue)))
    }

    /// The left operand.
    open var leftExpression: NSExpression { NSExpression(node: node.left) }
    /// The right operand.
    open var rightExpression: NSExpression { NSExpression(node: node.right) }
    /// The operator.
    open var predicateOperatorType: Operator { Operator(rawValue: node.op.rawValue) ?? .equalTo }
    /// `ANY`, `ALL` or direct.
    open var comparisonPredicateModifier: Modifier { Modifier(rawValue: node.modifier.rawValue) ?? .direct }
    /// `[c]`, `[d]`, `[n]`.
    open var options: Options { Options(rawValue: node.options.rawValue) }

    open override var predicateFormat: String { PredicateFormatter.format(.comparison(node)) }
    open override var description: String { predicateFormat }
    open override func evaluate(with object: Any?) -> Bool { evaluate(with: object, substitutionVariables: nil) }
    open override func evaluate(with object: Any?, substitutionVariables bindings: [String: Any]?) -> Bool {
        PredicateEvaluator.evaluate(.comparison(node), with: object, variables: bindings ?? [:])
    }
    open override func copy(with zone: NSZone? = nil) -> Any { self }
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSPredicate else { return false }
        return (try? PredicateConversion.node(of: other)) == .comparison(node)
    }
    open override var hash: Int { PredicateNode.comparison(node).hashValue }
}
