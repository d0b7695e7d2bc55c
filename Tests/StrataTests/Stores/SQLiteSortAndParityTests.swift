import Foundation
import GRDB
import Testing

@testable import Strata

private typealias P = SQLPredicate

/// Sort keys in SQL, the shared sort comparison, and predicates answering the same in SQL
/// as in memory.
@Suite struct SQLiteSortAndParityTests {
    let library: PredicateSQLLibrary
    init() throws { library = try PredicateSQLLibrary() }

    private static let comparisons: [FetchPlan.SortComparison] = [
        .compare, .caseInsensitiveCompare, .localizedCompare, .localizedCaseInsensitiveCompare,
        .localizedStandardCompare,
    ]

    @Test func numbersSortWithNilFirstAscendingAndLastDescending() throws {
        let ascending = try library.titles(nil, sort: [FetchPlan.SortKey(key: "pages", ascending: true)])
        #expect(
            ascending == ["x' OR 1=1 --", "File2", "file10", "straße", "Café Society", "Über Alles", "Гарри Поттер"])
        let descending = try library.titles(nil, sort: [FetchPlan.SortKey(key: "pages", ascending: false)])
        #expect(descending == ascending.reversed())
        #expect(
            try library.compile(nil, sort: [FetchPlan.SortKey(key: "pages", ascending: false)]).orderBy == [
                "t0.ZPAGES DESC"
            ])
    }

    @Test func stringComparisons() throws {
        let folded = FetchPlan.SortKey(key: "title", ascending: true, comparison: .caseInsensitiveCompare)
        #expect(try library.compile(nil, sort: [folded]).orderBy == ["STRATA_FOLD(t0.ZTITLE, 1) ASC"])
        #expect(
            try library.titles(nil, sort: [folded])
                == ["Café Society", "file10", "File2", "straße", "x' OR 1=1 --", "Über Alles", "Гарри Поттер"])
        let standard = FetchPlan.SortKey(key: "title", ascending: true, comparison: .localizedStandardCompare)
        #expect(
            try library.compile(nil, sort: [standard]).orderBy == ["t0.ZTITLE COLLATE STRATA_LOCALIZED_STANDARD ASC"])
        let finder = try library.titles(nil, sort: [standard])
        #expect(finder.firstIndex(of: "File2")! < finder.firstIndex(of: "file10")!)
        #expect(finder.firstIndex(of: "Über Alles")! < finder.firstIndex(of: "x' OR 1=1 --")!)
        #expect(finder.last == "Гарри Поттер")
        let plain = try library.titles(nil, sort: [FetchPlan.SortKey(key: "title", ascending: true)])
        #expect(plain == ["Café Society", "File2", "file10", "straße", "x' OR 1=1 --", "Über Alles", "Гарри Поттер"])
    }

    /// Every comparison, both directions, on strings, numbers and nils: SQL's order is the
    /// order `PredicateSortComparison` gives in memory.
    @Test(arguments: ["title", "pages", "subtitle", "author.name", "published"])
    func sqlOrderIsTheInMemoryOrder(key: String) throws {
        for comparison in Self.comparisons {
            for ascending in [true, false] {
                let sort = [
                    FetchPlan.SortKey(key: key, ascending: ascending, comparison: comparison),
                    FetchPlan.SortKey(key: "title", ascending: true),
                ]
                let sql = try library.titles(nil, sort: sort)
                let values = try library.context.performAndWait {
                    try PredicateSQLLibrary.allTitles.map { title in
                        (title, try #require(library.books[title]).value(forKeyPath: key))
                    }
                }
                let memory = values.sorted { a, b in
                    var order = PredicateSortComparison.compare(a.1, b.1, using: comparison)
                    if !ascending {
                        order =
                            order == .orderedAscending
                            ? .orderedDescending : order == .orderedDescending ? .orderedAscending : order
                    }
                    if order != .orderedSame { return order == .orderedAscending }
                    return PredicateSortComparison.compare(a.0, b.0, using: .compare) == .orderedAscending
                }.map(\.0)
                #expect(sql == memory, "\(key) \(comparison) \(ascending ? "ascending" : "descending")")
            }
        }
    }

    @Test func sortComparisonOfValues() {
        let compare = PredicateSortComparison.compare
        #expect(compare(nil, 1, .compare) == .orderedAscending)
        #expect(compare(1, nil, .compare) == .orderedDescending)
        #expect(compare(nil, NSNull(), .compare) == .orderedSame)
        #expect(compare(2, 2.5, .compare) == .orderedAscending)
        #expect(compare(Int16(3), Int64(3), .compare) == .orderedSame)
        #expect(compare(Decimal(string: "1.5")!, 1, .compare) == .orderedDescending)
        #expect(compare(true, 0, .compare) == .orderedDescending)
        #expect(
            compare(Date(timeIntervalSinceReferenceDate: 5), Date(timeIntervalSinceReferenceDate: 7), .compare)
                == .orderedAscending)
        #expect(compare("B", "a", .compare) == .orderedAscending)
        #expect(compare("B", "a", .caseInsensitiveCompare) == .orderedDescending)
        #expect(compare("Straße", "STRASSE", .caseInsensitiveCompare) == .orderedSame)
        #expect(compare("Straße", "STRASSE", .localizedCaseInsensitiveCompare) == .orderedSame)
        #expect(compare("file2", "File10", .localizedStandardCompare) == .orderedAscending)
        #expect(compare("file10", "file9", .compare) == .orderedAscending)
        #expect(compare("Émile", "Zoe", .localizedStandardCompare) == .orderedAscending)
        #expect(compare("Émile", "Zoe", .compare) == .orderedDescending)
        #expect(compare(URL(string: "https://b.example")!, "https://a.example", .compare) == .orderedDescending)
        // nil, then numbers, then strings, then data, as SQLite orders storage classes.
        #expect(compare(99, "1", .compare) == .orderedAscending)
        #expect(compare("z", Data([0]), .compare) == .orderedAscending)
        #expect(compare(Data([1, 2]), Data([1, 3]), .compare) == .orderedAscending)
    }

    /// Predicates that give the same books in SQL and in the in-memory evaluator.
    @Test func sqlAnswersAsTheEvaluator() throws {
        let ada = try #require(library.authors["Ada"])
        let drama = try #require(library.tags["drama"])
        let long = P.compare(.member(.variable("c"), "words"), .greaterThan, P.value(.integer(60)))
        let titled = P.compare(.member(.variable("c"), "title"), .equalTo, P.value(.string("Three")))
        let predicates: [PredicateNode] = [
            P.compare("title", .equalTo, .string("Café Society")),
            P.compare("subtitle", .notEqualTo, .string("A novel")),
            P.compare("subtitle", .equalTo, .null),
            .not(P.compare("pages", .greaterThan, .integer(100))),
            P.compare("pages", .in, .array([.null, .integer(2), .integer(42)])),
            P.compare("pages", .between, .array([.integer(10), .integer(300)])),
            P.compare("title", .contains, .string("CAFE"), .direct, [.caseInsensitive, .diacriticInsensitive]),
            P.compare("title", .beginsWith, .string("гарри"), .direct, .caseInsensitive),
            P.compare("title", .like, .string("file?"), .direct, .caseInsensitive),
            P.compare("title", .matches, .string("F.*[0-9]")),
            P.compare("title", .equalTo, .string("STRASSE"), .direct, .caseInsensitive),
            P.compare("title", .lessThan, .string("FILE3"), .direct, .caseInsensitive),
            P.compare(P.key("title"), .equalTo, P.key("subtitle"), .direct, .caseInsensitive),
            P.compare(P.key("pages"), .greaterThan, P.key("price")),
            P.compare("isbn", .equalTo, .uuid(PredicateSQLLibrary.isbn)),
            P.compare("site", .equalTo, .url(URL(string: "https://example.org/cafe")!)),
            P.compare("available", .equalTo, .bool(false)),
            P.compare("budget", .greaterThan, .decimal(100)),
            P.compare(
                "published", .greaterThan, .date(Date(timeIntervalSinceReferenceDate: 1500 * PredicateSQLLibrary.day))),
            P.compare("cover", .equalTo, .data(Data([1, 2, 3]))),
            P.compare("author.name", .equalTo, .string("Ada")),
            P.compare("author.publisher.name", .equalTo, .string("Penguin")),
            P.compare("author.name", .equalTo, .null),
            P.compare(P.key("author"), .equalTo, P.object(ada)),
            P.compare(P.key("author"), .notEqualTo, P.object(ada)),
            P.compare("tags.name", .equalTo, .string("fiction"), .any),
            .not(P.compare("tags.name", .equalTo, .string("fiction"), .any)),
            P.compare("tags.name", .equalTo, .string("fiction"), .all),
            P.compare("tags.name", .equalTo, .null, .any),
            P.compare("chapters.words", .greaterThan, .integer(60), .all),
            P.compare("related.title", .equalTo, .string("Café Society"), .any),
            P.compare("author.books.title", .equalTo, .string("Über Alles"), .any),
            P.compare("tags.books.author.name", .equalTo, .string("Grace"), .any),
            P.compare(P.object(drama), .in, P.key("tags")),
            P.compare(P.key("tags"), .contains, P.object(drama)),
            P.compare("subtitle", .equalTo, .string("A novel"), .all),
            P.compare("tags.@count", .equalTo, .integer(2)),
            P.compare("author.books.@count", .lessThan, .integer(2)),
            P.compare("chapters.@sum.words", .equalTo, .integer(0)),
            P.compare("chapters.@avg.words", .equalTo, .null),
            P.compare("chapters.@min.words", .equalTo, .integer(50)),
            P.compare("author.books.@sum.pages", .equalTo, .integer(420)),
            P.compare(
                .member(.subquery(collection: P.key("chapters"), variable: "c", predicate: long), "@count"), .equalTo,
                P.value(.integer(0))),
            P.compare(
                .function("divide:by:", [P.key("pages"), P.value(.integer(4))]), .equalTo, P.value(.double(0.5))),
            P.compare(
                .function("modulus:by:", [P.key("pages"), P.value(.integer(7))]), .equalTo, P.value(.integer(0))),
            P.compare(.function("canonical:", [P.key("title")]), .equalTo, P.value(.string("cafe society"))),
            P.compare(.function("length:", [P.key("title")]), .equalTo, P.value(.integer(6))),
            P.compare(P.key("published"), .lessThan, .function("now", [])),
            // Parameters in joins, subqueries and aggregates, in one predicate.
            .or([
                .and([
                    P.compare("tags.name", .equalTo, .string("drama"), .any), P.compare("pages", .lessThan, .integer(50)),
                ]),
                .and([
                    P.compare("chapters.@sum.words", .equalTo, .integer(400)),
                    P.compare("author.name", .beginsWith, .string("a"), .direct, .caseInsensitive),
                ]),
                P.compare(
                    .member(.subquery(collection: P.key("chapters"), variable: "c", predicate: titled), "@count"), .equalTo,
                    P.value(.integer(1))),
            ]),
        ]
        for predicate in predicates {
            let sql = Set(try library.titles(predicate))
            let memory = library.context.performAndWait {
                Set(
                    PredicateSQLLibrary.allTitles.filter {
                        PredicateEvaluator.evaluate(predicate, with: library.books[$0])
                    })
            }
            #expect(sql == memory, "\(predicate)")
        }
    }
}
