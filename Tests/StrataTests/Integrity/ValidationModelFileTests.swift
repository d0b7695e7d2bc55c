import Foundation
import Testing

@testable import Strata

/// Validation rules as Xcode writes them in a model file: `minValueString`,
/// `maxValueString` and `regularExpressionString` on `<attribute>`, read and enforced.
@Suite struct ValidationModelFileTests {
    private typealias F = ValidationFixtures

    /// As Xcode 15 writes it; the date bounds are 2001-01-01 and 2031-01-01 (seconds since
    /// 2001-01-01).
    private static let xml = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22758" \
        systemVersion="23F79" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="Gauge" syncable="YES">
                <attribute name="calibratedAt" optional="YES" attributeType="Date" minValueString="0" \
        maxValueString="946771200" usesScalarValueType="NO"/>
                <attribute name="level" optional="YES" attributeType="Integer 32" minValueString="0" \
        maxValueString="100" defaultValueString="0" usesScalarValueType="YES"/>
                <attribute name="serialNumber" optional="YES" attributeType="String" minValueString="4" \
        maxValueString="8" regularExpressionString="[A-Z]{2}-[0-9]+"/>
            </entity>
        </model>
        """

    private func gauge(in context: NSManagedObjectContext) -> NSManagedObject {
        let gauge = NSEntityDescription.insertNewObject(forEntityName: "Gauge", into: context)
        gauge.setValue("AB-12", forKey: "serialNumber")
        return gauge
    }

    @Test func modelFileRulesAreRead() throws {
        let model = try NSManagedObjectModel.load(xml: Data(Self.xml.utf8))
        let attributes = try #require(model.entitiesByName["Gauge"]).attributesByName
        #expect(attributes["level"]?.minValueString == "0")
        #expect(attributes["level"]?.maxValueString == "100")
        #expect(attributes["serialNumber"]?.regularExpressionString == "[A-Z]{2}-[0-9]+")
    }

    @Test func modelFileRulesAreEnforcedAtSave() throws {
        let context = try F.context(NSManagedObjectModel.load(xml: Data(Self.xml.utf8)))
        try context.performAndWait {
            let gauge = gauge(in: context)
            try context.save()

            gauge.setValue(101, forKey: "level")
            F.expect(F.saveError(context), code: NSValidationNumberTooLargeError, key: "level", object: gauge)
            gauge.setValue(-1, forKey: "level")
            F.expect(F.saveError(context), code: NSValidationNumberTooSmallError, key: "level", object: gauge)
            gauge.setValue(100, forKey: "level")

            gauge.setValue("AB-", forKey: "serialNumber")
            F.expect(F.saveError(context), code: NSValidationStringTooShortError, key: "serialNumber", object: gauge)
            gauge.setValue("AB-123456", forKey: "serialNumber")
            F.expect(F.saveError(context), code: NSValidationStringTooLongError, key: "serialNumber", object: gauge)
            gauge.setValue("ab-12", forKey: "serialNumber")
            F.expect(
                F.saveError(context), code: NSValidationStringPatternMatchingError, key: "serialNumber", object: gauge)
            gauge.setValue("CD-34", forKey: "serialNumber")

            gauge.setValue(Date(timeIntervalSinceReferenceDate: 946_771_201), forKey: "calibratedAt")
            F.expect(F.saveError(context), code: NSValidationDateTooLateError, key: "calibratedAt", object: gauge)
            gauge.setValue(Date(timeIntervalSinceReferenceDate: -86_400), forKey: "calibratedAt")
            F.expect(F.saveError(context), code: NSValidationDateTooSoonError, key: "calibratedAt", object: gauge)
            gauge.setValue(Date(timeIntervalSinceReferenceDate: 0), forKey: "calibratedAt")
            try context.save()
        }
    }
}
