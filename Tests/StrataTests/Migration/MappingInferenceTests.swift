import Foundation
import Testing

@testable import Strata

/// `NSMappingModel.inferredMappingModel(forSourceModel:destinationModel:)`: which entity
/// mappings it makes, with Apple's mapping types, and which changes it refuses.
@Suite struct MappingInferenceTests {
    static func model(_ entities: String) throws -> NSManagedObjectModel {
        try NSManagedObjectModel.load(xml: Data(MigrationFixtures.xml(entities).utf8))
    }

    @Test func entityMappingTypesHaveApplesRawValues() {
        #expect(NSEntityMappingType.undefinedEntityMappingType.rawValue == 0)
        #expect(NSEntityMappingType.customEntityMappingType.rawValue == 1)
        #expect(NSEntityMappingType.addEntityMappingType.rawValue == 2)
        #expect(NSEntityMappingType.removeEntityMappingType.rawValue == 3)
        #expect(NSEntityMappingType.copyEntityMappingType.rawValue == 4)
        #expect(NSEntityMappingType.transformEntityMappingType.rawValue == 5)
    }

    @Test func inferredMappingCopiesTransformsAddsAndRemoves() throws {
        let source = try Self.model(
            """
            <entity name="Car"><attribute name="color" optional="YES" attributeType="String"/></entity>
            <entity name="Garage"><attribute name="size" optional="YES" attributeType="Integer 16"/></entity>
            <entity name="Old"><attribute name="x" optional="YES" attributeType="String"/></entity>
            """)
        let destination = try Self.model(
            """
            <entity name="Automobile" elementID="Car"><attribute name="paintColor" optional="YES" attributeType="String" elementID="color"/></entity>
            <entity name="Garage"><attribute name="size" optional="YES" attributeType="Integer 16"/></entity>
            <entity name="Owner"><attribute name="name" optional="YES" attributeType="String"/></entity>
            """)
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
        let byName = mapping.entityMappingsByName
        let car = try #require(byName["CarToAutomobile"])
        #expect(car.mappingType == .transformEntityMappingType)
        #expect(car.sourceEntityName == "Car")
        #expect(car.destinationEntityName == "Automobile")
        #expect(car.sourceEntityVersionHash == source.entitiesByName["Car"]?.versionHash)
        #expect(car.destinationEntityVersionHash == destination.entitiesByName["Automobile"]?.versionHash)
        let paint = try #require(car.attributeMappings?.first { $0.name == "paintColor" })
        #expect(paint.valueExpression?.description == "$source.color")
        #expect(byName["GarageToGarage"]?.mappingType == .copyEntityMappingType)
        #expect(byName["AddOwner"]?.mappingType == .addEntityMappingType)
        #expect(byName["AddOwner"]?.attributeMappings?.first?.valueExpression == nil)
        #expect(byName["RemoveOld"]?.mappingType == .removeEntityMappingType)
        #expect(mapping.entityMappings.count == 4)
    }

    @Test func refusedChangesThrowTheInferenceError() throws {
        let source = try Self.model(
            """
            <entity name="A"><attribute name="when" optional="YES" attributeType="Date"/></entity>
            <entity name="B"><attribute name="n" optional="YES" attributeType="Integer 16"/></entity>
            """)
        let retyped = try Self.model(
            """
            <entity name="A"><attribute name="when" optional="YES" attributeType="Binary"/></entity>
            <entity name="B"><attribute name="n" optional="YES" attributeType="Double"/></entity>
            """)
        let error = #expect(throws: NSError.self) {
            try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: retyped)
        }
        #expect(error?.code == NSInferredMappingModelError)
        #expect(error?.userInfo["entity"] as? String == "A")
        #expect(error?.userInfo["property"] as? String == "when")
        // Two hierarchies merged under one new parent.
        let merged = try Self.model(
            """
            <entity name="P" isAbstract="YES"/>
            <entity name="A" parentEntity="P"><attribute name="when" optional="YES" attributeType="Date"/></entity>
            <entity name="B" parentEntity="P"><attribute name="n" optional="YES" attributeType="Integer 16"/></entity>
            """)
        let mergeError = #expect(throws: NSError.self) {
            try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: merged)
        }
        #expect(mergeError?.code == NSInferredMappingModelError)
        #expect(mergeError?.userInfo["entity"] as? String == "P")
    }
}
