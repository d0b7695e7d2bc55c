import Foundation
import Strata
import StrataCodegen
import Testing

/// Names Swift cannot use, and classes declared twice, are reported with the entity and
/// property they come from.
@Suite("Code generation errors")
struct CodegenErrorTests {
    private func model(
        _ entities: [(name: String, className: String, codegen: String?)], property: String? = nil
    ) -> NSManagedObjectModel {
        let model = NSManagedObjectModel()
        model.entities = entities.map { spec in
            let entity = NSEntityDescription()
            entity.name = spec.name
            entity.managedObjectClassName = spec.className
            entity.codeGenerationType = spec.codegen
            if let property {
                let attribute = NSAttributeDescription()
                attribute.name = property
                attribute.attributeType = .stringAttributeType
                entity.properties = [attribute]
            }
            return entity
        }
        return model
    }

    @Test("a class name that is not a Swift identifier is an error")
    func invalidClassName() {
        let generator = ClassGenerator(model: model([("Todo", "My Todo", "class")]))
        #expect(throws: CodegenError(.invalidClassName("My Todo"), entity: "Todo")) { try generator.generate() }
        let error = CodegenError(.invalidClassName("My Todo"), entity: "Todo")
        #expect(error.description == "entity Todo: \"My Todo\" is not a valid Swift class name")
    }

    @Test("a manual entity's class name that generated code refers to must be a Swift identifier")
    func invalidReferencedClassName() throws {
        let entities = """
            <entity name="Base" representedClassName="Base Object" syncable="YES"/>
            <entity name="Derived" representedClassName="Derived" parentEntity="Base" syncable="YES" codeGenerationType="class"/>
            """
        let generator = ClassGenerator(model: try CodegenTesting.model(entities))
        #expect(throws: CodegenError(.invalidClassName("Base Object"), entity: "Base")) { try generator.generate() }
    }

    @Test("a property name that is not a Swift identifier is an error")
    func invalidPropertyName() {
        let generator = ClassGenerator(model: model([("Todo", "Todo", "class")], property: "due date"))
        let expected = CodegenError(.invalidPropertyName("due date"), entity: "Todo", property: "due date")
        #expect(throws: expected) { try generator.generate() }
        #expect(expected.description == "entity Todo, property due date: \"due date\" is not a valid Swift property name")
    }

    @Test("two generated entities with the same class are an error")
    func duplicateClassName() {
        let generator = ClassGenerator(model: model([("A", "Shared", "class"), ("B", "App.Shared", "category")]))
        let expected = CodegenError(.duplicateClassName("Shared", otherEntity: "A"), entity: "B")
        #expect(throws: expected) { try generator.generate() }
        #expect(expected.description == "entity B: entity A also generates class Shared")
    }

    @Test("manual entities are not checked: they generate nothing")
    func manualEntitiesIgnored() throws {
        let generator = ClassGenerator(model: model([("A", "Not Swift", nil), ("B", "Not Swift", nil)], property: "bad name"))
        #expect(
            try generator.generate() == CodegenTesting.prologue.replacingOccurrences(of: " from Model.xcdatamodeld", with: ""))
    }
}
