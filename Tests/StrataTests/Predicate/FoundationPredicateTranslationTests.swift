import Foundation
import Testing

@testable import Strata

// Plain classes: `#Predicate` works on any class, and their stored properties give key
// paths that Swift describes by name.

private final class TypedOwner: Equatable, Codable, @unchecked Sendable {
    var name = ""
    var age = 0
    static func == (lhs: TypedOwner, rhs: TypedOwner) -> Bool { lhs === rhs }
}

private final class TypedTag: Equatable, Codable, @unchecked Sendable {
    var name = ""
    var weight = 0
    var notes: [TypedNote] = []
    static func == (lhs: TypedTag, rhs: TypedTag) -> Bool { lhs === rhs }
}

private final class TypedNote: Equatable, Codable, @unchecked Sendable {
    var title: String?
    var body = ""
    var rank = 0
    var level: Int?
    var score = 0.0
    var small: Float = 0
    var tiny: Int8 = 0
    var big: UInt64 = 0
    var price = Decimal(0)
    var flag = false
    var created: Date?
    var identifier = UUID()
    var link: URL?
    var blob = Data()
    var owner: TypedOwner?
    var boss = TypedOwner()
    var tags: [TypedTag] = []
    var keywords: Set<String> = []
    var list: [String] = []
    var attributes: [String: String] = [:]
    var summary: String { body }
    static func == (lhs: TypedNote, rhs: TypedNote) -> Bool { lhs === rhs }
}

/// A class with a computed property that names its key paths, as `@Managed` classes must on
/// Linux.
private final class NamedNote: _PredicateKeyPathNaming {
    var storage: [String: String] = [:]
    var heading: String {
        get { storage["heading"] ?? "" }
        set { storage["heading"] = newValue }
    }

    static func _predicateKeyName(for keyPath: AnyKeyPath) -> String? {
        keyPath == \NamedNote.heading ? "heading" : nil
    }
}

@Suite struct FoundationPredicateTranslationTests {
    private func tree(_ predicate: Predicate<TypedNote>) throws -> PredicateNode {
        try FoundationPredicateTranslation.node(from: predicate)
    }

    private func key(_ path: String) -> ExpressionNode { .keyPath(path) }
    private func string(_ text: String) -> ExpressionNode { .constant(.string(text)) }
    private func int(_ number: Int64) -> ExpressionNode { .constant(.integer(number)) }
    private let null = ExpressionNode.constant(.null)
    private let yes = ExpressionNode.constant(.bool(true))

    private func compare(
        _ left: ExpressionNode, _ op: ComparisonNode.Operator, _ right: ExpressionNode,
        options: ComparisonNode.Options = []
    ) -> PredicateNode {
        .comparison(ComparisonNode(left: left, op: op, right: right, options: options))
    }

    private func count(_ subquery: ExpressionNode) -> ExpressionNode { .member(subquery, "@count") }

    /// The error of an unsupported form: `NSCoreDataError` in `NSCocoaErrorDomain`, naming
    /// the expression type.
    private func expectUnsupported(
        _ predicate: Predicate<TypedNote>, naming name: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            let node = try tree(predicate)
            Issue.record("Expected an error, got \(node)", sourceLocation: sourceLocation)
        } catch let error as NSError {
            #expect(error.domain == NSCocoaErrorDomain, sourceLocation: sourceLocation)
            #expect(error.code == NSCoreDataError, sourceLocation: sourceLocation)
            #expect(error.localizedDescription.contains(name), "\(error.localizedDescription)", sourceLocation: sourceLocation)
        }
    }

    // MARK: Comparisons and logic

    @Test func comparisonsOfKeyPathsAndConstants() throws {
        #expect(
            try tree(#Predicate { $0.rank > 2 && $0.title == "a" })
                == .and([compare(key("rank"), .greaterThan, int(2)), compare(key("title"), .equalTo, string("a"))]))
        #expect(try tree(#Predicate { $0.rank < 2 }) == compare(key("rank"), .lessThan, int(2)))
        #expect(try tree(#Predicate { $0.rank <= 2 }) == compare(key("rank"), .lessThanOrEqualTo, int(2)))
        #expect(try tree(#Predicate { $0.rank >= 2 }) == compare(key("rank"), .greaterThanOrEqualTo, int(2)))
        #expect(try tree(#Predicate { $0.rank != 2 }) == compare(key("rank"), .notEqualTo, int(2)))
        #expect(try tree(#Predicate { 2 < $0.rank }) == compare(int(2), .lessThan, key("rank")))
        #expect(try tree(#Predicate { $0.body == $0.title! }) == compare(key("body"), .equalTo, key("title")))
    }

    @Test func compoundsAreFlattenedAsTheFormatParserBuildsThem() throws {
        let one = compare(key("rank"), .equalTo, int(1))
        let two = compare(key("rank"), .equalTo, int(2))
        let three = compare(key("rank"), .equalTo, int(3))
        #expect(try tree(#Predicate { $0.rank == 1 || $0.rank == 2 || $0.rank == 3 }) == .or([one, two, three]))
        #expect(try tree(#Predicate { $0.rank == 1 && ($0.rank == 2 && $0.rank == 3) }) == .and([one, two, three]))
        #expect(try tree(#Predicate { !($0.rank == 1) || $0.rank == 2 }) == .or([.not(one), two]))
        #expect(try tree(#Predicate { !(!($0.rank == 1)) }) == one)
    }

    @Test func nilComparisons() throws {
        #expect(try tree(#Predicate { $0.title == nil }) == compare(key("title"), .equalTo, null))
        #expect(try tree(#Predicate { $0.owner != nil }) == compare(key("owner"), .notEqualTo, null))
    }

    @Test func booleanKeyPathsAreComparedWithYes() throws {
        #expect(try tree(#Predicate { $0.flag }) == compare(key("flag"), .equalTo, yes))
        #expect(try tree(#Predicate { !$0.flag }) == .not(compare(key("flag"), .equalTo, yes)))
        #expect(try tree(#Predicate { $0.flag == false }) == compare(key("flag"), .equalTo, .constant(.bool(false))))
        #expect(try tree(Predicate<TypedNote>.true) == .constant(true))
        #expect(try tree(Predicate<TypedNote>.false) == .constant(false))
    }

    // MARK: Key paths

    @Test func keyPathChainsAndOptionalChaining() throws {
        #expect(try tree(#Predicate { $0.owner?.name == "x" }) == compare(key("owner.name"), .equalTo, string("x")))
        #expect(try tree(#Predicate { $0.boss.name == "x" }) == compare(key("boss.name"), .equalTo, string("x")))
        #expect(try tree(#Predicate { $0.owner!.age > 3 }) == compare(key("owner.age"), .greaterThan, int(3)))
        #expect(try tree(#Predicate { $0.title! == "x" }) == compare(key("title"), .equalTo, string("x")))
        #expect(try tree(#Predicate { $0.owner?.name == $0.title }) == compare(key("owner.name"), .equalTo, key("title")))
    }

    @Test func countAndIsEmpty() throws {
        #expect(try tree(#Predicate { $0.tags.count > 2 }) == compare(key("tags.@count"), .greaterThan, int(2)))
        #expect(try tree(#Predicate { $0.tags.isEmpty }) == compare(key("tags.@count"), .equalTo, int(0)))
        #expect(try tree(#Predicate { !$0.keywords.isEmpty }) == .not(compare(key("keywords.@count"), .equalTo, int(0))))
        #expect(try tree(#Predicate { $0.body.isEmpty }) == compare(key("body"), .equalTo, string("")))
        #expect(
            try tree(#Predicate { $0.body.count > 3 }) == compare(.function("length:", [key("body")]), .greaterThan, int(3)))
    }

    @Test func keyPathsOfPropertiesSwiftCannotNameThrow() {
        // On Linux, a computed property's key path is described by its getter's address.
        #if !canImport(Darwin)
            expectUnsupported(#Predicate { $0.summary == "x" }, naming: "computed property")
        #endif
    }

    @Test func typesCanNameTheirKeyPaths() throws {
        let predicate = #Predicate<NamedNote> { $0.heading == "x" }
        #expect(try FoundationPredicateTranslation.node(from: predicate) == compare(key("heading"), .equalTo, string("x")))
    }

    // MARK: Constants

    @Test func constantsOfEveryValueType() throws {
        let date = Date(timeIntervalSinceReferenceDate: 1000)
        let uuid = UUID(uuidString: "00000000-0000-0000-0000-000000000001")!
        let url = URL(string: "https://example.com/a")!
        let data = Data([1, 2, 3])
        let decimal = Decimal(string: "1.25")!
        let huge = UInt64.max
        #expect(try tree(#Predicate { $0.score > 1.5 }) == compare(key("score"), .greaterThan, .constant(.double(1.5))))
        #expect(try tree(#Predicate { $0.small > 1.5 }) == compare(key("small"), .greaterThan, .constant(.double(1.5))))
        #expect(try tree(#Predicate { $0.tiny == -3 }) == compare(key("tiny"), .equalTo, int(-3)))
        #expect(try tree(#Predicate { $0.big < huge }) == compare(key("big"), .lessThan, .constant(.double(Double(huge)))))
        #expect(try tree(#Predicate { $0.price > decimal }) == compare(key("price"), .greaterThan, .constant(.decimal(decimal))))
        #expect(try tree(#Predicate { $0.created! < date }) == compare(key("created"), .lessThan, .constant(.date(date))))
        #expect(try tree(#Predicate { $0.identifier == uuid }) == compare(key("identifier"), .equalTo, .constant(.uuid(uuid))))
        #expect(try tree(#Predicate { $0.link == url }) == compare(key("link"), .equalTo, .constant(.url(url))))
        #expect(try tree(#Predicate { $0.blob == data }) == compare(key("blob"), .equalTo, .constant(.data(data))))
    }

    @Test func capturedObjectsAreComparedByIdentity() throws {
        let owner = TypedOwner()
        owner.name = "Ann"
        let tag = TypedTag()
        #expect(
            try tree(#Predicate { $0.owner == owner })
                == compare(key("owner"), .equalTo, .constant(.object(PredicateObject(owner)))))
        #expect(
            try tree(#Predicate { $0.tags.contains(tag) })
                == compare(key("tags"), .contains, .constant(.object(PredicateObject(tag)))))
        // A property of a captured value is read at translation.
        #expect(try tree(#Predicate { $0.body == owner.name }) == compare(key("body"), .equalTo, string("Ann")))
    }

    @Test func collectionsOfConstantsAreInComparisons() throws {
        let names: Set<String> = ["b", "a"]
        let optionals: [String?] = ["a", nil]
        #expect(
            try tree(#Predicate { [1, 2].contains($0.rank) })
                == compare(key("rank"), .in, .constant(.array([.integer(1), .integer(2)]))))
        #expect(
            try tree(#Predicate { names.contains($0.body) })
                == compare(key("body"), .in, .constant(.set([.string("a"), .string("b")]))))
        #expect(
            try tree(#Predicate { optionals.contains($0.title) })
                == compare(key("title"), .in, .constant(.array([.string("a"), .null]))))
        #expect(try tree(#Predicate { $0.keywords.contains("a") }) == compare(key("keywords"), .contains, string("a")))
    }

    // MARK: Subqueries

    @Test func containsWhereIsASubqueryOfTheWholeClosure() throws {
        let matches = ExpressionNode.subquery(
            collection: key("tags"), variable: "x",
            predicate: .and([
                compare(.member(.variable("x"), "name"), .equalTo, string("a")),
                compare(.member(.variable("x"), "weight"), .greaterThan, int(1)),
            ]))
        #expect(
            try tree(#Predicate { $0.tags.contains { $0.name == "a" && $0.weight > 1 } })
                == compare(count(matches), .greaterThan, int(0)))
    }

    @Test func allSatisfyCountsTheElementsThatFail() throws {
        let failures = ExpressionNode.subquery(
            collection: key("tags"), variable: "x",
            predicate: .not(compare(.member(.variable("x"), "weight"), .greaterThan, int(1))))
        #expect(
            try tree(#Predicate { $0.tags.allSatisfy { $0.weight > 1 } }) == compare(count(failures), .equalTo, int(0)))
    }

    @Test func filterIsASubqueryAndNestedSubqueriesHaveTheirOwnVariables() throws {
        let heavy = ExpressionNode.subquery(
            collection: key("tags"), variable: "x", predicate: compare(.member(.variable("x"), "weight"), .greaterThan, int(1)))
        #expect(
            try tree(#Predicate { $0.tags.filter { $0.weight > 1 }.count > 2 }) == compare(count(heavy), .greaterThan, int(2)))

        let inner = ExpressionNode.subquery(
            collection: .member(.variable("x"), "notes"), variable: "x2",
            predicate: compare(.member(.variable("x2"), "rank"), .equalTo, int(1)))
        let outer = ExpressionNode.subquery(
            collection: key("tags"), variable: "x", predicate: compare(count(inner), .greaterThan, int(0)))
        #expect(
            try tree(#Predicate { $0.tags.contains { $0.notes.contains { $0.rank == 1 } } })
                == compare(count(outer), .greaterThan, int(0)))
    }

    @Test func subqueryClosuresCannotReadTheEnclosingObject() {
        #expect(throws: NSError.self) {
            try tree(#Predicate { note in note.tags.contains { tag in tag.weight > note.rank } })
        }
        #expect(throws: NSError.self) {
            try tree(#Predicate { note in note.tags.allSatisfy { tag in tag.name == note.body } })
        }
    }

    // MARK: Strings

    @Test func stringSearches() throws {
        #expect(try tree(#Predicate { $0.body.contains("ab") }) == compare(key("body"), .contains, string("ab")))
        #expect(try tree(#Predicate { $0.body.starts(with: "ab") }) == compare(key("body"), .beginsWith, string("ab")))
    }

    // MARK: Arithmetic and conditionals

    @Test func arithmeticUsesTheFunctionsOfFormatStrings() throws {
        #expect(
            try tree(#Predicate { $0.rank + 1 > $0.rank * 2 })
                == compare(
                    .function("add:to:", [key("rank"), int(1)]), .greaterThan, .function("multiply:by:", [key("rank"), int(2)])))
        #expect(
            try tree(#Predicate { $0.rank - 1 == 0 })
                == compare(.function("from:subtract:", [key("rank"), int(1)]), .equalTo, int(0)))
        #expect(
            try tree(#Predicate { $0.score / 2 == 1 })
                == compare(.function("divide:by:", [key("score"), .constant(.double(2))]), .equalTo, .constant(.double(1))))
        #expect(
            try tree(#Predicate { $0.rank / 2 == 1 })
                == compare(.function("trunc:", [.function("divide:by:", [key("rank"), int(2)])]), .equalTo, int(1)))
        #expect(
            try tree(#Predicate { $0.rank % 2 == 1 })
                == compare(.function("modulus:by:", [key("rank"), int(2)]), .equalTo, int(1)))
        #expect(
            try tree(#Predicate { -$0.rank == 1 })
                == compare(.function("from:subtract:", [int(0), key("rank")]), .equalTo, int(1)))
    }

    @Test func conditionals() throws {
        let test = compare(key("rank"), .greaterThan, int(2))
        #expect(
            try tree(#Predicate { ($0.rank > 2 ? $0.rank : 0) == 3 })
                == compare(.conditional(test, key("rank"), int(0)), .equalTo, int(3)))
        let flag = compare(key("flag"), .equalTo, yes)
        #expect(
            try tree(#Predicate { $0.flag ? $0.rank > 2 : $0.score < 1 })
                == .or([.and([flag, test]), .and([.not(flag), compare(key("score"), .lessThan, .constant(.double(1)))])]))
    }

    // MARK: Nil coalescing

    @Test func nilCoalescingIsExpandedIntoComparisons() throws {
        // The default cannot equal "x", so nil titles never match: a plain comparison.
        #expect(try tree(#Predicate { ($0.title ?? "") == "x" }) == compare(key("title"), .equalTo, string("x")))
        #expect(
            try tree(#Predicate { ($0.title ?? "") == "" })
                == .or([compare(key("title"), .equalTo, null), compare(key("title"), .equalTo, string(""))]))
        #expect(
            try tree(#Predicate { ($0.title ?? "") != "x" })
                == .or([compare(key("title"), .equalTo, null), compare(key("title"), .notEqualTo, string("x"))]))
        #expect(
            try tree(#Predicate { ($0.title ?? "") < $0.body })
                == .or([
                    .and([compare(key("title"), .notEqualTo, null), compare(key("title"), .lessThan, key("body"))]),
                    .and([compare(key("title"), .equalTo, null), compare(string(""), .lessThan, key("body"))]),
                ]))
    }

    @Test func nilCoalescingInMembershipTests() throws {
        #expect(
            try tree(#Predicate { [1, 2].contains($0.level ?? 0) })
                == .and([
                    compare(key("level"), .notEqualTo, null),
                    compare(key("level"), .in, .constant(.array([.integer(1), .integer(2)]))),
                ]))
        #expect(
            try tree(#Predicate { [0, 2].contains($0.level ?? 0) })
                == .or([
                    compare(key("level"), .equalTo, null),
                    compare(key("level"), .in, .constant(.array([.integer(0), .integer(2)]))),
                ]))
    }

    @Test func nilCoalescingInsideAnExpressionIsATernary() throws {
        let coalesced = ExpressionNode.conditional(
            compare(key("owner.age"), .notEqualTo, null), key("owner.age"), int(0))
        #expect(
            try tree(#Predicate { ($0.owner?.age ?? 0) + 1 > 2 })
                == compare(.function("add:to:", [coalesced, int(1)]), .greaterThan, int(2)))
    }

    @Test func testsThroughOptionalChainsAreNilWhenTheChainBreaks() throws {
        let empty = compare(key("owner.name"), .equalTo, string(""))
        #expect(
            try tree(#Predicate { $0.owner?.name.isEmpty ?? true }) == .or([compare(key("owner"), .equalTo, null), empty]))
        #expect(
            try tree(#Predicate { $0.owner?.name.isEmpty == false })
                == .and([compare(key("owner"), .notEqualTo, null), .not(empty)]))
    }

    // MARK: Ranges

    @Test func rangesAreBetweenOrTwoComparisons() throws {
        let bounds = 1...3
        #expect(
            try tree(#Predicate { (1...5).contains($0.rank) }) == compare(key("rank"), .between, .aggregate([int(1), int(5)])))
        #expect(
            try tree(#Predicate { bounds.contains($0.rank) }) == compare(key("rank"), .between, .aggregate([int(1), int(3)])))
        #expect(
            try tree(#Predicate { (1..<5).contains($0.rank) })
                == .and([compare(key("rank"), .greaterThanOrEqualTo, int(1)), compare(key("rank"), .lessThan, int(5))]))
    }

    // MARK: Same trees as format strings

    @Test func typedPredicatesGiveTheTreesOfTheirFormatStrings() throws {
        func parsed(_ format: String) throws -> PredicateNode { try PredicateParser.parsePredicate(format, arguments: []) }
        #expect(try tree(#Predicate { $0.rank > 2 && $0.title == "a" }) == parsed("rank > 2 AND title == 'a'"))
        #expect(
            try tree(#Predicate { $0.owner?.name == "x" || $0.tags.count > 1 }) == parsed("owner.name == 'x' OR tags.@count > 1"))
        #expect(
            try tree(#Predicate { $0.tags.contains { $0.name == "a" && $0.weight > 1 } })
                == parsed("SUBQUERY(tags, $x, $x.name == 'a' AND $x.weight > 1).@count > 0"))
        #expect(try tree(#Predicate { -$0.rank < 1 }) == parsed("-rank < 1"))
        #expect(try tree(#Predicate { (1...5).contains($0.rank) }) == parsed("rank BETWEEN {1, 5}"))
        #expect(try tree(#Predicate { $0.body.starts(with: "a") }) == parsed("body BEGINSWITH 'a'"))
    }

    // MARK: Unsupported forms

    @Test func unsupportedExpressionsThrowNamingTheirType() {
        let names = ["a"]
        let tag = TypedTag()
        expectUnsupported(#Predicate { $0.attributes[$0.body] == "x" }, naming: "DictionaryKeySubscript")
        expectUnsupported(#Predicate { names[0] == $0.body }, naming: "CollectionIndexSubscript")
        expectUnsupported(#Predicate { $0.list.max() == $0.title }, naming: "SequenceMaximum")
        expectUnsupported(#Predicate { $0.list.min() == $0.title }, naming: "SequenceMinimum")
        expectUnsupported(#Predicate { $0.body.contains(#/ab+/#) }, naming: "StringContainsRegex")
        expectUnsupported(#Predicate { $0.list.contains(["a", "b"]) }, naming: "CollectionContainsCollection")
        expectUnsupported(#Predicate { $0.tags.starts(with: [tag]) }, naming: "SequenceStartsWith")
    }

    // MARK: Sort descriptors

    @Test func sortDescriptorsGiveKeysDirectionsAndComparisons() throws {
        let keys = try FoundationPredicateTranslation.sortKeys(from: [
            SortDescriptor(\TypedNote.rank),
            SortDescriptor(\TypedNote.title, order: .reverse),
            SortDescriptor(\TypedNote.owner?.name),
            SortDescriptor(\TypedNote.body, comparator: .lexical, order: .reverse),
        ])
        #expect(keys.map(\.key) == ["rank", "title", "owner.name", "body"])
        #expect(keys.map(\.ascending) == [true, false, true, false])
        #expect(keys.map(\.comparison) == [.compare, .compare, .compare, .compare])
        #expect(try FoundationPredicateTranslation.sortKeys(from: [SortDescriptor<TypedNote>]()).isEmpty)
    }

    @Test func sortDescriptorsOfNamedAndUnnamedKeyPaths() throws {
        let named = try FoundationPredicateTranslation.sortKeys(from: [SortDescriptor(\NamedNote.heading)])
        #expect(named.map(\.key) == ["heading"])
        #if !canImport(Darwin)
            #expect(throws: NSError.self) {
                try FoundationPredicateTranslation.sortKeys(from: [SortDescriptor(\TypedNote.summary)])
            }
        #endif
    }

    @Test func keyPathDescriptionsGivePropertyPaths() {
        let root = TypedNote.self
        #expect(FoundationPredicateKeyPaths.path(fromDescription: "\\TypedNote.title", rootType: root) == "title")
        #expect(FoundationPredicateKeyPaths.path(fromDescription: "\\TypedNote.owner?.name?", rootType: root) == "owner.name")
        #expect(FoundationPredicateKeyPaths.path(fromDescription: "\\TypedNote.owner!.name", rootType: root) == "owner.name")
        #expect(FoundationPredicateKeyPaths.path(fromDescription: "\\Box<Int>.value", rootType: root) == "value")
        #expect(FoundationPredicateKeyPaths.path(fromDescription: "\\TypedNote.<computed 0x1 (Int)>", rootType: root) == nil)
        #expect(FoundationPredicateKeyPaths.path(fromDescription: "TypedNote.title", rootType: root) == nil)
    }
}
