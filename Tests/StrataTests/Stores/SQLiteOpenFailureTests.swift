import Foundation
import GRDB
import Testing

@testable import Strata

/// A SQLite file that cannot be added as a store gives Core Data's error and keeps every byte,
/// even when it is in another journal mode than WAL, which opening a store switches to (found
/// by fuzzing: Fuzz/Regressions/store-file).
@Suite struct SQLiteOpenFailureTests {
    static let model = NSManagedObjectModel {
        Entity("Item") {
            Attribute("name", .stringAttributeType)
        }
    }

    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-open-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// A store with one object, closed, in the rollback journal mode (`DELETE`).
    static func storeInDeleteMode(at url: URL) throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            NSManagedObject(entity: try #require(model.entitiesByName["Item"]), insertInto: context)
                .setValue("one", forKey: "name")
            try context.save()
        }
        try coordinator.remove(store)
        let queue = try DatabaseQueue(path: url.path)
        try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = DELETE") }
        try queue.close()
    }

    static func add(_ url: URL) throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        _ = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
    }

    @Test func damageThatAWriteMeetsLeavesTheFileAsItWas() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("Damaged.sqlite")
        try Self.storeInDeleteMode(at: url)
        // The header's free list (its first trunk page at byte 32, its length at 36) points past
        // the end of the file: the metadata reads, but a write that takes a free page meets it.
        var bytes = try Data(contentsOf: url)
        bytes.replaceSubrange(32..<40, with: [0x7F, 0xFF, 0xFF, 0xFF, 0, 0, 0, 1])
        try bytes.write(to: url)
        do {
            try Self.add(url)
            Issue.record("a store with a damaged free list opened")
        } catch let error as NSError {
            #expect(error.domain == NSCocoaErrorDomain)
            #expect(error.code == NSFileReadCorruptFileError)
            #expect((error.userInfo[NSUnderlyingErrorKey] as? NSError)?.code == 11)
        }
        #expect(try Data(contentsOf: url) == bytes)
    }

    @Test func aDatabaseWithTablesButNoMetadataLeavesTheFileAsItWas() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("Other.sqlite")
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in try db.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)") }
        try queue.close()
        let bytes = try Data(contentsOf: url)
        do {
            try Self.add(url)
            Issue.record("a database that is not a store opened")
        } catch let error as NSError {
            #expect(error.domain == NSCocoaErrorDomain)
            #expect(error.code == NSPersistentStoreIncompatibleSchemaError)
        }
        #expect(try Data(contentsOf: url) == bytes)
    }
}
