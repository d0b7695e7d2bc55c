import Foundation
import Testing

@testable import Strata

private typealias F = PredicateEvaluationFixtures

/// Comparisons as `NSComparisonPredicate` evaluates them in memory: numbers by value across
/// types, nil, mixed kinds, `BETWEEN`, `IN`, `CONTAINS` and the compound predicates.
@Suite struct PredicateEvaluatorTests {
    @Test func constantsAndCompoundsFollowBooleanLogic() {
        let yes = PredicateNode.constant(true)
        let no = PredicateNode.constant(false)
        #expect(PredicateEvaluator.evaluate(yes, with: nil))
        #expect(!PredicateEvaluator.evaluate(no, with: nil))
        #expect(PredicateEvaluator.evaluate(.and([]), with: nil))
        #expect(!PredicateEvaluator.evaluate(.or([]), with: nil))
        #expect(!PredicateEvaluator.evaluate(.and([yes, no, yes]), with: nil))
        #expect(PredicateEvaluator.evaluate(.or([no, no, yes]), with: nil))
        #expect(PredicateEvaluator.evaluate(.not(no), with: nil))
        #expect(!PredicateEvaluator.evaluate(.not(.not(no)), with: nil))
    }

    @Test func numbersAreEqualAcrossTheirTypes() {
        #expect(F.holds(1, .equalTo, 1.0))
        #expect(F.holds(Int8(3), .equalTo, UInt64(3)))
        #expect(F.holds(Int16(7), .equalTo, NSNumber(value: 7)))
        #expect(F.holds(Float(0.5), .equalTo, 0.5))
        #expect(F.holds(Decimal(string: "2.5"), .equalTo, 2.5))
        #expect(F.holds(NSDecimalNumber(string: "12"), .equalTo, Int32(12)))
        #expect(F.holds(UInt8(255), .equalTo, NSNumber(value: 255.0)))
        #expect(!F.holds(1, .equalTo, 1.000_001))
        #expect(F.holds(1, .notEqualTo, 2.0))
    }

    @Test func booleansCompareAsZeroAndOne() {
        #expect(F.holds(true, .equalTo, 1))
        #expect(F.holds(false, .equalTo, 0.0))
        #expect(F.holds(NSNumber(value: true), .equalTo, true))
        #expect(!F.holds(true, .equalTo, 2))
        #expect(F.holds(false, .lessThan, true))
    }

    @Test func numbersOrderByValueAcrossTypes() {
        #expect(F.holds(1, .lessThan, 1.5))
        #expect(F.holds(Decimal(2), .greaterThan, Int64(1)))
        #expect(F.holds(UInt64.max, .greaterThan, Int64.max))
        #expect(F.holds(Int64(9_007_199_254_740_993), .greaterThan, 9_007_199_254_740_992.0))
        #expect(F.holds(-3, .lessThanOrEqualTo, Float(-3)))
        #expect(F.holds(Decimal(string: "0.1"), .lessThan, Decimal(string: "0.2")))
        #expect(F.holds(Int64.min, .greaterThan, -1e300))
        #expect(F.holds(2, .greaterThanOrEqualTo, 1.99))
    }

    @Test func notANumberComparesFalseWithEverything() {
        #expect(!F.holds(Double.nan, .equalTo, Double.nan))
        #expect(F.holds(Double.nan, .notEqualTo, Double.nan))
        #expect(!F.holds(Double.nan, .lessThan, 1))
        #expect(!F.holds(1, .greaterThanOrEqualTo, Double.nan))
    }

    @Test func valuesOfDifferentKindsAreNeverEqualNorOrdered() {
        #expect(!F.holds("1", .equalTo, 1))
        #expect(F.holds("1", .notEqualTo, 1))
        #expect(!F.holds(Date(timeIntervalSinceReferenceDate: 0), .equalTo, 0))
        #expect(!F.holds("a", .lessThan, 1))
        #expect(!F.holds("a", .greaterThan, 1))
        #expect(!F.holds(Date(), .lessThan, "z"))
        #expect(!F.holds(UUID(), .equalTo, "x"))
    }

    @Test func datesCompareByTime() {
        let early = Date(timeIntervalSinceReferenceDate: 100)
        let late = Date(timeIntervalSinceReferenceDate: 200)
        #expect(F.holds(early, .lessThan, late))
        #expect(F.holds(late, .greaterThanOrEqualTo, early))
        #expect(F.holds(early, .equalTo, NSDate(timeIntervalSinceReferenceDate: 100)))
        #expect(F.holds(early, .notEqualTo, late))
    }

    @Test func stringsOrderByUnicodeScalars() {
        #expect(F.holds("a", .lessThan, "b"))
        #expect(F.holds("B", .lessThan, "a"))
        #expect(F.holds("é", .greaterThan, "f"))
        #expect(F.holds("abc", .greaterThan, "ab"))
        #expect(F.holds("same", .lessThanOrEqualTo, "same"))
        #expect(F.holds("Zebra", .equalTo, "Zebra"))
        #expect(!F.holds("Zebra", .equalTo, "zebra"))
    }

    @Test func otherValuesCompareByEquality() {
        let id = UUID()
        #expect(F.holds(id, .equalTo, UUID(uuidString: id.uuidString)))
        #expect(F.holds(Data([1, 2]), .equalTo, Data([1, 2])))
        #expect(!F.holds(Data([1, 2]), .equalTo, Data([2, 1])))
        #expect(F.holds(URL(string: "https://a.example/x"), .equalTo, URL(string: "https://a.example/x")))
        #expect(F.holds([1, 2], .equalTo, [1.0, 2.0]))
        #expect(!F.holds([1, 2], .equalTo, [2, 1]))
        #expect(F.holds(Set([1, 2]), .equalTo, Set([2, 1])))
        #expect(F.holds(["k": 1], .equalTo, ["k": 1.0]))
    }

    @Test func objectsCompareByIsEqualOrIdentity() {
        let record = PredicateTestRecord([:])
        #expect(F.holds(record, .equalTo, record))
        #expect(!F.holds(record, .equalTo, PredicateTestRecord([:])))
        #expect(F.holds(record, .notEqualTo, PredicateTestRecord([:])))
        let constant = F.compare(.evaluatedObject, .equalTo, .constant(.object(PredicateObject(record))))
        #expect(PredicateEvaluator.evaluate(constant, with: record))
        #expect(F.holds(NSString(string: "x"), .equalTo, "x"))
        #expect(F.holds(NSNumber(value: 3), .equalTo, NSNumber(value: 3)))
    }

    @Test func setsHoldingDecimalsCompareWithoutBridging() {
        // Bridging a Swift set that holds a `Decimal` to `NSSet` never returns on Linux.
        let decimals = Set([AnyHashable(Decimal(2)), AnyHashable(Int64(3))])
        #expect(!F.holds(NSNumber(value: 1), .equalTo, decimals))
        #expect(F.holds(NSNumber(value: 1), .notEqualTo, decimals))
        #expect(F.holds(2, .in, decimals))
        let constant = PredicateValue.set([.integer(2), .decimal(2), .double(.nan)])
        let any = F.compare(.evaluatedObject, .equalTo, .constant(constant), .any)
        #expect(!PredicateEvaluator.evaluate(any, with: NSArray(array: [1])))
    }

    // MARK: nil

    @Test func nilEqualsOnlyNil() {
        #expect(F.holds(nil, .equalTo, nil))
        #expect(F.holds(NSNull(), .equalTo, nil))
        #expect(F.holds(nil, .equalTo, NSNull()))
        #expect(!F.holds(nil, .equalTo, "x"))
        #expect(!F.holds(0, .equalTo, nil))
        #expect(!F.holds("", .equalTo, nil))
        #expect(F.holds(nil, .notEqualTo, "x"))
        #expect(F.holds(0, .notEqualTo, nil))
        #expect(!F.holds(nil, .notEqualTo, nil))
        #expect(!F.holds(NSNull(), .notEqualTo, nil))
    }

    @Test func missingKeysAreNil() {
        let isNil = F.compare(F.key("missing"), .equalTo, F.null)
        #expect(PredicateEvaluator.evaluate(isNil, with: ["other": 1]))
        #expect(PredicateEvaluator.evaluate(isNil, with: ["missing": NSNull()]))
        #expect(!PredicateEvaluator.evaluate(isNil, with: ["missing": 0]))
        #expect(PredicateEvaluator.evaluate(isNil, with: nil))
        let optional: Int? = nil
        #expect(PredicateEvaluator.evaluate(isNil, with: ["missing": optional as Any]))
    }

    @Test func orderingWithNilIsAlwaysFalse() {
        for op in [ComparisonNode.Operator.lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo] {
            #expect(!F.holds(nil, op, 1))
            #expect(!F.holds(1, op, nil))
            #expect(!F.holds(nil, op, nil))
            #expect(!F.holds("a", op, nil))
        }
    }

    @Test func everyOtherOperatorIsFalseWithNil() {
        let others: [ComparisonNode.Operator] = [.beginsWith, .endsWith, .like, .matches, .contains, .in, .between]
        for op in others {
            #expect(!F.holds(nil, op, "abc"))
            #expect(!F.holds("abc", op, nil))
            #expect(!F.holds(nil, op, nil))
        }
        #expect(!F.holds(nil, .in, [1, 2]))
        #expect(!F.holds(nil, .between, [1, 2]))
        #expect(!F.holds([1, 2], .contains, nil))
    }

    @Test func optionalsBoxedInAnyCompareAsTheirValues() {
        let five: Int? = 5
        let missing: String? = nil
        #expect(F.holds(five as Any, .equalTo, 5))
        #expect(F.holds(missing as Any, .equalTo, nil))
        let list: [Int?] = [1, nil, 3]
        #expect(F.holds(3, .in, list))
    }

    // MARK: BETWEEN

    @Test func betweenIsInclusive() {
        #expect(F.holds(5, .between, [1, 5]))
        #expect(F.holds(1, .between, [1, 5]))
        #expect(F.holds(3.5, .between, [1, 5]))
        #expect(!F.holds(0, .between, [1, 5]))
        #expect(!F.holds(5.01, .between, [1, 5]))
        #expect(!F.holds(3, .between, [5, 1]))
    }

    @Test func betweenComparesStringsAndDates() {
        #expect(F.holds("b", .between, ["a", "c"]))
        #expect(!F.holds("d", .between, ["a", "c"]))
        #expect(F.holds("B", .between, ["a", "c"], options: .caseInsensitive))
        let bounds = [Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSinceReferenceDate: 10)]
        #expect(F.holds(Date(timeIntervalSinceReferenceDate: 10), .between, bounds))
        #expect(!F.holds(Date(timeIntervalSinceReferenceDate: 11), .between, bounds))
    }

    @Test func betweenNeedsExactlyTwoBounds() {
        #expect(!F.holds(1, .between, [1]))
        #expect(!F.holds(1, .between, [0, 1, 2]))
        #expect(!F.holds(1, .between, 1))
        #expect(!F.holds(1, .between, [Int]()))
        let aggregate = F.compare(F.int(3), .between, .aggregate([F.int(1), F.int(3)]))
        #expect(PredicateEvaluator.evaluate(aggregate, with: nil))
    }

    // MARK: IN and CONTAINS

    @Test func inTestsMembershipOfCollections() {
        #expect(F.holds(2, .in, [1, 2, 3]))
        #expect(!F.holds(4, .in, [1, 2, 3]))
        #expect(F.holds(2.0, .in, Set([1, 2])))
        #expect(F.holds("b", .in, NSArray(array: ["a", "b"])))
        #expect(F.holds("b", .in, NSSet(array: ["a", "b"])))
        #expect(F.holds("b", .in, NSOrderedSet(array: ["a", "b"])))
        #expect(!F.holds(1, .in, [Int]()))
        #expect(!F.holds(1, .in, 1))
    }

    @Test func inTestsSubstringsOfStrings() {
        #expect(F.holds("ell", .in, "hello"))
        #expect(!F.holds("ELL", .in, "hello"))
        #expect(F.holds("ELL", .in, "hello", options: .caseInsensitive))
        #expect(!F.holds(1, .in, "123"))
    }

    @Test func inTestsTheValuesOfDictionaries() {
        let dictionary: [String: Any] = ["one": 1, "two": "deux"]
        #expect(F.holds(1, .in, dictionary))
        #expect(F.holds("deux", .in, dictionary))
        #expect(!F.holds("one", .in, dictionary))
        #expect(F.holds("DEUX", .in, NSDictionary(dictionary: dictionary), options: .caseInsensitive))
    }

    @Test func inAppliesStringOptionsToElements() {
        #expect(F.holds("ABC", .in, ["abc", "def"], options: .caseInsensitive))
        #expect(!F.holds("ABC", .in, ["abc", "def"]))
        #expect(F.holds("cafe", .in, ["Café"], options: [.caseInsensitive, .diacriticInsensitive]))
    }

    @Test func containsTestsCollectionsAndStrings() {
        #expect(F.holds([1, 2, 3], .contains, 2))
        #expect(!F.holds([1, 2, 3], .contains, 5))
        #expect(F.holds(Set(["x", "y"]), .contains, "y"))
        #expect(F.holds(["Apple"], .contains, "apple", options: .caseInsensitive))
        #expect(F.holds("hello world", .contains, "o w"))
        #expect(!F.holds("hello", .contains, "O"))
        #expect(F.holds("hello", .contains, "O", options: .caseInsensitive))
        #expect(F.holds(["k": "v"], .contains, "v"))
        #expect(!F.holds(12, .contains, 1))
        #expect(!F.holds("12", .contains, 1))
    }

    @Test func equalityOptionsFoldStrings() {
        #expect(F.holds("Hello", .equalTo, "hELLO", options: .caseInsensitive))
        #expect(!F.holds("Hello", .notEqualTo, "hELLO", options: .caseInsensitive))
        #expect(F.holds("Hello", .notEqualTo, "hELLO"))
        #expect(F.holds("résumé", .equalTo, "resume", options: .diacriticInsensitive))
    }

    // MARK: collections without a modifier

    @Test func aToManyPathWithoutModifierComparesTheCollection() {
        let object: [String: Any] = ["tags": [["name": "a"], ["name": "b"]]]
        let equal = F.compare(F.key("tags.name"), .equalTo, F.text("a"))
        let unequal = F.compare(F.key("tags.name"), .notEqualTo, F.text("a"))
        let less = F.compare(F.key("tags.name"), .lessThan, F.text("z"))
        #expect(!PredicateEvaluator.evaluate(equal, with: object))
        #expect(PredicateEvaluator.evaluate(unequal, with: object))
        #expect(!PredicateEvaluator.evaluate(less, with: object))
        let whole = F.compare(F.key("tags.name"), .equalTo, .constant(.array([.string("a"), .string("b")])))
        #expect(PredicateEvaluator.evaluate(whole, with: object))
    }
}
