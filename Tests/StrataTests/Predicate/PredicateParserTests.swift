import Foundation
import Testing

@testable import Strata

/// Shorthands for the trees the format-string tests expect.
enum PredicateSyntaxTrees {
    static func key(_ path: String) -> ExpressionNode { .keyPath(path) }
    static func text(_ value: String) -> ExpressionNode { .constant(.string(value)) }
    static func int(_ value: Int64) -> ExpressionNode { .constant(.integer(value)) }
    static func real(_ value: Double) -> ExpressionNode { .constant(.double(value)) }
    static func bool(_ value: Bool) -> ExpressionNode { .constant(.bool(value)) }
    static let null = ExpressionNode.constant(.null)
    static func variable(_ name: String) -> ExpressionNode { .variable(name) }
    static func call(_ name: String, _ arguments: ExpressionNode...) -> ExpressionNode { .function(name, arguments) }
    static func aggregate(_ items: ExpressionNode...) -> ExpressionNode { .aggregate(items) }

    static func compare(
        _ left: ExpressionNode, _ op: ComparisonNode.Operator, _ right: ExpressionNode,
        _ modifier: ComparisonNode.Modifier = .direct, options: ComparisonNode.Options = []
    ) -> PredicateNode {
        .comparison(ComparisonNode(left: left, op: op, right: right, modifier: modifier, options: options))
    }

    /// `key == value`, the comparison most tests combine.
    static func equal(_ path: String, _ value: Int64) -> PredicateNode { compare(key(path), .equalTo, int(value)) }

    static func predicate(_ format: String, _ arguments: Any?...) throws -> PredicateNode {
        try PredicateParser.parsePredicate(format, arguments: arguments)
    }

    static func expression(_ format: String, _ arguments: Any?...) throws -> ExpressionNode {
        try PredicateParser.parseExpression(format, arguments: arguments)
    }

    /// The error a format string raises, or nil when it parses.
    static func syntaxError(_ format: String, _ arguments: Any?...) -> PredicateSyntaxError? {
        do {
            _ = try PredicateParser.parsePredicate(format, arguments: arguments)
            return nil
        } catch {
            return error
        }
    }
}

private typealias T = PredicateSyntaxTrees

/// The parser's reading of each form of the grammar; the table of
/// `PredicateCorpusTests` pins the same forms with their printed text.
@Suite struct PredicateParserTests {
    @Test func keywordsAreCaseInsensitive() throws {
        let expected = PredicateNode.or([
            .and([T.compare(T.key("a"), .contains, T.text("x"), options: .caseInsensitive), T.equal("b", 1)]),
            .not(T.compare(T.key("c"), .equalTo, T.bool(true), .any)),
        ])
        #expect(try T.predicate("a contains[C] 'x' and b == 1 or not any c == yes") == expected)
        #expect(try T.predicate("a CoNtAiNs[c] 'x' AnD b == 1 Or NoT SoMe c == True") == expected)
    }

    @Test func stringsTakeEitherQuoteAndEveryEscape() throws {
        #expect(try T.expression(#""double""#) == T.text("double"))
        #expect(try T.expression("'single'") == T.text("single"))
        #expect(try T.expression(#"'a\"b\'c\\d'"#) == T.text(#"a"b'c\d"#))
        #expect(try T.expression(#""\n\t\r""#) == T.text("\n\t\r"))
        #expect(try T.expression(#""\101\x42\u0043\u00e9""#) == T.text("ABCé"))
        #expect(try T.expression(#""\ud83d\ude00""#) == T.text("😀"))
        #expect(try T.expression("'raw\nnewline and \"quotes\"'") == T.text("raw\nnewline and \"quotes\""))
        #expect(try T.expression("''") == T.text(""))
    }

    @Test func numbersInEveryNotation() throws {
        #expect(try T.expression("27") == T.int(27))
        #expect(try T.expression("2.71828") == T.real(2.71828))
        #expect(try T.expression("-19.75") == T.real(-19.75))
        #expect(try T.expression("9.2e-5") == T.real(9.2e-5))
        #expect(try T.expression("1E3") == T.real(1000))
        #expect(try T.expression("0x1F") == T.int(31))
        #expect(try T.expression("0o17") == T.int(15))
        #expect(try T.expression("0b101") == T.int(5))
        #expect(try T.expression("-5") == T.int(-5))
        #expect(try T.expression("9223372036854775807") == T.int(.max))
        #expect(try T.expression("-9223372036854775808") == T.int(.min))
        #expect(try T.expression("18446744073709551616") == T.real(18_446_744_073_709_551_616))
        #expect(try T.expression("1e999") == T.real(.infinity))
    }

    @Test func namedLiterals() throws {
        for (format, value) in [("TRUE", true), ("yes", true), ("FALSE", false), ("No", false)] {
            #expect(try T.expression(format) == T.bool(value))
        }
        #expect(try T.expression("NULL") == T.null)
        #expect(try T.expression("nil") == T.null)
        #expect(try T.expression("SELF") == .evaluatedObject)
        #expect(try T.expression("self.title") == T.key("title"))
        #expect(try T.expression("ANYKEY") == .anyKey)
    }

    @Test func hashEscapesReservedWordsInKeyPaths() throws {
        #expect(try T.expression("#size") == T.key("size"))
        #expect(try T.expression("#SELF.#in.name") == T.key("SELF.in.name"))
        #expect(try T.expression("author.#first") == T.key("author.first"))
        #expect(T.syntaxError("author.first == 1")?.offset == 7)
    }

    @Test func keyPathsKeepCollectionOperators() throws {
        #expect(try T.expression("tags.@count") == T.key("tags.@count"))
        #expect(try T.expression("@sum.items.price") == T.key("@sum.items.price"))
        #expect(try T.expression("items.@avg.price") == T.key("items.@avg.price"))
        #expect(try T.expression("@distinctUnionOfObjects.name") == T.key("@distinctUnionOfObjects.name"))
    }

    @Test func membersOfVariablesFunctionsAndParentheses() throws {
        #expect(try T.expression("$x.author.name") == .member(T.variable("x"), "author.name"))
        #expect(try T.expression("now().timeIntervalSince1970") == .member(T.call("now"), "timeIntervalSince1970"))
        #expect(try T.expression("(title).length") == .member(T.key("title"), "length"))
        #expect(try T.expression("items[0].name") == .member(.index(T.key("items"), .expression(T.int(0))), "name"))
    }

    @Test func formatArgumentsAreConsumedLeftToRight() throws {
        let tree = try T.predicate("%K == %@ AND %K > %d", "title", "x", "pages", 3)
        #expect(
            tree
                == .and([
                    T.compare(T.key("title"), .equalTo, T.text("x")), T.compare(T.key("pages"), .greaterThan, T.int(3)),
                ]))
        // The parser backs up over the parenthesis; the arguments are read once.
        let backedUp = try T.predicate("(%@ + 1) * 2 > %@", 1, 10)
        #expect(
            backedUp
                == T.compare(
                    T.call("multiply:by:", T.call("add:to:", T.int(1), T.int(1)), T.int(2)), .greaterThan, T.int(10)))
    }

    @Test func objectArgumentsAreConstantsNeverKeyPaths() throws {
        #expect(try T.expression("%@", "title") == T.text("title"))
        #expect(try T.expression("%@", nil) == T.null)
        #expect(try T.expression("%@", NSNull()) == T.null)
        #expect(try T.expression("%@", [1, 2]) == .constant(.array([.integer(1), .integer(2)])))
        #expect(
            try T.expression("%@", Date(timeIntervalSinceReferenceDate: 5))
                == .constant(.date(Date(timeIntervalSinceReferenceDate: 5))))
    }

    @Test func keyPathArgumentsJoinTheKeyPath() throws {
        #expect(try T.expression("%K", "author.name") == T.key("author.name"))
        #expect(try T.expression("%K.name", "author") == T.key("author.name"))
        #expect(try T.expression("%K", "size") == T.key("size"))
        #expect(try T.expression("SELF.%K", "title") == T.key("title"))
    }

    @Test func numericSpecifiersConvertTheirArguments() throws {
        for specifier in ["%d", "%i", "%ld", "%lld", "%u", "%lu", "%hd", "%hu", "%qd", "%x", "%o", "%c"] {
            #expect(try T.expression(specifier, 42) == T.int(42), "\(specifier)")
        }
        #expect(try T.expression("%d", NSNumber(value: 7)) == T.int(7))
        #expect(try T.expression("%d", true) == T.int(1))
        for specifier in ["%f", "%g", "%e", "%lf"] {
            #expect(try T.expression(specifier, 2.5) == T.real(2.5), "\(specifier)")
        }
        #expect(try T.expression("%f", 2) == T.real(2))
        #expect(try T.expression("%s", "text") == T.text("text"))
    }

    @Test func quotesSuppressSubstitution() throws {
        #expect(
            try T.predicate("a == '%@' AND b == \"%K\"")
                == .and([T.compare(T.key("a"), .equalTo, T.text("%@")), T.compare(T.key("b"), .equalTo, T.text("%K"))]))
    }

    @Test func everyComparisonSpelling() throws {
        let spellings: [(String, ComparisonNode.Operator)] = [
            ("==", .equalTo), ("=", .equalTo), ("!=", .notEqualTo), ("<>", .notEqualTo), ("<", .lessThan),
            ("<=", .lessThanOrEqualTo), ("=<", .lessThanOrEqualTo), (">", .greaterThan), (">=", .greaterThanOrEqualTo),
            ("=>", .greaterThanOrEqualTo), ("BETWEEN", .between), ("IN", .in), ("CONTAINS", .contains),
            ("BEGINSWITH", .beginsWith), ("ENDSWITH", .endsWith), ("LIKE", .like), ("MATCHES", .matches),
        ]
        for (spelling, op) in spellings {
            #expect(try T.predicate("a \(spelling) b") == T.compare(T.key("a"), op, T.key("b")), "\(spelling)")
            if !spelling.contains(where: \.isLetter) {
                #expect(try T.predicate("a\(spelling)b") == T.compare(T.key("a"), op, T.key("b")), "\(spelling)")
            }
        }
    }

    @Test func optionsInAnyCombination() throws {
        let cases: [(String, ComparisonNode.Options)] = [
            ("c", .caseInsensitive), ("d", .diacriticInsensitive), ("cd", [.caseInsensitive, .diacriticInsensitive]),
            ("dc", [.caseInsensitive, .diacriticInsensitive]), ("n", .normalized), ("l", .localeSensitive),
            ("cdnl", [.caseInsensitive, .diacriticInsensitive, .normalized, .localeSensitive]),
            ("CD", [.caseInsensitive, .diacriticInsensitive]),
        ]
        for (letters, options) in cases {
            #expect(
                try T.predicate("a LIKE[\(letters)] 'x'") == T.compare(T.key("a"), .like, T.text("x"), options: options)
            )
            #expect(
                try T.predicate("a ==[\(letters)] 'x'")
                    == T.compare(T.key("a"), .equalTo, T.text("x"), options: options))
        }
        #expect(T.syntaxError("a LIKE[q] 'x'")?.offset == 7)
    }

    @Test func quantifiers() throws {
        #expect(try T.predicate("ANY tags.name == 'a'") == T.compare(T.key("tags.name"), .equalTo, T.text("a"), .any))
        #expect(try T.predicate("SOME tags.name == 'a'") == T.compare(T.key("tags.name"), .equalTo, T.text("a"), .any))
        #expect(try T.predicate("ALL tags.name == 'a'") == T.compare(T.key("tags.name"), .equalTo, T.text("a"), .all))
        #expect(
            try T.predicate("NONE tags.name == 'a'") == .not(T.compare(T.key("tags.name"), .equalTo, T.text("a"), .any))
        )
    }

    @Test func notBindsTighterThanAndThanOr() throws {
        let (a, b, c) = (T.equal("a", 1), T.equal("b", 2), T.equal("c", 3))
        #expect(try T.predicate("a == 1 OR b == 2 AND c == 3") == .or([a, .and([b, c])]))
        #expect(try T.predicate("a == 1 AND b == 2 OR c == 3") == .or([.and([a, b]), c]))
        #expect(try T.predicate("NOT a == 1 AND b == 2") == .and([.not(a), b]))
        #expect(try T.predicate("!a == 1 || b == 2") == .or([.not(a), b]))
        #expect(try T.predicate("NOT NOT a == 1") == .not(.not(a)))
    }

    @Test func chainsFlattenButParenthesesNest() throws {
        let (a, b, c) = (T.equal("a", 1), T.equal("b", 2), T.equal("c", 3))
        #expect(try T.predicate("a == 1 AND b == 2 AND c == 3") == .and([a, b, c]))
        #expect(try T.predicate("a == 1 && b == 2 AND c == 3") == .and([a, b, c]))
        #expect(try T.predicate("(a == 1 AND b == 2) AND c == 3") == .and([.and([a, b]), c]))
        #expect(try T.predicate("a == 1 OR (b == 2 OR c == 3)") == .or([a, .or([b, c])]))
        #expect(try T.predicate("((a == 1))") == a)
    }

    @Test func arithmeticPrecedenceAndAssociativity() throws {
        let (a, b, c) = (T.key("a"), T.key("b"), T.key("c"))
        #expect(try T.expression("a + b * c") == T.call("add:to:", a, T.call("multiply:by:", b, c)))
        #expect(try T.expression("(a + b) * c") == T.call("multiply:by:", T.call("add:to:", a, b), c))
        #expect(try T.expression("a - b - c") == T.call("from:subtract:", T.call("from:subtract:", a, b), c))
        #expect(try T.expression("a / b ** c") == T.call("divide:by:", a, T.call("raise:toPower:", b, c)))
        #expect(try T.expression("a ** b ** c") == T.call("raise:toPower:", T.call("raise:toPower:", a, b), c))
        #expect(try T.expression("-a") == T.call("from:subtract:", T.int(0), a))
        #expect(try T.expression("- 5") == T.int(-5))
        #expect(try T.expression("a - -5") == T.call("from:subtract:", a, T.int(-5)))
        #expect(
            try T.expression("-a ** 2") == T.call("raise:toPower:", T.call("from:subtract:", T.int(0), a), T.int(2)))
    }

    @Test func functionForms() throws {
        #expect(try T.expression("uppercase:(title)") == T.call("uppercase:", T.key("title")))
        #expect(try T.expression("sum:({1, 2})") == T.call("sum:", T.aggregate(T.int(1), T.int(2))))
        #expect(try T.expression("now()") == T.call("now"))
        #expect(try T.expression("random()") == T.call("random"))
        #expect(try T.expression("FUNCTION(title, 'length')") == T.call("length", T.key("title")))
        #expect(
            try T.expression("FUNCTION(SELF, 'distance:to:', 1, 2)")
                == T.call("distance:to:", .evaluatedObject, T.int(1), T.int(2)))
        #expect(try T.expression("#in:(x)") == T.call("in:", T.key("x")))
    }

    @Test func castIsAFunctionUnlessItSpellsAConstant() throws {
        #expect(try T.expression("CAST(d, 'NSDate')") == T.call("castObject:toType:", T.key("d"), T.text("NSDate")))
        #expect(
            try T.expression("CAST('5', 'NSNumber')") == T.call("castObject:toType:", T.text("5"), T.text("NSNumber")))
        #expect(
            try T.expression("CAST(600000000.5, 'NSDate')")
                == .constant(.date(Date(timeIntervalSinceReferenceDate: 600_000_000.5))))
        #expect(try T.expression("CAST(-5, 'NSDate')") == .constant(.date(Date(timeIntervalSinceReferenceDate: -5))))
        let uuid = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect(try T.expression("CAST('e621e1f8-c36c-495a-93fc-0c247a3e6e5f', 'NSUUID')") == .constant(.uuid(uuid)))
        #expect(try T.expression("CAST('AQI=', 'NSData')") == .constant(.data(Data([1, 2]))))
        #expect(
            try T.expression("CAST('12.5', 'NSDecimalNumber')") == .constant(.decimal(Decimal(string: "12.5") ?? 0)))
        #expect(
            try T.expression("CAST('12abc', 'NSDecimalNumber')")
                == T.call("castObject:toType:", T.text("12abc"), T.text("NSDecimalNumber")))
        #expect(
            try T.expression("FUNCTION(5, 'castObject:toType:', 'NSDate')")
                == T.call("castObject:toType:", T.int(5), T.text("NSDate")))
    }

    @Test func subqueryTernaryAssignmentAndSets() throws {
        let subquery = ExpressionNode.subquery(
            collection: T.key("friends"), variable: "f",
            predicate: T.compare(.member(T.variable("f"), "age"), .greaterThan, T.int(40)))
        #expect(try T.expression("SUBQUERY(friends, $f, $f.age > 40)") == subquery)
        #expect(try T.expression("SUBQUERY(friends, $f, $f.age > 40).@count") == .member(subquery, "@count"))
        #expect(
            try T.expression("TERNARY(a == 1, 'x', 'y')") == .conditional(T.equal("a", 1), T.text("x"), T.text("y")))
        #expect(try T.expression("$x := a + 1") == .assignment("x", T.call("add:to:", T.key("a"), T.int(1))))
        #expect(
            try T.expression("a UNION b INTERSECT c")
                == .setOperation(.intersect, .setOperation(.union, T.key("a"), T.key("b")), T.key("c")))
        #expect(
            try T.expression("a MINUS b + 1")
                == .setOperation(.minus, T.key("a"), T.call("add:to:", T.key("b"), T.int(1))))
    }

    @Test func indexForms() throws {
        #expect(try T.expression("a[0]") == .index(T.key("a"), .expression(T.int(0))))
        #expect(try T.expression("a[FIRST]") == .index(T.key("a"), .first))
        #expect(try T.expression("a[last]") == .index(T.key("a"), .last))
        #expect(try T.expression("a[SIZE]") == .index(T.key("a"), .size))
        #expect(try T.expression("d['key']") == .index(T.key("d"), .expression(T.text("key"))))
        #expect(try T.expression("a[#first]") == .index(T.key("a"), .expression(T.key("first"))))
        #expect(try T.expression("SELF[0]") == .index(.evaluatedObject, .expression(T.int(0))))
    }

    @Test func variablesStayVariables() throws {
        #expect(
            try T.predicate("humanName == $humanName")
                == T.compare(T.key("humanName"), .equalTo, T.variable("humanName")))
        #expect(try T.predicate("$AND == 1") == T.compare(T.variable("AND"), .equalTo, T.int(1)))
    }

    @Test func utiOperatorsAreRejected() {
        for op in ["UTI-CONFORMS-TO", "uti-equals"] {
            let error = T.syntaxError("type \(op) 'public.text'")
            #expect(error?.offset == 5)
            #expect(error?.expected.contains("unsupported on Linux") == true)
            #expect(error?.found == op)
        }
    }

    @Test func argumentConversions() {
        #expect(PredicateArguments.value(nil) == .null)
        #expect(PredicateArguments.value(Optional<Int>.none as Any) == .null)
        #expect(PredicateArguments.value(Optional<Int>.some(3) as Any) == .integer(3))
        #expect(PredicateArguments.value("s" as NSString) == .string("s"))
        #expect(PredicateArguments.value("abc".dropFirst()) == .string("bc"))
        #expect(PredicateArguments.value(true) == .bool(true))
        #expect(PredicateArguments.value(NSNumber(value: true)) == .bool(true))
        #expect(PredicateArguments.value(NSNumber(value: Int8(1))) == .integer(1))
        #expect(PredicateArguments.value(NSNumber(value: 1)) == .integer(1))
        #expect(PredicateArguments.value(NSNumber(value: 2.5)) == .double(2.5))
        #expect(PredicateArguments.value(NSNumber(value: UInt64.max)) == .double(Double(UInt64.max)))
        #expect(PredicateArguments.value(UInt8(7)) == .integer(7))
        #expect(PredicateArguments.value(UInt64.max) == .double(Double(UInt64.max)))
        #expect(PredicateArguments.value(Float(0.5)) == .double(0.5))
        #expect(PredicateArguments.value(CGFloat(1.5)) == .double(1.5))
        #expect(PredicateArguments.value(Decimal(string: "1.25")) == .decimal(Decimal(string: "1.25") ?? 0))
        #expect(PredicateArguments.value(NSDecimalNumber(string: "1.25")) == .decimal(Decimal(string: "1.25") ?? 0))
        let date = Date(timeIntervalSinceReferenceDate: 99)
        #expect(PredicateArguments.value(date) == .date(date))
        #expect(PredicateArguments.value(NSDate(timeIntervalSinceReferenceDate: 99)) == .date(date))
        #expect(PredicateArguments.value(Data([1])) == .data(Data([1])))
        #expect(PredicateArguments.value(NSData(data: Data([1]))) == .data(Data([1])))
        let uuid = UUID()
        #expect(PredicateArguments.value(uuid) == .uuid(uuid))
        #expect(PredicateArguments.value(NSUUID(uuidString: uuid.uuidString)) == .uuid(uuid))
        let url = URL(fileURLWithPath: "/tmp/x")
        #expect(PredicateArguments.value(url) == .url(url))
        #expect(PredicateArguments.value(NSURL(fileURLWithPath: "/tmp/x")) == .url(url))
        #expect(PredicateArguments.value([1, "a"] as [Any]) == .array([.integer(1), .string("a")]))
        #expect(PredicateArguments.value(NSArray(array: [1, 2])) == .array([.integer(1), .integer(2)]))
        #expect(PredicateArguments.value(NSOrderedSet(array: [2, 1])) == .array([.integer(2), .integer(1)]))
        #expect(PredicateArguments.value(Set([3, 1, 2])) == .set([.integer(1), .integer(2), .integer(3)]))
        #expect(PredicateArguments.value(NSSet(array: [3, 1, 2])) == .set([.integer(1), .integer(2), .integer(3)]))
        #expect(PredicateArguments.value(["a": 1]) == .dictionary(["a": .integer(1)]))
        #expect(PredicateArguments.value([1: "x"]) == .dictionary(["1": .string("x")]))
        let object = NSObject()
        #expect(PredicateArguments.value(object) == .object(PredicateObject(object)))
        #expect(PredicateArguments.value(Character("c")) == .string("c"))
    }
}
