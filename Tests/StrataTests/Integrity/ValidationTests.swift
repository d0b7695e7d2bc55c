import Foundation
import Testing

@testable import Strata

/// The model's attribute rules (numeric, length, pattern and date bounds), required values
/// and relationship counts, each checked at save with Apple's error code, key and object.
@Suite struct ValidationTests {
    private typealias F = ValidationFixtures

    /// Saves a new specimen, valid but for `change`, and checks the one error the save throws.
    private func expectSaveError(code: Int, key: String, after change: (Specimen) -> Void) throws {
        let context = try F.context()
        context.performAndWait {
            let specimen = F.validSpecimen(in: context)
            change(specimen)
            F.expect(F.saveError(context), code: code, key: key, object: specimen)
        }
    }

    /// Saves a new specimen, valid but for `change`, expects the save to succeed, and reads the
    /// specimen back in another context: every attribute holds the value that was saved.
    private func expectSaves(after change: (Specimen) -> Void) throws {
        let context = try F.context()
        let (objectID, saved) = try context.performAndWait {
            let specimen = F.validSpecimen(in: context)
            change(specimen)
            try context.save()
            let values = specimen.entity.attributesByName.keys.map { ($0, specimen.value(forKey: $0) as? NSObject) }
            return (specimen.objectID, Dictionary(uniqueKeysWithValues: values))
        }
        #expect(!objectID.isTemporaryID)
        let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        reader.persistentStoreCoordinator = context.persistentStoreCoordinator
        try reader.performAndWait {
            let stored = try reader.existingObject(with: objectID)
            for (key, value) in saved {
                #expect(stored.value(forKey: key) as? NSObject == value, "\(key)")
            }
            #expect(stored.mutableSetValue(forKey: "tags").count == 2)
        }
    }

    // MARK: Numbers

    @Test func integerBelowMinimumIsNumberTooSmall() throws {
        try expectSaveError(code: NSValidationNumberTooSmallError, key: "quantity") { $0.quantity = 0 }
    }

    @Test func integerAboveMaximumIsNumberTooLarge() throws {
        try expectSaveError(code: NSValidationNumberTooLargeError, key: "quantity") { $0.quantity = 11 }
    }

    @Test func boundsThemselvesAreAllowed() throws {
        try expectSaves { specimen in
            specimen.quantity = 10
            specimen.weight = 0.5
            specimen.price = Decimal(string: "999.99")!
            specimen.serial = 9_000_000_000_000_000_000
        }
    }

    @Test func integer64BoundsAreReadExactly() throws {
        try expectSaveError(code: NSValidationNumberTooLargeError, key: "serial") {
            $0.serial = 9_000_000_000_000_000_001
        }
        try expectSaveError(code: NSValidationNumberTooSmallError, key: "serial") {
            $0.serial = -9_000_000_000_000_000_001
        }
    }

    @Test func doubleOutsideBoundsIsTooSmallOrTooLarge() throws {
        try expectSaveError(code: NSValidationNumberTooSmallError, key: "weight") { $0.weight = 0.499 }
        try expectSaveError(code: NSValidationNumberTooLargeError, key: "weight") { $0.weight = 99.51 }
    }

    @Test func floatIsComparedWithItsBoundAsAFloat() throws {
        try expectSaves { $0.ratio = 0.1 }
        try expectSaveError(code: NSValidationNumberTooLargeError, key: "ratio") { $0.ratio = 0.2 }
        try expectSaveError(code: NSValidationNumberTooSmallError, key: "ratio") { $0.ratio = -0.5 }
    }

    @Test func decimalOutsideBoundsIsTooSmallOrTooLarge() throws {
        try expectSaveError(code: NSValidationNumberTooSmallError, key: "price") { $0.price = Decimal(string: "0.009")! }
        try expectSaveError(code: NSValidationNumberTooLargeError, key: "price") { $0.price = 1000 }
    }

    // MARK: Strings and data

    @Test func stringShorterThanMinimumIsTooShort() throws {
        try expectSaveError(code: NSValidationStringTooShortError, key: "code") { $0.code = "A" }
    }

    @Test func stringLongerThanMaximumIsTooLong() throws {
        try expectSaveError(code: NSValidationStringTooLongError, key: "code") { $0.code = "ABCDEF" }
    }

    @Test func stringMustMatchThePatternInFull() throws {
        try expectSaves { $0.code = "ABCDE" }
        try expectSaveError(code: NSValidationStringPatternMatchingError, key: "code") { $0.code = "ABc" }
        try expectSaveError(code: NSValidationStringPatternMatchingError, key: "code") { $0.code = "1AB" }
    }

    @Test func binaryDataLengthIsCheckedInBytes() throws {
        try expectSaves { $0.blob = Data([1, 2, 3, 4]) }
        try expectSaveError(code: NSValidationStringTooShortError, key: "blob") { $0.blob = Data() }
        try expectSaveError(code: NSValidationStringTooLongError, key: "blob") { $0.blob = Data([1, 2, 3, 4, 5]) }
    }

    // MARK: Dates

    @Test func dateBeforeMinimumIsTooSoon() throws {
        try expectSaveError(code: NSValidationDateTooSoonError, key: "takenAt") {
            $0.takenAt = F.earliest.addingTimeInterval(-1)
        }
    }

    @Test func dateAfterMaximumIsTooLate() throws {
        try expectSaves { $0.takenAt = F.latest }
        try expectSaveError(code: NSValidationDateTooLateError, key: "takenAt") {
            $0.takenAt = F.latest.addingTimeInterval(1)
        }
    }

    // MARK: Required values and relationships

    @Test func nilIsCheckedOnlyByTheRequiredRule() throws {
        try expectSaves { specimen in
            specimen.code = nil
            specimen.blob = nil
            specimen.takenAt = nil
        }
        try expectSaveError(code: NSValidationMissingMandatoryPropertyError, key: "label") { $0.label = nil }
    }

    /// A required to-one relationship left empty fails the save with 1570 naming it; an
    /// optional one may stay empty; either passes once it points to an object.
    @Test func toOneRelationshipsAreRequiredOnlyWhenNotOptional() throws {
        let model = NSManagedObjectModel {
            Entity("Slide") {
                Attribute("caption", .stringAttributeType)
                Relationship("tray", to: "Tray", inverse: "slides", optional: false)
                Relationship("sleeve", to: "Sleeve", inverse: "slide")
            }
            Entity("Tray") { Relationship("slides", to: "Slide", inverse: "tray", toMany: true) }
            Entity("Sleeve") { Relationship("slide", to: "Slide", inverse: "sleeve") }
        }
        let context = try ObjectGraphTests.Stack(model, type: NSInMemoryStoreType, at: nil).newContext()
        try context.performAndWait {
            let slide = NSManagedObject(entity: try #require(model.entitiesByName["Slide"]), insertInto: context)
            F.expect(F.saveError(context), code: NSValidationMissingMandatoryPropertyError, key: "tray", object: slide)
            let tray = NSManagedObject(entity: try #require(model.entitiesByName["Tray"]), insertInto: context)
            slide.setValue(tray, forKey: "tray")
            try context.save()
            #expect(slide.value(forKey: "sleeve") == nil)
            let sleeve = NSManagedObject(entity: try #require(model.entitiesByName["Sleeve"]), insertInto: context)
            slide.setValue(sleeve, forKey: "sleeve")
            try context.save()
            #expect((slide.value(forKey: "sleeve") as? NSManagedObject) === sleeve)
        }
    }

    @Test func validationPredicatesAreCheckedWithTheirWarnings() throws {
        let model = NSManagedObjectModel {
            Entity("Label") {
                Attribute("text", .stringAttributeType) {
                    $0.setValidationPredicates(
                        [NSPredicate(format: "length >= 3"), NSPredicate(format: "NOT SELF BEGINSWITH 'x'")],
                        withValidationWarnings: ["Too short", "No x"])
                }
            }
        }
        let context = try ObjectGraphTests.Stack(model, type: NSInMemoryStoreType, at: nil).newContext()
        try context.performAndWait {
            let label = NSManagedObject(entity: try #require(model.entitiesByName["Label"]), insertInto: context)
            label.setValue("ab", forKey: "text")
            let short = F.saveError(context)
            F.expect(short, code: NSManagedObjectValidationError, key: "text", object: label)
            #expect(short?.localizedDescription == "Too short")
            #expect((short?.userInfo[NSValidationPredicateErrorKey] as? NSPredicate)?.description == "length >= 3")
            label.setValue("xylophone", forKey: "text")
            #expect(F.saveError(context)?.localizedDescription == "No x")
            label.setValue("label", forKey: "text")
            try context.save()
        }
    }

    @Test func aRequiredToManyIsHeldToItsMinimumCountOnly() throws {
        let model = NSManagedObjectModel {
            Entity("Album") {
                Relationship("photos", to: "Photo", inverse: "album", toMany: true, optional: false)
                Relationship("covers", to: "Photo", inverse: "coverOf", toMany: true, optional: false, minCount: 1)
            }
            Entity("Photo") {
                Relationship("album", to: "Album", inverse: "photos")
                Relationship("coverOf", to: "Album", inverse: "covers")
            }
        }
        let context = try ObjectGraphTests.Stack(model, type: NSInMemoryStoreType, at: nil).newContext()
        try context.performAndWait {
            let album = NSManagedObject(entity: try #require(model.entitiesByName["Album"]), insertInto: context)
            // `photos` may stay empty; `covers` needs one photo.
            F.expect(F.saveError(context), code: NSValidationRelationshipLacksMinimumCountError, key: "covers", object: album)
            let cover = NSManagedObject(entity: try #require(model.entitiesByName["Photo"]), insertInto: context)
            cover.setValue(album, forKey: "coverOf")
            try context.save()
            #expect((album.value(forKey: "photos") as? NSSet)?.count == 0)
        }
    }

    @Test func tooFewObjectsInAToManyRelationship() throws {
        try expectSaveError(code: NSValidationRelationshipLacksMinimumCountError, key: "tags") { specimen in
            specimen.tags.first?.specimen = nil
        }
    }

    @Test func tooManyObjectsInAToManyRelationship() throws {
        try expectSaveError(code: NSValidationRelationshipExceedsMaximumCountError, key: "tags") { specimen in
            for name in ["c", "d"] {
                let tag = SpecimenTag(context: specimen.managedObjectContext!)
                tag.name = name
                tag.specimen = specimen
            }
        }
    }

    // MARK: Updates and validation on demand

    @Test func updatedObjectsAreValidatedAtSave() throws {
        let context = try F.context()
        try context.performAndWait {
            let specimen = F.validSpecimen(in: context)
            try context.save()
            specimen.weight = 100
            F.expect(F.saveError(context), code: NSValidationNumberTooLargeError, key: "weight", object: specimen)
            #expect(specimen.isUpdated)
        }
    }

    @Test func validateValueChecksAProposedValueWithoutSettingIt() throws {
        let context = try F.context()
        context.performAndWait {
            let specimen = F.validSpecimen(in: context)
            var proposed: Any? = Int16(50)
            let error = F.thrown { try specimen.validateValue(&proposed, forKey: "quantity") }
            F.expect(error, code: NSValidationNumberTooLargeError, key: "quantity", object: specimen)
            #expect(error?.userInfo[NSValidationValueErrorKey] as? Int16 == 50)
            #expect(specimen.quantity == 1)

            var number: Any? = NSNumber(value: 5)
            #expect(F.thrown { try specimen.validateValue(&number, forKey: "quantity") } == nil)
            var missing: Any? = nil
            let required = F.thrown { try specimen.validateValue(&missing, forKey: "label") }
            F.expect(required, code: NSValidationMissingMandatoryPropertyError, key: "label", object: specimen)
        }
    }

    @Test func validateValueTakesApplesPointerForm() throws {
        let context = try F.context()
        context.performAndWait {
            let specimen = F.validSpecimen(in: context)
            var object: AnyObject? = NSString(string: "abc")
            let error = F.thrown { try specimen.validateValue(&object, forKey: "code") }
            F.expect(error, code: NSValidationStringPatternMatchingError, key: "code", object: specimen)
            object = NSString(string: "ABC")
            #expect(F.thrown { try specimen.validateValue(&object, forKey: "code") } == nil)
            #expect(object as? NSString == "ABC")
        }
    }

    @Test func validateForInsertReportsEveryBrokenRule() throws {
        let context = try F.context()
        context.performAndWait {
            let specimen = F.validSpecimen(in: context)
            specimen.quantity = 0
            specimen.blob = Data()
            let error = F.thrown { try specimen.validateForInsert() }
            #expect(error?.code == NSValidationMultipleErrorsError)
            let detailed = error?.userInfo[NSDetailedErrorsKey] as? [NSError] ?? []
            #expect(Set(detailed.map(\.code)) == [NSValidationNumberTooSmallError, NSValidationStringTooShortError])
        }
    }
}
