import Foundation
import GRDB
import Testing

@testable import Strata

/// Transient attributes live in memory only: they get no column, are not saved, and start
/// again from their default when the object is turned back into a fault.
@Suite struct TransientAttributeTests {
    @Test func transientValuesAreNeverStoredAndResetOnRefault() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-transient-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let model = NSManagedObjectModel {
            Entity("Draft") {
                Attribute("text", .stringAttributeType)
                Attribute("cursor", .integer32AttributeType, transient: true, defaultValue: Int32(-1))
                Attribute("scratch", .undefinedAttributeType, transient: true)
            }
        }
        let url = folder.appendingPathComponent("t.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let draft = NSEntityDescription.insertNewObject(forEntityName: "Draft", into: context)
            #expect(draft.value(forKey: "cursor") as? Int32 == -1)
            draft.setValue("hello", forKey: "text")
            draft.setValue(Int32(3), forKey: "cursor")
            draft.setValue(["any", "value"], forKey: "scratch")
            try context.save()
            #expect(draft.value(forKey: "cursor") as? Int32 == 3, "a save keeps the transient value in memory")

            context.refresh(draft, mergeChanges: false)
            #expect(draft.isFault)
            #expect(draft.value(forKey: "text") as? String == "hello")
            #expect(draft.value(forKey: "cursor") as? Int32 == -1, "the refault reset it to its default")
            #expect(draft.value(forKey: "scratch") == nil)
        }
        let columns = try DatabaseQueue(path: url.path).read { db in
            try Row.fetchAll(db, sql: "PRAGMA table_info(ZDRAFT)").map { $0["name"] as String }
        }
        #expect(columns.sorted() == ["ZTEXT", "Z_ENT", "Z_OPT", "Z_PK"])
    }
}
