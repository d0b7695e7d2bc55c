import Foundation
import GRDB
import Testing

@testable import Strata

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a migration, a replace or a destroy leaves on disk, and what it refuses to touch:
/// every path returns with the destination whole in its main file and no connection left
/// (code that then moves the file alone finds the store), and a URL that is not a store's own
/// regular file (`/dev/null`, a folder, a link out of the store's folder) is refused with a
/// typed error, nothing removed.
@Suite struct StoreFileSafetyTests {
    static let v1 = """
        <entity name="Item">
            <attribute name="name" attributeType="String"/>
        </entity>
        """

    static let v2 = """
        <entity name="Item">
            <attribute name="name" attributeType="String"/>
            <attribute name="rank" optional="YES" attributeType="Integer 32" defaultValueString="0" usesScalarValueType="YES"/>
        </entity>
        """

    struct Fixture {
        let bundle: URL
        let source: NSManagedObjectModel
        let destination: NSManagedObjectModel
        let url: URL
        var folder: URL { bundle.deletingLastPathComponent() }
    }

    /// A version 1 store of 50 items, closed.
    static func fixture() throws -> Fixture {
        let bundle = try MigrationFixtures.bundle(["V1": v1, "V2": v2], current: "V2")
        let url = MigrationFixtures.store(in: bundle)
        let source = try MigrationFixtures.model(bundle, "V1")
        let (coordinator, context) = try MigrationFixtures.open(source, url, options: nil)
        try context.performAndWait {
            for index in 0..<50 { _ = MigrationFixtures.insert("Item", ["name": "item \(index)"], into: context) }
            try context.save()
        }
        try MigrationFixtures.close(coordinator)
        return Fixture(bundle: bundle, source: source, destination: try MigrationFixtures.model(bundle, "V2"), url: url)
    }

    /// The names of the items in the store at the URL, opened with the model and options.
    static func names(
        _ model: NSManagedObjectModel, _ url: URL, options: [AnyHashable: Any]? = nil
    ) throws -> [String] {
        let (coordinator, context) = try MigrationFixtures.open(model, url, options: options)
        defer { try? MigrationFixtures.close(coordinator) }
        return try context.performAndWait {
            try MigrationFixtures.fetch("Item", in: context, sortedBy: "name").compactMap { $0.value(forKey: "name") as? String }
        }
    }

    static func moveAlone(_ url: URL, to target: URL) throws {
        try FileManager.default.moveItem(at: url, to: target)
    }

    static func companions(of url: URL) -> [String] {
        ["-wal", "-shm"].filter { FileManager.default.fileExists(atPath: url.path + $0) }
    }

    // MARK: Item 2: a migrated store is whole and closed

    /// The progressive-migration pattern: migrate into a new file, then move that file alone
    /// over the old one and open it with the destination model.
    @Test func explicitMigrationLeavesTheDestinationWholeInItsMainFile() throws {
        let fixture = try Self.fixture()
        let migrated = fixture.folder.appendingPathComponent("Migrated.sqlite")
        let manager = NSMigrationManager(sourceModel: fixture.source, destinationModel: fixture.destination)
        try manager.migrateStore(
            from: fixture.url, type: NSSQLiteStoreType, options: nil, with: nil, toDestinationURL: migrated,
            destinationType: NSSQLiteStoreType, destinationOptions: nil)
        #expect(Self.companions(of: migrated).isEmpty)
        let moved = fixture.folder.appendingPathComponent("Moved.sqlite")
        try Self.moveAlone(migrated, to: moved)
        let names = try Self.names(fixture.destination, moved)
        #expect(names.count == 50)
        #expect(names.first == "item 0")
    }

    /// A store just migrated opens in rollback-journal mode (`journal_mode` `DELETE`), as
    /// Apple's apps that turn WAL off ask.
    @Test func migratedStoreOpensWithJournalModeDelete() throws {
        let fixture = try Self.fixture()
        let migrated = fixture.folder.appendingPathComponent("Migrated.sqlite")
        let manager = NSMigrationManager(sourceModel: fixture.source, destinationModel: fixture.destination)
        try manager.migrateStore(
            from: fixture.url, type: NSSQLiteStoreType, options: nil, with: nil, toDestinationURL: migrated,
            destinationType: NSSQLiteStoreType, destinationOptions: nil)
        let options: [AnyHashable: Any] = [NSSQLitePragmasOption: ["journal_mode": "DELETE"]]
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: fixture.destination)
        let store = try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: migrated, options: options)
        let mode = try (store as? SQLiteStore)?.database?.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(mode == "delete")
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            _ = MigrationFixtures.insert("Item", ["name": "zzz", "rank": 3], into: context)
            try context.save()
        }
        try MigrationFixtures.close(coordinator)
        #expect(try Self.names(fixture.destination, migrated, options: options).count == 51)
    }

    /// Lightweight migration in place (the automatic options): once the store is removed, its
    /// main file alone holds the migrated store.
    @Test func lightweightMigrationInPlaceLeavesAWholeFileOnceRemoved() throws {
        let fixture = try Self.fixture()
        let (coordinator, _) = try MigrationFixtures.open(fixture.destination, fixture.url)
        try MigrationFixtures.close(coordinator)
        #expect(Self.companions(of: fixture.url).isEmpty)
        let moved = fixture.folder.appendingPathComponent("Moved.sqlite")
        try Self.moveAlone(fixture.url, to: moved)
        #expect(try Self.names(fixture.destination, moved, options: nil).count == 50)
    }

    /// A staged migration (a lightweight stage) run when the store is added: once removed,
    /// the main file alone holds the migrated store.
    @Test func stagedMigrationLeavesAWholeFileOnceRemoved() throws {
        let fixture = try Self.fixture()
        let stage = NSLightweightMigrationStage([fixture.source.versionChecksum, fixture.destination.versionChecksum])
        var options = MigrationFixtures.migrate
        options[NSPersistentStoreStagedMigrationManagerOptionKey] = NSStagedMigrationManager([stage])
        let (coordinator, _) = try MigrationFixtures.open(fixture.destination, fixture.url, options: options)
        try MigrationFixtures.close(coordinator)
        #expect(Self.companions(of: fixture.url).isEmpty)
        let moved = fixture.folder.appendingPathComponent("Moved.sqlite")
        try Self.moveAlone(fixture.url, to: moved)
        #expect(try Self.names(fixture.destination, moved, options: nil).count == 50)
    }

    /// `migratePersistentStore`: the new store's main file is whole as soon as it returns (the
    /// store stays added), and `replacePersistentStore` copies a store whose file alone is whole.
    @Test func migrateAndReplaceLeaveWholeMainFiles() throws {
        let fixture = try Self.fixture()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: fixture.source)
        let store = try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: fixture.url, options: nil)
        let copy = fixture.folder.appendingPathComponent("Copy.sqlite")
        _ = try coordinator.migratePersistentStore(store, to: copy, options: nil, withType: NSSQLiteStoreType)
        let snapshot = fixture.folder.appendingPathComponent("Snapshot.sqlite")
        try FileManager.default.copyItem(at: copy, to: snapshot)
        #expect(try Self.names(fixture.source, snapshot).count == 50)
        try MigrationFixtures.close(coordinator)
        #expect(Self.companions(of: copy).isEmpty)

        let replaced = fixture.folder.appendingPathComponent("Replaced.sqlite")
        try coordinator.replacePersistentStore(
            at: replaced, destinationOptions: nil, withPersistentStoreFrom: copy, sourceOptions: nil,
            ofType: NSSQLiteStoreType)
        #expect(Self.companions(of: replaced).isEmpty)
        let moved = fixture.folder.appendingPathComponent("MovedReplaced.sqlite")
        try Self.moveAlone(replaced, to: moved)
        #expect(try Self.names(fixture.source, moved).count == 50)
    }

    // MARK: Item 5: URLs that are not the store's own file

    static func expectRefused(_ error: any Error, code: Int = NSPersistentStoreOperationError) {
        let error = error as NSError
        #expect(error.domain == NSCocoaErrorDomain)
        #expect(error.code == code)
    }

    /// A stand-in for `/dev/null` in the test's own folder: a character device of the same
    /// numbers where the process may make one (as root), else a named pipe — never the real
    /// device, which a broken destroy would delete for every process of the machine.
    static func device(in folder: URL) throws -> URL {
        let url = folder.appendingPathComponent("null")
        // `makedev(1, 3)` on Linux: (major << 8) | minor for numbers this small.
        if mknod(url.path, S_IFCHR | 0o666, dev_t(1 << 8 | 3)) != 0 {
            #expect(mkfifo(url.path, 0o666) == 0)
        }
        return url
    }

    static func isSpecialFile(_ url: URL) -> Bool {
        var info = stat()
        guard lstat(url.path, &info) == 0 else { return false }
        return info.st_mode & S_IFMT == S_IFCHR || info.st_mode & S_IFMT == S_IFIFO
    }

    /// `/dev/null` is refused by the check every destroy, replace and migrate runs first
    /// (checked without calling them on the real device); a device file is refused by the
    /// operations themselves and left as it is.
    @Test func destroyRefusesDevNullAndLeavesTheDeviceAlone() throws {
        for operation in ["destroy", "replace", "migrate to"] {
            #expect(throws: NSError.self) {
                try StoreFile.requireOwnableFile(URL(fileURLWithPath: "/dev/null"), operation: operation)
            }
        }
        do {
            try StoreFile.requireOwnableFile(URL(fileURLWithPath: "/dev/null"), operation: "destroy")
        } catch {
            Self.expectRefused(error)
        }
        let fixture = try Self.fixture()
        let device = try Self.device(in: fixture.folder)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: fixture.source)
        do {
            try coordinator.destroyPersistentStore(at: device, ofType: NSSQLiteStoreType)
            Issue.record("destroying a device succeeded")
        } catch {
            Self.expectRefused(error)
        }
        #expect(Self.isSpecialFile(device))
        // Adding /dev/null as an in-memory SQLite store (Xcode's template) still works.
        let store = try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: URL(fileURLWithPath: "/dev/null"), options: nil)
        #expect(store.url?.path == "/dev/null")
    }

    @Test func destroyRefusesAFolderAndALinkOutOfTheStoreFolder() throws {
        let fixture = try Self.fixture()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: fixture.source)
        let before = MigrationFixtures.bytes(of: fixture.url)
        // A folder at the store's URL.
        let folder = fixture.folder.appendingPathComponent("Folder.sqlite")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: folder.appendingPathComponent("inside"))
        do {
            try coordinator.destroyPersistentStore(at: folder, ofType: NSSQLiteStoreType)
            Issue.record("destroying a folder succeeded")
        } catch {
            Self.expectRefused(error)
        }
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("inside").path))
        // A link to a store in another folder.
        let elsewhere = FileManager.default.temporaryDirectory.appendingPathComponent("strata-link-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let link = elsewhere.appendingPathComponent("Link.sqlite")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: fixture.url)
        for operation in ["destroy", "replace", "migrate"] {
            do {
                switch operation {
                case "destroy":
                    try coordinator.destroyPersistentStore(at: link, ofType: NSSQLiteStoreType)
                case "replace":
                    try coordinator.replacePersistentStore(
                        at: link, destinationOptions: nil, withPersistentStoreFrom: fixture.url, sourceOptions: nil,
                        ofType: NSSQLiteStoreType)
                default:
                    let manager = NSMigrationManager(sourceModel: fixture.source, destinationModel: fixture.destination)
                    try manager.migrateStore(
                        from: fixture.url, type: NSSQLiteStoreType, options: nil, with: nil, toDestinationURL: link,
                        destinationType: NSSQLiteStoreType, destinationOptions: nil)
                }
                Issue.record("\(operation) through a link out of the folder succeeded")
            } catch {
                Self.expectRefused(
                    error,
                    code: operation == "migrate" ? NSMigrationManagerDestinationStoreError : NSPersistentStoreOperationError)
            }
        }
        #expect(MigrationFixtures.bytes(of: fixture.url) == before)
        #expect(try Self.names(fixture.source, fixture.url).count == 50)
    }

    @Test func replaceAndMigrateRefuseDevicesButAllowNewFiles() throws {
        let fixture = try Self.fixture()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: fixture.source)
        let devNull = try Self.device(in: fixture.folder)
        do {
            try coordinator.replacePersistentStore(
                at: devNull, destinationOptions: nil, withPersistentStoreFrom: fixture.url, sourceOptions: nil,
                ofType: NSSQLiteStoreType)
            Issue.record("replacing a device succeeded")
        } catch {
            Self.expectRefused(error)
        }
        let manager = NSMigrationManager(sourceModel: fixture.source, destinationModel: fixture.destination)
        do {
            try manager.migrateStore(
                from: fixture.url, type: NSSQLiteStoreType, options: nil, with: nil, toDestinationURL: devNull,
                destinationType: NSSQLiteStoreType, destinationOptions: nil)
            Issue.record("migrating to a device succeeded")
        } catch {
            Self.expectRefused(error, code: NSMigrationManagerDestinationStoreError)
        }
        let store = try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: fixture.url, options: nil)
        do {
            _ = try coordinator.migratePersistentStore(store, to: devNull, options: nil, withType: NSSQLiteStoreType)
            Issue.record("migratePersistentStore to a device succeeded")
        } catch {
            Self.expectRefused(error)
        }
        #expect(coordinator.persistentStores.count == 1)
        #expect(Self.isSpecialFile(devNull))
        // New files are allowed: destroy of a missing file, replace and migrate to new paths.
        try coordinator.destroyPersistentStore(
            at: fixture.folder.appendingPathComponent("Missing.sqlite"), ofType: NSSQLiteStoreType)
        let fresh = fixture.folder.appendingPathComponent("Fresh.sqlite")
        try coordinator.replacePersistentStore(
            at: fresh, destinationOptions: nil, withPersistentStoreFrom: fixture.url, sourceOptions: nil,
            ofType: NSSQLiteStoreType)
        #expect(try Self.names(fixture.source, fresh).count == 50)
        // A link inside the store's folder to the store's own file is the store's.
        let link = fixture.folder.appendingPathComponent("Alias.sqlite")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: fresh)
        try coordinator.destroyPersistentStore(at: link, ofType: NSSQLiteStoreType)
    }

    // MARK: Item 3: no SQLite error escapes raw

    /// An error of a public API is Core Data's: `NSCocoaErrorDomain`, a Core Data code, and
    /// for SQLite failures the SQLite error underneath.
    static func expectCoreDataError(_ error: any Error, codes: Set<Int>, sqlite: Bool, _ what: String) {
        let error = error as NSError
        #expect(error.domain == NSCocoaErrorDomain, "\(what): \(error.domain) \(error.code)")
        #expect(codes.contains(error.code), "\(what): \(error.code)")
        if sqlite {
            let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError
            #expect(underlying?.domain == NSSQLiteErrorDomain, "\(what): \(String(describing: underlying))")
        }
    }

    /// A store locked by another connection's write transaction: adding it (which must
    /// migrate), migrating it explicitly, saving to it and batch-deleting in it fail with Core
    /// Data's errors, SQLite's `SQLITE_BUSY` underneath.
    @Test func lockedStoreFailsWithCoreDataErrorsOnly() throws {
        let fixture = try Self.fixture()
        // A connection holding the write lock (and, in rollback mode, the read lock too).
        let lock = try Self.lock(fixture.url, journalMode: "DELETE")
        let busy: [AnyHashable: Any] = [
            NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
            NSSQLitePragmasOption: ["busy_timeout": 10],
        ]
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: fixture.destination)
        do {
            _ = try coordinator.addPersistentStore(
                ofType: NSSQLiteStoreType, configurationName: nil, at: fixture.url, options: busy)
            Issue.record("adding a locked store succeeded")
        } catch {
            Self.expectCoreDataError(
                error, codes: [NSPersistentStoreOpenError, NSPersistentStoreTimeoutError, NSMigrationError, NSSQLiteError],
                sqlite: true, "add")
        }
        let manager = NSMigrationManager(sourceModel: fixture.source, destinationModel: fixture.destination)
        do {
            try manager.migrateStore(
                from: fixture.url, type: NSSQLiteStoreType, options: nil, with: nil,
                toDestinationURL: fixture.folder.appendingPathComponent("Out.sqlite"), destinationType: NSSQLiteStoreType,
                destinationOptions: nil)
            Issue.record("migrating a locked store succeeded")
        } catch {
            // The source cannot be read: 134150 with the open error underneath, itself Core Data's.
            let nsError = error as NSError
            Self.expectCoreDataError(
                error, codes: [NSMigrationManagerSourceStoreError, NSMigrationError], sqlite: false, "migrate")
            if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError {
                #expect(underlying.domain == NSCocoaErrorDomain || underlying.domain == NSSQLiteErrorDomain)
            }
        }
        try Self.unlock(lock)
    }

    /// Another connection to the file inside an exclusive transaction.
    static func lock(_ url: URL, journalMode: String?) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        let queue = try DatabaseQueue(path: url.path, configuration: configuration)
        try queue.writeWithoutTransaction { db in
            if let journalMode { try db.execute(sql: "PRAGMA journal_mode = \(journalMode)") }
            try db.execute(sql: "BEGIN EXCLUSIVE")
        }
        return queue
    }

    static func unlock(_ queue: DatabaseQueue) throws {
        try queue.writeWithoutTransaction { db in try db.execute(sql: "ROLLBACK") }
        try queue.close()
    }

    /// A migration that fails in SQLite (a full disk: `max_page_count` at the file's size) is
    /// 134110 with the SQLite error itself underneath (`NSSQLiteErrorDomain`, `SQLITE_FULL`),
    /// not GRDB's error.
    @Test func migrationFailureCarriesTheSQLiteErrorUnderneath() throws {
        let fixture = try Self.fixture()
        // A new entity: a new table, which needs pages the full disk does not have.
        let withFolder =
            Self.v2 + #"<entity name="Folder"><attribute name="name" optional="YES" attributeType="String"/></entity>"#
        let bundle = try MigrationFixtures.bundle(["V1": Self.v1, "V3": withFolder], current: "V3")
        let url = MigrationFixtures.store(in: bundle)
        try FileManager.default.copyItem(at: fixture.url, to: url)
        var options = MigrationFixtures.migrate
        options[NSSQLitePragmasOption] = ["max_page_count": 1]
        do {
            _ = try MigrationFixtures.open(try MigrationFixtures.model(bundle, "V3"), url, options: options)
            Issue.record("a migration on a full disk succeeded")
        } catch {
            Self.expectCoreDataError(error, codes: [NSMigrationError], sqlite: true, "lightweight migration")
            let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
            #expect(underlying?.code == 13)
        }
        #expect(try Self.names(try MigrationFixtures.model(bundle, "V1"), url).count == 50)
    }

    /// A pragma that writes (`user_version`) runs on the store's writer; the read-only reader
    /// connections of the store do not fail on it (reads failed with a raw SQLite error).
    @Test func writingPragmaLeavesReadsWorking() throws {
        let fixture = try Self.fixture()
        let options: [AnyHashable: Any] = [NSSQLitePragmasOption: ["user_version": 7]]
        #expect(try Self.names(fixture.source, fixture.url, options: options).count == 50)
        let version = try DatabaseQueue(path: fixture.url.path).read { db in
            try Int.fetchOne(db, sql: "PRAGMA user_version")
        }
        #expect(version == 7)
    }

    /// A store opened, then locked by another connection: a save and a batch delete fail with
    /// Core Data's errors (134030), SQLite's underneath.
    @Test func saveAndBatchDeleteOnALockedStoreFailWithCoreDataErrors() throws {
        let fixture = try Self.fixture()
        let options: [AnyHashable: Any] = [NSSQLitePragmasOption: ["journal_mode": "DELETE", "busy_timeout": 10]]
        let (coordinator, context) = try MigrationFixtures.open(fixture.source, fixture.url, options: options)
        defer { try? MigrationFixtures.close(coordinator) }
        let lock = try Self.lock(fixture.url, journalMode: nil)
        context.performAndWait {
            _ = MigrationFixtures.insert("Item", ["name": "new"], into: context)
            do {
                try context.save()
                Issue.record("saving to a locked store succeeded")
            } catch {
                Self.expectCoreDataError(error, codes: [NSPersistentStoreSaveError, NSSQLiteError], sqlite: true, "save")
            }
            do {
                _ = try context.execute(NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Item")))
                Issue.record("batch delete in a locked store succeeded")
            } catch {
                Self.expectCoreDataError(
                    error, codes: [NSPersistentStoreSaveError, NSSQLiteError], sqlite: true, "batch delete")
            }
            do {
                _ = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item"))
                Issue.record("fetching from an exclusively locked store succeeded")
            } catch {
                Self.expectCoreDataError(error, codes: [NSSQLiteError], sqlite: true, "fetch")
            }
        }
        try Self.unlock(lock)
    }
}
