import Foundation
import Testing

@testable import Strata

private typealias T = PredicateSyntaxTrees

/// Malformed format strings: each is a `PredicateSyntaxError` that says where and what was
/// expected, never a crash, a hang or a stack overflow.
@Suite struct PredicateSyntaxErrorTests {
    struct Malformed: Sendable, CustomTestStringConvertible {
        var format: String
        var arguments: [String] = []
        var offset: Int
        var expected: String
        var found: String
        var testDescription: String { format }
    }

    static let malformed: [Malformed] = [
        Malformed(format: "title ~~ 'x'", offset: 6, expected: "a comparison operator", found: "~~"),
        Malformed(format: "title == 'abc", offset: 9, expected: "a closing ' for this string", found: "'abc"),
        Malformed(format: #"title == "a\qb""#, offset: 11, expected: "a valid escape sequence", found: #"\q"#),
        Malformed(
            format: #"title == "\u12""#, offset: 10, expected: "four hexadecimal digits after \\u", found: #"\u12"#),
        Malformed(format: #"title == "\ud800x""#, offset: 10, expected: "a valid escape sequence", found: #"\ud800"#),
        Malformed(format: "title ==", offset: 8, expected: "an expression", found: ""),
        Malformed(format: "", offset: 0, expected: "an expression", found: ""),
        Malformed(format: "== 1", offset: 0, expected: "an expression", found: "=="),
        Malformed(format: "(a == 1", offset: 7, expected: "a closing parenthesis", found: ""),
        Malformed(format: "a == 1)", offset: 6, expected: "AND, OR or the end of the predicate", found: ")"),
        Malformed(format: "a == 1 b == 2", offset: 7, expected: "AND, OR or the end of the predicate", found: "b"),
        Malformed(
            format: "TRUEPREDICATE == 1", offset: 14, expected: "AND, OR or the end of the predicate", found: "=="),
        Malformed(format: "a == 1 AND", offset: 10, expected: "an expression", found: ""),
        Malformed(format: "a IN {1, 2", offset: 10, expected: "a comma or a closing brace", found: ""),
        Malformed(format: "f(1, 2 == 1", offset: 7, expected: "a comma or a closing parenthesis", found: "=="),
        Malformed(
            format: "size == 1", offset: 0,
            expected: "an expression (write #size for a key named like the reserved word)",
            found: "size"),
        Malformed(
            format: "a.first == 1", offset: 2,
            expected: "a key path component (write #first for a key named like the reserved word)", found: "first"),
        Malformed(format: "a. == 1", offset: 3, expected: "a key path component", found: "=="),
        Malformed(format: "a == %@", offset: 5, expected: "an argument for %@ (too few arguments)", found: "%@"),
        Malformed(
            format: "%K == 1", arguments: [""], offset: 0, expected: "a non-empty string key path argument for %K",
            found: ""),
        Malformed(format: "a == %z", offset: 5, expected: "a format specifier (%@, %K, %d, %f, %s, %%)", found: "%z"),
        Malformed(format: "a == %d", arguments: ["x"], offset: 5, expected: "an integer argument for %d", found: "x"),
        Malformed(format: "a == 1 %% 2", offset: 7, expected: "AND, OR or the end of the predicate", found: "%%"),
        Malformed(format: "a == 12abc", offset: 5, expected: "a number", found: "12abc"),
        Malformed(format: "a == 0x", offset: 5, expected: "a number", found: "0x"),
        Malformed(format: "a == 0xFFFFFFFFFFFFFFFFF", offset: 5, expected: "a number", found: "0xFFFFFFFFFFFFFFFFF"),
        Malformed(
            format: "a LIKE[] 'x'", offset: 7, expected: "comparison options such as c, d, cd, n or l", found: "]"),
        Malformed(
            format: "a LIKE[cx] 'x'", offset: 7, expected: "comparison options such as c, d, cd, n or l", found: "cx"),
        Malformed(format: "a LIKE[c 'x'", offset: 9, expected: "] after the comparison options", found: "'x'"),
        Malformed(format: "a[0 == 1", offset: 4, expected: "] after the index", found: "=="),
        Malformed(
            format: "SUBQUERY(a, x, x == 1).@count > 0", offset: 12, expected: "a variable such as $x", found: "x"),
        Malformed(format: "CAST(a, 5) == 1", offset: 8, expected: "a class name string such as 'NSDate'", found: "5"),
        Malformed(format: "FUNCTION(a) == 1", offset: 10, expected: "a comma after the FUNCTION receiver", found: ")"),
        Malformed(format: "TERNARY(a, 1, 2) == 1", offset: 9, expected: "a comparison operator", found: ","),
        Malformed(format: "a == $", offset: 5, expected: "an expression", found: "$"),
        Malformed(format: "a == ? AND b", offset: 5, expected: "an expression", found: "?"),
        Malformed(format: "a & b", offset: 2, expected: "a comparison operator", found: "&"),
        Malformed(format: "a: == 1", offset: 3, expected: "( with the arguments of a:", found: "=="),
        Malformed(
            format: "FETCH(a, b, NO) == 1", offset: 0, expected: "an expression (FETCH expressions are not supported)",
            found: "FETCH"),
        Malformed(format: "ANY (a == 1)", offset: 7, expected: "a closing parenthesis", found: "=="),
        Malformed(format: "e\u{301}e\u{301} ~~ 1", offset: 3, expected: "a comparison operator", found: "~~"),
    ]

    @Test(arguments: malformed) func malformedInputNamesPositionAndExpectation(_ input: Malformed) {
        let error = PredicateSyntaxErrorTests.error(input.format, input.arguments)
        #expect(error?.format == input.format)
        #expect(error?.offset == input.offset)
        #expect(error?.expected == input.expected)
        #expect(error?.found == input.found)
    }

    /// The error parsing the format with the arguments reports, or `nil` when it parses.
    static func error(_ format: String, _ arguments: [Any?]) -> PredicateSyntaxError? {
        do {
            _ = try PredicateParser.parsePredicate(format, arguments: arguments)
            return nil
        } catch {
            return error
        }
    }

    @Test func descriptionQuotesTheFormat() {
        let error = PredicateSyntaxError(
            format: "title ~~ 'x'", offset: 6, expected: "a comparison operator", found: "~~")
        #expect(error.description == #"expected a comparison operator at offset 6 ("title ~~ 'x'"), found "~~""#)
        let atEnd = PredicateSyntaxError(format: "a ==", offset: 4, expected: "an expression", found: "")
        #expect(atEnd.description == #"expected an expression at offset 4 ("a =="), found the end of the string"#)
    }

    @Test func expressionsRejectTrailingText() {
        #expect(throws: PredicateSyntaxError.self) { try PredicateParser.parseExpression("a b", arguments: []) }
        #expect(throws: PredicateSyntaxError.self) { try PredicateParser.parseExpression("a == 1", arguments: []) }
    }

    @Test func nestingUpToTheLimitParses() throws {
        let depth = PredicateParser.maximumDepth
        let parentheses = String(repeating: "(", count: depth) + "a == 1" + String(repeating: ")", count: depth)
        #expect(try T.predicate(parentheses) == T.equal("a", 1))
        let expression = "a == " + String(repeating: "(", count: depth) + "1" + String(repeating: ")", count: depth)
        #expect(try T.predicate(expression) == T.equal("a", 1))
        let nots = try T.predicate(String(repeating: "NOT ", count: depth) + "a == 1")
        #expect(nots == (0..<depth).reduce(T.equal("a", 1)) { inner, _ in .not(inner) })
    }

    @Test func nestingBeyondTheLimitIsAnError() {
        let depth = PredicateParser.maximumDepth + 1
        let inputs = [
            String(repeating: "(", count: depth) + "a == 1" + String(repeating: ")", count: depth),
            String(repeating: "NOT ", count: depth) + "a == 1",
            "a == " + String(repeating: "-", count: depth) + "b",
            "a IN " + String(repeating: "{", count: depth) + String(repeating: "}", count: depth),
            "a" + String(repeating: "[a", count: depth) + String(repeating: "]", count: depth) + " == 1",
            String(repeating: "SUBQUERY(a, $x, ", count: depth) + "a == 1"
                + String(repeating: ").@count == 1", count: depth),
            "a == " + String(repeating: "$x := ", count: depth) + "1",
            String(repeating: "(", count: 100_000),
            String(repeating: "f(", count: 50_000),
        ]
        for input in inputs {
            let error = Self.error(input, [])
            #expect(
                error?.expected == "at most \(PredicateParser.maximumDepth) levels of nesting", "\(input.prefix(20))")
        }
    }

    @Test func longFlatInputsParse() throws {
        let chain = Array(repeating: "a == 1", count: 10_000).joined(separator: " AND ")
        #expect(try T.predicate(chain) == .and(Array(repeating: T.equal("a", 1), count: 10_000)))
        let sum = "a == " + Array(repeating: "1", count: 10_000).joined(separator: " + ")
        #expect(throws: Never.self) { try T.predicate(sum) }
    }

    /// Thousands of damaged format strings: each gives a tree that prints and reads back
    /// unchanged, or an error that points inside the string.
    @Test func fuzzedFormatsGiveTreesOrErrors() {
        var random = PredicateTreeGenerator.Random(state: 0xF022)
        let seeds = PredicateCorpusTests.table.map(\.format) + Self.malformed.map(\.format)
        var trees = 0
        var errors = 0
        for _ in 0..<6000 {
            var text = Array(seeds[Int.random(in: 0..<seeds.count, using: &random)])
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                text = Self.mutate(text, seeds: seeds, using: &random)
            }
            let format = String(text)
            do {
                let tree = try PredicateParser.parsePredicate(format, arguments: ["x", 5, "title", 2.5, nil])
                trees += 1
                let printed = PredicateFormatter.format(tree)
                let reparsed = try? PredicateParser.parsePredicate(printed, arguments: [])
                #expect(reparsed == tree, "\(format) printed as \(printed)")
            } catch {
                errors += 1
                #expect((0...format.count).contains(error.offset), "\(format): \(error)")
                #expect(!error.expected.isEmpty)
            }
        }
        print("Fuzzed predicate formats: \(trees) parsed, \(errors) rejected")
        #expect(trees > 100)
        #expect(errors > 1000)
    }

    private static let snippets = [
        "(", ")", "{", "}", "[", "]", ",", ".", "'", "\"", "\\", "$", "#", "@", "%", "%@", "%K", "%d", "%f", "==", "<",
        "-", "*", "**", ":=", ":", " AND ", " OR ", "NOT ", "ANY ", "NONE ", "SUBQUERY(", "CAST(", "TERNARY(",
        "FUNCTION(", "FIRST", "[c]", "[cd]", "0x", "1e", "1.5", "-7", "é", "\u{301}", " ", "😀", "\u{0}", "size",
        "@count",
        "nil", "TRUEPREDICATE", "BETWEEN", "\\u", "\\x4", "\\101", "UTI-EQUALS", "$x", "#in", "a.b", "now()",
    ]

    private static func mutate<R: RandomNumberGenerator>(
        _ text: [Character], seeds: [String], using random: inout R
    ) -> [Character] {
        var text = text
        let position = Int.random(in: 0...text.count, using: &random)
        switch Int.random(in: 0..<7, using: &random) {
        case 0:
            let end = min(text.count, position + Int.random(in: 1...4, using: &random))
            text.removeSubrange(position..<end)
        case 1:
            text.insert(contentsOf: snippets[Int.random(in: 0..<snippets.count, using: &random)], at: position)
        case 2:
            let end = min(text.count, position + Int.random(in: 1...12, using: &random))
            text.insert(contentsOf: text[position..<end], at: position)
        case 3:
            if text.count > 1 {
                text.swapAt(
                    Int.random(in: 0..<text.count, using: &random), Int.random(in: 0..<text.count, using: &random))
            }
        case 4:
            text.removeSubrange(position...)
        case 5:
            if position < text.count {
                text[position] = Character(Unicode.Scalar(UInt8.random(in: 32...126, using: &random)))
            }
        default:
            let other = Array(seeds[Int.random(in: 0..<seeds.count, using: &random)])
            text = Array(text[..<position]) + other[Int.random(in: 0...other.count, using: &random)...]
        }
        return text
    }
}
