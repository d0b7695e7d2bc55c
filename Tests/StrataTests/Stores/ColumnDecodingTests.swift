import Foundation
import GRDB
import Testing

@testable import Strata

/// A fetched row's columns are read through their SQLite values (`SQLiteColumn`): every
/// common attribute type at its extremes, `NULL` in each column, text holding a NUL, a date
/// column holding an integer (as an older writer may leave it), and a to-one's key.
@Suite struct ColumnDecodingTests {
    private static let model = NSManagedObjectModel {
        Entity("Sample") {
            Attribute("small", .integer16AttributeType)
            Attribute("medium", .integer32AttributeType)
            Attribute("large", .integer64AttributeType)
            Attribute("flag", .booleanAttributeType)
            Attribute("real", .doubleAttributeType)
            Attribute("single", .floatAttributeType)
            Attribute("when", .dateAttributeType)
            Attribute("text", .stringAttributeType)
            Relationship("other", to: "Sample")
        }
    }

    /// Writes two samples (the first pointing at the second), lets `edit` change the file
    /// with SQL, and returns what a new coordinator fetches, by `text` of the second ("B").
    private func fetched(
        _ values: [String: Any], edit: (Database) throws -> Void = { _ in }
    ) throws -> (first: NSManagedObject, second: NSManagedObject) {
        let folder = ScratchFolder()
        let url = folder.file("Samples.sqlite")
        let writer = NSPersistentStoreCoordinator(managedObjectModel: Self.model)
        let store = try writer.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = writer
        try context.performAndWait {
            let second = NSEntityDescription.insertNewObject(forEntityName: "Sample", into: context)
            second.setValue("B", forKey: "text")
            let first = NSEntityDescription.insertNewObject(forEntityName: "Sample", into: context)
            for (key, value) in values { first.setValue(value, forKey: key) }
            first.setValue(second, forKey: "other")
            try context.save()
        }
        try writer.remove(store)
        try DatabaseQueue(path: url.path).write(edit)

        let reader = NSPersistentStoreCoordinator(managedObjectModel: Self.model)
        try reader.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        let readContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        readContext.persistentStoreCoordinator = reader
        return try readContext.performAndWait {
            let all = try readContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Sample"))
            let second = try #require(all.first { $0.value(forKey: "text") as? String == "B" })
            let first = try #require(all.first { $0 !== second })
            _ = first.value(forKey: "small")
            _ = second.value(forKey: "small")
            return (first, second)
        }
    }

    @Test func everyTypeAtItsExtremesReadsBackAsWritten() throws {
        let text = "a\u{0}b — ünïcødé 🙂"
        let when = Date(timeIntervalSinceReferenceDate: -1_234.5)
        let (first, second) = try fetched([
            "small": Int16.min, "medium": Int32.max, "large": Int64.min, "flag": true, "real": -0.25,
            "single": Float(1.5), "when": when, "text": text,
        ])
        #expect(first.value(forKey: "small") as? Int16 == Int16.min)
        #expect(first.value(forKey: "medium") as? Int32 == Int32.max)
        #expect(first.value(forKey: "large") as? Int64 == Int64.min)
        #expect(first.value(forKey: "flag") as? Bool == true)
        #expect(first.value(forKey: "real") as? Double == -0.25)
        #expect(first.value(forKey: "single") as? Float == 1.5)
        #expect(first.value(forKey: "when") as? Date == when)
        #expect(first.value(forKey: "text") as? String == text, "the text after its NUL is kept")
        #expect((first.value(forKey: "other") as? NSManagedObject) === second)
        #expect(second.value(forKey: "other") == nil)
    }

    @Test func nullInEveryColumnReadsAsNoValue() throws {
        let (first, _) = try fetched(["small": Int16(3), "text": "A", "when": Date()]) { db in
            try db.execute(
                sql: """
                    UPDATE ZSAMPLE SET ZSMALL = NULL, ZMEDIUM = NULL, ZLARGE = NULL, ZFLAG = NULL, ZREAL = NULL,
                    ZSINGLE = NULL, ZWHEN = NULL, ZTEXT = NULL, ZOTHER = NULL WHERE ZTEXT = 'A'
                    """)
        }
        for key in ["small", "medium", "large", "flag", "real", "single", "when", "text", "other"] {
            #expect(first.value(forKey: key) == nil, "\(key)")
        }
    }

    @Test func aDateStoredAsAnIntegerReadsAsThatManySeconds() throws {
        let (first, _) = try fetched(["text": "A", "when": Date()]) { db in
            try db.execute(sql: "UPDATE ZSAMPLE SET ZWHEN = 700000000, ZREAL = 42 WHERE ZTEXT = 'A'")
            // The date column's affinity keeps the integer an integer.
            #expect(try String.fetchOne(db, sql: "SELECT typeof(ZWHEN) FROM ZSAMPLE WHERE ZTEXT = 'A'") == "integer")
        }
        #expect(first.value(forKey: "when") as? Date == Date(timeIntervalSinceReferenceDate: 700_000_000))
        #expect(first.value(forKey: "real") as? Double == 42)
    }
}
