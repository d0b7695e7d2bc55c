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

    @Test("the main bundle's merged model includes the copied model")
    func mergedModel() throws {
        let model = try #require(NSManagedObjectModel.mergedModel(from: nil))
        #expect(Self.entityNames.isSubset(of: Set(model.entitiesByName.keys)))
    }
}
