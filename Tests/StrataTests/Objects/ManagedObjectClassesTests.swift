import Foundation
import Testing

@testable import Strata

/// Finding the class of an entity by the class name its model gives.
@Suite struct ManagedObjectClassesTests {
    @Test func resourceBundlesNameTheirTarget() {
        let url = URL(fileURLWithPath: "/build/debug/Strata_TodoKit.resources/Todos.xcdatamodeld")
        #expect(ModelFileLocator.moduleNames(forResourceAt: url) == ["TodoKit"])
        let test = URL(fileURLWithPath: "/build/debug/Strata_TodoKit-tool.resources/Todos.xcdatamodeld")
        #expect(ModelFileLocator.moduleNames(forResourceAt: test) == ["TodoKit"])
        let underscored = URL(fileURLWithPath: "/b/my_pkg_App.resources/Model.xcdatamodeld/Model.xcdatamodel")
        #expect(ModelFileLocator.moduleNames(forResourceAt: underscored) == ["pkg_App", "App"])
        #expect(ModelFileLocator.moduleNames(forResourceAt: URL(fileURLWithPath: "/tmp/Model.xcdatamodeld")).isEmpty)
    }

    @Test func unqualifiedClassNamesResolveInTheModelsModuleFirst() throws {
        let model = NSManagedObjectModel {
            Entity("Chore", className: "Chore") { Attribute("title", .stringAttributeType) }
            Entity("Stranger", className: "NoSuchClassAnywhere") {}
        }
        model.classModuleNames = ["NoSuchModule", "StrataTests"]
        let chore = try #require(model.entitiesByName["Chore"])
        let stranger = try #require(model.entitiesByName["Stranger"])
        #expect(ManagedObjectClasses.objectClass(for: chore) == Chore.self)
        #expect(ManagedObjectClasses.objectClass(for: stranger) == NSManagedObject.self)
    }
}
