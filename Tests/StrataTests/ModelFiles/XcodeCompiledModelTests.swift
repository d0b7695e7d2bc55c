import Foundation
import Testing

@testable import Strata

/// Models Xcode compiles though they are not clean: Strata loads them as Core Data does,
/// with warnings, and still refuses what Xcode refuses.
@Suite("Models Xcode compiles")
struct XcodeCompiledModelTests {
    private func defaultValue(
        _ type: String, _ text: String, key: String = "defaultValueString"
    ) throws -> (
        value: Any?, warnings: [ModelError]
    ) {
        let xml = XcodeModelFixtures.single(
            attribute: #"<attribute name="value" optional="YES" attributeType="\#(type)" \#(key)="\#(text)"/>"#)
        let model = try XcodeModelFixtures.load(xml)
        let attribute = try #require(model.entitiesByName["Item"]?.attributesByName["value"])
        return (attribute.defaultValue, model.validationErrors())
    }

    // The cases seen in real apps' models.

    @Test func yesOnAnInteger32IsZero() throws {
        let (value, warnings) = try defaultValue("Integer 32", "YES")
        #expect(value as? Int32 == 0)
        #expect(warnings.map(\.kind) == [.invalidDefaultValue(value: "YES")])
        #expect(warnings.first?.severity == .warning)
        #expect(warnings.first?.property == "value")
    }

    @Test func noOnAnInteger32IsZero() throws {
        let (value, warnings) = try defaultValue("Integer 32", "NO")
        #expect(value as? Int32 == 0)
        #expect(warnings.map(\.kind) == [.invalidDefaultValue(value: "NO")])
    }

    @Test func zeroPointZeroOnABooleanIsFalse() throws {
        let (value, warnings) = try defaultValue("Boolean", "0.0")
        #expect(value as? Bool == false)
        #expect(warnings.map(\.kind) == [.invalidDefaultValue(value: "0.0")])
    }

    // NSString's readings of other texts.

    @Test(arguments: [
        ("1.5", Int64(1)), ("  -7 apples", -7), ("+12", 12), ("abc", 0), ("99999999999999999999", Int64.max),
        ("-99999999999999999999", Int64.min),
    ])
    func integer64TakesTheLeadingInteger(text: String, expected: Int64) throws {
        #expect(try defaultValue("Integer 64", text).value as? Int64 == expected)
    }

    @Test func narrowIntegersAreClampedToTheirType() throws {
        #expect(try defaultValue("Integer 16", "100000").value as? Int16 == Int16.max)
        #expect(try defaultValue("Integer 32", "-3000000000").value as? Int32 == Int32.min)
        #expect(try defaultValue("Integer 16", "1e3").value as? Int16 == 1)
    }

    @Test(arguments: [
        ("Yes", true), ("true", true), ("t", true), ("7", true), ("-01", true), ("0.5", false), ("NO", false),
        ("abc", false), ("  y", true), ("000", false),
    ])
    func booleansReadAsBoolValue(text: String, expected: Bool) throws {
        #expect(try defaultValue("Boolean", text).value as? Bool == expected)
    }

    @Test func floatingPointTakesTheLeadingNumber() throws {
        #expect(try defaultValue("Double", "YES").value as? Double == 0)
        #expect(try defaultValue("Double", "2.5kg").value as? Double == 2.5)
        #expect(try defaultValue("Float", "-1.25e2x").value as? Float == -125)
        #expect(try defaultValue("Decimal", "abc").value as? Decimal == 0)
        #expect(try defaultValue("Decimal", "3.25 EUR").value as? Decimal == Decimal(string: "3.25"))
        let date = try defaultValue("Date", "60 seconds", key: "defaultDateTimeInterval").value as? Date
        #expect(date == Date(timeIntervalSinceReferenceDate: 60))
    }

    @Test func exactTextsGiveNoWarning() throws {
        #expect(try defaultValue("Integer 32", "0.0").warnings.isEmpty)
        #expect(try defaultValue("Boolean", "YES").warnings.isEmpty)
        #expect(try defaultValue("Double", "1e3").value as? Double == 1000)
        #expect(try defaultValue("Double", "1e3").warnings.isEmpty)
    }

    @Test func aUUIDThatIsNoneGivesNoDefault() throws {
        let (value, warnings) = try defaultValue("UUID", "not-a-uuid")
        #expect(value == nil)
        #expect(warnings.map(\.kind) == [.invalidDefaultValue(value: "not-a-uuid")])
    }

    @Test func theOriginalTextIsWrittenBack() throws {
        let xml = XcodeModelFixtures.single(
            attribute: #"<attribute name="flag" optional="YES" attributeType="Integer 32" defaultValueString="YES"/>"#)
        let model = try XcodeModelFixtures.load(xml)
        let written = String(decoding: model.xcodeModelContents(), as: UTF8.self)
        #expect(written.contains(#"defaultValueString="YES""#))
        // Setting a value in code replaces the file's text, and its warning.
        let attribute = try #require(model.entitiesByName["Item"]?.attributesByName["flag"])
        attribute.defaultValue = Int32(4)
        #expect(attribute.defaultValueString == "4")
        #expect(model.validationErrors().isEmpty)
    }

    // Relationship and model-level problems Xcode compiles.

    @Test func aMissingInverseLoadsWithoutOne() throws {
        let xml = XcodeModelFixtures.single(
            attribute:
                #"<relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Item" inverseName="gone" inverseEntity="Item"/>"#
        )
        let model = try XcodeModelFixtures.load(xml)
        let owner = try #require(model.entitiesByName["Item"]?.relationshipsByName["owner"])
        #expect(owner.inverseRelationship == nil)
        #expect(model.validationErrors().map(\.kind) == [.missingInverse(name: "gone", entity: "Item")])
    }

    @Test func countsNoNumberSatisfiesLoad() throws {
        let xml = XcodeModelFixtures.single(
            attribute:
                #"<relationship name="items" optional="YES" toMany="YES" minCount="5" maxCount="3" deletionRule="Nullify" destinationEntity="Item"/>"#
        )
        let model = try XcodeModelFixtures.load(xml)
        #expect(model.entitiesByName["Item"]?.relationshipsByName["items"]?.minCount == 5)
        #expect(model.validationErrors().map(\.kind) == [.invalidRelationshipCount(min: 5, max: 3)])
    }

    @Test func aTemplateOfAnUnknownEntityLoads() throws {
        let xml = XcodeModelFixtures.single().replacingOccurrences(
            of: "</model>", with: #"<fetchRequest name="Old" entity="Removed" predicateString="TRUEPREDICATE"/></model>"#)
        let model = try XcodeModelFixtures.load(xml)
        #expect(model.fetchRequestTemplate(forName: "Old")?.entityName == "Removed")
        #expect(model.validationErrors().map(\.kind) == [.unknownTemplateEntity(template: "Old", entity: "Removed")])
    }

    // What Xcode refuses stays refused.

    @Test func whatXcodeRefusesIsStillAnError() {
        let noDestination = XcodeModelFixtures.single(
            attribute:
                #"<relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Ghost"/>"#
        )
        #expect(XcodeModelFixtures.error(loading: noDestination)?.kind == .missingDestination(name: "Ghost"))
        let untyped = XcodeModelFixtures.single(attribute: #"<attribute name="x" optional="YES"/>"#)
        #expect(XcodeModelFixtures.error(loading: untyped)?.kind == .undefinedAttributeType)
        let twice = XcodeModelFixtures.single(
            attribute:
                #"<attribute name="x" optional="YES" attributeType="String"/><attribute name="x" optional="YES" attributeType="String"/>"#
        )
        #expect(XcodeModelFixtures.error(loading: twice)?.kind == .duplicatePropertyName)
    }
}
