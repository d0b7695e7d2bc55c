import Foundation
import Testing

@testable import Strata

private typealias F = PredicateEvaluationFixtures

/// `NSExpression`'s functions by their selector names, evaluated in memory.
@Suite struct PredicateFunctionTests {
    // MARK: aggregates

    @Test func aggregatesTakeOneCollectionArgument() {
        let numbers = [1, 2, 3, 4, 4, 5, 9, 11]
        #expect(F.call("sum:", numbers) as? Int64 == 39)
        #expect(F.call("count:", numbers) as? Int64 == 8)
        #expect(F.call("min:", numbers) as? Int64 == 1)
        #expect(F.call("max:", numbers) as? Int64 == 11)
        #expect(F.call("average:", numbers) as? Double == 4.875)
        #expect(F.call("median:", numbers) as? Double == 4)
    }

    @Test func aggregatesTakeAggregatesAndSeveralArguments() {
        let aggregate = ExpressionNode.function("sum:", [.aggregate([F.int(1), F.double(2.5)])])
        #expect(F.value(aggregate) as? Double == 3.5)
        #expect(F.call("max:", 3, 8, 5) as? Int64 == 8)
        #expect(F.call("sum:", 5) as? Int64 == 5)
        let path = ExpressionNode.function("sum:", [F.key("items.price")])
        #expect(F.value(path, on: ["items": [["price": 2], ["price": 3]]]) as? Int64 == 5)
    }

    @Test func aggregatesOfNothing() {
        #expect(F.call("sum:", [Int]()) as? Int64 == 0)
        #expect(F.call("count:", [Int]()) as? Int64 == 0)
        for name in ["min:", "max:", "average:", "median:", "mode:", "stddev:"] {
            #expect(F.call(name, [Int]()) == nil)
            #expect(F.call(name, nil) == nil)
        }
        #expect(F.call("sum:", ["a"]) == nil)
    }

    @Test func medianOfAnEvenCountIsTheMeanOfTheMiddle() {
        #expect(F.call("median:", [4, 1, 3, 2]) as? Double == 2.5)
        #expect(F.call("median:", [7]) as? Double == 7)
    }

    @Test func modeReturnsTheMostFrequentValues() {
        let single = F.call("mode:", [1, 2, 2, 3]) as? [Any]
        #expect(single?.compactMap { $0 as? Int64 } == [2])
        let tie = F.call("mode:", [1, 1, 2, 2, 3]) as? [Any]
        #expect(tie?.compactMap { $0 as? Int64 } == [1, 2])
    }

    @Test func standardDeviationIsThePopulationOne() {
        let deviation = F.call("stddev:", [1, 2, 3, 4, 5, 6, 7, 8]) as? Double
        #expect(abs((deviation ?? 0) - 2.291_287_847_5) < 1e-9)
        #expect(F.call("stddev:", [5, 5]) as? Double == 0)
    }

    // MARK: arithmetic

    @Test func integerArithmeticIsExact() {
        #expect(F.call("add:to:", 2, 3) as? Int64 == 5)
        #expect(F.call("from:subtract:", 2, 3) as? Int64 == -1)
        #expect(F.call("multiply:by:", 4, 5) as? Int64 == 20)
        #expect(F.call("add:to:", 9_007_199_254_740_992, 1) as? Int64 == 9_007_199_254_740_993)
    }

    @Test func integerOverflowContinuesInDecimal() {
        #expect(F.call("add:to:", Int64.max, 1) as? Decimal == Decimal(Int64.max) + 1)
        #expect(F.call("multiply:by:", Int64.max, 2) as? Decimal == Decimal(Int64.max) * 2)
        #expect(F.call("from:subtract:", Int64.min, 1) as? Decimal == Decimal(Int64.min) - 1)
    }

    @Test func mixedArithmeticFollowsTheWidestOperand() {
        #expect(F.call("add:to:", 1, 0.5) as? Double == 1.5)
        #expect(F.call("add:to:", Decimal(string: "0.1"), Decimal(string: "0.2")) as? Decimal == Decimal(string: "0.3"))
        #expect(F.call("multiply:by:", Decimal(2), 3) as? Decimal == Decimal(6))
        #expect(F.call("add:to:", true, 1) as? Int64 == 2)
    }

    @Test func divisionIsFloatingAndByZeroIsNil() {
        #expect(F.call("divide:by:", 1, 2) as? Double == 0.5)
        #expect(F.call("divide:by:", 9, 3) as? Double == 3)
        #expect(F.call("divide:by:", Decimal(1), Decimal(4)) as? Decimal == Decimal(string: "0.25"))
        #expect(F.call("divide:by:", 1, 0) == nil)
        #expect(F.call("divide:by:", 1.5, 0.0) == nil)
        #expect(F.call("divide:by:", Decimal(1), 0) == nil)
    }

    @Test func modulusKeepsTheDividendsSign() {
        #expect(F.call("modulus:by:", 7, 3) as? Int64 == 1)
        #expect(F.call("modulus:by:", -7, 3) as? Int64 == -1)
        #expect(F.call("modulus:by:", 7.5, 2) as? Double == 1.5)
        #expect(F.call("modulus:by:", 7, 0) == nil)
        #expect(F.call("modulus:by:", Int64.min, -1) as? Int64 == 0)
    }

    @Test func arithmeticOnNilOrNonNumbersIsNil() {
        #expect(F.call("add:to:", nil, 1) == nil)
        #expect(F.call("add:to:", "1", 1) == nil)
        #expect(F.call("multiply:by:", 2) == nil)
        #expect(F.call("sqrt:", "4") == nil)
    }

    @Test func dateArithmeticMovesByIntervals() {
        let date = Date(timeIntervalSinceReferenceDate: 1000)
        #expect(F.call("add:to:", date, 60) as? Date == Date(timeIntervalSinceReferenceDate: 1060))
        #expect(F.call("add:to:", 60, date) as? Date == Date(timeIntervalSinceReferenceDate: 1060))
        #expect(F.call("from:subtract:", date, 100) as? Date == Date(timeIntervalSinceReferenceDate: 900))
        #expect(F.call("from:subtract:", date, Date(timeIntervalSinceReferenceDate: 400)) as? Double == 600)
    }

    // MARK: mathematics

    @Test func mathFunctionsWorkInDoubles() {
        #expect(F.call("sqrt:", 16) as? Double == 4)
        #expect(F.call("log:", 1000) as? Double == 3)
        #expect(F.call("ln:", 1) as? Double == 0)
        #expect(F.call("exp:", 0) as? Double == 1)
        #expect(F.call("raise:toPower:", 2, 10) as? Double == 1024)
        #expect(F.call("raise:toPower:", 4, 0.5) as? Double == 2)
        #expect((F.call("sqrt:", -1) as? Double)?.isNaN == true)
    }

    @Test func roundingFunctionsKeepIntegersAndRoundOthers() {
        #expect(F.call("floor:", 2.7) as? Double == 2)
        #expect(F.call("floor:", -2.2) as? Double == -3)
        #expect(F.call("ceiling:", 2.2) as? Double == 3)
        #expect(F.call("trunc:", -2.7) as? Double == -2)
        #expect(F.call("floor:", 5) as? Int64 == 5)
        #expect(F.call("floor:", Decimal(string: "-2.5")) as? Decimal == Decimal(-3))
        #expect(F.call("ceiling:", Decimal(string: "2.1")) as? Decimal == Decimal(3))
        #expect(F.call("trunc:", Decimal(string: "-2.5")) as? Decimal == Decimal(-2))
    }

    @Test func absoluteValuesNeverOverflow() {
        #expect(F.call("abs:", -5) as? Int64 == 5)
        #expect(F.call("abs:", -2.5) as? Double == 2.5)
        #expect(F.call("abs:", Decimal(-3)) as? Decimal == Decimal(3))
        #expect(F.call("abs:", Int64.min) as? Decimal == Decimal(Int64.max) + 1)
    }

    // MARK: strings

    @Test func caseFunctionsMapWholeStrings() {
        #expect(F.call("uppercase:", "straße") as? String == "STRASSE")
        #expect(F.call("lowercase:", "ÀÉÎ") as? String == "àéî")
        #expect(F.call("uppercase:", 5) == nil)
        let predicate = F.compare(.function("uppercase:", [F.key("name")]), .equalTo, F.text("ABC"))
        #expect(PredicateEvaluator.evaluate(predicate, with: ["name": "abc"]))
    }

    @Test func canonicalFoldsCaseAndDiacritics() {
        #expect(F.call("canonical:", "Crème BRÛLÉE") as? String == "creme brulee")
        #expect(F.call("canonical:", "Straße") as? String == "strasse")
        #expect(F.call("canonical:", "東京") as? String == "東京")
        #expect(F.call("canonical:", nil) == nil)
    }

    @Test func lengthCountsUTF16Units() {
        #expect(F.call("length:", "Café") as? Int64 == 4)
        #expect(F.call("length:", "😀") as? Int64 == 2)
        #expect(F.call("length:", "") as? Int64 == 0)
        #expect(F.call("length:", 12) == nil)
    }

    // MARK: random, now, identity

    @Test func randomStaysInRange() {
        for _ in 0..<20 {
            let unit = F.call("random") as? Double
            #expect(unit.map { $0 >= 0 && $0 < 1 } == true)
            let below = F.call("random:", 10) as? Int64
            #expect(below.map { (0..<10).contains($0) } == true)
        }
        #expect(F.call("random:", 0) == nil)
        #expect(F.call("random:", -3) == nil)
    }

    @Test func nowIsTheCurrentDate() {
        let now = F.call("now") as? Date
        #expect(now.map { abs($0.timeIntervalSinceNow) < 5 } == true)
    }

    @Test func noindexIsTheIdentity() {
        #expect(F.call("noindex:", "x") as? String == "x")
        #expect(F.call("noindex:", nil) == nil)
    }

    // MARK: bitwise

    @Test func bitwiseFunctionsWorkOnIntegers() {
        #expect(F.call("bitwiseAnd:with:", 0b1100, 0b1010) as? Int64 == 0b1000)
        #expect(F.call("bitwiseOr:with:", 0b1100, 0b1010) as? Int64 == 0b1110)
        #expect(F.call("bitwiseXor:with:", 0b1100, 0b1010) as? Int64 == 0b0110)
        #expect(F.call("leftshift:by:", 1, 4) as? Int64 == 16)
        #expect(F.call("rightshift:by:", 16, 2) as? Int64 == 4)
        #expect(F.call("onesComplement:", 0) as? Int64 == -1)
        #expect(F.call("bitwiseAnd:with:", 7.9, 3) as? Int64 == 3)
    }

    @Test func shiftsPastTheWidthDoNotTrap() {
        #expect(F.call("leftshift:by:", 1, 70) as? Int64 == 0)
        #expect(F.call("rightshift:by:", -8, 100) as? Int64 == -1)
        #expect(F.call("leftshift:by:", 8, -1) as? Int64 == 4)
        #expect(F.call("bitwiseOr:with:", 1e30, 1) == nil)
        #expect(F.call("onesComplement:", "x") == nil)
    }

    // MARK: CAST

    @Test func castToDateReadsSecondsSince2001() {
        #expect(F.call("castObject:toType:", 3600, "NSDate") as? Date == Date(timeIntervalSinceReferenceDate: 3600))
        let date = Date(timeIntervalSinceReferenceDate: 7)
        #expect(F.call("castObject:toType:", date, "NSDate") as? Date == date)
        #expect(F.call("castObject:toType:", "60", "NSDate") as? Date == Date(timeIntervalSinceReferenceDate: 60))
        #expect(F.call("castObject:toType:", "soon", "NSDate") == nil)
    }

    @Test func castToNumberParsesStringsAndDates() {
        #expect(F.call("castObject:toType:", "42", "NSNumber") as? Int64 == 42)
        #expect(F.call("castObject:toType:", " 2.5 ", "NSNumber") as? Double == 2.5)
        #expect(F.call("castObject:toType:", "abc", "NSNumber") == nil)
        #expect(F.call("castObject:toType:", 7, "NSNumber") as? Int64 == 7)
        let date = Date(timeIntervalSinceReferenceDate: 90)
        #expect(F.call("castObject:toType:", date, "NSNumber") as? Double == 90)
        #expect(F.call("castObject:toType:", "1.25", "NSDecimalNumber") as? Decimal == Decimal(string: "1.25"))
    }

    @Test func castToStringDescribesTheValue() {
        #expect(F.call("castObject:toType:", 5, "NSString") as? String == "5")
        #expect(F.call("castObject:toType:", 2.0, "NSString") as? String == "2")
        #expect(F.call("castObject:toType:", 2.5, "NSString") as? String == "2.5")
        #expect(F.call("castObject:toType:", "s", "NSString") as? String == "s")
        let date = Date(timeIntervalSinceReferenceDate: 0)
        #expect(F.call("castObject:toType:", date, "NSString") as? String == "2001-01-01 00:00:00 +0000")
    }

    @Test func castsNeverMakeDatesFoundationCannotPrint() {
        #expect(F.call("castObject:toType:", Double.nan, "NSDate") == nil)
        #expect(F.call("castObject:toType:", Double.infinity, "NSDate") == nil)
        #expect(F.call("add:to:", Date(timeIntervalSinceReferenceDate: 0), Double.nan) == nil)
        let unprintable = Date(timeIntervalSinceReferenceDate: .nan)
        let described = ExpressionNode.function("castObject:toType:", [F.key("d"), F.text("NSString")])
        #expect(F.value(described, on: ["d": unprintable]) == nil)
        #expect(F.call("castObject:toType:", [1, 2], "NSString") == nil)
    }

    @Test func castToUnknownTypesOrOfNilIsNil() {
        #expect(F.call("castObject:toType:", 5, "NSWidget") == nil)
        #expect(F.call("castObject:toType:", nil, "NSNumber") == nil)
        #expect(F.call("castObject:toType:", 5) == nil)
    }

    // MARK: indexing and unknown functions

    @Test func objectFromWithIndexReadsPositionsAndKeys() {
        #expect(F.call("objectFrom:withIndex:", ["a", "b"], 1) as? String == "b")
        #expect(F.call("objectFrom:withIndex:", ["a", "b"], "LAST") as? String == "b")
        #expect(F.call("objectFrom:withIndex:", ["a", "b"], "SIZE") as? Int64 == 2)
        #expect(F.call("objectFrom:withIndex:", ["k": "v"], "k") as? String == "v")
        #expect(F.call("objectFrom:withIndex:", ["a"], 5) == nil)
    }

    @Test func unknownFunctionsGiveNil() {
        #expect(F.call("frobnicate:", 1) == nil)
        #expect(F.call("distanceToLocation:fromLocation:", 1, 2) == nil)
        #expect(F.call("") == nil)
        #expect(!PredicateEvaluator.evaluate(F.compare(.function("nope", []), .equalTo, F.int(1)), with: nil))
    }
}
