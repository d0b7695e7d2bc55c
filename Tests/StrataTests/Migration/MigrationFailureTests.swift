import Foundation
import GRDB
import Testing

@testable import Strata

/// Migrations that cannot succeed fail with Apple's codes, naming the entity and property
/// at fault, and leave the store file byte for byte as it was, still openable with its model.
@Suite struct MigrationFailureTests {
    static let v1 = """
        <entity name="Note">
            <attribute name="title" attributeType="String"/>
            <attribute name="body" optional="YES" attributeType="String"/>
            <attribute name="created" optional="YES" attributeType="Date"/>
        </entity>
        """

    /// Saves two notes, one without a body, with version 1.
    static func store(_ bundle: URL) throws -> URL {
        let url = MigrationFixtures.store(in: bundle)
        let (coordinator, context) = try MigrationFixtures.open(try MigrationFixtures.model(bundle, "V1"), url)
        try context.performAndWait {
            _ = MigrationFixtures.insert("Note", ["title": "a", "body": "text"], into: context)
            _ = MigrationFixtures.insert("Note", ["title": "b", "body": nil], into: context)
            try context.save()
        }
        try MigrationFixtures.close(coordinator)
        return url
    }

    /// Opens the version 1 store with version 2, expects the error, and checks that the file
    /// did not change and still opens with version 1.
    func expectFailure(_ v2: String, code: Int, entity: String, property: String, key: String) throws {
        let bundle = try MigrationFixtures.bundle(["V1": Self.v1, "V2": v2], current: "V2")
        defer { try? FileManager.default.removeItem(at: bundle.deletingLastPathComponent()) }
        let url = try Self.store(bundle)
        let before = MigrationFixtures.bytes(of: url)
        #expect(before[""] != nil)
        var caught: NSError?
        do {
            _ = try MigrationFixtures.open(try MigrationFixtures.model(bundle, "V2"), url)
        } catch {
            caught = error as NSError
        }
        let error = try #require(caught)
        #expect(error.domain == NSCocoaErrorDomain)
        #expect(error.code == code)
        #expect(error.userInfo["entity"] as? String == entity)
        #expect(error.userInfo[key] as? String == property)
        #expect(MigrationFixtures.bytes(of: url) == before, "the failed migration changed the file")

        let (coordinator, context) = try MigrationFixtures.open(try MigrationFixtures.model(bundle, "V1"), url)
        defer { try? MigrationFixtures.close(coordinator) }
        try context.performAndWait {
            let notes = try MigrationFixtures.fetch("Note", in: context, sortedBy: "title")
            #expect(notes.map { $0.value(forKey: "body") as? String } == ["text", nil])
        }
    }

    @Test func optionalBecomingRequiredWithNullsFailsNamingTheAttribute() throws {
        let v2 = Self.v1.replacingOccurrences(
            of: #"name="body" optional="YES""#, with: #"name="body""#)
        try expectFailure(v2, code: NSMigrationError, entity: "Note", property: "body", key: "attribute")
    }

    @Test func newRequiredAttributeWithoutDefaultFails() throws {
        let v2 = Self.v1.replacingOccurrences(
            of: "</entity>", with: #"<attribute name="priority" attributeType="Integer 16"/></entity>"#)
        try expectFailure(v2, code: NSMigrationError, entity: "Note", property: "priority", key: "attribute")
    }

    @Test func attributeTypeChangeAppleCannotInferFails() throws {
        let v2 = Self.v1.replacingOccurrences(
            of: #"<attribute name="created" optional="YES" attributeType="Date"/>"#,
            with: #"<attribute name="created" optional="YES" attributeType="String"/>"#)
        try expectFailure(v2, code: NSInferredMappingModelError, entity: "Note", property: "created", key: "property")
    }

    @Test func newUniquenessConstraintThatTheRowsBreakFails() throws {
        let v2 = Self.v1.replacingOccurrences(
            of: "</entity>",
            with:
                #"<uniquenessConstraints><uniquenessConstraint><constraint value="body"/></uniquenessConstraint></uniquenessConstraints></entity>"#
        )
        let bundle = try MigrationFixtures.bundle(["V1": Self.v1, "V2": v2], current: "V2")
        defer { try? FileManager.default.removeItem(at: bundle.deletingLastPathComponent()) }
        let url = MigrationFixtures.store(in: bundle)
        do {
            let (coordinator, context) = try MigrationFixtures.open(try MigrationFixtures.model(bundle, "V1"), url)
            try context.performAndWait {
                _ = MigrationFixtures.insert("Note", ["title": "a", "body": "same"], into: context)
                _ = MigrationFixtures.insert("Note", ["title": "b", "body": "same"], into: context)
                try context.save()
            }
            try MigrationFixtures.close(coordinator)
        }
        let before = MigrationFixtures.bytes(of: url)
        #expect(throws: Never.self) { _ = try MigrationFixtures.model(bundle, "V2") }
        let error = #expect(throws: NSError.self) {
            _ = try MigrationFixtures.open(try MigrationFixtures.model(bundle, "V2"), url)
        }
        #expect(error?.code == NSMigrationConstraintViolationError)
        #expect(error?.userInfo["entity"] as? String == "Note")
        #expect(MigrationFixtures.bytes(of: url) == before)
    }

    /// A disk that fills up in the middle of the migration (SQLite's `max_page_count` at the
    /// file's size, so that it cannot grow by a page: SQLite answers as on a full disk):
    /// 134110 with SQLite's error underneath, the file unchanged and still openable.
    @Test func aFullDiskDuringLightweightMigrationChangesNothing() throws {
        let v2 = Self.v1.replacingOccurrences(
            of: "</entity>",
            with: #"<attribute name="x" optional="YES" attributeType="String"/></entity>"#
                + #"<entity name="Folder"><attribute name="name" optional="YES" attributeType="String"/></entity>"#)
        let bundle = try MigrationFixtures.bundle(["V1": Self.v1, "V2": v2], current: "V2")
        defer { try? FileManager.default.removeItem(at: bundle.deletingLastPathComponent()) }
        let url = try Self.store(bundle)
        let before = MigrationFixtures.bytes(of: url)
        var options = MigrationFixtures.migrate
        // SQLite never lowers the limit below the file's size: 1 means "no more pages".
        options[NSSQLitePragmasOption] = ["max_page_count": 1]
        let error = #expect(throws: NSError.self) {
            _ = try MigrationFixtures.open(try MigrationFixtures.model(bundle, "V2"), url, options: options)
        }
        #expect(error?.code == NSMigrationError)
        let underlying = error?.userInfo[NSUnderlyingErrorKey] as? NSError
        #expect(underlying?.localizedDescription.contains("full") == true, "\(String(describing: underlying))")
        #expect(MigrationFixtures.bytes(of: url) == before, "the failed migration changed the file")
        // The same store migrates once the disk has room again.
        let (coordinator, context) = try MigrationFixtures.open(try MigrationFixtures.model(bundle, "V2"), url)
        defer { try? MigrationFixtures.close(coordinator) }
        let count = try context.performAndWait { try MigrationFixtures.fetch("Note", in: context, sortedBy: "title").count }
        #expect(count == 2)
    }

    @Test func withoutTheMigrationOptionTheStoreIsRefusedAsBefore() throws {
        let v2 = Self.v1.replacingOccurrences(
            of: "</entity>", with: #"<attribute name="x" optional="YES" attributeType="String"/></entity>"#)
        let bundle = try MigrationFixtures.bundle(["V1": Self.v1, "V2": v2], current: "V2")
        defer { try? FileManager.default.removeItem(at: bundle.deletingLastPathComponent()) }
        let url = try Self.store(bundle)
        let v2Model = try MigrationFixtures.model(bundle, "V2")
        let refused = #expect(throws: NSError.self) { _ = try MigrationFixtures.open(v2Model, url, options: nil) }
        #expect(refused?.code == NSPersistentStoreIncompatibleVersionHashError)
        let noInference = #expect(throws: NSError.self) {
            _ = try MigrationFixtures.open(v2Model, url, options: [NSMigratePersistentStoresAutomaticallyOption: true])
        }
        #expect(noInference?.code == NSMigrationMissingMappingModelError)
        // The same change migrates once both options are on.
        let (coordinator, _) = try MigrationFixtures.open(v2Model, url)
        try MigrationFixtures.close(coordinator)
    }

    @Test func aStoreOfAnUnknownModelReportsTheMissingSourceModel() throws {
        // A model of its own (no other test declares `Lonely`), loaded from XML alone and released
        // before the store is opened again, so that no coordinator, bundle or model file has it.
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-lonely-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: url) }
        try Self.saveLonelyStore(at: url)
        // Another suite that lists the known models at this moment holds them for as long as it
        // looks (`KnownModels.all()`): the model is gone once that list lets it go.
        for _ in 0..<500 where KnownModels.all().contains(where: { $0.entitiesByName["Lonely"] != nil }) {
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(!KnownModels.all().contains(where: { $0.entitiesByName["Lonely"] != nil }))
        // As an earlier Strata or a framework before the model cache left it: no cached model to
        // fall back on (a store with one migrates from it: CachedModelMigrationTests).
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in try db.execute(sql: "DELETE FROM Z_MODELCACHE") }
        try queue.close()
        let other = try NSManagedObjectModel.load(
            xml: Data(
                MigrationFixtures.xml(
                    #"<entity name="Other"><attribute name="x" optional="YES" attributeType="String"/></entity>"#
                ).utf8))
        let error = #expect(throws: NSError.self) { _ = try MigrationFixtures.open(other, url) }
        #expect(error?.code == NSMigrationMissingSourceModelError)
    }

    private static func saveLonelyStore(at url: URL) throws {
        let lonely = try NSManagedObjectModel.load(
            xml: Data(
                MigrationFixtures.xml(
                    #"<entity name="Lonely"><attribute name="y" optional="YES" attributeType="String"/></entity>"#
                ).utf8))
        let (coordinator, context) = try MigrationFixtures.open(lonely, url)
        try context.performAndWait {
            _ = MigrationFixtures.insert("Lonely", ["y": "1"], into: context)
            try context.save()
        }
        try MigrationFixtures.close(coordinator)
    }
}
