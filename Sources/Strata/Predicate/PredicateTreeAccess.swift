import Foundation

/// The predicate tree for the other targets of this package (the sync server compiles it to
/// PostgreSQL): parsing a format to its tree, evaluating a tree in memory, and the string
/// folding of `[c]` and `[d]`, each the very code `NSPredicate` uses, so that what the server
/// decides in SQL and what it checks in Swift cannot drift apart.
package enum PredicateTreeAccess {
    /// The tree of a format string; throws `PredicateSyntaxError` as `NSPredicate.parse` does.
    package static func parse(_ format: String) throws -> PredicateNode {
        try PredicateParser.parsePredicate(format, arguments: [])
    }

    /// Whether the tree holds for the object, as `NSPredicate.evaluate(with:)` answers.
    package static func evaluate(_ node: PredicateNode, with object: Any?) -> Bool {
        PredicateEvaluator.evaluate(node, with: object)
    }

    /// The string as `[c]`, `[d]` or `[cd]` compare it (`options` may hold `[n]`, which
    /// turns folding off, as in the evaluator).
    package static func fold(_ text: String, _ options: ComparisonNode.Options) -> String {
        PredicateStringMatching.fold(text, options)
    }

    /// The Foundation value of a constant, as the evaluator reads it.
    package static func runtimeValue(of value: PredicateValue) -> Any? { value.runtimeValue }
}

/// A constant operand of a comparison as the evaluator sees it (`Bool` is the number 0 or 1,
/// as in Foundation).
package indirect enum PredicateConstant: Sendable, Equatable {
    case null
    case integer(Int64)
    case double(Double)
    case decimal(Decimal)
    case string(String)
    case date(Date)
    case uuid(UUID)
    /// An array or set (`IN {…}`, `BETWEEN {a, b}`), element by element.
    case collection([PredicateConstant])
    /// Anything else (data, URLs, dictionaries, objects).
    case other
}

extension PredicateTreeAccess {
    /// The value of an expression that reads nothing of the evaluated object (literals,
    /// `CAST`s, arithmetic of literals, aggregates of them); nil for one that does or that may
    /// differ between evaluations (`now()`, `random()`).
    package static func constant(_ expression: ExpressionNode) -> PredicateConstant? {
        guard isConstant(expression) else { return nil }
        return classify(PredicateEvaluator.value(of: expression, with: nil))
    }

    private static func isConstant(_ expression: ExpressionNode) -> Bool {
        switch expression {
        case .constant: true
        case .function(let name, let arguments):
            !["random", "random:", "now"].contains(name) && arguments.allSatisfy(isConstant)
        case .aggregate(let expressions): expressions.allSatisfy(isConstant)
        case .index(let base, let kind):
            switch kind {
            case .expression(let index): isConstant(base) && isConstant(index)
            case .first, .last, .size: isConstant(base)
            }
        case .setOperation(_, let left, let right): isConstant(left) && isConstant(right)
        case .evaluatedObject, .variable, .keyPath, .member, .subquery, .conditional, .assignment, .anyKey: false
        }
    }

    private static func classify(_ value: Any?) -> PredicateConstant {
        guard let value = PredicateValues.normalize(value) else { return .null }
        if let number = PredicateValues.number(value) {
            switch number {
            case .integer(let integer): return .integer(integer)
            case .double(let double): return .double(double)
            case .decimal(let decimal): return .decimal(decimal)
            }
        }
        if let text = PredicateValues.string(value) { return .string(text) }
        if let date = value as? Date { return .date(date) }
        if let uuid = value as? UUID { return .uuid(uuid) }
        if let elements = PredicateValues.elements(value) { return .collection(elements.map(classify)) }
        return .other
    }
}
