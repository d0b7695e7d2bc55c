import Foundation

@testable import Strata

/// Builders for predicate trees in the evaluator's tests. Trees are built with the enum
/// cases directly, so that these tests do not depend on the parser.
enum PredicateEvaluationFixtures {
    static func key(_ path: String) -> ExpressionNode { .keyPath(path) }
    static func text(_ value: String) -> ExpressionNode { .constant(.string(value)) }
    static func int(_ value: Int64) -> ExpressionNode { .constant(.integer(value)) }
    static func double(_ value: Double) -> ExpressionNode { .constant(.double(value)) }
    static let null = ExpressionNode.constant(.null)

    static func compare(
        _ left: ExpressionNode, _ op: ComparisonNode.Operator, _ right: ExpressionNode,
        _ modifier: ComparisonNode.Modifier = .direct, options: ComparisonNode.Options = []
    ) -> PredicateNode {
        .comparison(ComparisonNode(left: left, op: op, right: right, modifier: modifier, options: options))
    }

    /// `a OP b` with both sides read from a dictionary, as values arrive from objects; a nil
    /// side leaves its key out.
    static func holds(
        _ a: Any?, _ op: ComparisonNode.Operator, _ b: Any?, options: ComparisonNode.Options = []
    ) -> Bool {
        var object: [String: Any] = [:]
        object["a"] = a
        object["b"] = b
        return PredicateEvaluator.evaluate(compare(key("a"), op, key("b"), options: options), with: object)
    }

    /// The evaluated value of an expression.
    static func value(_ expression: ExpressionNode, on object: Any? = nil, variables: [String: Any] = [:]) -> Any? {
        PredicateEvaluator.value(of: expression, with: object, variables: variables)
    }

    /// A function expression's value on constant arguments.
    static func call(_ name: String, _ arguments: Any?...) -> Any? {
        value(.function(name, arguments.map { .constant(PredicateArguments.value($0)) }))
    }

    /// A value as a `Double`, whatever numeric type the evaluator produced.
    static func number(_ value: Any?) -> Double? {
        switch value {
        case let value as Int64: Double(value)
        case let value as Double: value
        case let value as Decimal: NSDecimalNumber(decimal: value).doubleValue
        case let value as Int: Double(value)
        default: nil
        }
    }
}

/// An object read by key like a managed object, compared by identity.
final class PredicateTestRecord: PredicateKeyValueReading {
    var values: [String: Any]

    init(_ values: [String: Any]) { self.values = values }

    func predicateValue(forKey key: String) -> Any? { values[key] }
}
