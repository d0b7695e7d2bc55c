import Foundation
import GRDB
import Testing

@testable import Strata

/// Fetches that repeat a predicate with new values reuse its compiled SQL (issue 34): each
/// answer is checked against the compiler run afresh and against the predicate evaluated in
/// memory; shapes whose SQL depends on a value are compiled every time.
@Suite struct SQLiteQueryTemplateTests {
    /// Formats with their argument lists: the first list makes the template, the others reuse it.
    nonisolated(unsafe) static let cases: [(String, [[Any]])] = [
        ("pages > %d", [[100], [5], [1000], [-1]]),
        ("pages >= %d AND price < %f", [[10, 15.0], [0, 100.0], [300, 20.0]]),
        ("title == %@", [["Café Society"], ["straße"], ["nothing"], ["x' OR 1=1 --"]]),
        ("title BEGINSWITH[cd] %@ OR pages == %d", [["cafe", 2], ["GA", 10], ["", 42]]),
        ("title CONTAINS %@", [["e"], ["%"], [""], ["_"]]),
        ("title LIKE %@", [["*e*"], ["File?"], ["straße"]]),
        ("published < %@", [[Date(timeIntervalSinceReferenceDate: 1500 * 86_400)], [Date(timeIntervalSinceReferenceDate: 0)]]),
        ("author.name == %@ AND NOT (pages < %d)", [["Ada", 200], ["Émile", 0], ["Grace", 600]]),
        ("ANY tags.name == %@", [["fiction"], ["history"], ["none"]]),
        ("chapters.@count >= %d", [[1], [2], [0]]),
        ("%d < pages", [[100], [3]]),
        ("pages BETWEEN {%d, %d}", [[1, 50], [100, 400]]),
        ("title IN %@", [[["File2", "file10"]], [["straße"]]]),
        ("available == %@ AND pages > %d", [[true, 5], [false, 5], [true, 200]]),
    ]

    /// The plan's predicate and sort compiled afresh: what the templates are checked against.
    static func compile(_ plan: FetchPlan, _ mapping: SQLiteStoreMapping) throws -> (String, [DatabaseValue]) {
        let query = try SQLitePredicateCompiler.compile(
            predicate: plan.predicate, sortKeys: plan.sortKeys, entity: plan.entity, mapping: mapping)
        return (query.whereClause ?? "", query.arguments)
    }

    @Test(arguments: Array(cases.indices))
    func eachAnswerIsTheCompilersAndTheEvaluators(_ index: Int) throws {
        let (format, argumentLists) = Self.cases[index]
        let library = try PredicateSQLLibrary()
        let (_, mapping) = try library.store.openDatabase()
        let book = try #require(library.model.entitiesByName["Book"])
        let templates = SQLiteQueryTemplates()
        for arguments in argumentLists {
            let predicate = NSPredicate(format: format, argumentArray: arguments)
            let node = try PredicateConversion.node(of: predicate)
            var plan = FetchPlan(entity: book, includesSubentities: true, sortKeys: [], limit: 0, offset: 0)
            plan.predicate = node
            func compile(_ plan: FetchPlan) throws -> (String, [DatabaseValue]) { try Self.compile(plan, mapping) }
            let fromTemplates = try templates.sql(columns: "t0.Z_PK", plan: plan, compile: compile)
            let direct = try compile(plan)
            #expect(fromTemplates.0 == direct.0, "\(format) \(arguments)")
            #expect(fromTemplates.1 == direct.1, "\(format) \(arguments)")

            // And through the context, against the predicate evaluated in memory.
            let fetched = try library.context.performAndWait {
                let request = NSFetchRequest<NSManagedObject>(entityName: "Book")
                request.predicate = predicate
                return Set(try library.context.fetch(request).compactMap { $0.value(forKey: "title") as? String })
            }
            let evaluated = try library.context.performAndWait {
                let all = try library.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Book"))
                return Set(all.filter { predicate.evaluate(with: $0) }.compactMap { $0.value(forKey: "title") as? String })
            }
            #expect(fetched == evaluated, "\(format) \(arguments)")
        }
    }

    /// The table's key compares and hashes a predicate as its shape without making it: over
    /// pairs of predicates, the keys are equal exactly when the shapes `parameterized` makes are,
    /// equal keys hash alike, and one walk finds the parameters and the constants that keep a
    /// plan out of the table as the shape does.
    @Test func aShapeKeyIsItsPredicatesShape() throws {
        let predicates: [NSPredicate] = [
            NSPredicate(format: "pages > %d", 1), NSPredicate(format: "pages > %d", 7),
            NSPredicate(format: "pages > %f", 1.5), NSPredicate(format: "pages >= %d", 1),
            NSPredicate(format: "%d < pages", 3), NSPredicate(format: "%d < pages", 4),
            NSPredicate(format: "title == %@", "a"), NSPredicate(format: "title == %@", "b"),
            NSPredicate(format: "title ==[c] %@", "a"), NSPredicate(format: "author.title == %@", "a"),
            NSPredicate(format: "pages > %d AND title == %@", 1, "x"),
            NSPredicate(format: "pages > %d AND title == %@", 2, "y"),
            NSPredicate(format: "pages > %d OR title == %@", 2, "y"),
            NSPredicate(format: "NOT (pages > %d)", 2), NSPredicate(format: "entity == %@", "Book"),
            NSPredicate(format: "entity == %@", "Novel"), NSPredicate(format: "title == nil"),
            NSPredicate(format: "available == YES AND pages < %d", 3), NSPredicate(format: "title IN %@", ["a", "b"]),
            NSPredicate(format: "ANY tags.name == %@", "x"), NSPredicate(format: "ANY tags.name == %@", "y"),
            NSPredicate(format: "published < %@", Date(timeIntervalSinceReferenceDate: 5)),
            NSPredicate(format: "pages BETWEEN {%d, %d}", 1, 5), NSPredicate(value: true),
        ]
        let nodes = try predicates.map { try PredicateConversion.node(of: $0) }
        for a in nodes {
            var values: [PredicateValue] = []
            let shape = SQLiteQueryTemplates.parameterized(a, values: &values)
            var collected: [PredicateValue] = []
            let keyA = SQLiteQueryTemplates.shape(of: a, values: &collected)
            #expect((keyA != nil) == SQLiteQueryTemplates.holdsOnlyPlaceholders(shape), "\(a)")
            guard let keyA else { continue }
            #expect(collected == values, "\(a)")
            for b in nodes {
                var ignored: [PredicateValue] = []
                let sameShape = shape == SQLiteQueryTemplates.parameterized(b, values: &ignored)
                guard let keyB = SQLiteQueryTemplates.shape(of: b, values: &ignored) else { continue }
                #expect((keyA == keyB) == sameShape, "\(a) | \(b)")
                if sameShape { #expect(keyA.hashValue == keyB.hashValue, "\(a) | \(b)") }
            }
        }
    }

    @Test func aKeyPathEndingInEntityIsToldWithoutSplittingIt() {
        let paths = [
            "entity", "author.entity", "entity.name", "entityName", "myentity", "author.myentity", "", ".", "..",
            "entity.", "a.entity..", "a..entity", ".entity", "title", "author.name", "é.entity", "entity.é",
        ]
        for path in paths {
            // The rule as it was written first: the last non-empty component, split out.
            let expected = path.split(separator: ".").last.map { $0 == "entity" } ?? true
            #expect(SQLiteQueryTemplates.endsInEntityOrNothing(path) == expected, "\(path)")
        }
    }

    @Test func aRepeatedShapeIsCompiledOnceAndItsValuesAreBound() throws {
        let library = try PredicateSQLLibrary()
        let (_, mapping) = try library.store.openDatabase()
        let book = try #require(library.model.entitiesByName["Book"])
        let templates = SQLiteQueryTemplates()
        var compilations = 0
        func compile(_ plan: FetchPlan) throws -> (String, [DatabaseValue]) {
            compilations += 1
            return try Self.compile(plan, mapping)
        }
        var plan = FetchPlan(entity: book, includesSubentities: true, sortKeys: [], limit: 20, offset: 0)
        for pages in 0..<10 {
            plan.predicate = try PredicateConversion.node(
                of: NSPredicate(format: "pages >= %d AND title != %@", pages, "t\(pages)"))
            let (_, arguments) = try templates.sql(columns: "t0.Z_PK", plan: plan, compile: compile)
            #expect(arguments == [Int64(pages).databaseValue, "t\(pages)".databaseValue])
        }
        // The first query compiles with its values and with sentinels; the nine others reuse it.
        #expect(compilations == 2)
        #expect(templates.templateCount == 1)
    }

    /// Shapes whose SQL a value changes are never kept: an entity compared with a name (the
    /// first name unknown, so that its SQL is the constant false), and `now()`.
    @Test func shapesThatDependOnTheirValuesAreCompiledEachTime() throws {
        let library = try PredicateSQLLibrary()
        let (_, mapping) = try library.store.openDatabase()
        let book = try #require(library.model.entitiesByName["Book"])
        let templates = SQLiteQueryTemplates()
        func compile(_ plan: FetchPlan) throws -> (String, [DatabaseValue]) { try Self.compile(plan, mapping) }
        var plan = FetchPlan(entity: book, includesSubentities: true, sortKeys: [], limit: 0, offset: 0)
        for name in ["Nothing", "Novel"] {
            plan.predicate = .comparison(ComparisonNode(left: .keyPath("entity"), op: .equalTo, right: .constant(.string(name))))
            let (sql, arguments) = try templates.sql(columns: "t0.Z_PK", plan: plan, compile: compile)
            #expect(try (sql, arguments) == compile(plan))
        }
        // A name is no parameter: such plans are not kept at all.
        #expect(templates.templateCount == 0)
        // `now()` is read at each query, never kept from the first.
        plan.predicate = try PredicateConversion.node(of: NSPredicate(format: "published < now()"))
        for _ in 0..<2 {
            let before = Date().timeIntervalSinceReferenceDate
            let (_, arguments) = try templates.sql(columns: "t0.Z_PK", plan: plan, compile: compile)
            let now = try #require(arguments.first.flatMap { Double.fromDatabaseValue($0) })
            #expect(now >= before)
            usleep(20_000)
        }
        #expect(templates.templateCount == 0)
        // The entity query through the context: the second name finds the novels.
        let novels = try library.context.performAndWait {
            for name in ["Nothing", "Novel"] {
                let request = NSFetchRequest<NSManagedObject>(entityName: "Book")
                request.predicate = NSPredicate(format: "entity == %@", library.model.entitiesByName[name] ?? name)
                _ = try library.context.fetch(request)
            }
            let request = NSFetchRequest<NSManagedObject>(entityName: "Book")
            request.predicate = NSPredicate(
                format: "self.entity == %@", try #require(library.model.entitiesByName["Novel"]))
            return Set(try library.context.fetch(request).compactMap { $0.value(forKey: "title") as? String })
        }
        #expect(novels == ["file10", "File2"])
    }

    /// Plans with an object, a collection or a value inside a function are compiled once per
    /// query, as before, and kept nowhere: kept by value, each would be a shape of its own,
    /// compiled twice and holding its objects.
    @Test func plansWithValuesThatAreNoParametersCompileOnceAndStayOut() throws {
        let library = try PredicateSQLLibrary()
        let (_, mapping) = try library.store.openDatabase()
        let book = try #require(library.model.entitiesByName["Book"])
        let templates = SQLiteQueryTemplates()
        var compilations = 0
        func compile(_ plan: FetchPlan) throws -> (String, [DatabaseValue]) {
            compilations += 1
            return try Self.compile(plan, mapping)
        }
        let author = try #require(
            try library.context.performAndWait {
                try library.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Author")).first
            })
        var plan = FetchPlan(entity: book, includesSubentities: true, sortKeys: [], limit: 0, offset: 0)
        let predicates = [
            NSPredicate(format: "author == %@", author),
            NSPredicate(format: "pages IN %@", [1, 2, 3]),
            NSPredicate(format: "pages BETWEEN {%d, %d}", 1, 50),
            NSPredicate(format: "title ==[c] %@ AND pages > %d", "x", 3),
        ]
        for predicate in predicates {
            plan.predicate = try PredicateConversion.node(of: predicate)
            _ = try templates.sql(columns: "t0.Z_PK", plan: plan, compile: compile)
        }
        // The first three compile once each; the last is a shape of two parameters (kept).
        #expect(compilations == 3 + 2)
        #expect(templates.templateCount == 1)
    }

    /// Sorted, paged fetches through the store: the limit and offset of each query are its
    /// own, though the SQL is shared.
    @Test func pagesOfASharedShapeKeepTheirOwnLimits() throws {
        let library = try PredicateSQLLibrary()
        let pages = try library.context.performAndWait {
            try [(0, 2, 0), (0, 3, 1), (100, 1, 0), (5, 10, 2)].map { minimum, limit, offset in
                let request = NSFetchRequest<NSManagedObject>(entityName: "Book")
                request.predicate = NSPredicate(format: "pages > %d", minimum)
                request.sortDescriptors = [NSSortDescriptor(key: "pages", ascending: true)]
                request.fetchLimit = limit
                request.fetchOffset = offset  // pages > 5, from the third: 120, 300, 500
                return try library.context.fetch(request).compactMap { $0.value(forKey: "pages") as? Int32 }
            }
        }
        #expect(pages == [[2, 10], [10, 42, 120], [120], [120, 300, 500]])
    }
}
