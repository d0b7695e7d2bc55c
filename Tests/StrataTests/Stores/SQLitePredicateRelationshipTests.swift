import Foundation
import GRDB
import Testing

@testable import Strata

private typealias P = SQLPredicate

/// Key paths through relationships compiled to SQL: to-one joins, `ANY`/`ALL`/`NONE` as
/// `EXISTS`, `@count` and the other collection operators, `SUBQUERY`, objects, entities.
@Suite struct SQLitePredicateRelationshipTests {
    let library: PredicateSQLLibrary
    init() throws { library = try PredicateSQLLibrary() }

    private func book(_ title: String) -> NSManagedObject { library.books[title]! }
    private func author(_ name: String) -> NSManagedObject { library.authors[name]! }
    private func tag(_ name: String) -> NSManagedObject { library.tags[name]! }

    @Test func toOneKeyPathsJoinOncePerPrefix() throws {
        let ada = P.compare("author.name", .equalTo, .string("Ada"))
        try library.expect(ada, ["Café Society", "Über Alles"])
        let query = try library.compile(ada)
        #expect(query.joins == ["LEFT JOIN ZAUTHOR t1 ON t1.Z_PK = t0.ZAUTHOR"])
        #expect(query.whereClause == "t1.ZNAME = ?")
        let penguin = P.compare("author.publisher.name", .equalTo, .string("Penguin"))
        try library.expect(penguin, ["Café Society", "Über Alles", "file10", "File2"])
        let both = PredicateNode.and([P.compare("author.name", .notEqualTo, .string("Ada")), penguin])
        try library.expect(both, ["file10", "File2"])
        let joins = try library.compile(both).joins
        #expect(
            joins == [
                "LEFT JOIN ZAUTHOR t1 ON t1.Z_PK = t0.ZAUTHOR", "LEFT JOIN ZPUBLISHER t2 ON t2.Z_PK = t1.ZPUBLISHER",
            ])
        try library.expect(P.compare("author.name", .equalTo, .null), ["x' OR 1=1 --", "straße"])
        try library.expect(P.compare("author.publisher", .equalTo, .null), ["Гарри Поттер", "x' OR 1=1 --", "straße"])
        try library.expect(
            P.compare("author.name", .beginsWith, .string("e"), .direct, [.caseInsensitive, .diacriticInsensitive]),
            ["file10", "File2"])
        // The subentity's attribute, and a to-one of the chapters' side.
        try library.expect(P.compare("genre", .equalTo, .string("sf")), ["file10"])
        #expect(try library.keys(P.compare("book.author.name", .equalTo, .string("Ada")), entity: "Chapter").count == 3)
        #expect(
            try library.keys(P.compare("book.title", .equalTo, .string("Über Alles")), entity: "Chapter").count == 1)
    }

    @Test func objectsAndObjectIDs() throws {
        try library.expect(
            P.compare(P.key("author"), .equalTo, P.object(author("Ada"))), ["Café Society", "Über Alles"])
        try library.expect(
            P.compare(P.key("author"), .equalTo, P.object(author("Ada").objectID)), ["Café Society", "Über Alles"])
        #expect(
            try library.compile(P.compare(P.key("author"), .equalTo, P.object(author("Ada")))).whereClause
                == "t0.ZAUTHOR = ?")
        try library.expect(
            P.compare(P.key("author"), .notEqualTo, P.object(author("Ada"))),
            ["Гарри Поттер", "x' OR 1=1 --", "file10", "File2", "straße"])
        try library.expect(
            P.compare(
                P.key("author"), .in,
                P.objects([author("Ada"), author("Grace")])),
            ["Café Society", "Über Alles", "Гарри Поттер"])
        try library.expect(
            P.compare(P.key("author"), .in, P.value(.set([.object(PredicateObject(author("Ada"))), .null]))),
            ["Café Society", "Über Alles", "x' OR 1=1 --", "straße"])
        try library.expect(P.compare(P.key("author"), .equalTo, P.value(.null)), ["x' OR 1=1 --", "straße"])
        try library.expect(P.compare(.evaluatedObject, .equalTo, P.object(book("Гарри Поттер"))), ["Гарри Поттер"])
        #expect(
            try library.compile(P.compare(.evaluatedObject, .equalTo, P.object(book("File2")))).whereClause
                == "t0.Z_PK = ?")
        try library.expect(
            P.compare(.evaluatedObject, .in, P.objects([book("Café Society"), book("file10")])),
            ["Café Society", "file10"])
        try library.expect(P.compare(P.key("objectID"), .equalTo, P.object(book("straße").objectID)), ["straße"])
        let penguin = try #require(
            library.context.performAndWait { author("Ada").value(forKey: "publisher") as? NSManagedObject })
        try library.expect(
            P.compare(P.key("author.publisher"), .equalTo, P.object(penguin)),
            ["Café Society", "Über Alles", "file10", "File2"])
        // An object of another hierarchy, and a temporary object, match nothing.
        try library.expect(P.compare(P.key("author"), .equalTo, P.object(tag("drama"))), [])
        let unsaved = library.context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Author", into: library.context)
        }
        try library.expect(P.compare(P.key("author"), .equalTo, P.object(unsaved)), [])
        try library.expect(P.compare(P.key("author"), .notEqualTo, P.object(unsaved)), PredicateSQLLibrary.allTitles)
        try library.expect(P.compare(.evaluatedObject, .equalTo, P.object(unsaved.objectID)), [])
    }

    @Test func entityComparisons() throws {
        let novel = try #require(library.model.entitiesByName["Novel"])
        let bookEntity = try #require(library.model.entitiesByName["Book"])
        try library.expect(P.compare(P.key("entity"), .equalTo, P.object(novel)), ["file10", "File2"])
        try library.expect(P.compare(P.key("entity"), .equalTo, P.object(bookEntity)), PredicateSQLLibrary.allTitles)
        try library.expect(
            P.compare(P.key("entity"), .notEqualTo, P.object(novel)),
            ["Café Society", "Über Alles", "Гарри Поттер", "x' OR 1=1 --", "straße"])
        try library.expect(
            P.compare(P.key("entity"), .in, P.objects([novel])), ["file10", "File2"])
        let query = try library.compile(P.compare(P.key("entity"), .equalTo, P.object(bookEntity)))
        #expect(query.whereClause == "t0.Z_ENT IN (?, ?)")
        #expect(query.arguments == [2.databaseValue, 3.databaseValue])
    }

    @Test func anyAllAndNoneBecomeExists() throws {
        let fiction = P.compare("tags.name", .equalTo, .string("fiction"), .any)
        try library.expect(fiction, ["Café Society", "Гарри Поттер"])
        let sql = try #require(try library.compile(fiction).whereClause)
        #expect(sql.hasPrefix("EXISTS (SELECT 1 FROM Z_2TAGS j"), "\(sql)")
        try library.expect(.not(fiction), ["Über Alles", "x' OR 1=1 --", "file10", "File2", "straße"])
        // ALL holds for no elements; the nil name of a tag is no element, as in memory.
        try library.expect(
            P.compare("tags.name", .equalTo, .string("fiction"), .all),
            ["Гарри Поттер", "x' OR 1=1 --", "File2", "straße"])
        try library.expect(P.compare("tags.name", .equalTo, .null, .any), [])
        try library.expect(
            P.compare("tags.name", .beginsWith, .string("F"), .any, .caseInsensitive), ["Café Society", "Гарри Поттер"])
        try library.expect(
            P.compare("tags.name", .in, .array([.string("drama"), .string("history")]), .any),
            ["Café Society", "Über Alles", "file10"])
        // One-to-many through the inverse foreign key, and to-many without inverse (hidden column).
        try library.expect(P.compare("chapters.words", .greaterThan, .integer(200), .any), ["Café Society"])
        try library.expect(
            P.compare("chapters.words", .greaterThan, .integer(60), .all),
            ["Café Society", "Гарри Поттер", "x' OR 1=1 --", "file10", "File2", "straße"])
        try library.expect(P.compare("related.title", .equalTo, .string("Café Society"), .any), ["file10"])
        // Through a to-one first, and through two to-manys.
        try library.expect(
            P.compare("author.books.title", .equalTo, .string("Über Alles"), .any), ["Café Society", "Über Alles"])
        try library.expect(
            P.compare("tags.books.author.name", .equalTo, .string("Grace"), .any), ["Café Society", "Гарри Поттер"])
        // Objects in a to-many.
        try library.expect(
            P.compare(P.key("tags"), .equalTo, P.object(tag("drama")), .any), ["Café Society", "file10"])
        try library.expect(P.compare(P.object(tag("fiction")), .in, P.key("tags")), ["Café Society", "Гарри Поттер"])
        try library.expect(P.compare(P.key("tags"), .contains, P.object(tag("drama"))), ["Café Society", "file10"])
        try library.expect(P.compare(P.value(.string("history")), .in, P.key("tags.name")), ["Über Alles"])
        // ANY and ALL of a single value: its only element, none when nil.
        try library.expect(P.compare("title", .equalTo, .string("File2"), .any), ["File2"])
        try library.expect(
            P.compare("subtitle", .equalTo, .string("A novel"), .all),
            ["Café Society", "Über Alles", "x' OR 1=1 --", "file10", "File2"])
    }

    @Test func countsAndSubqueries() throws {
        try library.expect(P.compare("tags.@count", .equalTo, .integer(2)), ["Café Society", "Über Alles"])
        try library.expect(P.compare("tags.@count", .equalTo, .integer(0)), ["x' OR 1=1 --", "File2", "straße"])
        let count = try #require(try library.compile(P.compare("tags.@count", .equalTo, .integer(0))).whereClause)
        #expect(count.hasPrefix("(SELECT COUNT(*) FROM Z_2TAGS j"), "\(count)")
        try library.expect(
            P.compare("chapters.@count", .equalTo, .integer(0)),
            ["Гарри Поттер", "x' OR 1=1 --", "file10", "File2", "straße"])
        try library.expect(P.compare("related.@count", .greaterThan, .integer(0)), ["file10"])
        try library.expect(
            P.compare("author.books.@count", .equalTo, .integer(2)), ["Café Society", "Über Alles", "file10", "File2"])
        // A missing author has no count.
        try library.expect(P.compare("author.books.@count", .lessThan, .integer(2)), ["Гарри Поттер"])
        try library.expect(
            P.compare(.index(P.key("tags"), .size), .equalTo, P.value(.integer(1))), ["Гарри Поттер", "file10"])
        try library.expect(
            P.compare(.function("count:", [P.key("tags")]), .equalTo, P.value(.integer(1))), ["Гарри Поттер", "file10"])

        func subquery(
            _ collection: String, _ variable: String, _ predicate: PredicateNode, _ path: String = "@count"
        ) -> ExpressionNode {
            .member(.subquery(collection: P.key(collection), variable: variable, predicate: predicate), path)
        }
        let startsWithF = P.compare(.member(.variable("t"), "name"), .beginsWith, P.value(.string("f")))
        try library.expect(
            P.compare(subquery("tags", "t", startsWithF), .greaterThan, P.value(.integer(0))),
            ["Café Society", "Гарри Поттер"])
        let long = P.compare(.member(.variable("c"), "words"), .greaterThan, P.value(.integer(60)))
        try library.expect(P.compare(subquery("chapters", "c", long), .equalTo, P.value(.integer(2))), ["Café Society"])
        try library.expect(
            P.compare(subquery("chapters", "c", long), .equalTo, P.value(.integer(0))),
            ["Über Alles", "Гарри Поттер", "x' OR 1=1 --", "file10", "File2", "straße"])
        try library.expect(
            P.compare(subquery("chapters", "c", long, "@sum.words"), .equalTo, P.value(.integer(400))), ["Café Society"]
        )
        // A bare key path in a SUBQUERY reads the element.
        try library.expect(
            P.compare(
                subquery("tags", "t", P.compare("name", .equalTo, .string("drama"))), .equalTo, P.value(.integer(1))),
            ["Café Society", "file10"])
        let grace = P.compare(.member(.variable("t"), "books.author.name"), .equalTo, P.value(.string("Grace")), .any)
        try library.expect(
            P.compare(subquery("tags", "t", grace), .greaterThan, P.value(.integer(0))),
            ["Café Society", "Гарри Поттер"])
        let thick = P.compare(
            .member(
                .subquery(
                    collection: .member(.variable("t"), "books"), variable: "b",
                    predicate: P.compare(.member(.variable("b"), "pages"), .greaterThan, P.value(.integer(400)))),
                "@count"),
            .greaterThan, P.value(.integer(0)))
        try library.expect(
            P.compare(subquery("tags", "t", thick), .greaterThan, P.value(.integer(0))),
            ["Café Society", "Гарри Поттер"])
        // The SUBQUERY of a missing author's books is empty: its count is 0.
        let longBooks = P.compare(.member(.variable("b"), "pages"), .greaterThan, P.value(.integer(100)))
        try library.expect(
            P.compare(subquery("author.books", "b", longBooks), .equalTo, P.value(.integer(2))),
            ["Café Society", "Über Alles"])
        try library.expect(
            P.compare(subquery("author.books", "b", longBooks), .equalTo, P.value(.integer(0))),
            ["x' OR 1=1 --", "file10", "File2", "straße"])
    }

    @Test func collectionOperators() throws {
        try library.expect(P.compare("chapters.@sum.words", .equalTo, .integer(400)), ["Café Society"])
        try library.expect(P.compare("@sum.chapters.words", .equalTo, .integer(400)), ["Café Society"])
        try library.expect(
            P.compare("chapters.@sum.words", .equalTo, .integer(0)),
            ["Гарри Поттер", "x' OR 1=1 --", "file10", "File2", "straße"])
        try library.expect(P.compare("chapters.@avg.words", .equalTo, .integer(200)), ["Café Society"])
        try library.expect(
            P.compare("chapters.@avg.words", .equalTo, .null),
            ["Гарри Поттер", "x' OR 1=1 --", "file10", "File2", "straße"])
        try library.expect(P.compare("chapters.@min.words", .equalTo, .integer(50)), ["Über Alles"])
        try library.expect(P.compare("chapters.@max.words", .equalTo, .integer(300)), ["Café Society"])
        try library.expect(
            P.compare("author.books.@sum.pages", .equalTo, .integer(420)), ["Café Society", "Über Alles"])
        try library.expect(P.compare("author.books.@max.pages", .equalTo, .integer(10)), ["file10", "File2"])
        try library.expect(
            P.compare(.function("sum:", [P.key("chapters.words")]), .equalTo, P.value(.integer(400))), ["Café Society"])
        try library.expect(
            P.compare(.function("max:", [P.key("chapters.words")]), .equalTo, P.value(.integer(50))), ["Über Alles"])
        try library.expect(P.compare("tags.@max.name", .equalTo, .string("history")), ["Über Alles"])
    }

    @Test func sortKeysThroughToOneJoins() throws {
        let sort = [
            FetchPlan.SortKey(key: "author.name", ascending: true), FetchPlan.SortKey(key: "title", ascending: true),
        ]
        let query = try library.compile(nil, sort: sort)
        #expect(query.joins == ["LEFT JOIN ZAUTHOR t1 ON t1.Z_PK = t0.ZAUTHOR"])
        #expect(query.orderBy == ["t1.ZNAME ASC", "t0.ZTITLE ASC"])
        #expect(
            try library.titles(nil, sort: sort) == [
                "straße", "x' OR 1=1 --", "Café Society", "Über Alles", "Гарри Поттер", "File2", "file10",
            ])
        // The join of a predicate and of a sort key is shared.
        let shared = try library.compile(P.compare("author.name", .notEqualTo, .null), sort: sort)
        #expect(shared.joins.count == 1)
        #expect(
            try library.titles(
                P.compare("author.name", .notEqualTo, .null),
                sort: [sort[0], FetchPlan.SortKey(key: "pages", ascending: false)])
                == ["Über Alles", "Café Society", "Гарри Поттер", "file10", "File2"])
        let toMany = library.compileError(nil, sort: [FetchPlan.SortKey(key: "tags.name", ascending: true)])
        #expect(toMany?.code == NSCoreDataError)
        let unknown = library.compileError(nil, sort: [FetchPlan.SortKey(key: "nothing", ascending: true)])
        #expect(unknown?.localizedDescription.contains("nothing") == true)
    }
}
