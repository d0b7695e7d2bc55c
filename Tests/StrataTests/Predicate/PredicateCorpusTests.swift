import Foundation
import Testing

@testable import Strata

private typealias T = PredicateSyntaxTrees

/// Format strings of every form of the grammar (STORE-FORMAT §4) with the tree each parses
/// to and Apple's canonical printing of it; and every predicate and derivation expression of
/// the real Xcode models of the corpus.
@Suite struct PredicateCorpusTests {
    struct FormatCase: Sendable, CustomTestStringConvertible {
        var format: String
        var tree: PredicateNode
        /// The canonical form, when it differs from `format`.
        var printed: String
        var testDescription: String { format }

        init(_ format: String, _ tree: PredicateNode, printed: String? = nil) {
            self.format = format
            self.tree = tree
            self.printed = printed ?? format
        }
    }

    // MARK: The grammar, form by form

    private static let a1 = T.equal("a", 1)
    private static let b2 = T.equal("b", 2)
    private static let c3 = T.equal("c", 3)
    private static let friendsOver40 = ExpressionNode.subquery(
        collection: T.key("friends"), variable: "f",
        predicate: T.compare(.member(T.variable("f"), "age"), .greaterThan, T.int(40)))

    static let comparisons: [FormatCase] = [
        FormatCase(#"title == "x""#, T.compare(T.key("title"), .equalTo, T.text("x"))),
        FormatCase("title = 'x'", T.compare(T.key("title"), .equalTo, T.text("x")), printed: #"title == "x""#),
        FormatCase("a != 1", T.compare(T.key("a"), .notEqualTo, T.int(1))),
        FormatCase("a <> 1", T.compare(T.key("a"), .notEqualTo, T.int(1)), printed: "a != 1"),
        FormatCase("a < 1", T.compare(T.key("a"), .lessThan, T.int(1))),
        FormatCase("a <= 1", T.compare(T.key("a"), .lessThanOrEqualTo, T.int(1))),
        FormatCase("a =< 1", T.compare(T.key("a"), .lessThanOrEqualTo, T.int(1)), printed: "a <= 1"),
        FormatCase("a > 1", T.compare(T.key("a"), .greaterThan, T.int(1))),
        FormatCase("a >= 1", T.compare(T.key("a"), .greaterThanOrEqualTo, T.int(1))),
        FormatCase("a => 1", T.compare(T.key("a"), .greaterThanOrEqualTo, T.int(1)), printed: "a >= 1"),
        FormatCase("age BETWEEN {1, 5}", T.compare(T.key("age"), .between, T.aggregate(T.int(1), T.int(5)))),
        FormatCase(#"title IN {"a", "b"}"#, T.compare(T.key("title"), .in, T.aggregate(T.text("a"), T.text("b")))),
        FormatCase(#"title CONTAINS "x""#, T.compare(T.key("title"), .contains, T.text("x"))),
        FormatCase(#"title BEGINSWITH "x""#, T.compare(T.key("title"), .beginsWith, T.text("x"))),
        FormatCase(#"title ENDSWITH "x""#, T.compare(T.key("title"), .endsWith, T.text("x"))),
        FormatCase(#"title LIKE "a*b?""#, T.compare(T.key("title"), .like, T.text("a*b?"))),
        FormatCase(#"title MATCHES "[a-z]+""#, T.compare(T.key("title"), .matches, T.text("[a-z]+"))),
        FormatCase(
            "title contains[c] 'x'", T.compare(T.key("title"), .contains, T.text("x"), options: .caseInsensitive),
            printed: #"title CONTAINS[c] "x""#),
        FormatCase(
            #"title CONTAINS[d] "x""#, T.compare(T.key("title"), .contains, T.text("x"), options: .diacriticInsensitive)
        ),
        FormatCase(
            #"title CONTAINS[cd] "x""#,
            T.compare(T.key("title"), .contains, T.text("x"), options: [.caseInsensitive, .diacriticInsensitive])),
        FormatCase(
            #"title CONTAINS[dc] "x""#,
            T.compare(T.key("title"), .contains, T.text("x"), options: [.caseInsensitive, .diacriticInsensitive]),
            printed: #"title CONTAINS[cd] "x""#),
        FormatCase(
            #"title BEGINSWITH[n] "x""#, T.compare(T.key("title"), .beginsWith, T.text("x"), options: .normalized)),
        FormatCase(
            #"title ENDSWITH[l] "x""#, T.compare(T.key("title"), .endsWith, T.text("x"), options: .localeSensitive)),
        FormatCase(
            #"title LIKE[cdl] "x""#,
            T.compare(
                T.key("title"), .like, T.text("x"),
                options: [.caseInsensitive, .diacriticInsensitive, .localeSensitive])),
        FormatCase(#"title ==[c] "x""#, T.compare(T.key("title"), .equalTo, T.text("x"), options: .caseInsensitive)),
        FormatCase(
            #"title IN[cd] {"x"}"#,
            T.compare(
                T.key("title"), .in, T.aggregate(T.text("x")), options: [.caseInsensitive, .diacriticInsensitive])),
        FormatCase("a == b", T.compare(T.key("a"), .equalTo, T.key("b"))),
        FormatCase("true == true", T.compare(T.bool(true), .equalTo, T.bool(true)), printed: "TRUE == TRUE"),
    ]

    static let quantifiersAndCompounds: [FormatCase] = [
        FormatCase(#"ANY tags.name == "a""#, T.compare(T.key("tags.name"), .equalTo, T.text("a"), .any)),
        FormatCase(
            #"SOME tags.name == "a""#, T.compare(T.key("tags.name"), .equalTo, T.text("a"), .any),
            printed: #"ANY tags.name == "a""#),
        FormatCase("ALL children.age > 12", T.compare(T.key("children.age"), .greaterThan, T.int(12), .all)),
        FormatCase(
            #"NONE tags.name == "a""#, .not(T.compare(T.key("tags.name"), .equalTo, T.text("a"), .any)),
            printed: #"NOT ANY tags.name == "a""#),
        FormatCase("a == 1 AND b == 2", .and([a1, b2])),
        FormatCase("a == 1 && b == 2", .and([a1, b2]), printed: "a == 1 AND b == 2"),
        FormatCase("a == 1 OR b == 2", .or([a1, b2])),
        FormatCase("a == 1 || b == 2", .or([a1, b2]), printed: "a == 1 OR b == 2"),
        FormatCase("NOT a == 1", .not(a1)),
        FormatCase("! a == 1", .not(a1), printed: "NOT a == 1"),
        FormatCase("NOT (a == 1)", .not(a1), printed: "NOT a == 1"),
        FormatCase("NOT (a == 1 AND b == 2)", .not(.and([a1, b2]))),
        FormatCase(
            "a == 1 OR b == 2 AND c == 3", .or([a1, .and([b2, c3])]), printed: "a == 1 OR (b == 2 AND c == 3)"),
        FormatCase("a == 1 AND (b == 2 OR c == 3)", .and([a1, .or([b2, c3])])),
        FormatCase("a == 1 AND b == 2 AND c == 3", .and([a1, b2, c3])),
        FormatCase("(a == 1 AND b == 2) AND c == 3", .and([.and([a1, b2]), c3])),
        FormatCase("NOT a == 1 AND b == 2", .and([.not(a1), b2])),
        FormatCase(
            "  a==1&&b<>2||!c=3 ", .or([.and([a1, T.compare(T.key("b"), .notEqualTo, T.int(2))]), .not(c3)]),
            printed: "(a == 1 AND b != 2) OR NOT c == 3"),
        FormatCase("((a == 1))", a1, printed: "a == 1"),
        FormatCase("TRUEPREDICATE", .constant(true)),
        FormatCase("FALSEPREDICATE", .constant(false)),
        FormatCase("truepredicate OR a == 1", .or([.constant(true), a1]), printed: "TRUEPREDICATE OR a == 1"),
    ]

    static let literals: [FormatCase] = [
        FormatCase(#"a == 'it\'s'"#, T.compare(T.key("a"), .equalTo, T.text("it's")), printed: #"a == "it's""#),
        FormatCase(#"a == "say \"hi\"""#, T.compare(T.key("a"), .equalTo, T.text("say \"hi\""))),
        FormatCase(#"a == "\n\t\r\\""#, T.compare(T.key("a"), .equalTo, T.text("\n\t\r\\"))),
        FormatCase(#"a == "\101\x42\u0043""#, T.compare(T.key("a"), .equalTo, T.text("ABC")), printed: #"a == "ABC""#),
        FormatCase("a == 27", T.equal("a", 27)),
        FormatCase("a == 2.71828", T.compare(T.key("a"), .equalTo, T.real(2.71828))),
        FormatCase("a == -19.75", T.compare(T.key("a"), .equalTo, T.real(-19.75))),
        FormatCase("a == 9.2e-5", T.compare(T.key("a"), .equalTo, T.real(9.2e-5)), printed: "a == 9.2e-05"),
        FormatCase("a == 1E3", T.compare(T.key("a"), .equalTo, T.real(1000)), printed: "a == 1000.0"),
        FormatCase("a == 0x1F", T.equal("a", 31), printed: "a == 31"),
        FormatCase("a == 0o17", T.equal("a", 15), printed: "a == 15"),
        FormatCase("a == 0b101", T.equal("a", 5), printed: "a == 5"),
        FormatCase("a == -5", T.equal("a", -5)),
        FormatCase("a == -9223372036854775808", T.equal("a", .min)),
        FormatCase("a == TRUE", T.compare(T.key("a"), .equalTo, T.bool(true))),
        FormatCase("a == YES", T.compare(T.key("a"), .equalTo, T.bool(true)), printed: "a == TRUE"),
        FormatCase("a == FALSE", T.compare(T.key("a"), .equalTo, T.bool(false))),
        FormatCase("a == no", T.compare(T.key("a"), .equalTo, T.bool(false)), printed: "a == FALSE"),
        FormatCase("a == NULL", T.compare(T.key("a"), .equalTo, T.null), printed: "a == nil"),
        FormatCase("a == nil", T.compare(T.key("a"), .equalTo, T.null)),
        FormatCase("SELF == a", T.compare(.evaluatedObject, .equalTo, T.key("a"))),
        FormatCase(#"SELF.title == "x""#, T.compare(T.key("title"), .equalTo, T.text("x")), printed: #"title == "x""#),
        FormatCase("a IN {}", T.compare(T.key("a"), .in, T.aggregate())),
        FormatCase("#size == 1", T.equal("size", 1)),
        FormatCase("#SELF.#in == 1", T.equal("SELF.in", 1)),
        FormatCase(
            "d > CAST(600000000.0, 'NSDate')",
            T.compare(T.key("d"), .greaterThan, .constant(.date(Date(timeIntervalSinceReferenceDate: 600_000_000)))),
            printed: #"d > CAST(600000000.0, "NSDate")"#),
        FormatCase(
            "d > CAST(0, 'NSDate')",
            T.compare(T.key("d"), .greaterThan, .constant(.date(Date(timeIntervalSinceReferenceDate: 0)))),
            printed: #"d > CAST(0.0, "NSDate")"#),
    ]

    static let keyPathsAndExpressions: [FormatCase] = [
        FormatCase("tags.@count > 1", T.compare(T.key("tags.@count"), .greaterThan, T.int(1))),
        FormatCase("@sum.items.price > 10", T.compare(T.key("@sum.items.price"), .greaterThan, T.int(10))),
        FormatCase("items.@sum.price > 10", T.compare(T.key("items.@sum.price"), .greaterThan, T.int(10))),
        FormatCase("items.@avg.price > 10", T.compare(T.key("items.@avg.price"), .greaterThan, T.int(10))),
        FormatCase("items.@min.price > 10", T.compare(T.key("items.@min.price"), .greaterThan, T.int(10))),
        FormatCase("items.@max.price > 10", T.compare(T.key("items.@max.price"), .greaterThan, T.int(10))),
        FormatCase(
            #"items.@distinctUnionOfObjects.name CONTAINS "a""#,
            T.compare(T.key("items.@distinctUnionOfObjects.name"), .contains, T.text("a"))),
        FormatCase(
            #"items.@unionOfObjects.name CONTAINS "a""#,
            T.compare(T.key("items.@unionOfObjects.name"), .contains, T.text("a"))),
        FormatCase(
            "a.@distinctUnionOfArrays.b.@count > 0",
            T.compare(T.key("a.@distinctUnionOfArrays.b.@count"), .greaterThan, T.int(0))
        ),
        FormatCase(
            "a.@unionOfArrays.b.@count > 0", T.compare(T.key("a.@unionOfArrays.b.@count"), .greaterThan, T.int(0))),
        FormatCase(
            "a.@distinctUnionOfSets.b.@count > 0",
            T.compare(T.key("a.@distinctUnionOfSets.b.@count"), .greaterThan, T.int(0))),
        FormatCase("a == $VAR", T.compare(T.key("a"), .equalTo, T.variable("VAR"))),
        FormatCase(#"$x.name == "a""#, T.compare(.member(T.variable("x"), "name"), .equalTo, T.text("a"))),
        FormatCase(
            "SUBQUERY(friends, $f, $f.age > 40).@count > 1",
            T.compare(.member(friendsOver40, "@count"), .greaterThan, T.int(1))),
        FormatCase(
            "subquery(friends, $f, $f.age > 40).@count > 1",
            T.compare(.member(friendsOver40, "@count"), .greaterThan, T.int(1)),
            printed: "SUBQUERY(friends, $f, $f.age > 40).@count > 1"),
        FormatCase("a[0] == 1", T.compare(.index(T.key("a"), .expression(T.int(0))), .equalTo, T.int(1))),
        FormatCase("a[FIRST] == 1", T.compare(.index(T.key("a"), .first), .equalTo, T.int(1))),
        FormatCase("a[LAST] == 1", T.compare(.index(T.key("a"), .last), .equalTo, T.int(1))),
        FormatCase("a[SIZE] == 1", T.compare(.index(T.key("a"), .size), .equalTo, T.int(1))),
        FormatCase(
            "d['key'] == 1", T.compare(.index(T.key("d"), .expression(T.text("key"))), .equalTo, T.int(1)),
            printed: #"d["key"] == 1"#),
        FormatCase(
            "a + b * c == d",
            T.compare(
                T.call("add:to:", T.key("a"), T.call("multiply:by:", T.key("b"), T.key("c"))), .equalTo, T.key("d"))),
        FormatCase(
            "(a + b) * c == d",
            T.compare(
                T.call("multiply:by:", T.call("add:to:", T.key("a"), T.key("b")), T.key("c")), .equalTo, T.key("d"))),
        FormatCase(
            "a - b - c == 0",
            T.compare(
                T.call("from:subtract:", T.call("from:subtract:", T.key("a"), T.key("b")), T.key("c")), .equalTo,
                T.int(0))),
        FormatCase(
            "a / b ** 2 == 1",
            T.compare(
                T.call("divide:by:", T.key("a"), T.call("raise:toPower:", T.key("b"), T.int(2))), .equalTo, T.int(1))),
        FormatCase("-a == 1", T.compare(T.call("from:subtract:", T.int(0), T.key("a")), .equalTo, T.int(1))),
        FormatCase(
            "-(a + b) == 1",
            T.compare(T.call("from:subtract:", T.int(0), T.call("add:to:", T.key("a"), T.key("b"))), .equalTo, T.int(1))
        ),
        FormatCase("a - -5 == 1", T.compare(T.call("from:subtract:", T.key("a"), T.int(-5)), .equalTo, T.int(1))),
        FormatCase(
            #"uppercase:(title) == "X""#, T.compare(T.call("uppercase:", T.key("title")), .equalTo, T.text("X"))),
        FormatCase(
            #"lowercase:(title) == "x""#, T.compare(T.call("lowercase:", T.key("title")), .equalTo, T.text("x"))),
        FormatCase(
            "sum:({1, 2, 3}) == 6",
            T.compare(T.call("sum:", T.aggregate(T.int(1), T.int(2), T.int(3))), .equalTo, T.int(6))),
        FormatCase("count:(tags) > 1", T.compare(T.call("count:", T.key("tags")), .greaterThan, T.int(1))),
        FormatCase("now() > d", T.compare(T.call("now"), .greaterThan, T.key("d"))),
        FormatCase("random() < 1", T.compare(T.call("random"), .lessThan, T.int(1))),
        FormatCase("random:(5) < 1", T.compare(T.call("random:", T.int(5)), .lessThan, T.int(1))),
        FormatCase(
            "FUNCTION(title, 'length') > 3", T.compare(T.call("length", T.key("title")), .greaterThan, T.int(3)),
            printed: #"FUNCTION(title, "length") > 3"#),
        FormatCase(
            #"CAST(d, "NSDate") > now()"#,
            T.compare(T.call("castObject:toType:", T.key("d"), T.text("NSDate")), .greaterThan, T.call("now"))),
        FormatCase(
            #"TERNARY(a > 1, "big", "small") == "big""#,
            T.compare(
                .conditional(T.compare(T.key("a"), .greaterThan, T.int(1)), T.text("big"), T.text("small")), .equalTo,
                T.text("big"))),
        FormatCase("$x := a == 1", T.compare(.assignment("x", T.key("a")), .equalTo, T.int(1))),
        FormatCase(
            "{1, 2} UNION {3} CONTAINS 3",
            T.compare(
                .setOperation(.union, T.aggregate(T.int(1), T.int(2)), T.aggregate(T.int(3))), .contains, T.int(3))),
        FormatCase(
            "a INTERSECT b CONTAINS 3",
            T.compare(.setOperation(.intersect, T.key("a"), T.key("b")), .contains, T.int(3))),
        FormatCase(
            "a MINUS b CONTAINS 3", T.compare(.setOperation(.minus, T.key("a"), T.key("b")), .contains, T.int(3))),
        FormatCase(#"ANYKEY == "x""#, T.compare(.anyKey, .equalTo, T.text("x"))),
    ]

    static let table = comparisons + quantifiersAndCompounds + literals + keyPathsAndExpressions

    @Test(arguments: table) func formatParsesToItsTree(_ entry: FormatCase) throws {
        #expect(try PredicateParser.parsePredicate(entry.format, arguments: []) == entry.tree)
    }

    @Test(arguments: table) func treePrintsCanonicallyAndReadsBack(_ entry: FormatCase) throws {
        let printed = PredicateFormatter.format(entry.tree)
        #expect(printed == entry.printed)
        #expect(try PredicateParser.parsePredicate(printed, arguments: []) == entry.tree)
    }

    @Test func tableCoversEveryOperator() {
        var operators = Set<ComparisonNode.Operator>()
        for entry in Self.table {
            if case .comparison(let comparison) = entry.tree { operators.insert(comparison.op) }
        }
        #expect(operators == Set(ComparisonNode.Operator.allCases))
    }

    // MARK: The model corpus

    /// The `predicateString`s of the corpus's fetch requests and the `derivationExpression`s
    /// of its derived attributes, as (model path, text, is an expression).
    static func modelStrings() throws -> [(path: String, text: String, isExpression: Bool)] {
        guard TestCorpus.isAvailable, let enumerator = FileManager.default.enumerator(atPath: TestCorpus.models.path)
        else {
            return []
        }
        let paths = enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".xcdatamodel/contents") }.sorted()
        let pattern = try NSRegularExpression(pattern: #"\b(predicateString|derivationExpression)="([^"]*)""#)
        var strings: [(path: String, text: String, isExpression: Bool)] = []
        for path in paths {
            let xml = try String(contentsOf: TestCorpus.models.appendingPathComponent(path), encoding: .utf8)
            for match in pattern.matches(in: xml, range: NSRange(xml.startIndex..., in: xml)) {
                guard let name = Range(match.range(at: 1), in: xml), let value = Range(match.range(at: 2), in: xml)
                else {
                    continue
                }
                strings.append((path, unescapeXML(String(xml[value])), xml[name] == "derivationExpression"))
            }
        }
        return strings
    }

    private static func unescapeXML(_ text: String) -> String {
        var result = text
        for (entity, character) in [
            ("&quot;", "\""), ("&apos;", "'"), ("&lt;", "<"), ("&gt;", ">"), ("&#10;", "\n"), ("&amp;", "&"),
        ] {
            result = result.replacingOccurrences(of: entity, with: character)
        }
        return result
    }

    @Test(.enabled(if: TestCorpus.isAvailable, "the model corpus is absent"))
    func everyModelPredicateParsesAndRoundTrips() throws {
        let strings = try Self.modelStrings()
        var variables = 0
        for (path, text, isExpression) in strings {
            if isExpression {
                let expression = try PredicateParser.parseExpression(text, arguments: [])
                let printed = PredicateFormatter.format(expression)
                #expect(try PredicateParser.parseExpression(printed, arguments: []) == expression, "\(path): \(text)")
            } else {
                let predicate = try PredicateParser.parsePredicate(text, arguments: [])
                let printed = PredicateFormatter.format(predicate)
                #expect(try PredicateParser.parsePredicate(printed, arguments: []) == predicate, "\(path): \(text)")
                variables += text.filter { $0 == "$" }.count
            }
        }
        print("Model corpus: \(strings.count) predicate and derivation strings parsed and round-tripped")
        #expect(strings.count >= 10)
        #expect(variables >= 6)
    }

    @Test(.enabled(if: TestCorpus.isAvailable, "the model corpus is absent"))
    func modelPredicatesKeepTheirVariables() throws {
        let predicate = try PredicateParser.parsePredicate("oneToOne.name == $NAME OR string == $NEEDLE", arguments: [])
        #expect(
            predicate
                == .or([
                    T.compare(T.key("oneToOne.name"), .equalTo, T.variable("NAME")),
                    T.compare(T.key("string"), .equalTo, T.variable("NEEDLE")),
                ]))
        let strings = try Self.modelStrings().map(\.text)
        #expect(strings.contains("oneToOne.name == $NAME OR string == $NEEDLE"))
        #expect(strings.contains("canonical:(optionalString)"))
    }
}
