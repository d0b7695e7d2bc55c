import Foundation
import GRDB
import Testing

@testable import Strata

private typealias P = SQLPredicate

extension PredicateSQLLibrary {
    /// Runs the predicate and checks that it selects exactly the Z_PKs of the books with
    /// these titles, each once.
    func expect(
        _ predicate: PredicateNode, _ expected: Set<String>, entity: String = "Book",
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let found = try keys(predicate, entity: entity)
        #expect(found.count == Set(found).count, "rows repeat", sourceLocation: sourceLocation)
        #expect(
            Set(found) == keys(of: expected),
            "selected \(found.map { titles[$0] ?? "?" }.sorted()), expected \(expected.sorted())",
            sourceLocation: sourceLocation)
    }

    /// The error the compilation of the predicate (or sort keys) throws.
    func compileError(_ predicate: PredicateNode?, sort: [FetchPlan.SortKey] = []) -> NSError? {
        do {
            _ = try compile(predicate, sort: sort)
            return nil
        } catch {
            return error as NSError
        }
    }
}

/// Comparisons of attributes compiled to SQL and run on a real store: each test checks the
/// exact rows selected.
@Suite struct SQLitePredicateCompilerTests {
    let library: PredicateSQLLibrary
    init() throws { library = try PredicateSQLLibrary() }

    @Test func plainEqualityStaysAColumnComparisonAndUsesTheFetchIndex() throws {
        let predicate = P.compare("title", .equalTo, .string("Café Society"))
        let query = try library.compile(predicate)
        #expect(query.whereClause == "t0.ZTITLE = ?")
        #expect(query.arguments == ["Café Society".databaseValue])
        #expect(query.joins.isEmpty)
        try library.expect(predicate, ["Café Society"])
        let plan = try library.queryPlan(predicate)
        #expect(plan.contains("USING INDEX Z_Book_byTitle (ZTITLE=?)"), "\(plan)")
    }

    @Test func nilAndNullSafeInequality() throws {
        try library.expect(P.compare("subtitle", .equalTo, .null), ["Über Alles", "x' OR 1=1 --", "file10", "File2"])
        try library.expect(P.compare("subtitle", .notEqualTo, .null), ["Café Society", "Гарри Поттер", "straße"])
        // nil != "A novel" is true, as in memory.
        try library.expect(
            P.compare("subtitle", .notEqualTo, .string("A novel")),
            PredicateSQLLibrary.allTitles.subtracting(["Café Society"]))
        #expect(
            try library.compile(P.compare("subtitle", .notEqualTo, .string("x"))).whereClause == "t0.ZSUBTITLE IS NOT ?"
        )
        #expect(try library.compile(P.compare("subtitle", .equalTo, .null)).whereClause == "t0.ZSUBTITLE IS NULL")
    }

    @Test func orderingComparisonsNeverMatchNull() throws {
        try library.expect(
            P.compare("pages", .greaterThan, .integer(100)), ["Café Society", "Über Alles", "Гарри Поттер"])
        try library.expect(P.compare("pages", .lessThanOrEqualTo, .integer(10)), ["file10", "File2"])
        try library.expect(P.compare("pages", .lessThan, .null), [])
        // NOT of a comparison with NULL is true, as the in-memory evaluator answers.
        try library.expect(
            .not(P.compare("pages", .greaterThan, .integer(100))), ["x' OR 1=1 --", "file10", "File2", "straße"])
        try library.expect(P.compare("pages", .greaterThanOrEqualTo, .double(300)), ["Über Alles", "Гарри Поттер"])
    }

    @Test func inListsAndBetween() throws {
        try library.expect(P.compare("pages", .in, .array([.integer(10), .integer(42)])), ["file10", "straße"])
        try library.expect(P.compare("pages", .in, .set([.integer(2)])), ["File2"])
        try library.expect(P.compare("pages", .in, .array([])), [])
        #expect(try library.compile(P.compare("pages", .in, .array([]))).whereClause == "0")
        try library.expect(P.compare("pages", .in, .array([.null, .integer(2)])), ["x' OR 1=1 --", "File2"])
        try library.expect(
            P.compare(P.key("pages"), .in, .aggregate([P.value(.integer(120)), P.value(.integer(500))])),
            ["Café Society", "Гарри Поттер"])
        try library.expect(
            P.compare("pages", .between, .array([.integer(10), .integer(300)])),
            ["Café Society", "Über Alles", "file10", "straße"])
        try library.expect(
            P.compare(P.key("pages"), .between, .aggregate([P.value(.integer(2)), P.value(.integer(10))])),
            ["file10", "File2"])
        try library.expect(
            P.compare("title", .in, .array([.string("FILE2"), .string("STRASSE")]), .direct, .caseInsensitive),
            ["File2", "straße"])
        // `x IN "text"`: a substring test.
        try library.expect(P.compare(P.value(.string("Society")), .in, P.key("title")), ["Café Society"])
        #expect(
            try library.compile(P.compare("pages", .in, .array([.integer(1), .integer(2)]))).whereClause
                == "t0.ZPAGES IN (?, ?)")
    }

    @Test func stringOperatorsWithOptions() throws {
        try library.expect(
            P.compare("title", .contains, .string("CAFE"), .direct, [.caseInsensitive, .diacriticInsensitive]),
            ["Café Society"])
        try library.expect(P.compare("title", .contains, .string("CAFE"), .direct, .caseInsensitive), [])
        try library.expect(
            P.compare("title", .contains, .string("Cafe"), .direct, .diacriticInsensitive), ["Café Society"])
        try library.expect(P.compare("title", .contains, .string("Café")), ["Café Society"])
        try library.expect(
            P.compare("title", .beginsWith, .string("гарри"), .direct, .caseInsensitive), ["Гарри Поттер"])
        try library.expect(P.compare("title", .beginsWith, .string("гарри")), [])
        try library.expect(P.compare("title", .endsWith, .string("--")), ["x' OR 1=1 --"])
        try library.expect(P.compare("title", .like, .string("file*")), ["file10"])
        try library.expect(P.compare("title", .like, .string("file?"), .direct, .caseInsensitive), ["File2"])
        try library.expect(
            P.compare("title", .like, .string("*e*"), .direct, .caseInsensitive),
            ["Café Society", "Über Alles", "file10", "File2", "straße"])
        try library.expect(P.compare("title", .matches, .string("F.*[0-9]")), ["File2"])
        try library.expect(
            P.compare("title", .matches, .string("f.*"), .direct, .caseInsensitive), ["file10", "File2"])
        try library.expect(
            P.compare("title", .equalTo, .string("uber alles"), .direct, [.caseInsensitive, .diacriticInsensitive]),
            ["Über Alles"])
        try library.expect(P.compare("title", .equalTo, .string("STRASSE"), .direct, .caseInsensitive), ["straße"])
        try library.expect(
            P.compare("title", .notEqualTo, .string("FILE2"), .direct, .caseInsensitive),
            PredicateSQLLibrary.allTitles.subtracting(["File2"]))
        try library.expect(
            P.compare("subtitle", .contains, .string("НИГ"), .direct, .caseInsensitive), ["Гарри Поттер"])
        // Options make ordering comparisons compare folded strings.
        try library.expect(
            P.compare("title", .lessThan, .string("FILE3"), .direct, .caseInsensitive),
            ["Café Society", "file10", "File2"])
        // `[n]` compares as given.
        try library.expect(P.compare("title", .equalTo, .string("file2"), .direct, .normalized), [])
    }

    @Test func twoAttributesCompare() throws {
        try library.expect(
            P.compare(P.key("title"), .equalTo, P.key("subtitle"), .direct, .caseInsensitive), ["straße"])
        try library.expect(P.compare(P.key("title"), .equalTo, P.key("subtitle")), [])
        try library.expect(P.compare(P.key("pages"), .greaterThan, P.key("price")), ["Café Society", "Über Alles"])
        // nil == nil between two attributes.
        try library.expect(
            P.compare(P.key("price"), .equalTo, P.key("budget")),
            ["Гарри Поттер", "x' OR 1=1 --", "file10", "File2", "straße"])
    }

    @Test func valuesAreEncodedAsTheColumnsStoreThem() throws {
        let reference = Date(timeIntervalSinceReferenceDate: 0)
        try library.expect(
            P.compare("published", .equalTo, .date(reference.addingTimeInterval(1000 * PredicateSQLLibrary.day))),
            ["Café Society"])
        try library.expect(
            P.compare("published", .greaterThan, .date(reference.addingTimeInterval(1500 * PredicateSQLLibrary.day))),
            ["Über Alles"])
        try library.expect(P.compare("isbn", .equalTo, .uuid(PredicateSQLLibrary.isbn)), ["Café Society"])
        try library.expect(P.compare("isbn", .equalTo, .uuid(UUID())), [])
        try library.expect(
            P.compare("site", .equalTo, .url(URL(string: "https://example.org/cafe")!)), ["Café Society"])
        try library.expect(P.compare("available", .equalTo, .bool(true)), ["Café Society", "Гарри Поттер"])
        try library.expect(P.compare("available", .equalTo, .bool(false)), ["Über Alles", "x' OR 1=1 --"])
        try library.expect(P.compare("budget", .equalTo, .decimal(Decimal(string: "1234.56")!)), ["Café Society"])
        try library.expect(P.compare("budget", .greaterThan, .decimal(100)), ["Café Society"])
        try library.expect(P.compare("budget", .lessThan, .integer(100)), ["Über Alles"])
        try library.expect(P.compare("cover", .equalTo, .data(Data([1, 2, 3]))), ["Café Society"])
        try library.expect(P.compare("price", .equalTo, .double(9.5)), ["Café Society"])
        try library.expect(P.compare("price", .equalTo, .integer(20)), ["Über Alles"])
        try library.expect(P.compare("pages", .equalTo, .double(2.5)), [])
    }

    @Test func valuesCannotInjectSQL() throws {
        let injection = P.compare("title", .equalTo, .string("x' OR 1=1 --"))
        try library.expect(injection, ["x' OR 1=1 --"])
        #expect(try library.compile(injection).whereClause?.contains("OR 1=1") == false)
        try library.expect(P.compare("title", .equalTo, .string("nothing' OR '1'='1")), [])
        try library.expect(P.compare("title", .contains, .string("'); DROP TABLE ZBOOK; --")), [])
        try library.expect(P.compare("title", .matches, .string("(")), [])
        #expect(try library.keys(nil).count == 7)
    }

    @Test func keyPathsCannotInjectSQL() throws {
        let paths = ["title; DROP TABLE ZBOOK", "title = title OR 1", "ZTITLE", "Z_PK", "author.name; --", "title.foo"]
        for path in paths {
            let error = try #require(library.compileError(P.compare(path, .equalTo, .string("x"))), "\(path)")
            #expect(error.domain == NSCocoaErrorDomain)
            #expect(error.code == NSCoreDataError)
            #expect(error.localizedDescription.contains(path), "\(error.localizedDescription)")
        }
        let sortError = try #require(
            library.compileError(nil, sort: [FetchPlan.SortKey(key: "title; DROP TABLE ZBOOK", ascending: true)]))
        #expect(sortError.code == NSCoreDataError)
        #expect(try library.keys(nil).count == 7)
    }

    @Test func unsupportedFormsThrowInsteadOfRunning() throws {
        let cases: [PredicateNode] = [
            P.compare("tags.name", .equalTo, .string("fiction")),  // a to-many without ANY
            P.compare(P.variable("x"), .equalTo, P.value(.integer(1))),  // an unsubstituted variable
            P.compare(P.key("title"), .equalTo, .function("random", [])),
            P.compare(
                P.key("title"), .equalTo,
                .subquery(collection: P.key("tags"), variable: "t", predicate: .constant(true))),
            P.compare("title", .equalTo, .array([.string("a")])),
            P.compare("tags.@distinctUnionOfObjects.name", .equalTo, .string("a")),
            P.compare("author", .lessThan, .null),
        ]
        for predicate in cases {
            let error = library.compileError(predicate)
            #expect(error?.domain == NSCocoaErrorDomain, "\(predicate)")
            #expect(error?.code == NSCoreDataError)
        }
    }

    @Test func constantsAndCompounds() throws {
        try library.expect(.constant(true), PredicateSQLLibrary.allTitles)
        try library.expect(.constant(false), [])
        #expect(try library.compile(.constant(true)).whereClause == "1")
        let short = P.compare("pages", .lessThan, .integer(50))
        let novel = P.compare("genre", .notEqualTo, .null)
        try library.expect(.and([short, novel]), ["file10", "File2"])
        try library.expect(
            .or([short, P.compare("pages", .equalTo, .integer(500))]), ["file10", "File2", "straße", "Гарри Поттер"])
        try library.expect(.and([short, .not(novel)]), ["straße"])
        try library.expect(.not(.or([short, novel])), ["Café Society", "Über Alles", "Гарри Поттер", "x' OR 1=1 --"])
        try library.expect(.and([]), PredicateSQLLibrary.allTitles)
        try library.expect(.or([]), [])
    }

    @Test func functionsAndArithmetic() throws {
        try library.expect(
            P.compare(.function("add:to:", [P.key("pages"), P.value(.integer(10))]), .equalTo, P.value(.integer(52))),
            ["straße"])
        try library.expect(
            P.compare(
                .function("divide:by:", [P.key("pages"), P.value(.integer(4))]), .equalTo, P.value(.double(0.5))),
            ["File2"]
        )
        try library.expect(
            P.compare(
                .function("multiply:by:", [P.key("price"), P.value(.integer(2))]), .equalTo, P.value(.integer(19))),
            ["Café Society"])
        try library.expect(
            P.compare(.function("from:subtract:", [P.key("pages"), P.key("price")]), .equalTo, P.value(.integer(280))),
            ["Über Alles"])
        try library.expect(
            P.compare(
                .function("modulus:by:", [P.key("pages"), P.value(.integer(7))]), .equalTo, P.value(.integer(0))),
            ["straße"])
        try library.expect(P.compare(.function("sqrt:", [P.key("pages")]), .equalTo, P.value(.integer(10))), [])
        try library.expect(
            P.compare(
                .function("abs:", [.function("from:subtract:", [P.value(.integer(0)), P.key("pages")])]), .equalTo,
                P.value(.integer(42))), ["straße"])
        try library.expect(
            P.compare(.function("uppercase:", [P.key("title")]), .equalTo, P.value(.string("FILE2"))), ["File2"])
        try library.expect(
            P.compare(.function("lowercase:", [P.key("title")]), .equalTo, P.value(.string("file2"))), ["File2"])
        try library.expect(
            P.compare(.function("canonical:", [P.key("title")]), .equalTo, P.value(.string("cafe society"))),
            ["Café Society"])
        try library.expect(
            P.compare(.function("length:", [P.key("title")]), .equalTo, P.value(.integer(6))), ["file10", "straße"])
        try library.expect(P.compare("title.length", .equalTo, .integer(5)), ["File2"])
        try library.expect(
            P.compare(P.key("published"), .lessThan, .function("now", [])), ["Café Society", "Über Alles"])
        let now = try library.compile(P.compare(P.key("published"), .lessThan, .function("now", [])))
        #expect(now.whereClause == "t0.ZPUBLISHED < ?")
        let cast = ExpressionNode.function(
            "castObject:toType:", [P.value(.integer(1500 * 86_400)), P.value(.string("NSDate"))])
        try library.expect(P.compare(P.key("published"), .greaterThan, cast), ["Über Alles"])
        let ternary = ExpressionNode.conditional(
            P.compare("pages", .greaterThan, .integer(100)), P.value(.string("long")), P.value(.string("short")))
        try library.expect(
            P.compare(ternary, .equalTo, P.value(.string("long"))), ["Café Society", "Über Alles", "Гарри Поттер"])
    }
}

extension SQLPredicate {
    static func variable(_ name: String) -> ExpressionNode { .variable(name) }
}
