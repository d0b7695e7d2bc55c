import Foundation
import Testing

@testable import Strata

private typealias F = PredicateEvaluationFixtures

/// The key-value collection operators in key paths: `@count`, `@sum`, `@avg`, `@min`,
/// `@max` and the union operators, before or after the collection's key.
@Suite struct PredicateCollectionOperatorTests {
    private let order: [String: Any] = [
        "items": [
            ["name": "pen", "price": 2, "tags": ["a", "b"]],
            ["name": "book", "price": 15.5, "tags": ["b"]],
            ["name": "pen", "price": 4, "tags": [String]()],
            ["name": "gift"],
        ],
        "none": [Any](),
        "dates": [Date(timeIntervalSinceReferenceDate: 20), Date(timeIntervalSinceReferenceDate: 10)],
        "numbers": [3, 1, 2],
    ]

    // MARK: @count

    @Test func countCountsCollectionsOfEveryKind() {
        #expect(F.value(F.key("items.@count"), on: order) as? Int64 == 4)
        #expect(F.value(F.key("none.@count"), on: order) as? Int64 == 0)
        #expect(F.value(F.key("s.@count"), on: ["s": Set([1, 2])]) as? Int64 == 2)
        #expect(F.value(F.key("s.@count"), on: ["s": NSSet(array: [1, 2, 3])]) as? Int64 == 3)
        #expect(F.value(F.key("s.@count"), on: ["s": NSOrderedSet(array: [1])]) as? Int64 == 1)
        #expect(F.value(F.key("s.@count"), on: ["s": ["k": 1, "l": 2]]) as? Int64 == 2)
        #expect(F.value(F.key("@count"), on: [1, 2, 3]) as? Int64 == 3)
    }

    @Test func countOfNothingOrAScalarIsNil() {
        #expect(F.value(F.key("missing.@count"), on: order) == nil)
        #expect(F.value(F.key("name.@count"), on: ["name": "text"]) == nil)
    }

    @Test func countWorksInPredicates() {
        #expect(PredicateEvaluator.evaluate(F.compare(F.key("items.@count"), .equalTo, F.int(4)), with: order))
        #expect(PredicateEvaluator.evaluate(F.compare(F.key("none.@count"), .equalTo, F.int(0)), with: order))
        #expect(!PredicateEvaluator.evaluate(F.compare(F.key("missing.@count"), .equalTo, F.int(0)), with: order))
        #expect(F.value(.member(F.key("items"), "@count"), on: order) as? Int64 == 4)
    }

    @Test func countThroughAToManyPathCountsTheFlattenedValues() {
        #expect(F.value(F.key("items.tags.@count"), on: order) as? Int64 == 3)
        #expect(F.value(F.key("@count.items"), on: order) as? Int64 == 4)
    }

    // MARK: @sum, @avg

    @Test func sumAddsNumbersAndSkipsNils() {
        #expect(F.number(F.value(F.key("items.@sum.price"), on: order)) == 21.5)
        #expect(F.value(F.key("numbers.@sum"), on: order) as? Int64 == 6)
        #expect(F.value(F.key("none.@sum.price"), on: order) as? Int64 == 0)
        #expect(F.value(F.key("missing.@sum.price"), on: order) == nil)
    }

    @Test func sumKeepsIntegersExactAndDecimalsDecimal() {
        #expect(F.value(F.key("n.@sum"), on: ["n": [Int64.max, 1]]) as? Decimal == Decimal(Int64.max) + 1)
        let decimals = [Decimal(string: "0.1") ?? 0, Decimal(string: "0.2") ?? 0]
        #expect(F.value(F.key("n.@sum"), on: ["n": decimals]) as? Decimal == Decimal(string: "0.3"))
        #expect(F.value(F.key("n.@sum"), on: ["n": [1, 0.5]]) as? Double == 1.5)
    }

    @Test func sumOfSomethingOtherThanNumbersIsNil() {
        #expect(F.value(F.key("items.@sum.name"), on: order) == nil)
    }

    @Test func sumBeforeTheKeyReadsTheRestOfThePath() {
        #expect(F.number(F.value(F.key("@sum.items.price"), on: order)) == 21.5)
        #expect(F.number(F.value(F.key("@avg.numbers"), on: order)) == 2)
        #expect(F.value(F.key("@max.items.name"), on: order) as? String == "pen")
    }

    @Test func averageIsTheMeanOfTheNumbersPresent() {
        #expect(F.value(F.key("numbers.@avg"), on: order) as? Double == 2)
        #expect(F.number(F.value(F.key("items.@avg.price"), on: order)) == 21.5 / 3)
        #expect(F.value(F.key("none.@avg.price"), on: order) == nil)
    }

    // MARK: @min, @max

    @Test func minAndMaxCompareNumbersStringsAndDates() {
        #expect(F.value(F.key("items.@min.price"), on: order) as? Int == 2)
        #expect(F.value(F.key("items.@max.price"), on: order) as? Double == 15.5)
        #expect(F.value(F.key("items.@min.name"), on: order) as? String == "book")
        #expect(F.value(F.key("items.@max.name"), on: order) as? String == "pen")
        #expect(F.value(F.key("dates.@min"), on: order) as? Date == Date(timeIntervalSinceReferenceDate: 10))
        #expect(F.value(F.key("dates.@max"), on: order) as? Date == Date(timeIntervalSinceReferenceDate: 20))
    }

    @Test func minAndMaxOfNothingOrOfMixedKindsAreNil() {
        #expect(F.value(F.key("none.@min.price"), on: order) == nil)
        #expect(F.value(F.key("none.@max"), on: order) == nil)
        #expect(F.value(F.key("m.@max"), on: ["m": [1, "a"]]) == nil)
    }

    @Test func aggregatesWorkInPredicates() {
        #expect(PredicateEvaluator.evaluate(F.compare(F.key("items.@sum.price"), .greaterThan, F.int(20)), with: order))
        #expect(PredicateEvaluator.evaluate(F.compare(F.key("items.@max.price"), .lessThan, F.int(16)), with: order))
        #expect(!PredicateEvaluator.evaluate(F.compare(F.key("none.@max.price"), .lessThan, F.int(16)), with: order))
    }

    // MARK: unions

    @Test func unionOfObjectsKeepsRepeats() {
        let names = (F.value(F.key("items.@unionOfObjects.name"), on: order) as? [Any])?.compactMap { $0 as? String }
        #expect(names == ["pen", "book", "pen", "gift"])
    }

    @Test func distinctUnionOfObjectsDropsRepeats() {
        let names = (F.value(F.key("items.@distinctUnionOfObjects.name"), on: order) as? [Any])?
            .compactMap { $0 as? String }
        #expect(names == ["pen", "book", "gift"])
    }

    @Test func unionOfArraysFlattensOneLevel() {
        let tags = (F.value(F.key("items.@unionOfArrays.tags"), on: order) as? [Any])?.compactMap { $0 as? String }
        #expect(tags == ["a", "b", "b"])
        let nested: [String: Any] = ["lists": [[1, 2], [2, 3]]]
        let values = (F.value(F.key("lists.@unionOfArrays.self"), on: nested) as? [Any])?.compactMap { $0 as? Int }
        #expect(values == [1, 2, 2, 3])
    }

    @Test func distinctUnionsOfArraysAndSetsDropRepeats() {
        let tags = (F.value(F.key("items.@distinctUnionOfArrays.tags"), on: order) as? [Any])?
            .compactMap { $0 as? String }
        #expect(tags == ["a", "b"])
        let sets: [String: Any] = ["groups": [Set([1]), Set([1])]]
        let values = (F.value(F.key("groups.@distinctUnionOfSets.self"), on: sets) as? [Any])?.compactMap { $0 as? Int }
        #expect(values == [1])
    }

    @Test func unknownOperatorsGiveNil() {
        #expect(F.value(F.key("items.@median.price"), on: order) == nil)
        #expect(F.value(F.key("items.@"), on: order) == nil)
    }

    @Test func operatorsReadReaderCollections() {
        let lines = NSSet(array: [PredicateTestRecord(["amount": 5]), PredicateTestRecord(["amount": 7])])
        let invoice = PredicateTestRecord(["lines": lines])
        #expect(F.value(F.key("lines.@sum.amount"), on: invoice) as? Int64 == 12)
        #expect(F.value(F.key("lines.@count"), on: invoice) as? Int64 == 2)
    }
}
