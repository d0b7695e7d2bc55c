import Foundation
import Testing

@testable import Strata

/// The plugin compiles the target's model into `Model.momd`, which apps find the way they
/// find Xcode's: by bundle lookups, `NSManagedObjectModel(contentsOf:)` and
/// `mergedModel(from:)`.
@Suite("Compiled model lookup")
struct CompiledModelLookupTests {
    private static let entityNames: Set<String> = ["Book", "Gadget", "Item", "Note", "Step", "Tag", "Todo"]

    @Test("Bundle.module finds Model.momd, which loads as the model")
    func moduleLookup() throws {
        let url = try #require(Bundle.module.url(forResource: "Model", withExtension: "momd"))
        let model = try #require(NSManagedObjectModel(contentsOf: url))
        #expect(Set(model.entitiesByName.keys) == Self.entityNames)
        let source = try #require(Bundle.module.url(forResource: "Model", withExtension: "xcdatamodeld"))
        // The same model, but for the class names the compiled form qualifies with the module
        // (see `classNamesCarryTheModule`).
        let written = try NSManagedObjectModel.load(contentsOf: source)
        #expect(model.entityVersionHashesByName == written.entityVersionHashesByName)
        for entity in written.entities {
            let name = entity.managedObjectClassName ?? ""
            let qualified = name.contains(".") && !name.hasPrefix(".") ? name : "StrataPluginTests." + name.trimmingPrefix(".")
            entity.managedObjectClassName = ["Gadget", "Note"].contains(name) ? name : qualified
        }
        #expect(model.isEqual(written))
    }

    /// Issue 32: as Xcode's `momc --module`, the compiled model names generated classes and
    /// "Current Product Module" ones with the target's module, so that they resolve on first use.
    @Test("the compiled model names the module's classes with the module")
    func classNamesCarryTheModule() throws {
        let url = try #require(Bundle.module.url(forResource: "Model", withExtension: "momd"))
        let model = try #require(NSManagedObjectModel(contentsOf: url))
        let names = model.entitiesByName.mapValues { $0.managedObjectClassName ?? "" }
        #expect(names["Book"] == "StrataPluginTests.Book")  // codegen "class", written "Book"
        #expect(names["Step"] == "StrataPluginTests.Step")  // codegen "class", written ".Step"
        #expect(names["Tag"] == "StrataPluginTests.Tag")  // already qualified
        #expect(names["Gadget"] == "Gadget")  // manual class, global namespace: as written
        #expect(names["Note"] == "Note")  // codegen "category", written "Note"
        let source = try #require(Bundle.module.url(forResource: "Model", withExtension: "xcdatamodeld"))
        let written = try NSManagedObjectModel.load(contentsOf: source)
        #expect(written.entitiesByName["Book"]?.managedObjectClassName == "Book")
        #expect(written.entityVersionHashesByName == model.entityVersionHashesByName)
    }

    @Test("the .momd holds Xcode's layout: VersionInfo.plist naming the current .mom")
    func momdLayout() throws {
        let url = try #require(Bundle.module.url(forResource: "Model", withExtension: "momd"))
        let data = try Data(contentsOf: url.appendingPathComponent("VersionInfo.plist"))
        let info = try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
        let current = try #require(info["NSManagedObjectModel_CurrentVersionName"] as? String)
        let mom = url.appendingPathComponent(current + ".mom")
        let model = try #require(NSManagedObjectModel(contentsOf: mom))
        let hashes = try #require(info["NSManagedObjectModel_VersionHashes"] as? [String: Any])
        let currentHashes = try #require(hashes[current] as? [String: Data])
        #expect(currentHashes == model.entityVersionHashesByName)
        #expect(Set(currentHashes.keys) == Self.entityNames)
    }

    #if os(Linux)
        @Test("Bundle.main finds Model.momd beside the test executable")
        func mainBundleLookup() throws {
            let url = try #require(Bundle.main.url(forResource: "Model", withExtension: "momd"))
            #expect(url.deletingLastPathComponent().standardizedFileURL == Bundle.main.bundleURL.standardizedFileURL)
            let model = try #require(NSManagedObjectModel(contentsOf: url))
            #expect(Set(model.entitiesByName.keys) == Self.entityNames)
        }
    #endif

    @Test("mergedModel(from: nil) searches the main bundle and the resource bundles beside it")
    func mergedModelFromMainBundle() throws {
        let found = ModelFileLocator.modelURLs(in: [Bundle.main]).map(\.standardizedFileURL)
        let resource = try #require(Bundle.module.url(forResource: "Model", withExtension: "momd")).standardizedFileURL
        #expect(found.contains(resource))
        // This process holds every test target, and other targets' models declare entities of
        // the same names (Tag, Todo), so the whole merge fails as Core Data's does. A program
        // folder with this target's resources alone merges into the model: the same search
        // from a main bundle there.
        let program = FileManager.default.temporaryDirectory.appendingPathComponent("strata-app-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: program) }
        try FileManager.default.createDirectory(at: program, withIntermediateDirectories: true)
        let resources = resource.deletingLastPathComponent()
        try FileManager.default.copyItem(at: resources, to: program.appendingPathComponent(resources.lastPathComponent))
        try FileManager.default.copyItem(at: resource, to: program.appendingPathComponent("Model.momd"))
        let bundle = try #require(Bundle(url: program))
        // Found twice (beside the program and in its resource bundle), counted once.
        #expect(ModelFileLocator.modelURLs(in: [bundle]).count == 2)
        let merged = try #require(NSManagedObjectModel.mergedModel(from: [bundle]))
        #expect(Set(merged.entitiesByName.keys) == Self.entityNames)
        #expect(NSManagedObjectModel.mergedModel(from: nil) == nil)
    }
}
