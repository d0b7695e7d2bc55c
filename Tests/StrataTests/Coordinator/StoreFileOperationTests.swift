import Foundation
import GRDB
import Testing

@testable import Strata

/// `migratePersistentStore`, `replacePersistentStore`, `destroyPersistentStore` and store
/// metadata, across the three store types.
@Suite struct StoreFileOperationTests {
    private let expected = [
        "Apollo|1234.56|1000000.0|30084A1C-76CF-4976-8312-8E8EFCF6F510|https://example.org/apollo|[1, 2, 3]|Design,Build|Ada,Grace"
    ]

    @Test func migratingCopiesEveryObjectAcrossStoreTypes() throws {
        let folder = try CoordinatorFixtures.folder()
        defer { CoordinatorFixtures.remove(folder) }
        let model = CoordinatorFixtures.model()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let sqlite = try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: folder.appendingPathComponent("a.sqlite"))
        try CoordinatorFixtures.fill(coordinator)
        #expect(try CoordinatorFixtures.summary(coordinator) == expected)

        let binary = try coordinator.migratePersistentStore(
            sqlite, to: folder.appendingPathComponent("b.store"), withType: NSBinaryStoreType)
        #expect(coordinator.persistentStores.count == 1 && coordinator.persistentStores.first === binary)
        #expect(try CoordinatorFixtures.summary(coordinator) == expected)

        let back = try coordinator.migratePersistentStore(
            binary, to: folder.appendingPathComponent("c.sqlite"), withType: NSSQLiteStoreType)
        #expect(back.type == NSSQLiteStoreType)
        #expect(try CoordinatorFixtures.summary(coordinator) == expected)

        // The migrated file stands on its own.
        let reopened = NSPersistentStoreCoordinator(managedObjectModel: model)
        try reopened.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: folder.appendingPathComponent("c.sqlite"))
        #expect(try CoordinatorFixtures.summary(reopened) == expected)
    }

    @Test func replacingCopiesTheSourceStoreOverTheDestination() throws {
        let folder = try CoordinatorFixtures.folder()
        defer { CoordinatorFixtures.remove(folder) }
        let model = CoordinatorFixtures.model()
        let source = folder.appendingPathComponent("seed.sqlite")
        let destination = folder.appendingPathComponent("app.sqlite")
        do {
            let seeding = NSPersistentStoreCoordinator(managedObjectModel: model)
            let store = try seeding.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: source)
            try CoordinatorFixtures.fill(seeding)
            try seeding.remove(store)
        }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: destination)
        #expect(try CoordinatorFixtures.summary(coordinator).isEmpty)

        try coordinator.replacePersistentStore(at: destination, withPersistentStoreFrom: source, ofType: NSSQLiteStoreType)
        #expect(coordinator.persistentStores.count == 1)
        #expect(try CoordinatorFixtures.summary(coordinator) == expected)
    }

    @Test func destroyingLeavesAnEmptyDatabaseAndRemovesTheOtherFiles() throws {
        let folder = try CoordinatorFixtures.folder()
        defer { CoordinatorFixtures.remove(folder) }
        let url = folder.appendingPathComponent("gone.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: CoordinatorFixtures.model())
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        try CoordinatorFixtures.fill(coordinator)
        #expect(FileManager.default.fileExists(atPath: url.path))

        try coordinator.destroyPersistentStore(at: url, ofType: NSSQLiteStoreType)
        #expect(coordinator.persistentStores.isEmpty)
        // As Apple's: the file stays, an empty database (apps then delete it themselves).
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(left == ["gone.sqlite"], "left behind: \(left)")
        let tables = try DatabaseQueue(path: url.path).read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master")
        }
        #expect(tables.isEmpty)
        try FileManager.default.removeItem(at: url)
        // A store added there again starts empty.
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        #expect(try CoordinatorFixtures.summary(coordinator).isEmpty)
    }

    @Test(arguments: [NSSQLiteStoreType, NSBinaryStoreType])
    func metadataSetOnTheStoreItselfIsWrittenAtTheNextSave(type: String) throws {
        let folder = try CoordinatorFixtures.folder()
        defer { CoordinatorFixtures.remove(folder) }
        let url = folder.appendingPathComponent("direct.store")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: CoordinatorFixtures.model())
        let store = try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: url)
        store.metadata["ImportedAt"] = "2026-11-25"
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait { try context.save() }
        try coordinator.remove(store)
        let read = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: type, at: url)
        #expect(read["ImportedAt"] as? String == "2026-11-25")
    }

    @Test(arguments: [NSSQLiteStoreType, NSBinaryStoreType])
    func metadataSetByTheAppIsSavedAndReadBack(type: String) throws {
        let folder = try CoordinatorFixtures.folder()
        defer { CoordinatorFixtures.remove(folder) }
        let url = folder.appendingPathComponent("meta.store")
        let model = CoordinatorFixtures.model()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: url)
        var metadata = coordinator.metadata(for: store)
        #expect(metadata[NSStoreTypeKey] as? String == type)
        #expect(metadata[NSStoreUUIDKey] as? String == store.identifier)
        #expect((metadata[NSStoreModelVersionHashesKey] as? [String: Data])?["Task"] == model.entitiesByName["Task"]?.versionHash)
        metadata["LastSyncToken"] = "token-42"
        coordinator.setMetadata(metadata, for: store)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait { try context.save() }
        try coordinator.remove(store)

        let read = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: type, at: url)
        #expect(read["LastSyncToken"] as? String == "token-42")
        #expect(read[NSStoreUUIDKey] as? String == store.identifier)
        let reopened = try NSPersistentStoreCoordinator(managedObjectModel: model)
            .addPersistentStore(ofType: type, configurationName: nil, at: url)
        #expect(reopened.identifier == store.identifier)
        #expect(reopened.metadata["LastSyncToken"] as? String == "token-42")
    }

    @Test func aNewSQLiteStoreHasCoreDatasFixedTablesAndMetadata() throws {
        let folder = try CoordinatorFixtures.folder()
        defer { CoordinatorFixtures.remove(folder) }
        let url = folder.appendingPathComponent("new.sqlite")
        let model = CoordinatorFixtures.model()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        try CoordinatorFixtures.fill(coordinator)
        try coordinator.remove(store)

        let queue = try DatabaseQueue(path: url.path)
        try queue.read { db in
            #expect(try Int.fetchOne(db, sql: "PRAGMA auto_vacuum") == 2)
            #expect(try String.fetchOne(db, sql: "PRAGMA journal_mode") == "wal")
            let keys = try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT").map {
                "\($0[0] as Int) \($0[1] as String) \($0[2] as Int) \($0[3] as Int)"
            }
            #expect(keys == ["1 Member 0 2", "2 Project 0 1", "3 Task 0 2"])
            let row = try #require(try Row.fetchOne(db, sql: "SELECT Z_VERSION, Z_UUID, Z_PLIST FROM Z_METADATA"))
            #expect(row[0] as Int == 1 && row[1] as String == store.identifier)
            let plist = try PropertyListSerialization.propertyList(from: row[2] as Data, options: [], format: nil)
            let metadata = try #require(plist as? [String: Any])
            #expect(metadata["NSStoreType"] as? String == "SQLite")
            #expect(metadata["NSStoreModelVersionHashesVersion"] as? Int == 3)
            #expect(metadata["_NSAutoVacuumLevel"] as? String == "2")
            #expect(metadata["NSStoreUUID"] == nil)
            // Dates as seconds since 2001, UUIDs as 16 bytes, URIs as text, ordered tasks 2048, 3072.
            let project = try #require(try Row.fetchOne(db, sql: "SELECT ZSTARTEDAT, ZCODE, ZSITE FROM ZPROJECT"))
            #expect(project[0] as Double == 1_000_000)
            #expect((project[1] as Data).count == 16)
            #expect(project[2] as String == "https://example.org/apollo")
            let order = try Int.fetchAll(db, sql: "SELECT Z_FOK_PROJECT FROM ZTASK ORDER BY ZTITLE")
            #expect(order == [3072, 2048])
            // Member (1) names the join table of Member.projects ⇄ Project (2).members.
            let links = try Row.fetchAll(db, sql: "SELECT Z_1MEMBERS, Z_2PROJECTS FROM Z_1PROJECTS ORDER BY Z_1MEMBERS")
            #expect(links.map { "\($0[0] as Int)-\($0[1] as Int)" } == ["1-1", "2-1"])
        }
    }

    @Test func aReadOnlyStoreRefusesToSave() throws {
        let folder = try CoordinatorFixtures.folder()
        defer { CoordinatorFixtures.remove(folder) }
        let url = folder.appendingPathComponent("ro.sqlite")
        let model = CoordinatorFixtures.model()
        do {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
            try CoordinatorFixtures.fill(coordinator)
            try coordinator.remove(store)
        }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: [NSReadOnlyPersistentStoreOption: true])
        #expect(store.isReadOnly)
        #expect(try CoordinatorFixtures.summary(coordinator) == expected)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let error = context.performAndWait { () -> NSError? in
            NSEntityDescription.insertNewObject(forEntityName: "Member", into: context).setValue("Linus", forKey: "name")
            do {
                try context.save()
                return nil
            } catch {
                return error as NSError
            }
        }
        #expect(error?.domain == NSCocoaErrorDomain && error?.code == NSPersistentStoreSaveError)
    }

    @Test func sortDescriptorsKeepTheirKey() {
        let descriptor = NSSortDescriptor(key: "title", ascending: false)
        #expect(descriptor.key == "title")
        #expect(descriptor.ascending == false)
        #expect(NSSortDescriptor(key: nil, ascending: true).key == nil)
    }
}
