import Foundation
import Synchronization
import Testing

@testable import Strata

/// Explicit migration with mapping models built in code: `NSMigrationManager` runs the
/// entity mappings (transform, add, remove, custom) with their value expressions and
/// policies, in Apple's three passes, into a new store; failures leave the source as it was.
@Suite struct ExplicitMigrationTests {
    static let v1 = """
        <entity name="Folder">
            <attribute name="name" attributeType="String"/>
            <relationship name="notes" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Note" inverseName="folder" inverseEntity="Note"/>
        </entity>
        <entity name="Note">
            <attribute name="title" attributeType="String"/>
            <attribute name="body" optional="YES" attributeType="String"/>
            <attribute name="attachment" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>
            <relationship name="folder" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Folder" inverseName="notes" inverseEntity="Folder"/>
        </entity>
        <entity name="Draft">
            <attribute name="text" optional="YES" attributeType="String"/>
        </entity>
        """

    static let v2 = """
        <entity name="Folder">
            <attribute name="label" attributeType="String"/>
            <relationship name="notes" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Note" inverseName="folder" inverseEntity="Note"/>
        </entity>
        <entity name="Note">
            <attribute name="heading" attributeType="String"/>
            <attribute name="words" attributeType="Integer 32" defaultValueString="0"/>
            <attribute name="attachment" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>
            <relationship name="folder" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Folder" inverseName="notes" inverseEntity="Folder"/>
        </entity>
        <entity name="Tag">
            <attribute name="label" optional="YES" attributeType="String"/>
        </entity>
        """

    struct Fixture {
        let folder: URL
        let source: NSManagedObjectModel
        let destination: NSManagedObjectModel
        let sourceURL: URL
        var destinationURL: URL { folder.appendingPathComponent("Migrated.sqlite") }
    }

    /// Two folders with notes (one with a large attachment, kept in an external file) and a
    /// draft, saved with version 1.
    static func fixture() throws -> Fixture {
        let bundle = try MigrationFixtures.bundle(["V1": v1, "V2": v2], current: "V2")
        let url = MigrationFixtures.store(in: bundle)
        let source = try MigrationFixtures.model(bundle, "V1")
        let (coordinator, context) = try MigrationFixtures.open(source, url, options: nil)
        try context.performAndWait {
            let work = MigrationFixtures.insert("Folder", ["name": "work"], into: context)
            let home = MigrationFixtures.insert("Folder", ["name": "home"], into: context)
            let a = MigrationFixtures.insert(
                "Note", ["title": "plan", "body": "one two three", "attachment": Data(repeating: 7, count: 200_000)],
                into: context)
            let b = MigrationFixtures.insert("Note", ["title": "list", "body": "milk"], into: context)
            let c = MigrationFixtures.insert("Note", ["title": "idea", "body": nil], into: context)
            a.setValue(work, forKey: "folder")
            b.setValue(home, forKey: "folder")
            c.setValue(work, forKey: "folder")
            _ = MigrationFixtures.insert("Draft", ["text": "unsent"], into: context)
            try context.save()
        }
        try MigrationFixtures.close(coordinator)
        return Fixture(
            folder: bundle.deletingLastPathComponent(), source: source, destination: try MigrationFixtures.model(bundle, "V2"),
            sourceURL: url)
    }

    /// V1 → V2: folders renamed through `$source.name`, notes' headings upper-cased by
    /// `FUNCTION($source.title, "uppercaseString")`, their word counts computed by the policy
    /// (`FUNCTION($entityPolicy, "wordCount:", $source.body)`), folders related again through
    /// `destinationInstancesForEntityMappingNamed:sourceInstances:`, drafts removed, tags added.
    static func mapping(policy: String = "StrataTests.WordCountPolicy") -> NSMappingModel {
        func property(_ name: String, _ format: String) -> NSPropertyMapping {
            let mapping = NSPropertyMapping()
            mapping.name = name
            mapping.valueExpression = NSExpression(format: format)
            return mapping
        }
        let folders = NSEntityMapping()
        folders.name = "FolderToFolder"
        folders.mappingType = .transformEntityMappingType
        folders.sourceEntityName = "Folder"
        folders.destinationEntityName = "Folder"
        folders.attributeMappings = [property("label", "$source.name")]
        folders.relationshipMappings = [
            property(
                "notes",
                #"FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "NoteToNote", $source.notes)"#)
        ]
        let notes = NSEntityMapping()
        notes.name = "NoteToNote"
        notes.mappingType = .customEntityMappingType
        notes.sourceEntityName = "Note"
        notes.destinationEntityName = "Note"
        notes.entityMigrationPolicyClassName = policy
        notes.userInfo = ["minimum": 1]
        notes.attributeMappings = [
            property("heading", #"FUNCTION($source.title, "uppercaseString")"#),
            property("words", #"FUNCTION($entityPolicy, "wordCount:", $source.body)"#),
            property("attachment", "$source.attachment"),
        ]
        notes.relationshipMappings = [
            property(
                "folder",
                #"FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "FolderToFolder", $source.folder)"#
            )
        ]
        let drafts = NSEntityMapping()
        drafts.name = "RemoveDraft"
        drafts.mappingType = .removeEntityMappingType
        drafts.sourceEntityName = "Draft"
        let tags = NSEntityMapping()
        tags.name = "AddTag"
        tags.mappingType = .addEntityMappingType
        tags.destinationEntityName = "Tag"
        let model = NSMappingModel()
        model.entityMappings = [folders, notes, drafts, tags]
        return model
    }

    @Test func codeBuiltMappingMigratesEveryKindOfEntityMapping() throws {
        let fixture = try Self.fixture()
        defer { try? FileManager.default.removeItem(at: fixture.folder) }
        let before = MigrationFixtures.bytes(of: fixture.sourceURL)
        let manager = NSMigrationManager(sourceModel: fixture.source, destinationModel: fixture.destination)
        let log = CallLog()
        manager.userInfo = ["run": 1, "log": log]
        try manager.migrateStore(
            from: fixture.sourceURL, type: NSSQLiteStoreType, options: nil, with: Self.mapping(),
            toDestinationURL: fixture.destinationURL, destinationType: NSSQLiteStoreType, destinationOptions: nil)
        #expect(manager.migrationProgress == 1)
        #expect(MigrationFixtures.bytes(of: fixture.sourceURL)[""] == before[""], "the source store was written")
        // The policy's hooks ran in Apple's order, once per note for the per-object ones.
        let calls = log.calls.withLock { $0 }
        #expect(
            calls == [
                "begin", "create plan", "create list", "create idea", "endInstanceCreation", "relationships",
                "relationships", "relationships", "endRelationshipCreation", "validate", "end",
            ])
        #expect(manager.destinationInstances(forEntityMappingName: "NoteToNote", sourceInstances: nil).count == 3)
        #expect(manager.sourceInstances(forEntityMappingName: "FolderToFolder", destinationInstances: nil).count == 2)
        // The contexts the migration made are reset when it ends, so that their objects, which
        // hold one another through relationships, do not outlive it (a leak LeakSanitizer found
        // by fuzzing: mapping-model).
        let sourceObjects = manager.sourceContext?.performAndWait { manager.sourceContext?.registeredObjects.count }
        let destinationObjects = manager.destinationContext?.performAndWait {
            manager.destinationContext?.registeredObjects.count
        }
        #expect(sourceObjects == 0 && destinationObjects == 0)

        let (coordinator, context) = try MigrationFixtures.open(fixture.destination, fixture.destinationURL, options: nil)
        defer { try? MigrationFixtures.close(coordinator) }
        try context.performAndWait {
            let notes = try MigrationFixtures.fetch("Note", in: context, sortedBy: "heading")
            #expect(notes.map { $0.value(forKey: "heading") as? String } == ["IDEA", "LIST", "PLAN"])
            #expect(notes.map { ($0.value(forKey: "words") as? NSNumber)?.intValue } == [0, 1, 3])
            #expect(
                notes.map { ($0.value(forKey: "folder") as? NSManagedObject)?.value(forKey: "label") as? String } == [
                    "work", "home", "work",
                ])
            #expect((notes[2].value(forKey: "attachment") as? Data) == Data(repeating: 7, count: 200_000))
            let folders = try MigrationFixtures.fetch("Folder", in: context, sortedBy: "label")
            #expect(folders.map { ($0.value(forKey: "notes") as? Set<NSManagedObject>)?.count } == [1, 2])
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Tag")) == 0)
        }
        // The attachment lives in the new store's own external data folder.
        let external = SQLiteExternalStorage.supportFolder(of: fixture.destinationURL).appendingPathComponent("_EXTERNAL_DATA")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: external.path)) ?? []).count == 1)
    }

    @Test func policyFoundByUnqualifiedNameAfterRegistration() throws {
        NSEntityMigrationPolicy.register(WordCountPolicy.self)
        #expect(NSEntityMigrationPolicy.policyClass(named: "SomeApp.WordCountPolicy") == WordCountPolicy.self)
        #expect(NSEntityMigrationPolicy.policyClass(named: "StrataTests.WordCountPolicy") == WordCountPolicy.self)
        #expect(NSEntityMigrationPolicy.policyClass(named: "NoSuchPolicyAnywhere") == nil)
    }

    /// A disk that fills up while the new store is written (SQLite's `max_page_count` on the
    /// new file: 5 pages, of the 9 the migrated store takes, so that SQLite answers as on a full
    /// disk), in place: the original stays byte for byte with its external file, nothing is
    /// left beside it, and it opens as before.
    @Test func aFullDiskDuringExplicitMigrationInPlaceChangesNothing() throws {
        let fixture = try Self.fixture()
        defer { try? FileManager.default.removeItem(at: fixture.folder) }
        // The migration first writes the original's WAL into its main file (the same store);
        // from there on not a byte may change.
        try ExplicitStoreMigration.checkpoint(fixture.sourceURL)
        let before = MigrationFixtures.bytes(of: fixture.sourceURL)
        let externalFolder = SQLiteExternalStorage.supportFolder(of: fixture.sourceURL).appendingPathComponent("_EXTERNAL_DATA")
        let files = try FileManager.default.contentsOfDirectory(atPath: externalFolder.path)
        #expect(files.count == 1)
        #expect(throws: NSError.self) {
            try ExplicitStoreMigration.migrateInPlace(
                fixture.sourceURL, sourceModel: fixture.source, destinationModel: fixture.destination, mapping: Self.mapping(),
                options: [NSSQLitePragmasOption: ["max_page_count": 5]])
        }
        #expect(MigrationFixtures.bytes(of: fixture.sourceURL)[""] == before[""])
        #expect(try FileManager.default.contentsOfDirectory(atPath: externalFolder.path) == files)
        #expect(!FileManager.default.fileExists(atPath: ExplicitStoreMigration.stagingFolder(of: fixture.sourceURL).path))
        let (coordinator, context) = try MigrationFixtures.open(fixture.source, fixture.sourceURL, options: nil)
        defer { try? MigrationFixtures.close(coordinator) }
        try context.performAndWait {
            let notes = try MigrationFixtures.fetch("Note", in: context, sortedBy: "title")
            #expect(notes.count == 3)
            let plan = notes.first { $0.value(forKey: "title") as? String == "plan" }
            #expect((plan?.value(forKey: "attachment") as? Data)?.count == 200_000)
        }
    }

    /// A policy that throws, a value the destination refuses, a missing policy class and a
    /// cancellation: each fails with its error, the source file unchanged and the
    /// destination removed.
    @Test(arguments: ["throws", "refused", "missingClass", "cancelled"])
    func failedMigrationLeavesTheSourceAndNoDestination(_ failure: String) throws {
        let fixture = try Self.fixture()
        defer { try? FileManager.default.removeItem(at: fixture.folder) }
        let before = MigrationFixtures.bytes(of: fixture.sourceURL)
        let mapping: NSMappingModel
        switch failure {
        case "throws": mapping = Self.mapping(policy: "StrataTests.ThrowingPolicy")
        case "missingClass": mapping = Self.mapping(policy: "Nowhere.NoSuchPolicy")
        case "cancelled": mapping = Self.mapping(policy: "StrataTests.CancellingPolicy")
        default:
            mapping = Self.mapping()
            // The heading becomes nil for every note: the destination requires it.
            mapping.entityMappingsByName["NoteToNote"]?.attributeMappings?[0].valueExpression = NSExpression(
                format: "$source.nothing")
        }
        let manager = NSMigrationManager(sourceModel: fixture.source, destinationModel: fixture.destination)
        var caught: NSError?
        do {
            try manager.migrateStore(
                from: fixture.sourceURL, type: NSSQLiteStoreType, options: nil, with: mapping,
                toDestinationURL: fixture.destinationURL, destinationType: NSSQLiteStoreType, destinationOptions: nil)
        } catch {
            caught = error as NSError
        }
        let error = try #require(caught)
        switch failure {
        case "throws":
            #expect(error.domain == "ThrowingPolicy")
            #expect(error.code == 7)
        case "missingClass":
            #expect(error.code == NSEntityMigrationPolicyError)
        case "cancelled":
            #expect(error.domain == "Cancelled")
            #expect(manager.migrationProgress < 1)
        default:
            #expect(error.code == NSMigrationError)
            #expect(error.userInfo["entity"] as? String == "Note")
            #expect(error.userInfo["property"] as? String == "heading")
        }
        #expect(MigrationFixtures.bytes(of: fixture.sourceURL)[""] == before[""])
        #expect(!FileManager.default.fileExists(atPath: fixture.destinationURL.path))
        // The source still opens with its model, every note there.
        let (coordinator, context) = try MigrationFixtures.open(fixture.source, fixture.sourceURL, options: nil)
        defer { try? MigrationFixtures.close(coordinator) }
        let count = try context.performAndWait { try MigrationFixtures.fetch("Note", in: context, sortedBy: "title").count }
        #expect(count == 3)
    }

    /// In place (as when a store is added and a mapping model found): the original file is
    /// replaced whole, its external data files with it; a failure leaves it byte-identical.
    @Test func inPlaceMigrationReplacesTheStoreWithItsExternalFiles() throws {
        let fixture = try Self.fixture()
        defer { try? FileManager.default.removeItem(at: fixture.folder) }
        // The migration first writes the WAL into the main file; the bytes are compared after.
        try ExplicitStoreMigration.checkpoint(fixture.sourceURL)
        let before = MigrationFixtures.bytes(of: fixture.sourceURL)
        #expect(before["-wal"] == nil)
        #expect(throws: NSError.self) {
            try ExplicitStoreMigration.migrateInPlace(
                fixture.sourceURL, sourceModel: fixture.source, destinationModel: fixture.destination,
                mapping: Self.mapping(policy: "StrataTests.ThrowingPolicy"), options: nil)
        }
        #expect(MigrationFixtures.bytes(of: fixture.sourceURL) == before)
        #expect(!FileManager.default.fileExists(atPath: ExplicitStoreMigration.stagingFolder(of: fixture.sourceURL).path))

        try ExplicitStoreMigration.migrateInPlace(
            fixture.sourceURL, sourceModel: fixture.source, destinationModel: fixture.destination, mapping: Self.mapping(),
            options: nil)
        #expect(!FileManager.default.fileExists(atPath: ExplicitStoreMigration.stagingFolder(of: fixture.sourceURL).path))
        let (coordinator, context) = try MigrationFixtures.open(fixture.destination, fixture.sourceURL, options: nil)
        defer { try? MigrationFixtures.close(coordinator) }
        try context.performAndWait {
            let notes = try MigrationFixtures.fetch("Note", in: context, sortedBy: "heading")
            #expect(notes.map { $0.value(forKey: "heading") as? String } == ["IDEA", "LIST", "PLAN"])
            #expect((notes[2].value(forKey: "attachment") as? Data) == Data(repeating: 7, count: 200_000))
        }
    }

    /// Expressions Xcode's mapping editor writes, evaluated as a migration does.
    @Test func valueExpressionsOfMappingModels() throws {
        let fixture = try Self.fixture()
        defer { try? FileManager.default.removeItem(at: fixture.folder) }
        let (coordinator, context) = try MigrationFixtures.open(fixture.source, fixture.sourceURL, options: nil)
        defer { try? MigrationFixtures.close(coordinator) }
        try context.performAndWait {
            let note = try MigrationFixtures.fetch("Note", in: context, sortedBy: "title")[1]
            func value(_ format: String) -> Any? {
                NSExpression(format: format).expressionValue(
                    with: note, context: NSMutableDictionary(dictionary: ["source": note]))
            }
            #expect(value(#"FUNCTION($source.title, "uppercaseString")"#) as? String == "LIST")
            #expect(value(#"FUNCTION($source.body, "stringByAppendingString:", "!")"#) as? String == "milk!")
            #expect((value(#"FUNCTION($source.title, "length")"#) as? Int64) == 4)
            #expect(value("$source.folder.name") as? String == "home")
            #expect(value(#"FUNCTION($source.folder, "valueForKey:", "name")"#) as? String == "home")
        }
    }
}

/// The hooks a policy saw, kept in the manager's user info (tests run in parallel).
final class CallLog: Sendable {
    let calls = Mutex<[String]>([])
}

/// Counts a note's words for `FUNCTION($entityPolicy, "wordCount:", …)` and records the
/// hooks the manager calls.
final class WordCountPolicy: NSEntityMigrationPolicy, @unchecked Sendable {
    private func record(_ call: String, _ manager: NSMigrationManager) {
        (manager.userInfo?["log"] as? CallLog)?.calls.withLock { $0.append(call) }
    }

    override func begin(_ mapping: NSEntityMapping, with manager: NSMigrationManager) throws {
        #expect(manager.currentEntityMapping === mapping)
        #expect(manager.userInfo?["run"] as? Int ?? 1 == 1)
        record("begin", manager)
    }

    override func createDestinationInstances(
        forSource sInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager
    ) throws {
        try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
        let made = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [sInstance])
        #expect(made.count == 1)
        #expect(made.first?.managedObjectContext === manager.destinationContext)
        record("create \(sInstance.value(forKey: "title") as? String ?? "?")", manager)
    }

    override func endInstanceCreation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {
        record("endInstanceCreation", manager)
    }

    override func createRelationships(
        forDestination dInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager
    ) throws {
        try super.createRelationships(forDestination: dInstance, in: mapping, manager: manager)
        record("relationships", manager)
    }

    override func endRelationshipCreation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {
        record("endRelationshipCreation", manager)
    }

    override func performCustomValidation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {
        record("validate", manager)
    }

    override func end(_ mapping: NSEntityMapping, manager: NSMigrationManager) throws {
        record("end", manager)
    }

    override func value(forFunction selector: String, arguments: [Any?]) throws -> Any? {
        guard selector == "wordCount:" else { return nil }
        let text = arguments.first.flatMap { $0 as? String } ?? ""
        return text.split(separator: " ").count
    }
}

/// Fails the migration from its first object.
final class ThrowingPolicy: NSEntityMigrationPolicy, @unchecked Sendable {
    override func createDestinationInstances(
        forSource sInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager
    ) throws {
        try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
        throw NSError(domain: "ThrowingPolicy", code: 7)
    }
}

/// Cancels the migration from its first object.
final class CancellingPolicy: NSEntityMigrationPolicy, @unchecked Sendable {
    override func createDestinationInstances(
        forSource sInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager
    ) throws {
        manager.cancelMigrationWithError(NSError(domain: "Cancelled", code: 1))
    }
}
