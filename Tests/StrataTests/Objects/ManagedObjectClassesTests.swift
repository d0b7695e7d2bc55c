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

    /// Issue 32: a target named `my-app` is the module `my_app`, as SwiftPM names it.
    @Test func targetNamesBecomeModuleNamesAsSwiftPMMakesThem() {
        #expect(ModelFileLocator.moduleName(ofTarget: "my-app") == "my_app")
        #expect(ModelFileLocator.moduleName(ofTarget: "App") == "App")
        #expect(ModelFileLocator.moduleName(ofTarget: "3d.viewer") == "_3d_viewer")
        let dashed = URL(fileURLWithPath: "/b/UserApp_user-app.resources/Users.momd")
        #expect(ModelFileLocator.moduleNames(forResourceAt: dashed) == ["user_app"])
    }

    /// Issue 32: the compiled model names generated and "Current Product Module" classes with the
    /// module (as `momc --module` does); other names stay as written.
    @Test func compilingQualifiesTheModulesClassNames() throws {
        let xml = """
            <model>
                <entity name="User" representedClassName="User" syncable="YES" codeGenerationType="class">
                    <attribute name="name" optional="YES" attributeType="String"/>
                </entity>
                <entity name="Post" representedClassName=".Post" syncable="YES"/>
                <entity name="Plain" syncable="YES" codeGenerationType="class"/>
                <entity name="Manual" representedClassName="Manual" syncable="YES"/>
                <entity name="Elsewhere" representedClassName="Kit.Elsewhere" codeGenerationType="class"/>
                <entity name="Category" representedClassName="Category" codeGenerationType="category"/>
            </model>
            """
        let compiled = CompiledModelFiles.qualifyingClassNames(in: Data(xml.utf8), module: "user_app")
        let text = try #require(String(data: compiled, encoding: .utf8))
        #expect(
            text.contains(#"<entity name="User" representedClassName="user_app.User" syncable="YES" codeGenerationType="class">"#)
        )
        #expect(text.contains(#"<entity name="Post" representedClassName="user_app.Post" syncable="YES"/>"#))
        #expect(
            text.contains(
                #"<entity name="Plain" syncable="YES" codeGenerationType="class" representedClassName="user_app.Plain"/>"#))
        #expect(text.contains(#"<entity name="Manual" representedClassName="Manual" syncable="YES"/>"#))
        #expect(text.contains(#"representedClassName="Kit.Elsewhere""#))
        #expect(text.contains(#"representedClassName="Category" codeGenerationType="category""#))
        #expect(text.contains(#"<attribute name="name" optional="YES" attributeType="String"/>"#))
        #expect(CompiledModelFiles.qualifyingClassNames(in: Data(xml.utf8), module: nil) == Data(xml.utf8))
    }

    /// A model compiled with the module resolves its generated class by that name, with no hint
    /// and nothing registered for it (what a program's first call meets).
    @Test func aQualifiedNameResolvesWithoutRegistration() throws {
        let model = NSManagedObjectModel {
            Entity("Errand", className: "StrataTests.Errand") { Attribute("title", .stringAttributeType) }
        }
        let errand = try #require(model.entitiesByName["Errand"])
        #expect(ManagedObjectClasses.objectClass(for: errand) == Errand.self)
    }
}

/// A class nothing else in the tests touches, so that its first use is its resolution by name.
final class Errand: NSManagedObject {}
