import Foundation

/// An expression of the predicate language: a constant, a key path, a variable, a function,
/// an aggregate, a subquery… — the operands of comparison predicates and the computed
/// columns of dictionary fetches.
///
/// Foundation on Linux declares an `NSExpression` it cannot make; this is Core Data's. Calls
/// such as `NSExpression(forKeyPath: "amount")` resolve to it; a file that imports both
/// Foundation and Core Data and names the type needs `typealias NSExpression =
/// CoreData.NSExpression`, which Strata's build plugin writes into every target it runs on.
///
/// ```swift
/// let total = NSExpression(forFunction: "sum:", arguments: [NSExpression(forKeyPath: "amount")])
/// let upper = NSExpression(format: "uppercase:(title)")
/// ```
open class NSExpression: NSObject, NSCopying, @unchecked Sendable {
    /// The kinds of expressions, with Apple's raw values.
    public enum ExpressionType: UInt, Sendable {
        case constantValue = 0
        case evaluatedObject = 1
        case variable = 2
        case keyPath = 3
        case function = 4
        case unionSet = 5
        case intersectSet = 6
        case minusSet = 7
        case subquery = 13
        case aggregate = 14
        case anyKey = 15
        case block = 19
        case conditional = 20
    }

    let node: ExpressionNode

    init(node: ExpressionNode) {
        self.node = node
        super.init()
    }

    /// An expression of the given type with no operands (`SELF` or `ANYKEY`; others read as nil).
    public convenience init(expressionType type: ExpressionType) {
        switch type {
        case .evaluatedObject: self.init(node: .evaluatedObject)
        case .anyKey: self.init(node: .anyKey)
        default: self.init(node: .constant(.null))
        }
    }

    /// An expression parsed from a format string (`"uppercase:(title)"`, `"tags.@count"`).
    /// A malformed string gives a nil constant; `NSExpression.parse(format:_:)` throws instead.
    public convenience init(format expressionFormat: String, _ args: Any?...) {
        self.init(node: (try? PredicateParser.parseExpression(expressionFormat, arguments: args)) ?? .constant(.null))
    }

    /// An expression parsed from a format string, with its arguments in an array.
    public convenience init(format expressionFormat: String, argumentArray arguments: [Any]) {
        self.init(
            node: (try? PredicateParser.parseExpression(expressionFormat, arguments: arguments.map { $0 })) ?? .constant(.null))
    }

    /// An expression parsed from a format string; throws a `PredicateSyntaxError` when the
    /// string is malformed. (A Strata addition.)
    public static func parse(format: String, _ args: Any?...) throws -> NSExpression {
        NSExpression(node: try PredicateParser.parseExpression(format, arguments: args))
    }

    /// A constant.
    public convenience init(forConstantValue obj: Any?) {
        self.init(node: .constant(PredicateArguments.value(obj)))
    }

    /// A key path read from the evaluated object.
    public convenience init(forKeyPath keyPath: String) {
        self.init(node: .keyPath(keyPath))
    }

    /// A variable, `$name`.
    public convenience init(forVariable string: String) {
        self.init(node: .variable(string))
    }

    /// A function of Apple's list (`sum:`, `count:`, `uppercase:`, `now`…) of the arguments,
    /// which are expressions (other values are taken as constants).
    public convenience init(forFunction name: String, arguments parameters: [Any]) {
        self.init(node: .function(name, parameters.map(Self.node(of:))))
    }

    /// A method of the target's value called with the arguments (`FUNCTION(target, 'name:', …)`).
    public convenience init(forFunction target: NSExpression, selectorName name: String, arguments parameters: [Any]?) {
        self.init(node: .function(name, [target.node] + (parameters ?? []).map(Self.node(of:))))
    }

    /// An aggregate of expressions, `{a, b}`.
    public convenience init(forAggregate subexpressions: [Any]) {
        self.init(node: .aggregate(subexpressions.map(Self.node(of:))))
    }

    /// The union of two collections.
    public convenience init(forUnionSet left: NSExpression, with right: NSExpression) {
        self.init(node: .setOperation(.union, left.node, right.node))
    }

    /// The intersection of two collections.
    public convenience init(forIntersectSet left: NSExpression, with right: NSExpression) {
        self.init(node: .setOperation(.intersect, left.node, right.node))
    }

    /// The elements of the left collection that are not in the right one.
    public convenience init(forMinusSet left: NSExpression, with right: NSExpression) {
        self.init(node: .setOperation(.minus, left.node, right.node))
    }

    /// The elements of a collection that match a predicate, with the variable bound to each.
    public convenience init(forSubquery expression: NSExpression, usingIteratorVariable variable: String, predicate: Any) {
        let condition = (predicate as? NSPredicate).flatMap { try? PredicateConversion.node(of: $0) } ?? .constant(false)
        self.init(node: .subquery(collection: expression.node, variable: variable, predicate: condition))
    }

    /// `TERNARY(predicate, trueExpression, falseExpression)`.
    public convenience init(forConditional predicate: Any, trueExpression: NSExpression, falseExpression: NSExpression) {
        let condition = (predicate as? NSPredicate).flatMap { try? PredicateConversion.node(of: $0) } ?? .constant(false)
        self.init(node: .conditional(condition, trueExpression.node, falseExpression.node))
    }

    /// `SELF`: the object being evaluated.
    open class func expressionForEvaluatedObject() -> NSExpression { NSExpression(node: .evaluatedObject) }
    /// `ANYKEY`.
    open class func expressionForAnyKey() -> NSExpression { NSExpression(node: .anyKey) }

    /// An argument of a function or aggregate: an expression, or a value taken as a constant.
    static func node(of argument: Any) -> ExpressionNode {
        (argument as? NSExpression)?.node ?? .constant(PredicateArguments.value(argument))
    }

    // MARK: Reading

    /// The kind of expression.
    open var expressionType: ExpressionType {
        switch node {
        case .constant: .constantValue
        case .evaluatedObject: .evaluatedObject
        case .variable, .assignment: .variable
        case .keyPath: .keyPath
        case .member, .function, .index: .function
        case .aggregate: .aggregate
        case .subquery: .subquery
        case .conditional: .conditional
        case .anyKey: .anyKey
        case .setOperation(.union, _, _): .unionSet
        case .setOperation(.intersect, _, _): .intersectSet
        case .setOperation(.minus, _, _): .minusSet
        }
    }

    /// The value of a constant expression. Numbers and Booleans are `NSNumber`s (decimals
    /// `NSDecimalNumber`s), as Apple's are, so that `as? Int`, `as? Double` and `as? NSNumber`
    /// all read them; collections hold their elements so.
    open var constantValue: Any? { ExpressionResults.foundationValue(storedConstant) }

    /// The constant as the evaluator holds it (`Int64`, `Double`, `Bool`…), for Strata's own
    /// readers.
    var storedConstant: Any? {
        if case .constant(let value) = node { return value.runtimeValue }
        return nil
    }

    /// The key path of a key-path expression.
    open var keyPath: String {
        switch node {
        case .keyPath(let path), .member(_, let path): path
        default: ""
        }
    }

    /// The name of a variable expression.
    open var variable: String {
        switch node {
        case .variable(let name), .assignment(let name, _): name
        default: ""
        }
    }

    /// The selector name of a function expression (`"uppercase:"`).
    open var function: String {
        switch node {
        case .function(let name, _): name
        case .member: "valueForKeyPath:"
        case .index: "objectFrom:withIndex:"
        default: ""
        }
    }

    /// The arguments of a function expression.
    open var arguments: [NSExpression]? {
        if case .function(_, let arguments) = node { return arguments.map(NSExpression.init(node:)) }
        return nil
    }

    /// The receiver of a key path read from another expression (`$x.name`).
    open var operand: NSExpression {
        if case .member(let base, _) = node { return NSExpression(node: base) }
        return NSExpression(node: .evaluatedObject)
    }

    /// The collection of an aggregate (the subexpressions) or of a subquery.
    open var collection: Any {
        switch node {
        case .aggregate(let parts): parts.map(NSExpression.init(node:))
        case .subquery(let collection, _, _): NSExpression(node: collection)
        default: [NSExpression]()
        }
    }

    /// The predicate of a subquery or conditional expression.
    open var predicate: NSPredicate {
        switch node {
        case .subquery(_, _, let predicate), .conditional(let predicate, _, _): PredicateObjects.predicate(for: predicate)
        default: NSPredicate(value: false)
        }
    }

    /// The left collection of a set expression.
    open var left: NSExpression {
        if case .setOperation(_, let left, _) = node { return NSExpression(node: left) }
        return NSExpression(node: .constant(.null))
    }

    /// The right collection of a set expression.
    open var right: NSExpression {
        if case .setOperation(_, _, let right) = node { return NSExpression(node: right) }
        return NSExpression(node: .constant(.null))
    }

    /// The value of the expression for an object; `context` holds variables. Numbers come back
    /// as `NSNumber`s (decimals as `NSDecimalNumber`s), as Apple's do: the results of
    /// arithmetic and of functions such as `sum:` and `count:`, and constants alike.
    open func expressionValue(with object: Any?, context: NSMutableDictionary?) -> Any? {
        var variables: [String: Any] = [:]
        for case let (key as String, value) in context ?? [:] { variables[key] = value }
        return ExpressionResults.foundationValue(PredicateEvaluator.value(of: node, with: object, variables: variables))
    }

    /// The expression in format-string syntax. (A Strata addition; Apple prints it as the
    /// description.)
    open var expressionFormat: String { PredicateFormatter.format(node) }

    open func copy(with zone: NSZone? = nil) -> Any { self }
    open override func isEqual(_ object: Any?) -> Bool { (object as? NSExpression)?.node == node }
    open override var hash: Int { node.hashValue }
    open override var description: String { expressionFormat }
}

/// The values `NSExpression` hands out: Swift's numbers and Booleans as `NSNumber`, decimals
/// as `NSDecimalNumber`, inside arrays, sets and dictionaries too; other values as they are.
enum ExpressionResults {
    static func foundationValue(_ value: Any?) -> Any? {
        guard let value else { return nil }
        // An `NSNumber` stays itself; Swift's numbers are told by their exact type (on Linux an
        // `NSNumber` of 1 also casts to `Bool`, and a Swift `Int64` to `NSNumber`).
        if type(of: value) is NSNumber.Type { return value }
        switch value {
        case let flag as Bool: return NSNumber(value: flag)
        case let number as Int64: return NSNumber(value: number)
        case let number as Int: return NSNumber(value: number)
        case let number as Int32: return NSNumber(value: number)
        case let number as Int16: return NSNumber(value: number)
        case let number as Int8: return NSNumber(value: number)
        case let number as UInt64: return NSNumber(value: number)
        case let number as UInt: return NSNumber(value: number)
        case let number as UInt32: return NSNumber(value: number)
        case let number as UInt16: return NSNumber(value: number)
        case let number as UInt8: return NSNumber(value: number)
        case let number as Double: return NSNumber(value: number)
        case let number as Float: return NSNumber(value: number)
        case let number as Decimal: return NSDecimalNumber(decimal: number)
        case let elements as [Any?]: return elements.map { foundationValue($0) }
        case let elements as Set<AnyHashable>:
            return Set(elements.map { (foundationValue($0.base) as? AnyHashable) ?? $0 })
        case let entries as [String: Any]: return entries.mapValues { foundationValue($0) ?? NSNull() }
        default: return value
        }
    }
}
