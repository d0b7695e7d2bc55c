import Foundation
import Testing

@testable import Strata

private typealias F = PredicateEvaluationFixtures

/// The string operators with `[c]`, `[d]`, `[cd]` and `[n]`, on accented and non-Latin text,
/// through the evaluator (which uses `PredicateStringMatching`, as the SQL store does).
@Suite struct PredicateStringOptionTests {
    private let c = ComparisonNode.Options.caseInsensitive
    private let d = ComparisonNode.Options.diacriticInsensitive
    private let cd: ComparisonNode.Options = [.caseInsensitive, .diacriticInsensitive]

    @Test func caseAndDiacriticsFoldIndependently() {
        #expect(F.holds("Café", .equalTo, "CAFE", options: cd))
        #expect(!F.holds("Café", .equalTo, "CAFE", options: c))
        #expect(!F.holds("Café", .equalTo, "CAFE", options: d))
        #expect(F.holds("Café", .equalTo, "Cafe", options: d))
        #expect(F.holds("Café", .equalTo, "CAFÉ", options: c))
        #expect(!F.holds("Café", .equalTo, "CAFE"))
    }

    @Test func foldingCoversWholeWords() {
        #expect(F.holds("Ünïcödé", .equalTo, "unicode", options: cd))
        #expect(F.holds("Ünïcödé", .equalTo, "ÜNÏCÖDÉ", options: c))
        #expect(!F.holds("Ünïcödé", .equalTo, "unicode", options: c))
        #expect(F.holds("crème brûlée", .equalTo, "CREME BRULEE", options: cd))
    }

    @Test func greekFoldsFinalSigmaAndTonos() {
        #expect(F.holds("ΣΊΣΥΦΟΣ", .equalTo, "σισυφος", options: cd))
        #expect(!F.holds("ΣΊΣΥΦΟΣ", .equalTo, "σισυφος", options: c))
        #expect(F.holds("ΣΊΣΥΦΟΣ", .equalTo, "σίσυφος", options: c))
        #expect(F.holds("Σίσυφος", .contains, "ΣΥΦ", options: c))
    }

    @Test func germanSharpSFoldsToDoubleS() {
        #expect(F.holds("Straße", .equalTo, "STRASSE", options: c))
        #expect(F.holds("STRASSE", .equalTo, "straße", options: cd))
        #expect(!F.holds("Straße", .equalTo, "STRASSE"))
        #expect(F.holds("Straße", .endsWith, "SSE", options: c))
        #expect(F.holds("Fußball", .beginsWith, "FUSS", options: c))
    }

    @Test func japaneseAndChineseAreUnchangedByFolding() {
        #expect(F.holds("東京", .equalTo, "東京", options: cd))
        #expect(!F.holds("東京", .equalTo, "京都", options: cd))
        #expect(F.holds("ひらがなカタカナ", .contains, "カタ", options: cd))
        #expect(F.holds("北京市", .beginsWith, "北京", options: c))
        #expect(!F.holds("北京市", .beginsWith, "京", options: cd))
        #expect(F.holds("汉字", .like, "汉?", options: cd))
    }

    @Test func turkishDottedCapitalIFoldsWithoutLocale() {
        // Full case folding turns "İ" into "i" and a combining dot, which [d] removes.
        #expect(F.holds("İstanbul", .equalTo, "istanbul", options: cd))
        #expect(!F.holds("İstanbul", .equalTo, "istanbul", options: c))
        #expect(F.holds("ISTANBUL", .equalTo, "istanbul", options: c))
        #expect(!F.holds("ıstanbul", .equalTo, "istanbul", options: cd))
    }

    @Test func normalizedOptionComparesAsGiven() {
        #expect(!F.holds("Café", .equalTo, "cafe", options: [.caseInsensitive, .diacriticInsensitive, .normalized]))
        #expect(F.holds("cafe", .equalTo, "cafe", options: .normalized))
    }

    @Test func optionsApplyToEveryStringOperator() {
        #expect(F.holds("Best CAFÉ in town", .contains, "cafe", options: cd))
        #expect(F.holds("Cafe", .in, "THE CAFÉ", options: cd))
        #expect(F.holds("Éclair", .beginsWith, "ec", options: cd))
        #expect(F.holds("naïve", .endsWith, "IVE", options: cd))
        #expect(F.holds("Résumé", .like, "RES*", options: cd))
        #expect(F.holds("Résumé", .matches, "RES.ME", options: cd))
        #expect(F.holds("Café", .notEqualTo, "cafe", options: c))
        #expect(!F.holds("Café", .notEqualTo, "cafe", options: cd))
    }

    @Test func optionsApplyToOrdering() {
        #expect(!F.holds("apple", .lessThan, "BANANA"))
        #expect(F.holds("apple", .lessThan, "BANANA", options: c))
        #expect(F.holds("Éa", .lessThan, "eb", options: cd))
        #expect(F.holds("ABC", .lessThanOrEqualTo, "abc", options: c))
    }

    @Test func beginsWithAndEndsWithMatchTheEnds() {
        #expect(F.holds("predicate", .beginsWith, "pre"))
        #expect(!F.holds("predicate", .beginsWith, "PRE"))
        #expect(F.holds("predicate", .endsWith, "cate"))
        #expect(!F.holds("pre", .beginsWith, "predicate"))
        #expect(!F.holds("ate", .endsWith, "predicate"))
    }

    // MARK: LIKE

    @Test func likeWildcardsMatchRunsAndSingleCharacters() {
        #expect(F.holds("hello", .like, "h*o"))
        #expect(F.holds("hello", .like, "h?llo"))
        #expect(F.holds("hello", .like, "*"))
        #expect(F.holds("", .like, "*"))
        #expect(F.holds("hello", .like, "*l*l*"))
        #expect(!F.holds("hello", .like, "h?o"))
        #expect(!F.holds("hello", .like, "?"))
        #expect(F.holds("a", .like, "?"))
        #expect(F.holds("", .like, ""))
        #expect(!F.holds("x", .like, ""))
    }

    @Test func likeCoversTheWholeString() {
        #expect(!F.holds("hello", .like, "ell"))
        #expect(!F.holds("hello world", .like, "hello"))
        #expect(F.holds("hello", .like, "hello"))
        #expect(!F.holds("hello", .like, "HELLO"))
        #expect(F.holds("hello", .like, "HEL*", options: c))
    }

    @Test func likeEscapesWildcardsWithABackslash() {
        #expect(F.holds("a*b", .like, "a\\*b"))
        #expect(!F.holds("axb", .like, "a\\*b"))
        #expect(F.holds("why?", .like, "why\\?"))
        #expect(!F.holds("whyx", .like, "why\\?"))
        #expect(F.holds("a\\b", .like, "a\\\\b"))
    }

    // MARK: MATCHES

    @Test func matchesNeedsTheWholeString() {
        #expect(F.holds("abc", .matches, "a.c"))
        #expect(!F.holds("abc", .matches, "b"))
        #expect(F.holds("abc", .matches, ".*b.*"))
        #expect(F.holds("2024-05-01", .matches, "\\d{4}-\\d{2}-\\d{2}"))
        #expect(!F.holds("x2024-05-01", .matches, "\\d{4}-\\d{2}-\\d{2}"))
        #expect(F.holds("ab", .matches, "a|ab"))
    }

    @Test func matchesHonoursOptions() {
        #expect(!F.holds("ABC", .matches, "abc"))
        #expect(F.holds("ABC", .matches, "abc", options: c))
        #expect(F.holds("café", .matches, "cafe", options: d))
        #expect(F.holds("CAFÉ", .matches, "caf[a-z]", options: cd))
    }

    @Test func invalidRegularExpressionsMatchNothing() {
        #expect(!F.holds("abc", .matches, "("))
        #expect(!F.holds("(", .matches, "[("))
    }

    @Test func stringOperatorsAreFalseForOtherValues() {
        for op in [ComparisonNode.Operator.beginsWith, .endsWith, .like, .matches] {
            #expect(!F.holds(12, op, "1"))
            #expect(!F.holds("12", op, 1))
            #expect(!F.holds(["a"], op, "a"))
            #expect(!F.holds(Date(), op, "2"))
        }
    }
}
