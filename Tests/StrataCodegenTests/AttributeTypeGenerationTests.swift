import Foundation
import Strata
import StrataCodegen
import Testing

/// Attributes get Xcode's Swift types: scalars when the attribute uses scalar types,
/// optional object types otherwise, whatever the attribute's optional flag.
@Suite("Attribute types in generated classes")
struct AttributeTypeGenerationTests {
    @Test("every attribute type maps to Xcode's Swift type")
    func everyType() throws {
        let source = try CodegenTesting.generate(
            """
            <entity name="Sample" representedClassName="Sample" syncable="YES" codeGenerationType="class">
                <attribute name="a01int16" attributeType="Integer 16" defaultValueString="0" usesScalarValueType="YES"/>
                <attribute name="a02int32" attributeType="Integer 32" defaultValueString="0" usesScalarValueType="YES"/>
                <attribute name="a03int64" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES"/>
                <attribute name="a04double" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
                <attribute name="a05float" attributeType="Float" defaultValueString="0.0" usesScalarValueType="YES"/>
                <attribute name="a06bool" attributeType="Boolean" usesScalarValueType="YES"/>
                <attribute name="a07decimal" attributeType="Decimal" defaultValueString="0.0"/>
                <attribute name="a08string" attributeType="String"/>
                <attribute name="a09date" attributeType="Date" usesScalarValueType="NO"/>
                <attribute name="a10binary" attributeType="Binary"/>
                <attribute name="a11uuid" attributeType="UUID" usesScalarValueType="NO"/>
                <attribute name="a12uri" attributeType="URI"/>
                <attribute name="a13transformable" optional="YES" attributeType="Transformable"/>
                <attribute name="a14custom" optional="YES" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromDataTransformer" customClassName="NSAttributedString"/>
                <attribute name="a15swiftType" optional="YES" attributeType="Transformable" customClassName="[String]"/>
                <attribute name="a16transient" optional="YES" transient="YES" attributeType="String"/>
                <attribute name="a17undefined" optional="YES" transient="YES"/>
                <attribute name="a18derived" optional="YES" attributeType="String" derived="YES" derivationExpression="uppercase:(a08string)"/>
            </entity>
            """
        )
        #expect(
            CodegenTesting.managedProperties(in: source) == [
                "@Managed public var a01int16: Int16",
                "@Managed public var a02int32: Int32",
                "@Managed public var a03int64: Int64",
                "@Managed public var a04double: Double",
                "@Managed public var a05float: Float",
                "@Managed public var a06bool: Bool",
                "@Managed public var a07decimal: NSDecimalNumber?",
                "@Managed public var a08string: String?",
                "@Managed public var a09date: Date?",
                "@Managed public var a10binary: Data?",
                "@Managed public var a11uuid: UUID?",
                "@Managed public var a12uri: URL?",
                "@Managed public var a13transformable: NSObject?",
                "@Managed public var a14custom: NSAttributedString?",
                "@Managed public var a15swiftType: [String]?",
                "@Managed public var a16transient: String?",
                "@Managed public var a17undefined: NSObject?",
                "@Managed public var a18derived: String?",
            ]
        )
    }

    @Test("numbers that do not use scalar types are NSNumber?, optional or not")
    func nonScalarNumbers() throws {
        let source = try CodegenTesting.generate(
            """
            <entity name="Sample" representedClassName="Sample" syncable="YES" codeGenerationType="class">
                <attribute name="bool" attributeType="Boolean" usesScalarValueType="NO"/>
                <attribute name="double" optional="YES" attributeType="Double" defaultValueString="0.0" usesScalarValueType="NO"/>
                <attribute name="float" attributeType="Float"/>
                <attribute name="int16" optional="YES" attributeType="Integer 16" usesScalarValueType="NO"/>
                <attribute name="int32" attributeType="Integer 32" defaultValueString="0"/>
                <attribute name="int64" optional="YES" attributeType="Integer 64" usesScalarValueType="NO"/>
            </entity>
            """
        )
        #expect(
            CodegenTesting.managedProperties(in: source) == [
                "@Managed public var bool: NSNumber?",
                "@Managed public var double: NSNumber?",
                "@Managed public var float: NSNumber?",
                "@Managed public var int16: NSNumber?",
                "@Managed public var int32: NSNumber?",
                "@Managed public var int64: NSNumber?",
            ]
        )
    }

    @Test("optional scalar attributes stay scalars, as in Xcode")
    func optionalScalars() throws {
        let source = try CodegenTesting.generate(
            """
            <entity name="Sample" representedClassName="Sample" syncable="YES" codeGenerationType="class">
                <attribute name="count" optional="YES" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES"/>
                <attribute name="flag" optional="YES" attributeType="Boolean" usesScalarValueType="YES"/>
            </entity>
            """
        )
        let expected = ["@Managed public var count: Int64", "@Managed public var flag: Bool"]
        #expect(CodegenTesting.managedProperties(in: source) == expected)
    }

    @Test("composite attributes are dictionaries")
    func composite() throws {
        let model = NSManagedObjectModel()
        let entity = NSEntityDescription()
        entity.name = "Quake"
        entity.managedObjectClassName = "Quake"
        entity.codeGenerationType = "class"
        let magnitude = NSCompositeAttributeDescription()
        magnitude.name = "magnitude"
        entity.properties = [magnitude]
        model.entities = [entity]
        let source = try ClassGenerator(model: model).generate()
        #expect(CodegenTesting.managedProperties(in: source) == ["@Managed public var magnitude: [String: Any]?"])
    }

    @Test("a custom class qualified with the generated file's module is used unqualified")
    func moduleQualifiedCustomClass() throws {
        let entities = """
            <entity name="Sample" representedClassName="Sample" syncable="YES" codeGenerationType="class">
                <attribute name="colour" optional="YES" attributeType="Transformable" customClassName="MyApp.Colour"/>
                <attribute name="shape" optional="YES" attributeType="Transformable" customClassName="Geometry.Shape"/>
            </entity>
            """
        #expect(
            CodegenTesting.managedProperties(in: try CodegenTesting.generate(entities, moduleName: "MyApp")) == [
                "@Managed public var colour: Colour?",
                "@Managed public var shape: Geometry.Shape?",
            ]
        )
        #expect(
            CodegenTesting.managedProperties(in: try CodegenTesting.generate(entities)) == [
                "@Managed public var colour: MyApp.Colour?",
                "@Managed public var shape: Geometry.Shape?",
            ]
        )
    }

    @Test("attributes come in name order, then relationships; keywords are escaped")
    func orderAndEscaping() throws {
        let source = try CodegenTesting.generate(
            """
            <entity name="Sample" representedClassName="Sample" syncable="YES" codeGenerationType="class">
                <attribute name="zeta" optional="YES" attributeType="String"/>
                <attribute name="default" optional="YES" attributeType="String"/>
                <attribute name="alpha" optional="YES" attributeType="String"/>
                <relationship name="another" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Sample"/>
            </entity>
            """
        )
        #expect(
            CodegenTesting.managedProperties(in: source) == [
                "@Managed public var alpha: String?",
                "@Managed public var `default`: String?",
                "@Managed public var zeta: String?",
                "@Managed public var another: Sample?",
            ]
        )
    }
}
