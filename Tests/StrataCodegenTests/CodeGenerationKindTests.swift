import Foundation
import Strata
import StrataCodegen
import Testing

/// Which code each entity gets, and under which class name, follows the entity's codegen
/// setting and class name, as in Xcode.
@Suite("Class definition, category and manual entities")
struct CodeGenerationKindTests {
    @Test("class definition, category and manual entities, as a whole file")
    func wholeFile() throws {
        let source = try CodegenTesting.generate(
            """
            <entity name="Manual" representedClassName="Manual" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
            </entity>
            <entity name="Category" representedClassName="Category" syncable="YES" codeGenerationType="category">
                <attribute name="name" optional="YES" attributeType="String"/>
            </entity>
            <entity name="Generated" representedClassName="Generated" syncable="YES" codeGenerationType="class">
                <attribute name="count" attributeType="Integer 32" defaultValueString="0" usesScalarValueType="YES"/>
            </entity>
            """
        )
        let expected =
            CodegenTesting.prologue + """

                // MARK: - Category

                extension Category {
                    @nonobjc public class func fetchRequest() -> NSFetchRequest<Category> {
                        return NSFetchRequest<Category>(entityName: "Category")
                    }

                    @Managed public var name: String?
                }

                extension Category: Identifiable {}

                // MARK: - Generated

                public class Generated: NSManagedObject {}

                extension Generated {
                    @nonobjc public class func fetchRequest() -> NSFetchRequest<Generated> {
                        return NSFetchRequest<Generated>(entityName: "Generated")
                    }

                    @Managed public var count: Int32
                }

                extension Generated: Identifiable {}

                """
        #expect(source == expected)
    }

    @Test("a model without generated entities gives only the prologue")
    func nothingToGenerate() throws {
        let source = try CodegenTesting.generate(#"<entity name="Manual" representedClassName="Manual" syncable="YES"/>"#)
        #expect(source == CodegenTesting.prologue)
    }

    @Test("a subentity's class inherits its parent's class, and only root classes declare Identifiable")
    func subentities() throws {
        let source = try CodegenTesting.generate(
            """
            <entity name="Shape" representedClassName="Shape" isAbstract="YES" syncable="YES" codeGenerationType="class">
                <attribute name="name" optional="YES" attributeType="String"/>
            </entity>
            <entity name="Circle" representedClassName="Circle" parentEntity="Shape" syncable="YES" codeGenerationType="class">
                <attribute name="radius" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
            </entity>
            <entity name="Square" representedClassName="Square" parentEntity="Shape" syncable="YES" codeGenerationType="category"/>
            """
        )
        #expect(source.contains("public class Shape: NSManagedObject {}"))
        #expect(source.contains("public class Circle: Shape {}"))
        #expect(source.contains("extension Shape: Identifiable {}"))
        #expect(!source.contains("extension Circle: Identifiable"))
        #expect(!source.contains("extension Square: Identifiable"))
        #expect(source.contains("@nonobjc public class func fetchRequest() -> NSFetchRequest<Square>"))
        // A subclass declares only its own properties.
        #expect(
            CodegenTesting.managedProperties(in: source) == [
                "@Managed public var radius: Double", "@Managed public var name: String?",
            ])
    }

    @Test("a subentity of a manual entity inherits the manual entity's class")
    func subentityOfManualEntity() throws {
        let source = try CodegenTesting.generate(
            """
            <entity name="Base" representedClassName="BaseObject" syncable="YES"/>
            <entity name="Derived" representedClassName="Derived" parentEntity="Base" syncable="YES" codeGenerationType="class"/>
            """
        )
        #expect(source.contains("public class Derived: BaseObject {}"))
    }

    @Test(
        "class names lose their module qualification and leading dot",
        arguments: [("Todo", "Todo"), (".Todo", "Todo"), ("MyApp.Todo", "Todo"), ("Outer.Module.Todo", "Todo")]
    )
    func classNames(representedClassName: String, className: String) throws {
        let source = try CodegenTesting.generate(
            """
            <entity name="TodoEntity" representedClassName="\(representedClassName)" syncable="YES" codeGenerationType="class"/>
            """
        )
        #expect(source.contains("public class \(className): NSManagedObject {}"))
        #expect(source.contains("NSFetchRequest<\(className)>(entityName: \"TodoEntity\")"))
    }

    @Test("a generated entity without a class name is named after the entity")
    func missingClassName() throws {
        let source = try CodegenTesting.generate(#"<entity name="Thing" syncable="YES" codeGenerationType="class"/>"#)
        #expect(source.contains("public class Thing: NSManagedObject {}"))
    }

    @Test("entities are generated in name order, whatever the model's order")
    func deterministicOrder() throws {
        let first = """
            <entity name="Beta" representedClassName="Beta" syncable="YES" codeGenerationType="class"/>
            <entity name="Alpha" representedClassName="Alpha" syncable="YES" codeGenerationType="class"/>
            """
        let second = """
            <entity name="Alpha" representedClassName="Alpha" syncable="YES" codeGenerationType="class"/>
            <entity name="Beta" representedClassName="Beta" syncable="YES" codeGenerationType="class"/>
            """
        let source = try CodegenTesting.generate(first)
        #expect(source == (try CodegenTesting.generate(second)))
        let alpha = try #require(source.range(of: "// MARK: - Alpha"))
        let beta = try #require(source.range(of: "// MARK: - Beta"))
        #expect(alpha.lowerBound < beta.lowerBound)
    }
}
