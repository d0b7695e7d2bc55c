import Foundation
import GRDB
import Testing

@testable import Strata

/// A small library in a SQLite store, for running compiled predicates straight through GRDB:
/// books (with a `Novel` subentity), authors, publishers, tags (many-to-many), chapters
/// (one-to-many) and `related` books (a to-many without inverse, stored in a hidden column).
final class PredicateSQLLibrary {
    static let isbn = UUID(uuidString: "30084A1C-76CF-4976-8312-8E8EFCF6F510")!
    static let day: TimeInterval = 86_400

    let folder: URL
    let coordinator: NSPersistentStoreCoordinator
    let context: NSManagedObjectContext
    let store: SQLiteStore
    let model: NSManagedObjectModel
    /// Objects by title (books) or name (authors, tags, publishers).
    private(set) var books: [String: NSManagedObject] = [:]
    private(set) var authors: [String: NSManagedObject] = [:]
    private(set) var tags: [String: NSManagedObject] = [:]
    /// Z_PK ↔ title of every book.
    private(set) var keys: [String: Int64] = [:]
    private(set) var titles: [Int64: String] = [:]

    static func model() -> NSManagedObjectModel {
        NSManagedObjectModel {
            Entity("Author") {
                Attribute("name", .stringAttributeType)
                Relationship("books", to: "Book", inverse: "author", toMany: true)
                Relationship("publisher", to: "Publisher", inverse: "authors")
            }
            Entity("Book") {
                Attribute("title", .stringAttributeType)
                Attribute("subtitle", .stringAttributeType)
                Attribute("pages", .integer32AttributeType)
                Attribute("price", .doubleAttributeType)
                Attribute("budget", .decimalAttributeType)
                Attribute("published", .dateAttributeType)
                Attribute("isbn", .UUIDAttributeType)
                Attribute("site", .URIAttributeType)
                Attribute("available", .booleanAttributeType)
                Attribute("cover", .binaryDataAttributeType) { $0.allowsExternalBinaryDataStorage = true }
                Relationship("author", to: "Author", inverse: "books")
                Relationship("tags", to: "Tag", inverse: "books", toMany: true)
                Relationship("chapters", to: "Chapter", inverse: "book", toMany: true)
                Relationship("related", to: "Book", toMany: true)
                FetchIndex("byTitle", "title")
            }
            Entity("Novel", parent: "Book") {
                Attribute("genre", .stringAttributeType)
            }
            Entity("Chapter") {
                Attribute("title", .stringAttributeType)
                Attribute("words", .integer64AttributeType)
                Relationship("book", to: "Book", inverse: "chapters")
            }
            Entity("Publisher") {
                Attribute("name", .stringAttributeType)
                Relationship("authors", to: "Author", inverse: "publisher", toMany: true)
            }
            Entity("Tag") {
                Attribute("name", .stringAttributeType)
                Relationship("books", to: "Book", inverse: "tags", toMany: true)
            }
        }
    }

    /// The books, by title: author, pages, price, tags, chapters (title, words) and more.
    ///
    /// | title | author | pages | price | tags | chapters |
    /// |---|---|---|---|---|---|
    /// | Café Society | Ada | 120 | 9.5 | fiction, drama | One 100, Two 300 |
    /// | Über Alles | Ada | 300 | 20 | history, (nil) | Three 50 |
    /// | Гарри Поттер | Grace | 500 | nil | fiction | |
    /// | x' OR 1=1 -- | nil | nil | nil | | |
    /// | file10 (Novel, sf) | Émile | 10 | nil | drama | |
    /// | File2 (Novel, romance) | Émile | 2 | nil | | |
    /// | straße | nil | 42 | nil | | |
    static let allTitles: Set<String> = [
        "Café Society", "Über Alles", "Гарри Поттер", "x' OR 1=1 --", "file10", "File2", "straße",
    ]

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "strata-predicate-sql-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        model = Self.model()
        coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let added = try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: folder.appendingPathComponent("Library.sqlite"))
        store = try #require(added as? SQLiteStore)
        context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait { try fill() }
        let (database, _) = try store.openDatabase()
        let rows = try database.read { db in try Row.fetchAll(db, sql: "SELECT Z_PK, ZTITLE FROM ZBOOK") }
        for row in rows {
            let key: Int64 = row[0]
            let title: String = row[1]
            keys[title] = key
            titles[key] = title
        }
    }

    deinit {
        try? coordinator.remove(store)
        try? FileManager.default.removeItem(at: folder)
    }

    private func insert(_ entity: String, _ values: [String: Any]) -> NSManagedObject {
        let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
        for (key, value) in values { object.setValue(value, forKey: key) }
        return object
    }

    private func fill() throws {
        let penguin = insert("Publisher", ["name": "Penguin"])
        authors["Ada"] = insert("Author", ["name": "Ada", "publisher": penguin])
        authors["Grace"] = insert("Author", ["name": "Grace"])
        authors["Émile"] = insert("Author", ["name": "Émile", "publisher": penguin])
        for name in ["fiction", "drama", "history", "unused"] { tags[name] = insert("Tag", ["name": name]) }
        let unnamedTag = insert("Tag", [:])
        let reference = Date(timeIntervalSinceReferenceDate: 0)
        books["Café Society"] = insert(
            "Book",
            [
                "title": "Café Society", "subtitle": "A novel", "pages": Int32(120), "price": 9.5,
                "budget": Decimal(string: "1234.56")!, "published": reference.addingTimeInterval(1000 * Self.day),
                "isbn": Self.isbn, "site": URL(string: "https://example.org/cafe")!, "available": true,
                "cover": Data([1, 2, 3]), "author": authors["Ada"]!,
            ])
        books["Über Alles"] = insert(
            "Book",
            [
                "title": "Über Alles", "pages": Int32(300), "price": 20.0, "budget": Decimal(10),
                "published": reference.addingTimeInterval(2000 * Self.day), "available": false,
                "author": authors["Ada"]!,
            ])
        books["Гарри Поттер"] = insert(
            "Book",
            [
                "title": "Гарри Поттер", "subtitle": "книга", "pages": Int32(500), "available": true,
                "author": authors["Grace"]!,
            ])
        books["x' OR 1=1 --"] = insert("Book", ["title": "x' OR 1=1 --", "available": false])
        books["file10"] = insert(
            "Novel", ["title": "file10", "pages": Int32(10), "genre": "sf", "author": authors["Émile"]!])
        books["File2"] = insert(
            "Novel", ["title": "File2", "pages": Int32(2), "genre": "romance", "author": authors["Émile"]!])
        books["straße"] = insert("Book", ["title": "straße", "subtitle": "STRASSE", "pages": Int32(42)])
        func tag(_ title: String, _ tagged: [NSManagedObject]) {
            books[title]!.mutableSetValue(forKey: "tags").addObjects(from: tagged)
        }
        tag("Café Society", [tags["fiction"]!, tags["drama"]!])
        tag("Über Alles", [tags["history"]!, unnamedTag])
        tag("Гарри Поттер", [tags["fiction"]!])
        tag("file10", [tags["drama"]!])
        for (title, chapter, words) in [
            ("Café Society", "One", 100), ("Café Society", "Two", 300), ("Über Alles", "Three", 50),
        ] {
            let object = insert("Chapter", ["title": chapter, "words": Int64(words)])
            object.setValue(books[title]!, forKey: "book")
        }
        books["file10"]!.mutableSetValue(forKey: "related").addObjects(from: [
            books["Café Society"]!, books["Über Alles"]!,
        ])
        try context.save()
    }

    // MARK: Running compiled queries

    /// The compiled query of a predicate and sort keys on an entity.
    func compile(
        _ predicate: PredicateNode?, entity: String = "Book", sort: [FetchPlan.SortKey] = []
    ) throws -> SQLiteQuery {
        let (_, mapping) = try store.openDatabase()
        let described = try #require(model.entitiesByName[entity])
        return try SQLitePredicateCompiler.compile(
            predicate: predicate, sortKeys: sort, entity: described, mapping: mapping)
    }

    /// `SELECT t0.Z_PK FROM <table> t0 <joins> WHERE <where> ORDER BY <order>` of the query.
    func sql(_ query: SQLiteQuery, entity: String = "Book", select: String = "t0.Z_PK") throws -> String {
        let (_, mapping) = try store.openDatabase()
        let described = try #require(model.entitiesByName[entity])
        let table = try #require(mapping.mapping(for: described)).table
        var sql = "SELECT \(select) FROM \(table) t0"
        for join in query.joins { sql += " " + join }
        if let condition = query.whereClause { sql += " WHERE \(condition)" }
        if !query.orderBy.isEmpty { sql += " ORDER BY " + query.orderBy.joined(separator: ", ") }
        return sql
    }

    /// The Z_PKs a predicate (and sort) selects, in the order SQLite returns them.
    func keys(_ predicate: PredicateNode?, entity: String = "Book", sort: [FetchPlan.SortKey] = []) throws -> [Int64] {
        let query = try compile(predicate, entity: entity, sort: sort)
        let sql = try sql(query, entity: entity)
        let (database, _) = try store.openDatabase()
        return try database.read { db in
            SQLitePredicateFunctions.register(in: db)
            return try Int64.fetchAll(db, sql: sql, arguments: StatementArguments(query.arguments))
        }
    }

    /// The titles of the books a predicate selects, in order.
    func titles(_ predicate: PredicateNode?, sort: [FetchPlan.SortKey] = []) throws -> [String] {
        try keys(predicate, sort: sort).map { titles[$0] ?? "?" }
    }

    /// The Z_PKs of the books with these titles.
    func keys(of titles: Set<String>) -> Set<Int64> { Set(titles.compactMap { keys[$0] }) }

    /// `EXPLAIN QUERY PLAN` of the query, its `detail` lines joined.
    func queryPlan(_ predicate: PredicateNode) throws -> String {
        let query = try compile(predicate)
        let sql = try sql(query, select: "t0.Z_PK, t0.ZSUBTITLE")
        let (database, _) = try store.openDatabase()
        return try database.read { db in
            SQLitePredicateFunctions.register(in: db)
            let rows = try Row.fetchAll(
                db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: StatementArguments(query.arguments))
            return rows.map { $0["detail"] as String }.joined(separator: "\n")
        }
    }
}

/// Predicate trees for the SQL tests, built by hand (as the parser would build them).
enum SQLPredicate {
    static func key(_ path: String) -> ExpressionNode { .keyPath(path) }

    static func value(_ value: PredicateValue) -> ExpressionNode { .constant(value) }

    static func object(_ object: AnyObject) -> ExpressionNode { .constant(.object(PredicateObject(object))) }

    static func objects(_ objects: [AnyObject]) -> ExpressionNode {
        .constant(.array(objects.map { .object(PredicateObject($0)) }))
    }

    static func compare(
        _ left: ExpressionNode, _ op: ComparisonNode.Operator, _ right: ExpressionNode,
        _ modifier: ComparisonNode.Modifier = .direct, _ options: ComparisonNode.Options = []
    ) -> PredicateNode {
        .comparison(ComparisonNode(left: left, op: op, right: right, modifier: modifier, options: options))
    }

    static func compare(
        _ path: String, _ op: ComparisonNode.Operator, _ value: PredicateValue,
        _ modifier: ComparisonNode.Modifier = .direct, _ options: ComparisonNode.Options = []
    ) -> PredicateNode {
        compare(.keyPath(path), op, .constant(value), modifier, options)
    }
}
