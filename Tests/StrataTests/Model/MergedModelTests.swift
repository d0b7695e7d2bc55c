import Foundation
import Testing

@testable import Strata

@Suite struct MergedModelTests {
    private func directoryWithModels() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-merge-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let books = NSManagedObjectModel { Entity("Book") { Attribute("title", .stringAttributeType) } }
        let people = NSManagedObjectModel { Entity("Person") { Attribute("name", .stringAttributeType) } }
        try books.write(toXcodeModelAt: directory.appendingPathComponent("Books.xcdatamodeld"))
        try people.write(toXcodeModelAt: directory.appendingPathComponent("Resources/People.xcdatamodel"))
        return directory
    }

    @Test func mergedModelCollectsEveryModelFileOfTheBundles() throws {
        let directory = try directoryWithModels()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bundle = try #require(Bundle(url: directory))
        let merged = try #require(NSManagedObjectModel.mergedModel(from: [bundle]))
        #expect(Set(merged.entitiesByName.keys) == ["Book", "Person"])
    }

    @Test func mergedModelForStoreMetadataPicksTheMatchingVersions() throws {
        let directory = try directoryWithModels()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bundle = try #require(Bundle(url: directory))
        let books = NSManagedObjectModel { Entity("Book") { Attribute("title", .stringAttributeType) } }
        let metadata: [String: Any] = [NSStoreModelVersionHashesKey: books.entityVersionHashesByName]
        let matching = try #require(NSManagedObjectModel.mergedModel(from: [bundle], forStoreMetadata: metadata))
        #expect(matching.entitiesByName.keys.sorted() == ["Book"])

        let changed = NSManagedObjectModel { Entity("Book") { Attribute("title", .integer32AttributeType) } }
        let otherMetadata: [String: Any] = [NSStoreModelVersionHashesKey: changed.entityVersionHashesByName]
        #expect(NSManagedObjectModel.mergedModel(from: [bundle], forStoreMetadata: otherMetadata) == nil)
        #expect(!books.isConfiguration(withName: nil, compatibleWithStoreMetadata: otherMetadata))
        #expect(books.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        #expect(!books.isConfiguration(withName: nil, compatibleWithStoreMetadata: [:]))
    }

    /// Beside a SwiftPM executable lie its resource bundles and the build's object folders; only
    /// the first are searched, so that making a container does not list thousands of files.
    @Test func onlyResourceFoldersAreSearched() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-folders-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = { (entity: String) in NSManagedObjectModel { Entity(entity) { Attribute("name", .stringAttributeType) } } }
        try model("Shelf").write(toXcodeModelAt: directory.appendingPathComponent("App_Library.resources/Shelf.xcdatamodeld"))
        try model("Lamp").write(toXcodeModelAt: directory.appendingPathComponent("Assets.bundle/Lamp.xcdatamodel"))
        try model("Object").write(toXcodeModelAt: directory.appendingPathComponent("Library.build/Object.xcdatamodeld"))
        try model("Source").write(toXcodeModelAt: directory.appendingPathComponent("Sources/App/Source.xcdatamodeld"))
        let bundle = try #require(Bundle(url: directory))
        let merged = try #require(NSManagedObjectModel.mergedModel(from: [bundle]))
        #expect(Set(merged.entitiesByName.keys) == ["Shelf", "Lamp"])
    }

    @Test func noModelsMeansNoMergedModel() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-empty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(NSManagedObjectModel.mergedModel(from: [try #require(Bundle(url: directory))]) == nil)
    }
}
