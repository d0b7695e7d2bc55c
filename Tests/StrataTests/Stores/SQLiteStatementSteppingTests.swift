import Foundation
import GRDB
import GRDBSQLite
import Testing

@testable import Strata

/// Reads bind and step their prepared statements themselves (`SQLiteStore.forEachRow`, issue
/// 34): arguments are bound whole, a wrong count is an error, and a statement a reader left
/// between rows starts over at its next use.
@Suite struct SQLiteStatementSteppingTests {
    @Test func aStringWithNULCharactersIsComparedWhole() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-nul-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let model = NSManagedObjectModel {
            Entity("Word") { Attribute("text", .stringAttributeType) }
        }
        let stack = try ObjectGraphTests.Stack(model, at: folder.appendingPathComponent("words.sqlite"))
        let context = stack.newContext()
        let texts = try context.performAndWait {
            for text in ["a", "a\u{0}b", "a\u{0}c"] {
                NSEntityDescription.insertNewObject(forEntityName: "Word", into: context).setValue(text, forKey: "text")
            }
            try context.save()
            context.reset()
            let request = NSFetchRequest<NSManagedObject>(entityName: "Word")
            request.predicate = NSPredicate(format: "text == %@", "a\u{0}b")
            return try context.fetch(request).compactMap { $0.value(forKey: "text") as? String }
        }
        // A C string ends at its first NUL: bound as one, the value would have matched "a".
        #expect(texts == ["a\u{0}b"])
    }

    @Test func aWrongNumberOfArgumentsIsAnError() throws {
        let library = try PredicateSQLLibrary()
        let queue = try DatabaseQueue()
        try queue.read { db in
            let error = #expect(throws: DatabaseError.self) {
                try library.store.forEachRow(db, sql: "SELECT ?, ?", arguments: [1.databaseValue]) { _ in }
            }
            #expect(error?.resultCode == .SQLITE_MISUSE)
        }
    }

    @Test func aStatementLeftBetweenRowsStartsOver() throws {
        struct Stop: Error {}
        let library = try PredicateSQLLibrary()
        let queue = try DatabaseQueue()
        let sql = "SELECT value FROM json_each('[1, 2, 3]') WHERE value >= ?"
        try queue.read { db in
            #expect(throws: Stop.self) {
                try library.store.forEachRow(db, sql: sql, arguments: [1.databaseValue]) { _ in throw Stop() }
            }
            let values = try library.store.readRows(db, sql: sql, arguments: [2.databaseValue]) { statement in
                sqlite3_column_int64(statement, 0)
            }
            #expect(values == [2, 3])
        }
    }
}
