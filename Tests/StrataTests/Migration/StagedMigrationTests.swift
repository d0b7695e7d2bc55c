import Foundation
import Synchronization
import Testing

@testable import Strata

/// Staged migration: a store of version 1 added with an `NSStagedMigrationManager` runs a
/// custom stage (1 → 2, whose handlers fix the data around a change lightweight migration
/// cannot make alone) and then a lightweight stage (2 → 3), in one `addPersistentStore`.
@Suite struct StagedMigrationTests {
    static let v1 = """
        <entity name="Item">
            <attribute name="name" optional="YES" attributeType="String"/>
        </entity>
        """
    /// The name becomes required, with no default: items without one would fail inference.
    static let v2 = """
        <entity name="Item">
            <attribute name="name" attributeType="String"/>
            <attribute name="checked" optional="YES" attributeType="Boolean"/>
        </entity>
        """
    static let v3 = """
        <entity name="Item">
            <attribute name="name" attributeType="String"/>
            <attribute name="checked" optional="YES" attributeType="Boolean"/>
            <attribute name="rank" attributeType="Integer 32" defaultValueString="5"/>
        </entity>
        """

    struct Fixture {
        let bundle: URL
        let url: URL
        let models: [NSManagedObjectModel]
    }

    static func fixture() throws -> Fixture {
        let bundle = try MigrationFixtures.bundle(["V1": v1, "V2": v2, "V3": v3], current: "V3")
        let models = try ["V1", "V2", "V3"].map { try MigrationFixtures.model(bundle, $0) }
        let url = MigrationFixtures.store(in: bundle)
        let (coordinator, context) = try MigrationFixtures.open(models[0], url, options: nil)
        try context.performAndWait {
            _ = MigrationFixtures.insert("Item", ["name": "milk"], into: context)
            _ = MigrationFixtures.insert("Item", ["name": nil], into: context)
            try context.save()
        }
        try MigrationFixtures.close(coordinator)
        return Fixture(bundle: bundle, url: url, models: models)
    }

    /// The stages of the fixture; `log` records what the handlers saw.
    static func manager(_ fixture: Fixture, log: CallLog, failing: Bool = false) -> NSStagedMigrationManager {
        let references = fixture.models.map { NSManagedObjectModelReference(model: $0, versionChecksum: $0.versionChecksum) }
        let custom = NSCustomMigrationStage(migratingFrom: references[0], to: references[1])
        custom.label = "names become required"
        custom.willMigrateHandler = { manager, stage in
            let context = try #require(manager.container?.newBackgroundContext())
            try context.performAndWait {
                let items = try MigrationFixtures.fetch("Item", in: context, sortedBy: "name")
                for item in items where item.value(forKey: "name") == nil { item.setValue("unnamed", forKey: "name") }
                try context.save()
            }
            log.calls.withLock { $0.append("will \(stage.label ?? "")") }
            if failing { throw NSError(domain: "Stage", code: 3) }
        }
        custom.didMigrateHandler = { manager, _ in
            let context = try #require(manager.container?.newBackgroundContext())
            #expect(
                context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Item"]?.attributesByName["checked"] != nil)
            try context.performAndWait {
                for item in try MigrationFixtures.fetch("Item", in: context, sortedBy: "name") {
                    item.setValue(item.value(forKey: "name") as? String == "milk", forKey: "checked")
                }
                try context.save()
            }
            log.calls.withLock { $0.append("did") }
        }
        let light = NSLightweightMigrationStage([references[1].versionChecksum, references[2].versionChecksum])
        return NSStagedMigrationManager([custom, light])
    }

    @Test func stagesRunInOrderWhenTheStoreIsAdded() throws {
        let fixture = try Self.fixture()
        defer { try? FileManager.default.removeItem(at: fixture.bundle.deletingLastPathComponent()) }
        let log = CallLog()
        let staged = Self.manager(fixture, log: log)
        let (coordinator, context) = try MigrationFixtures.open(
            fixture.models[2], fixture.url,
            options: [
                NSPersistentStoreStagedMigrationManagerOptionKey: staged, NSMigratePersistentStoresAutomaticallyOption: true,
            ])
        defer { try? MigrationFixtures.close(coordinator) }
        #expect(log.calls.withLock { $0 } == ["will names become required", "did"])
        #expect(staged.container == nil)
        try context.performAndWait {
            let items = try MigrationFixtures.fetch("Item", in: context, sortedBy: "name")
            #expect(items.map { $0.value(forKey: "name") as? String } == ["milk", "unnamed"])
            #expect(items.map { $0.value(forKey: "checked") as? Bool } == [true, false])
            #expect(items.map { ($0.value(forKey: "rank") as? NSNumber)?.intValue } == [5, 5])
        }
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: fixture.url)
        #expect(NSStagedMigrationManager.checksum(of: metadata) == fixture.models[2].versionChecksum)
    }

    /// Without the custom stage the same store cannot migrate (a required name is missing);
    /// a handler that throws stops the migration with its error, the store still at version 1.
    @Test func failingHandlerLeavesTheStoreAtItsVersion() throws {
        let fixture = try Self.fixture()
        defer { try? FileManager.default.removeItem(at: fixture.bundle.deletingLastPathComponent()) }
        #expect(throws: NSError.self) { _ = try MigrationFixtures.open(fixture.models[2], fixture.url) }
        let staged = Self.manager(fixture, log: CallLog(), failing: true)
        var caught: NSError?
        do {
            _ = try MigrationFixtures.open(
                fixture.models[2], fixture.url, options: [NSPersistentStoreStagedMigrationManagerOptionKey: staged])
        } catch {
            caught = error as NSError
        }
        #expect(caught?.domain == "Stage")
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: fixture.url)
        #expect(NSStagedMigrationManager.checksum(of: metadata) == fixture.models[0].versionChecksum)
    }

    @Test func modelReferencesResolveFromFilesAndBundles() throws {
        let fixture = try Self.fixture()
        defer { try? FileManager.default.removeItem(at: fixture.bundle.deletingLastPathComponent()) }
        let checksum = fixture.models[1].versionChecksum
        let byFile = NSManagedObjectModelReference(
            fileURL: fixture.bundle.appendingPathComponent("V2.xcdatamodel"), versionChecksum: checksum)
        #expect(byFile.resolvedModel.versionChecksum == checksum)
        let bundle = try #require(Bundle(url: fixture.bundle))
        let byName = NSManagedObjectModelReference(name: "V2", in: bundle, versionChecksum: checksum)
        #expect(byName.resolvedModel.entitiesByName["Item"]?.attributesByName["checked"] != nil)
        let wrong = NSManagedObjectModelReference(name: "V1", in: bundle, versionChecksum: checksum)
        #expect(wrong.model() == nil)
        #expect(NSLightweightMigrationStage([checksum]).versionChecksums == [checksum])
    }
}
