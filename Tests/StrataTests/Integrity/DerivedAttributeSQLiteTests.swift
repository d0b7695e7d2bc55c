import Foundation
import GRDB
import Testing

@testable import Strata

/// Derived attributes in SQLite files: the `Z_DA_` triggers of a new store are Apple's
/// (STORE-FORMAT §3.5), stores of an earlier Strata get them on open, and an Apple-written
/// store keeps counting with its own triggers while Strata writes to it.
@Suite struct DerivedAttributeSQLiteTests {
    typealias Fixtures = DerivedAttributeFixtures

    private func appleTriggers() throws -> (triggers: [String: String], copy: URL) {
        let copy = try TestCorpus.copyOfStore(named: Fixtures.appleStore)
        let triggers = try DatabaseQueue(path: copy.path).read { try Fixtures.derivedTriggers($0) }
        return (triggers, copy)
    }

    /// A new store of the model that wrote SampleModel2_V1 has the very triggers Apple made.
    @Test(.enabled(if: TestCorpus.isAvailable)) func countTriggersAreApplesCharacterForCharacter() throws {
        let (apple, copy) = try appleTriggers()
        defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }
        let stack = try Fixtures.Stack(.sqlite, model: Fixtures.sampleModel2V1())
        let ours = try stack.sql { try Fixtures.derivedTriggers($0) }
        #expect(apple.count == 5)
        #expect(ours == apple)
    }

    /// The `@count` triggers of another model have Apple's shape once names are set aside:
    /// Apple's Book/pages/ZBOOK against DAItem/lines/ZDAITEM with the foreign key ZITEM.
    @Test(.enabled(if: TestCorpus.isAvailable)) func countTriggersOfAnyModelHaveApplesShape() throws {
        let (apple, copy) = try appleTriggers()
        defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }
        func normalised(_ text: String, _ names: [(String, String)], table: String, foreignKey: String) -> String {
            var text = text
            for (name, token) in names { text = text.replacingOccurrences(of: name, with: token) }
            for context in ["UPDATE ", "FROM ", "ON ", "'", "Z_DA_"] {
                text = text.replacingOccurrences(of: context + table, with: context + "<TABLE>")
            }
            return text.replacingOccurrences(of: foreignKey, with: "<FK>")
        }
        let expected = Set(
            apple.values.map {
                normalised(
                    $0,
                    [
                        ("ZPAGESCOUNT", "<COLUMN>"), ("pagesCount", "<ATTR>"), ("ZPAGE", "<DEST>"),
                        ("_Book_", "_<ENTITY>_"),
                    ],
                    table: "ZBOOK", foreignKey: "ZBOOK")
            })
        let stack = try Fixtures.Stack(.sqlite)
        let ours = try stack.sql { try Fixtures.derivedTriggers($0) }.filter { $0.key.contains("_DAItem_lineCount_") }
        let shapes = Set(
            ours.values.map {
                normalised(
                    $0,
                    [
                        ("ZLINECOUNT", "<COLUMN>"), ("lineCount", "<ATTR>"), ("ZDALINE", "<DEST>"),
                        ("_DAItem_", "_<ENTITY>_"),
                    ],
                    table: "ZDAITEM", foreignKey: "ZITEM")
            })
        #expect(shapes == expected)
    }

    /// Every form gets its triggers under Apple's naming scheme; a many-to-many count goes
    /// through the join table.
    @Test func triggerNamesOfEveryForm() throws {
        let stack = try Fixtures.Stack(.sqlite)
        let names = Set(try stack.sql { try Fixtures.derivedTriggers($0) }.keys)
        let entity = try #require(stack.model.entitiesByName["DAItem"])
        let join = try #require(SQLiteSchema(model: stack.model).joinTable(entity: entity, relationship: "tags")?.name)
        func item(_ attribute: String, _ roles: [(table: String, role: String)]) -> [String] {
            roles.map { "Z_DA_\($0.table)_DAItem_\(attribute)_\($0.role)" }
        }
        let own = [("ZDAITEM", "INSERT"), ("ZDAITEM", "UPDATE")]
        let count = [
            "PARAMETER_INSERT", "PARAMETER_UPDATE_INCREMENT", "PARAMETER_UPDATE_DECREMENT", "PARAMETER_DELETE",
        ]
        var expected: [String] = []
        for attribute in ["titleCopy", "upperTitle", "lowerTitle", "searchTitle", "touchedAt"] {
            expected += item(attribute, own)
        }
        for attribute in ["ownerName", "searchOwner"] {
            expected += item(attribute, [("ZDAITEM", "SOURCE_INSERT"), ("ZDAITEM", "SOURCE_UPDATE")])
            expected += item(attribute, [("ZDAOWNER", "PARAMETER_INSERT"), ("ZDAOWNER", "PARAMETER_UPDATE")])
        }
        for attribute in ["lineCount", "total"] {
            expected += item(attribute, count.map { ("ZDALINE", $0) } + [("ZDAITEM", "SOURCE_INSERT")])
        }
        expected += item(
            "tagCount", [(join, "PARAMETER_INSERT"), (join, "PARAMETER_DELETE"), ("ZDAITEM", "SOURCE_INSERT")])
        expected += item("weight", [(join, "PARAMETER_INSERT"), (join, "PARAMETER_DELETE")])
        expected += item("weight", [("ZDATAG", "PARAMETER_UPDATE"), ("ZDAITEM", "SOURCE_INSERT")])
        expected += ["Z_DA_ZDAITEM_DANote_memoUpper_INSERT", "Z_DA_ZDAITEM_DANote_memoUpper_UPDATE"]
        #expect(names == Set(expected))
    }

    /// A store made before Strata created triggers gets them when opened, with its derived
    /// columns recomputed; then saves keep them right.
    @Test func storesOfAnEarlierStrataGetTheTriggersOnOpen() throws {
        let stack = try Fixtures.Stack(.sqlite)
        let context = stack.context()
        try context.performAndWait {
            let item = Fixtures.insert("DAItem", into: context, ["title": "old"])
            for amount in [2, 3] { Fixtures.insert("DALine", into: context, ["amount": Int64(amount), "item": item]) }
            try context.save()
        }
        let created = try stack.sql { try Fixtures.derivedTriggers($0) }
        try stack.close()
        try stack.sql { db in
            for name in created.keys { try db.execute(sql: "DROP TRIGGER \(name)") }
            try db.execute(sql: "UPDATE ZDAITEM SET ZLINECOUNT = NULL, ZTOTAL = NULL, ZUPPERTITLE = NULL")
            // An earlier Strata also left the model cache empty.
            try db.execute(sql: "DELETE FROM Z_MODELCACHE")
        }
        try stack.open()
        #expect(try stack.sql { try Fixtures.derivedTriggers($0) } == created)
        let row = try stack.sql { try Row.fetchOne($0, sql: "SELECT ZLINECOUNT, ZTOTAL, ZUPPERTITLE FROM ZDAITEM") }
        #expect(row?["ZLINECOUNT"] == 2)
        #expect(row?["ZTOTAL"] == 5)
        #expect(row?["ZUPPERTITLE"] == "OLD")
        let later = stack.context()
        try later.performAndWait {
            let reloaded = try #require(try later.fetch(NSFetchRequest<NSManagedObject>(entityName: "DAItem")).first)
            Fixtures.insert("DALine", into: later, ["amount": Int64(4), "item": reloaded])
            try later.save()
            #expect(Fixtures.stored(reloaded, "lineCount") as? Int64 == 3)
            #expect(reloaded.value(forKey: "total") as? Int64 == 9)
        }
    }

    /// SampleModel2_V1, written by Apple's Core Data, opens with the model rebuilt in code;
    /// pages inserted, moved and deleted through Strata are counted by Apple's own triggers,
    /// which Strata leaves as they are.
    @Test(.enabled(if: TestCorpus.isAvailable)) func applesTriggersKeepCountingWhenStrataWrites() throws {
        let copy = try TestCorpus.copyOfStore(named: Fixtures.appleStore)
        defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }
        let before = try DatabaseQueue(path: copy.path).read { try Fixtures.derivedTriggers($0) }
        let stack = try Fixtures.Stack(.sqlite, model: Fixtures.sampleModel2V1(), url: copy)
        let context = stack.context()
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Book")
            request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
            let books = try context.fetch(request)
            let counts = books.compactMap { $0.value(forKey: "pagesCount") as? Int64 }
            #expect(counts.count == books.count)
            let book = try #require(books.first { $0.value(forKey: "pagesCount") as? Int64 == 99 })
            let other = try #require(books.first { $0 !== book })
            let otherCount = try #require(other.value(forKey: "pagesCount") as? Int64)

            for number in 1...2 {
                Fixtures.insert(
                    "Page", into: context, ["number": Int32(1000 + number), "content": Data([1, 2, 3]), "book": book])
            }
            try context.save()
            #expect(Fixtures.stored(book, "pagesCount") as? Int64 == 101)

            let pages = try #require(book.mutableSetValue(forKey: "pages").allObjects as? [NSManagedObject])
            for page in pages.prefix(3) { context.delete(page) }
            pages[3].setValue(other, forKey: "book")
            try context.save()
            #expect(Fixtures.stored(book, "pagesCount") as? Int64 == 97)
            #expect(Fixtures.stored(other, "pagesCount") as? Int64 == otherCount + 1)
        }
        try stack.close()
        let wrong = try stack.sql { db in
            try Int.fetchOne(
                db,
                sql:
                    "SELECT count(*) FROM ZBOOK "
                    + "WHERE ZPAGESCOUNT IS NOT (SELECT count(*) FROM ZPAGE WHERE ZBOOK = ZBOOK.Z_PK)"
            )
        }
        #expect(wrong == 0)
        #expect(try stack.sql { try Fixtures.derivedTriggers($0) } == before)
    }
}
