import Foundation
import Testing

@testable import Strata

/// `NSExpression.expressionValue(with:context:)` and `constantValue` hand out numbers as
/// `NSNumber`s, as Apple's do: `as? Int`, `as? Double` and `as? NSNumber` all read them.
@Suite struct ExpressionValueTests {
    private let order: [String: Any] = [
        "prices": [2, 15, 40], "qty": Int64(3), "rate": 1.5, "tax": Decimal(string: "0.25") as Any,
    ]

    private func value(_ format: String, _ object: Any? = nil) -> Any? {
        NSExpression(format: format).expressionValue(with: object ?? order, context: nil)
    }

    @Test func arithmeticResultsAreNSNumbers() {
        #expect(value("qty + 4") as? Int == 7)
        #expect(value("qty + 4") as? NSNumber == NSNumber(value: 7))
        #expect(value("qty * rate") as? Double == 4.5)
        #expect(value("qty - 10") as? Int == -7)
        #expect(value("2 ** 10") as? Int == 1024)
        #expect(value("qty / 2") as? Double == 1.5)
        #expect(value("qty + 4") is NSNumber)
    }

    @Test func functionResultsAreNSNumbers() {
        #expect(value("sum:(prices)") as? Int == 57)
        #expect(value("count:(prices)") as? Int == 3)
        #expect(value("max:(prices)") as? Int == 40)
        #expect(value("min:(prices)") as? Int64 == 2)
        #expect(value("average:({1, 2})") as? Double == 1.5)
        let added = NSExpression(forFunction: "add:to:", arguments: [NSExpression(format: "qty"), 2])
        #expect(added.expressionValue(with: order, context: nil) as? Int == 5)
        #expect(value("prices.@count") as? Int == 3)
        #expect(value("prices.@sum") as? NSNumber == NSNumber(value: 57))
        #expect(value("abs:(-4)") as? Int == 4)
        let sum = NSExpression(forFunction: "sum:", arguments: [NSExpression(forConstantValue: [1, 2, 3.5])])
        #expect(sum.expressionValue(with: nil, context: nil) as? Double == 6.5)
    }

    @Test func keyPathsAndVariablesGiveNSNumbers() {
        #expect(value("qty") as? Int == 3)
        #expect(value("rate") as? Double == 1.5)
        #expect((value("tax") as? NSNumber)?.doubleValue == 0.25)
        #expect(value("tax") as? Decimal == Decimal(string: "0.25"))
        let variable = NSExpression(forVariable: "limit")
        let context = NSMutableDictionary(dictionary: ["limit": Int64(9)])
        #expect(variable.expressionValue(with: nil, context: context) as? Int == 9)
        // A collection's elements too.
        #expect(value("prices") as? [Int] == [2, 15, 40])
        #expect(value("{1, 2.5}") as? [Double] == [1, 2.5])
    }

    @Test func constantsAreNSNumbers() {
        #expect(NSExpression(format: "42").constantValue as? Int == 42)
        #expect(NSExpression(format: "42").constantValue as? Double == 42)
        #expect(NSExpression(format: "42").constantValue as? NSNumber == NSNumber(value: 42))
        #expect(NSExpression(format: "2.5").constantValue as? Double == 2.5)
        #expect(NSExpression(format: "2.5").expressionValue(with: nil, context: nil) as? Double == 2.5)
        #expect(NSExpression(forConstantValue: Int16(5)).constantValue as? Int == 5)
        #expect(NSExpression(forConstantValue: 7).expressionValue(with: nil, context: nil) as? Int == 7)
        #expect(NSExpression(format: "TRUE").constantValue as? Bool == true)
        #expect(NSExpression(format: "TRUE").constantValue is NSNumber)
        #expect(NSExpression(format: "'text'").constantValue as? String == "text")
        #expect(NSExpression(format: "nil").constantValue == nil)
    }

    /// Strata's own readers keep the evaluator's values: a batch update's constant is still
    /// stored in its attribute's type.
    @Test func theStoredConstantIsTheEvaluatorsValue() {
        #expect(NSExpression(format: "42").storedConstant as? Int64 == 42)
        #expect(NSExpression(format: "TRUE").storedConstant as? Bool == true)
    }
}
