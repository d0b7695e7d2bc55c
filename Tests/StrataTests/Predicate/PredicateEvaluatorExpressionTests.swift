import Foundation
import Testing

@testable import Strata

private typealias F = PredicateEvaluationFixtures

/// Expressions beyond key paths: `SUBQUERY`, `TERNARY`, variables and assignments, index
/// expressions, set operations, constants, and `withSubstitutionVariables`.
@Suite struct PredicateEvaluatorExpressionTests {
    private let order: [String: Any] = [
        "items": [
            ["name": "pen", "price": 2, "qty": 10],
            ["name": "book", "price": 15, "qty": 1],
            ["name": "lamp", "price": 40, "qty": 2],
        ]
    ]

    private func expensive(over limit: Int64) -> ExpressionNode {
        .subquery(
            collection: F.key("items"), variable: "i",
            predicate: F.compare(.member(.variable("i"), "price"), .greaterThan, F.int(limit)))
    }

    // MARK: SUBQUERY

    @Test func subqueryReturnsTheMatchingElements() {
        let matches = F.value(expensive(over: 10), on: order) as? [Any]
        let names = matches?.compactMap { ($0 as? [String: Any])?["name"] as? String }
        #expect(names == ["book", "lamp"])
        #expect((F.value(expensive(over: 100), on: order) as? [Any])?.isEmpty == true)
    }

    @Test func subqueryCountsWithAtCount() {
        let count = ExpressionNode.member(expensive(over: 10), "@count")
        #expect(F.value(count, on: order) as? Int64 == 2)
        #expect(PredicateEvaluator.evaluate(F.compare(count, .greaterThan, F.int(1)), with: order))
        #expect(!PredicateEvaluator.evaluate(F.compare(count, .equalTo, F.int(0)), with: order))
        #expect(F.value(.member(expensive(over: 10), "@count"), on: ["items": [Any]()]) as? Int64 == 0)
    }

    @Test func subqueryTestsEachElementAsTheEvaluatedObject() {
        let bare = ExpressionNode.subquery(
            collection: F.key("items"), variable: "i", predicate: F.compare(F.key("qty"), .greaterThan, F.int(1)))
        #expect((F.value(bare, on: order) as? [Any])?.count == 2)
    }

    @Test func subqueryOverNilIsEmptyAndRestoresItsVariable() {
        #expect((F.value(expensive(over: 0), on: [String: Any]()) as? [Any])?.isEmpty == true)
        let then = PredicateNode.and([
            F.compare(.member(expensive(over: 10), "@count"), .equalTo, F.int(2)),
            F.compare(.variable("i"), .equalTo, F.text("outer")),
        ])
        #expect(PredicateEvaluator.evaluate(then, with: order, variables: ["i": "outer"]))
    }

    @Test func nestedSubqueriesSeeTheirOwnVariables() {
        let shelves: [String: Any] = [
            "shelves": [["books": [["pages": 100], ["pages": 900]]], ["books": [["pages": 50]]]]
        ]
        let thick = ExpressionNode.subquery(
            collection: .member(.variable("s"), "books"), variable: "b",
            predicate: F.compare(.member(.variable("b"), "pages"), .greaterThan, F.int(500)))
        let withThick = ExpressionNode.subquery(
            collection: F.key("shelves"), variable: "s",
            predicate: F.compare(.member(thick, "@count"), .greaterThan, F.int(0)))
        #expect(F.value(.member(withThick, "@count"), on: shelves) as? Int64 == 1)
    }

    // MARK: TERNARY, variables, assignment

    @Test func ternaryPicksABranch() {
        let ternary = ExpressionNode.conditional(
            F.compare(F.key("n"), .greaterThan, F.int(0)), F.text("positive"), F.text("other"))
        #expect(F.value(ternary, on: ["n": 3]) as? String == "positive")
        #expect(F.value(ternary, on: ["n": -3]) as? String == "other")
        #expect(F.value(ternary, on: [String: Any]()) as? String == "other")
    }

    @Test func variablesReadTheGivenValues() {
        let predicate = F.compare(F.key("age"), .greaterThanOrEqualTo, .variable("MIN"))
        #expect(PredicateEvaluator.evaluate(predicate, with: ["age": 30], variables: ["MIN": 18]))
        #expect(!PredicateEvaluator.evaluate(predicate, with: ["age": 10], variables: ["MIN": 18]))
        #expect(!PredicateEvaluator.evaluate(predicate, with: ["age": 10]))
        #expect(F.value(.variable("unknown")) == nil)
        #expect(F.value(.variable("x"), variables: ["x": NSNull()]) == nil)
    }

    @Test func assignmentsBindForTheRestOfTheEvaluation() {
        let predicate = PredicateNode.and([
            F.compare(.assignment("x", F.key("price")), .greaterThan, F.int(1)),
            F.compare(.variable("x"), .equalTo, F.int(5)),
        ])
        #expect(PredicateEvaluator.evaluate(predicate, with: ["price": 5]))
        #expect(!PredicateEvaluator.evaluate(predicate, with: ["price": 6]))
        #expect(F.value(.assignment("y", F.int(3))) as? Int64 == 3)
        let overridden = PredicateNode.and([
            F.compare(.assignment("x", F.int(1)), .equalTo, F.int(1)),
            F.compare(.variable("x"), .equalTo, F.int(1)),
        ])
        #expect(PredicateEvaluator.evaluate(overridden, with: nil, variables: ["x": 9]))
    }

    // MARK: index expressions

    @Test func indexesReadPositionsAndEnds() {
        let object: [String: Any] = ["list": ["a", "b", "c"], "none": [Any]()]
        #expect(F.value(.index(F.key("list"), .first), on: object) as? String == "a")
        #expect(F.value(.index(F.key("list"), .last), on: object) as? String == "c")
        #expect(F.value(.index(F.key("list"), .size), on: object) as? Int64 == 3)
        #expect(F.value(.index(F.key("list"), .expression(F.int(1))), on: object) as? String == "b")
        #expect(F.value(.index(F.key("none"), .first), on: object) == nil)
        #expect(F.value(.index(F.key("none"), .size), on: object) as? Int64 == 0)
    }

    @Test func indexesOutOfRangeGiveNil() {
        let list: [String: Any] = ["list": [1, 2]]
        for index: ExpressionNode in [F.int(2), F.int(-1), F.double(0.5), F.int(Int64.max), F.null] {
            #expect(F.value(.index(F.key("list"), .expression(index)), on: list) == nil)
        }
        #expect(F.value(.index(F.key("list"), .expression(F.double(1))), on: list) as? Int == 2)
        #expect(F.value(.index(F.key("missing"), .first), on: list) == nil)
        #expect(F.value(.index(F.key("missing"), .size), on: list) == nil)
    }

    @Test func indexesReadDictionariesByKey() {
        let object: [String: Any] = ["map": ["k": "v", "SIZE": "literal"]]
        #expect(F.value(.index(F.key("map"), .expression(F.text("k"))), on: object) as? String == "v")
        #expect(F.value(.index(F.key("map"), .expression(F.text("x"))), on: object) == nil)
        #expect(F.value(.index(F.key("map"), .expression(F.text("SIZE"))), on: object) as? String == "literal")
        #expect(F.value(.index(F.key("map"), .size), on: object) as? Int64 == 2)
    }

    // MARK: set operations

    private func set(_ operation: ExpressionNode.SetOperation, _ a: [Int64], _ b: [Int64]) -> [Int64]? {
        let left = ExpressionNode.constant(.array(a.map { .integer($0) }))
        let right = ExpressionNode.constant(.set(b.map { .integer($0) }))
        let result = PredicateValues.elements(F.value(.setOperation(operation, left, right)))
        return result?.compactMap { $0 as? Int64 }.sorted()
    }

    @Test func setOperationsCombineCollections() {
        #expect(set(.union, [1, 2], [2, 3]) == [1, 2, 3])
        #expect(set(.intersect, [1, 2, 2], [2, 3]) == [2])
        #expect(set(.minus, [1, 2, 3], [2]) == [1, 3])
        #expect(set(.union, [], []) == [])
        let scalar = ExpressionNode.setOperation(.union, F.int(1), .constant(.array([])))
        #expect(F.value(scalar) == nil)
    }

    @Test func setOperationResultsCompareAsSets() {
        let union = ExpressionNode.setOperation(
            .union, .constant(.array([.integer(2)])), .constant(.array([.integer(1)])))
        let expected = ExpressionNode.constant(.array([.integer(1), .integer(2)]))
        #expect(PredicateEvaluator.evaluate(F.compare(union, .equalTo, expected), with: nil))
        #expect(PredicateEvaluator.evaluate(F.compare(F.int(1), .in, union), with: nil))
    }

    // MARK: constants

    @Test func constantsBecomeSwiftValues() {
        let date = Date(timeIntervalSinceReferenceDate: 5)
        #expect(PredicateValue.null.runtimeValue == nil)
        #expect(PredicateValue.bool(true).runtimeValue as? Bool == true)
        #expect(PredicateValue.integer(7).runtimeValue as? Int64 == 7)
        #expect(PredicateValue.double(1.5).runtimeValue as? Double == 1.5)
        #expect(PredicateValue.decimal(Decimal(3)).runtimeValue as? Decimal == Decimal(3))
        #expect(PredicateValue.string("s").runtimeValue as? String == "s")
        #expect(PredicateValue.date(date).runtimeValue as? Date == date)
        #expect(PredicateValue.data(Data([1])).runtimeValue as? Data == Data([1]))
        let array = PredicateValue.array([.integer(1), .null]).runtimeValue as? [Any?]
        #expect(array?.count == 2)
        #expect((PredicateValue.set([.integer(1), .integer(2)]).runtimeValue as? Set<AnyHashable>)?.count == 2)
        let dictionary = PredicateValue.dictionary(["a": .integer(1), "b": .null]).runtimeValue as? [String: Any]
        #expect(dictionary?["a"] as? Int64 == 1)
        #expect(dictionary?["b"] is NSNull)
        let record = PredicateTestRecord([:])
        #expect(PredicateValue.object(PredicateObject(record)).runtimeValue as? PredicateTestRecord === record)
    }

    // MARK: substitution

    @Test func substitutionReplacesVariablesWithConstants() {
        let predicate = F.compare(F.key("age"), .between, .aggregate([.variable("LO"), .variable("HI")]))
        let substituted = PredicateSubstitution.substituting(["LO": 18, "HI": 65.5], in: predicate)
        #expect(substituted == F.compare(F.key("age"), .between, .aggregate([F.int(18), F.double(65.5)])))
        #expect(PredicateEvaluator.evaluate(substituted, with: ["age": 30]))
    }

    @Test func substitutionConvertsValuesAsArgumentsAre() {
        let predicate = F.compare(F.key("name"), .in, .variable("NAMES"))
        let substituted = PredicateSubstitution.substituting(["NAMES": ["a", "b"]], in: predicate)
        #expect(substituted == F.compare(F.key("name"), .in, .constant(.array([.string("a"), .string("b")]))))
        let isX = F.compare(F.key("v"), .equalTo, .variable("X"))
        let none = PredicateSubstitution.substituting(["X": NSNull()], in: isX)
        #expect(none == F.compare(F.key("v"), .equalTo, F.null))
    }

    @Test func substitutionLeavesUnknownAndSubqueryBoundVariables() {
        let subquery = ExpressionNode.subquery(
            collection: F.key("items"), variable: "x",
            predicate: F.compare(.member(.variable("x"), "price"), .greaterThan, .variable("LIMIT")))
        let predicate = PredicateNode.and([
            F.compare(.member(subquery, "@count"), .greaterThan, .variable("x")),
            F.compare(F.key("name"), .equalTo, .variable("UNKNOWN")),
        ])
        let substituted = PredicateSubstitution.substituting(["x": 1, "LIMIT": 10], in: predicate)
        let expectedSubquery = ExpressionNode.subquery(
            collection: F.key("items"), variable: "x",
            predicate: F.compare(.member(.variable("x"), "price"), .greaterThan, F.int(10)))
        let expected = PredicateNode.and([
            F.compare(.member(expectedSubquery, "@count"), .greaterThan, F.int(1)),
            F.compare(F.key("name"), .equalTo, .variable("UNKNOWN")),
        ])
        #expect(substituted == expected)
    }

    @Test func substitutionReachesEveryKindOfExpression() {
        let variable = ExpressionNode.variable("V")
        let expressions: [ExpressionNode] = [
            .member(variable, "a"), .function("abs:", [variable]), .index(variable, .expression(variable)),
            .conditional(F.compare(variable, .equalTo, variable), variable, variable), .assignment("w", variable),
            .setOperation(.union, variable, variable), .aggregate([variable]),
        ]
        for expression in expressions {
            let substituted = PredicateSubstitution.substituting(["V": 1], in: F.compare(expression, .equalTo, F.null))
            #expect(!"\(substituted)".contains("variable(\"V\")"))
        }
    }
}
