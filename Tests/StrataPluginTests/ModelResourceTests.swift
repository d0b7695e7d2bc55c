import Foundation
import Strata
import Testing

/// The plugin copies each model into the target's resources, where Core Data's lookups by
/// bundle find it at run time, with no resource declaration in the package manifest.
@Suite("Model resources")
struct ModelResourceTests {
    private static let entityNames: Set<String> = ["Book", "Gadget", "Item", "Note", "Step", "Tag", "Todo"]

    @Test("the model bundle is a resource of the target")
    func modelResource() throws {
        let url = try #require(Bundle.module.url(forResource: "Model", withExtension: "xcdatamodeld"))
        let model = try NSManagedObjectModel.load(contentsOf: url)
        #expect(Set(model.entitiesByName.keys) == Self.entityNames)
    }

    @Test("the target's bundle gives the copied model to mergedModel(from:)")
    func mergedModel() throws {
        // Other test targets of the process copy their own models, with entities of the same
        // names, so the main bundle's merge fails as Core Data's does; the target's own bundle
        // holds one model.
        let model = try #require(NSManagedObjectModel.mergedModel(from: [Bundle.module]))
        #expect(Self.entityNames.isSubset(of: Set(model.entitiesByName.keys)))
    }
}
