import Foundation
import Testing

@testable import Strata

/// A format string with arguments is split into tokens once and kept (`LexedFormat`): each
/// later call fills in its own arguments. What it parses to, and every error it reports, must
/// be what splitting the format with the arguments gives.
@Suite struct PredicateFormatReuseTests {
    @Test func aKeptFormatTakesEachCallsArguments() throws {
        let format = "category == %d AND price >= %f AND %K BEGINSWITH %@ AND note == '100%%'"
        let calls: [(Int, Double, String, String)] = [(1, 2.5, "title", "a"), (7, -1.25, "name", "zz"), (0, 0, "x", "")]
        for (category, price, key, prefix) in calls {
            let parsed = try PredicateParser.parsePredicate(format, arguments: [category, price, key, prefix])
            let written = try PredicateParser.parsePredicate(
                "category == \(category) AND price >= \(price) AND \(key) BEGINSWITH '\(prefix)' AND note == '100%%'",
                arguments: [])
            #expect(parsed == written)
        }
        let kept = try #require(PredicateLexer.LexedFormat.lexed(format))
        #expect(kept.specifiers.map(\.token).count == 4)
    }

    /// The same format, kept after its first call, with too few arguments and with an argument
    /// of the wrong kind: the same error each time, at the specifier that lacks it.
    @Test func aKeptFormatReportsItsArgumentErrorsAsBefore() {
        let format = "a == %d AND b == %@"
        for _ in 0..<2 {
            let missing = Self.error(format, [1])
            #expect(missing?.offset == 17)
            #expect(missing?.expected == "an argument for %@ (too few arguments)")
            #expect(missing?.found == "%@")
            let mistyped = Self.error(format, ["x", 1])
            #expect(mistyped?.offset == 5)
            #expect(mistyped?.expected == "an integer argument for %d")
            #expect(mistyped?.found == "x")
            #expect(Self.error(format, [1, "y"]) == nil)
        }
        #expect(PredicateLexer.LexedFormat.lexed(format) != nil)
    }

    /// A format whose splitting fails is not kept, and reports its first error in the order of
    /// the format: an argument missing before the broken string comes first.
    @Test func aFormatThatFailsToSplitIsNotKept() {
        let format = "a == %d AND b == 'open"
        #expect(PredicateLexer.LexedFormat.lexed(format) == nil)
        let broken = Self.error(format, [1])
        #expect(broken?.expected == "a closing ' for this string")
        #expect(broken?.offset == 17)
        let missing = Self.error(format, [Any?]())
        #expect(missing?.expected == "an argument for %d (too few arguments)")
        #expect(missing?.offset == 5)
    }

    private static func error(_ format: String, _ arguments: [Any?]) -> PredicateSyntaxError? {
        PredicateSyntaxErrorTests.error(format, arguments)
    }
}
