import Foundation
import Testing

@testable import Strata

private typealias F = PredicateEvaluationFixtures

/// Key paths read from dictionaries, key-value readers and plain values, through to-one and
/// to-many steps, and the `ANY`/`ALL`/`NONE` modifiers over what they read.
@Suite struct PredicateEvaluatorKeyPathTests {
    private let author = PredicateTestRecord(["name": "Ann", "age": 41])
    private var post: [String: Any] {
        [
            "title": "Hello", "author": author,
            "tags": [["name": "swift"], ["name": "linux"], ["label": "no name"]],
            "empty": [Any](),
        ]
    }

    @Test func dictionariesAreReadByKey() {
        #expect(F.value(F.key("title"), on: post) as? String == "Hello")
        #expect(F.value(F.key("nope"), on: post) == nil)
        #expect(F.value(F.key("a"), on: NSDictionary(dictionary: ["a": 5])) as? Int == 5)
        #expect(F.value(F.key("b"), on: [AnyHashable("b"): "x"]) as? String == "x")
    }

    @Test func readersAreReadThroughThePredicateProtocol() {
        #expect(F.value(F.key("name"), on: author) as? String == "Ann")
        #expect(F.value(F.key("unknown"), on: author) == nil)
        #expect(F.value(F.key("author.name"), on: post) as? String == "Ann")
        #expect(F.value(F.key("author.age"), on: ["author": author]) as? Int == 41)
    }

    @Test func toOneStepsThroughNilGiveNil() {
        #expect(F.value(F.key("author.name"), on: ["title": "x"]) == nil)
        #expect(F.value(F.key("author.name"), on: ["author": NSNull()]) == nil)
        #expect(PredicateEvaluator.evaluate(F.compare(F.key("author.name"), .equalTo, F.null), with: [String: Any]()))
    }

    @Test func otherValuesAnswerOnlySelf() {
        #expect(F.value(F.key("self"), on: 5) as? Int == 5)
        #expect(F.value(F.key("name"), on: 5) == nil)
        #expect(F.value(F.key("name"), on: "text") == nil)
        #expect(F.value(F.key("length"), on: "Café") as? Int64 == 4)
        #expect(F.value(.evaluatedObject, on: "x") as? String == "x")
        #expect(PredicateEvaluator.evaluate(F.compare(.evaluatedObject, .beginsWith, F.text("ab")), with: "abc"))
    }

    @Test func toManyStepsFlattenIntoArraysWithoutNils() {
        let names = F.value(F.key("tags.name"), on: post) as? [Any]
        #expect(names?.compactMap { $0 as? String } == ["swift", "linux"])
        let nested: [String: Any] = [
            "posts": [["tags": [["name": "a"], ["name": "b"]]], ["tags": NSSet(array: [["name": "c"]])]]
        ]
        let flattened = (F.value(F.key("posts.tags.name"), on: nested) as? [Any])?.compactMap { $0 as? String }
        #expect(flattened == ["a", "b", "c"])
        #expect((F.value(F.key("empty.name"), on: post) as? [Any])?.isEmpty == true)
    }

    @Test func toManyStepsReadSetsOfReaders() {
        let tags = NSSet(array: [PredicateTestRecord(["name": "x"]), PredicateTestRecord(["name": "y"])])
        let names = (F.value(F.key("tags.name"), on: PredicateTestRecord(["tags": tags])) as? [Any])?
            .compactMap { $0 as? String }.sorted()
        #expect(names == ["x", "y"])
    }

    @Test func memberReadsAPathFromAnotherExpression() {
        let member = ExpressionNode.member(.variable("t"), "author.name")
        #expect(F.value(member, variables: ["t": post]) as? String == "Ann")
        #expect(F.value(.member(.variable("missing"), "name")) == nil)
        let function = ExpressionNode.member(.function("noindex:", [F.key("author")]), "age")
        #expect(F.value(function, on: post) as? Int == 41)
    }

    // MARK: ANY, ALL, NONE

    @Test func anyHoldsWhenSomeElementMatches() {
        let any = F.compare(F.key("tags.name"), .equalTo, F.text("linux"), .any)
        #expect(PredicateEvaluator.evaluate(any, with: post))
        let none = F.compare(F.key("tags.name"), .equalTo, F.text("rust"), .any)
        #expect(!PredicateEvaluator.evaluate(none, with: post))
        let options = F.compare(F.key("tags.name"), .beginsWith, F.text("SW"), .any, options: .caseInsensitive)
        #expect(PredicateEvaluator.evaluate(options, with: post))
    }

    @Test func allHoldsWhenEveryElementMatches() {
        let all = F.compare(F.key("tags.name"), .greaterThan, F.text("a"), .all)
        #expect(PredicateEvaluator.evaluate(all, with: post))
        let notAll = F.compare(F.key("tags.name"), .equalTo, F.text("swift"), .all)
        #expect(!PredicateEvaluator.evaluate(notAll, with: post))
    }

    @Test func noneIsNotAny() {
        let none = PredicateNode.not(F.compare(F.key("tags.name"), .equalTo, F.text("rust"), .any))
        #expect(PredicateEvaluator.evaluate(none, with: post))
        let some = PredicateNode.not(F.compare(F.key("tags.name"), .equalTo, F.text("swift"), .any))
        #expect(!PredicateEvaluator.evaluate(some, with: post))
    }

    @Test func emptyCollectionsMakeAnyFalseAndAllTrue() {
        let any = F.compare(F.key("empty"), .equalTo, F.int(1), .any)
        let all = F.compare(F.key("empty"), .equalTo, F.int(1), .all)
        #expect(!PredicateEvaluator.evaluate(any, with: post))
        #expect(PredicateEvaluator.evaluate(all, with: post))
        #expect(PredicateEvaluator.evaluate(.not(any), with: post))
        #expect(!PredicateEvaluator.evaluate(F.compare(F.key("missing"), .equalTo, F.int(1), .any), with: post))
        #expect(PredicateEvaluator.evaluate(F.compare(F.key("missing"), .equalTo, F.int(1), .all), with: post))
    }

    @Test func modifiersRangeOverSetsOrderedSetsAndDictionaryValues() {
        let object: [String: Any] = [
            "set": Set([1, 2, 3]), "ordered": NSOrderedSet(array: [4, 5]), "map": ["a": 7, "b": 8],
        ]
        #expect(PredicateEvaluator.evaluate(F.compare(F.key("set"), .greaterThan, F.int(2), .any), with: object))
        #expect(!PredicateEvaluator.evaluate(F.compare(F.key("set"), .greaterThan, F.int(2), .all), with: object))
        #expect(
            PredicateEvaluator.evaluate(
                F.compare(F.key("ordered"), .between, .aggregate([F.int(4), F.int(5)]), .all), with: object))
        #expect(PredicateEvaluator.evaluate(F.compare(F.key("map"), .greaterThan, F.int(6), .all), with: object))
    }

    @Test func aSingleValueUnderAModifierIsItsOnlyElement() {
        #expect(PredicateEvaluator.evaluate(F.compare(F.key("title"), .equalTo, F.text("Hello"), .any), with: post))
        #expect(!PredicateEvaluator.evaluate(F.compare(F.key("title"), .equalTo, F.text("Bye"), .all), with: post))
    }

    @Test func anyCombinesWithIn() {
        let right = ExpressionNode.constant(.array([.string("rust"), .string("swift")]))
        #expect(PredicateEvaluator.evaluate(F.compare(F.key("tags.name"), .in, right, .any), with: post))
        #expect(!PredicateEvaluator.evaluate(F.compare(F.key("tags.name"), .in, right, .all), with: post))
    }
}
