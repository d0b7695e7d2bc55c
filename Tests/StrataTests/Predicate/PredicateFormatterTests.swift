import Foundation
import Testing

@testable import Strata

private typealias T = PredicateSyntaxTrees

/// `predicateFormat`: Apple's canonical text, which parses back to the same tree.
@Suite struct PredicateFormatterTests {
    private func roundTrips(_ predicate: PredicateNode) throws -> Bool {
        try PredicateParser.parsePredicate(PredicateFormatter.format(predicate), arguments: []) == predicate
    }

    @Test func compoundsKeepTheParenthesesTheyNeed() {
        let (a, b, c) = (T.equal("a", 1), T.equal("b", 2), T.equal("c", 3))
        #expect(PredicateFormatter.format(.and([a, .or([b, c])])) == "a == 1 AND (b == 2 OR c == 3)")
        #expect(PredicateFormatter.format(.or([a, .and([b, c])])) == "a == 1 OR (b == 2 AND c == 3)")
        #expect(PredicateFormatter.format(.and([.and([a, b]), c])) == "(a == 1 AND b == 2) AND c == 3")
        #expect(PredicateFormatter.format(.and([a, b, c])) == "a == 1 AND b == 2 AND c == 3")
        #expect(PredicateFormatter.format(.not(.or([a, b]))) == "NOT (a == 1 OR b == 2)")
        #expect(PredicateFormatter.format(.and([.not(a), b])) == "NOT a == 1 AND b == 2")
    }

    @Test func degenerateCompoundsPrintAsWhatTheyMean() {
        let (a, b) = (T.equal("a", 1), T.equal("b", 2))
        #expect(PredicateFormatter.format(.and([])) == "TRUEPREDICATE")
        #expect(PredicateFormatter.format(.or([])) == "FALSEPREDICATE")
        #expect(PredicateFormatter.format(.and([a])) == "a == 1")
        // A one-term compound around a compound still groups it.
        #expect(PredicateFormatter.format(.and([.or([.and([a, b])]), a])) == "(a == 1 AND b == 2) AND a == 1")
    }

    @Test func arithmeticParenthesizesOnlyWhereBindingRequires() {
        let (a, b, c) = (T.key("a"), T.key("b"), T.key("c"))
        #expect(PredicateFormatter.format(T.call("multiply:by:", T.call("add:to:", a, b), c)) == "(a + b) * c")
        #expect(PredicateFormatter.format(T.call("add:to:", a, T.call("multiply:by:", b, c))) == "a + b * c")
        #expect(PredicateFormatter.format(T.call("from:subtract:", a, T.call("from:subtract:", b, c))) == "a - (b - c)")
        #expect(PredicateFormatter.format(T.call("from:subtract:", T.call("from:subtract:", a, b), c)) == "a - b - c")
        #expect(PredicateFormatter.format(T.call("from:subtract:", T.int(0), a)) == "-a")
        #expect(PredicateFormatter.format(T.call("from:subtract:", T.int(0), T.call("add:to:", a, b))) == "-(a + b)")
        #expect(PredicateFormatter.format(T.call("from:subtract:", T.int(0), T.int(5))) == "0 - 5")
        #expect(PredicateFormatter.format(T.call("from:subtract:", a, T.int(-5))) == "a - -5")
        #expect(PredicateFormatter.format(.assignment("x", T.call("add:to:", a, b))) == "$x := a + b")
        #expect(PredicateFormatter.format(T.call("add:to:", .assignment("x", a), b)) == "($x := a) + b")
    }

    @Test func membersAndIndexesOfKeyPathsAreParenthesized() {
        #expect(PredicateFormatter.format(.member(T.key("a"), "b")) == "(a).b")
        #expect(PredicateFormatter.format(.member(.evaluatedObject, "b")) == "(SELF).b")
        #expect(PredicateFormatter.format(.member(.member(T.variable("x"), "a"), "b")) == "($x.a).b")
        #expect(PredicateFormatter.format(.member(T.variable("x"), "a.b")) == "$x.a.b")
        #expect(PredicateFormatter.format(.index(T.key("a.b"), .last)) == "a.b[LAST]")
        #expect(PredicateFormatter.format(.index(T.int(-5), .first)) == "(-5)[FIRST]")
        #expect(PredicateFormatter.format(.member(.index(T.key("a"), .size), "b")) == "a[SIZE].b")
    }

    @Test func functionsPrintInTheirShortestReadableForm() {
        #expect(PredicateFormatter.format(T.call("uppercase:", T.key("title"))) == "uppercase:(title)")
        #expect(PredicateFormatter.format(T.call("now")) == "now()")
        #expect(PredicateFormatter.format(T.call("length", T.key("title"))) == #"FUNCTION(title, "length")"#)
        #expect(
            PredicateFormatter.format(T.call("distance:to:", .evaluatedObject, T.int(1)))
                == #"FUNCTION(SELF, "distance:to:", 1)"#
        )
        #expect(
            PredicateFormatter.format(T.call("castObject:toType:", T.key("d"), T.text("NSDate")))
                == #"CAST(d, "NSDate")"#)
        // A CAST of a number to NSDate would read back as a date constant.
        #expect(
            PredicateFormatter.format(T.call("castObject:toType:", T.int(5), T.text("NSDate")))
                == #"FUNCTION(5, "castObject:toType:", "NSDate")"#)
        #expect(PredicateFormatter.format(T.call("in:", T.key("x"))) == "#in:(x)")
    }

    @Test func reservedKeyPathComponentsAreEscaped() {
        #expect(PredicateFormatter.format(T.key("size")) == "#size")
        #expect(PredicateFormatter.format(T.key("author.first.name")) == "author.#first.name")
        #expect(PredicateFormatter.format(T.key("tags.@count")) == "tags.@count")
        #expect(PredicateFormatter.format(T.key("café")) == "café")
    }

    @Test func constantsPrintReadablyAndReadBack() throws {
        let date = Date(timeIntervalSinceReferenceDate: 600_000_000.25)
        let uuid = UUID()
        let url = try #require(URL(string: "https://example.com/a?b=c"))
        let values: [(PredicateValue, String)] = [
            (.null, "nil"), (.bool(true), "TRUE"), (.bool(false), "FALSE"), (.integer(-42), "-42"),
            (.double(2.5), "2.5"), (.double(3), "3.0"), (.double(1e-5), "1e-05"), (.double(.infinity), "1e999"),
            (.double(-.infinity), "-1e999"), (.string("say \"hi\"\n\\"), #""say \"hi\"\n\\""#),
            (.string("\u{01}"), #""\u0001""#), (.date(date), #"CAST(600000000.25, "NSDate")"#),
            (.uuid(uuid), "CAST(\"\(uuid.uuidString)\", \"NSUUID\")"),
            (.url(url), #"CAST("https://example.com/a?b=c", "NSURL")"#),
            (.data(Data([1, 2, 255])), #"CAST("AQL/", "NSData")"#),
            (.decimal(Decimal(string: "12.34") ?? 0), #"CAST("12.34", "NSDecimalNumber")"#),
        ]
        for (value, text) in values {
            #expect(PredicateFormatter.format(.constant(value)) == text)
            let predicate = T.compare(T.key("a"), .equalTo, .constant(value))
            #expect(try roundTrips(predicate), "\(text)")
        }
    }

    @Test func collectionConstantsPrintAsAggregates() throws {
        let array = PredicateNode.comparison(
            ComparisonNode(left: T.key("a"), op: .in, right: .constant(.array([.integer(1), .string("x")]))))
        #expect(PredicateFormatter.format(array) == #"a IN {1, "x"}"#)
        #expect(
            try T.predicate(PredicateFormatter.format(array))
                == T.compare(T.key("a"), .in, T.aggregate(T.int(1), T.text("x"))))
        #expect(PredicateFormatter.format(.constant(.set([.integer(2)]))) == "{2}")
        #expect(
            PredicateFormatter.format(.constant(.dictionary(["b": .integer(2), "a": .integer(1)])))
                == #"{{"a", 1}, {"b", 2}}"#)
    }

    @Test func objectsPrintTheirDescription() {
        final class Thing: NSObject {
            override var description: String { "<Thing 7>" }
        }
        #expect(PredicateFormatter.format(.constant(.object(PredicateObject(Thing())))) == "<Thing 7>")
        #expect(
            PredicateFormatter.format(.constant(.object(PredicateObject(PredicateFormatterTestsBox()))))
                == "<PredicateFormatterTestsBox>")
    }

    @Test func argumentsPrintAsLiterals() throws {
        let predicate = try T.predicate("title == %@ AND %K < %@ AND tags IN %@", "x", "pages", 5, ["a"])
        #expect(PredicateFormatter.format(predicate) == #"title == "x" AND pages < 5 AND tags IN {"a"}"#)
    }

    /// Thousands of random trees of every node kind (without object or collection constants)
    /// print to text that parses back to the same tree.
    @Test func randomTreesRoundTrip() throws {
        var generator = PredicateTreeGenerator(seed: 0x5EED)
        for _ in 0..<3000 {
            let predicate = generator.predicate(depth: 4)
            let text = PredicateFormatter.format(predicate)
            let parsed = try PredicateParser.parsePredicate(text, arguments: [])
            #expect(parsed == predicate, "\(text)")
            if parsed != predicate { break }
        }
    }
}

private final class PredicateFormatterTestsBox {}

/// Random predicate trees that the parser can produce: no objects, no collection constants,
/// no compounds of fewer than two terms, no NaN.
struct PredicateTreeGenerator {
    /// SplitMix64: a small seeded generator, so that every run builds the same trees.
    struct Random: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    var random: Random

    init(seed: UInt64) { random = Random(state: seed) }

    private static let names = ["title", "a", "size", "self", "first", "any", "in", "name_2", "café", "NOT", "minus"]
    private static let operators = ["@count", "@sum", "@avg", "@min", "@max", "@distinctUnionOfObjects"]
    private static let stringPieces = [
        "a", "\"", "'", "\\", "\n", "\t", "\r", "\u{01}", "é", "😀", "%@", "%K", " ", "AND", "\u{7F}", "e\u{301}",
    ]
    private static let functions = [
        "now", "random", "uppercase:", "sum:", "size", "distanceToLocation:fromLocation:", "modulus:by:", "in:",
        "castObject:toType:",
    ]

    mutating func pick<Element>(_ items: [Element]) -> Element {
        items[Int.random(in: 0..<items.count, using: &random)]
    }
    mutating func chance(_ oneIn: Int) -> Bool { Int.random(in: 0..<oneIn, using: &random) == 0 }
    mutating func count(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }

    mutating func path() -> String {
        (0..<count(1...3)).map { _ in chance(4) ? pick(Self.operators) : pick(Self.names) }.joined(separator: ".")
    }

    mutating func value() -> PredicateValue {
        switch count(0...11) {
        case 0: return .null
        case 1: return .bool(chance(2))
        case 2: return .integer(pick([0, 1, -1, 42, .max, .min, -7]))
        case 3: return .integer(Int64.random(in: .min ... .max, using: &random))
        case 4: return .double(pick([0.5, -2.25, 1e-5, 5e20, 3.0, -0.0, .pi, .infinity, -.infinity, 1e308]))
        case 5: return .double(Double(bitPattern: UInt64.random(in: 0...0x7FEF_FFFF_FFFF_FFFF, using: &random)))
        case 6: return .string((0..<count(0...5)).map { _ in pick(Self.stringPieces) }.joined())
        case 7: return .date(Date(timeIntervalSinceReferenceDate: pick([0, 600_000_000.5, -1e9, 123.456])))
        case 8: return .decimal(Decimal(string: pick(["12.34", "-0.001", "1000000000000000000000", "0"])) ?? 0)
        case 9: return .data(Data((0..<count(0...6)).map { _ in UInt8.random(in: 0...255, using: &random) }))
        case 10: return .uuid(UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, UInt8(count(0...255)))))
        default:
            return URL(string: pick(["https://example.com/a?b=c", "file:///tmp/x%20y", "mailto:a@b.c"])).map {
                .url($0)
            } ?? .null
        }
    }

    mutating func expression(depth: Int) -> ExpressionNode {
        guard depth > 0 else {
            switch count(0...4) {
            case 0: return .constant(value())
            case 1: return .evaluatedObject
            case 2: return .variable(pick(["x", "FETCH_SOURCE", "and", "v2"]))
            case 3: return .anyKey
            default: return .keyPath(path())
            }
        }
        let next = depth - 1
        switch count(0...13) {
        case 0: return .member(expression(depth: next), path())
        case 1:
            let name = pick(["add:to:", "from:subtract:", "multiply:by:", "divide:by:", "raise:toPower:"])
            return .function(
                name, [chance(3) ? .constant(.integer(0)) : expression(depth: next), expression(depth: next)])
        case 2: return function(depth: next)
        case 3: return .aggregate((0..<count(0...3)).map { _ in expression(depth: next) })
        case 4:
            return .index(expression(depth: next), pick([.first, .last, .size, .expression(expression(depth: next))]))
        case 5:
            return .subquery(
                collection: expression(depth: next), variable: pick(["x", "item"]), predicate: predicate(depth: next))
        case 6: return .conditional(predicate(depth: next), expression(depth: next), expression(depth: next))
        case 7: return .assignment(pick(["x", "y"]), expression(depth: next))
        case 8:
            return .setOperation(pick([.union, .intersect, .minus]), expression(depth: next), expression(depth: next))
        default: return expression(depth: 0)
        }
    }

    private mutating func function(depth: Int) -> ExpressionNode {
        let name = pick(Self.functions)
        if name == "castObject:toType:" {
            return .function(
                name, [expression(depth: depth), .constant(.string(pick(["NSDate", "NSString", "NSUUID"])))])
        }
        var arguments = (0..<count(0...3)).map { _ in expression(depth: depth) }
        if name.filter({ $0 == ":" }).count > 1 && arguments.isEmpty { arguments = [expression(depth: depth)] }
        return .function(name, arguments)
    }

    mutating func predicate(depth: Int) -> PredicateNode {
        if depth <= 0 || chance(3) {
            if chance(10) { return .constant(chance(2)) }
            let comparison = ComparisonNode(
                left: expression(depth: depth), op: pick(ComparisonNode.Operator.allCases),
                right: expression(depth: depth),
                modifier: pick([.direct, .direct, .any, .all]),
                options: ComparisonNode.Options(rawValue: UInt(count(0...15))))
            return .comparison(comparison)
        }
        let next = depth - 1
        switch count(0...2) {
        case 0: return .and((0..<count(2...3)).map { _ in predicate(depth: next) })
        case 1: return .or((0..<count(2...3)).map { _ in predicate(depth: next) })
        default: return .not(predicate(depth: next))
        }
    }
}
