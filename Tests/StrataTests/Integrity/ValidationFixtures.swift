import Foundation
import Testing

@testable import Strata

// MARK: - Classes of the validation model
//
// Names are chosen not to collide with the classes of other suites, which share one test
// process with these.

final class Specimen: NSManagedObject {
    @Managed var label: String?
    @Managed var quantity: Int16
    @Managed var serial: Int64
    @Managed var weight: Double
    @Managed var ratio: Float
    @Managed var price: Decimal
    @Managed var code: String?
    @Managed var blob: Data?
    @Managed var takenAt: Date?
    @Managed var tags: Set<SpecimenTag>
}

final class SpecimenTag: NSManagedObject {
    @Managed var name: String?
    @Managed var specimen: Specimen?
}

/// A class with its own per-key rule, in place of Apple's `validateCode:error:`: a voucher
/// code is stored upper-cased, and "VOID" is refused.
final class Voucher: NSManagedObject {
    @Managed var code: String?
    @Managed var amount: Int32

    static let errorDomain = "VoucherErrors"

    override func validateValue(_ value: inout Any?, forKey key: String) throws {
        switch key {
        case "code":
            if let code = value as? String, code != code.uppercased() { value = code.uppercased() }
            if value as? String == "VOID" {
                throw NSError(
                    domain: Self.errorDomain, code: 1,
                    userInfo: [NSValidationObjectErrorKey: self, NSValidationKeyErrorKey: key])
            }
        default:
            break
        }
        try super.validateValue(&value, forKey: key)
    }
}

/// The model, the stores and the checks shared by the validation suites.
enum ValidationFixtures {
    /// Dates in the model are seconds since 2001-01-01; these bounds span 2001 to 2031.
    static let earliest = Date(timeIntervalSinceReferenceDate: 0)
    static let latest = Date(timeIntervalSinceReferenceDate: 946_080_000)

    /// One attribute per rule, each with a minimum and a maximum; every default is valid.
    static func model() -> NSManagedObjectModel {
        NSManagedObjectModel {
            Entity("Specimen", className: "Specimen") {
                Attribute("label", .stringAttributeType, optional: false)
                Attribute("quantity", .integer16AttributeType, optional: false, defaultValue: Int16(1)) {
                    bounds($0, "1", "10")
                }
                Attribute("serial", .integer64AttributeType, optional: false, defaultValue: Int64(0)) {
                    bounds($0, "-9000000000000000000", "9000000000000000000")
                }
                Attribute("weight", .doubleAttributeType, optional: false, defaultValue: 1.0) {
                    bounds($0, "0.5", "99.5")
                }
                Attribute("ratio", .floatAttributeType, optional: false, defaultValue: Float(0)) {
                    bounds($0, "0", "0.1")
                }
                Attribute("price", .decimalAttributeType, optional: false, defaultValue: Decimal(1)) {
                    bounds($0, "0.01", "999.99")
                }
                Attribute("code", .stringAttributeType) {
                    bounds($0, "2", "5")
                    $0.regularExpressionString = "[A-Z]+"
                }
                Attribute("blob", .binaryDataAttributeType) { bounds($0, "1", "4") }
                Attribute("takenAt", .dateAttributeType) { bounds($0, "0", "946080000") }
                Relationship(
                    "tags", to: "SpecimenTag", inverse: "specimen", toMany: true, minCount: 2, maxCount: 3)
            }
            Entity("SpecimenTag", className: "SpecimenTag") {
                Attribute("name", .stringAttributeType)
                Relationship("specimen", to: "Specimen", inverse: "tags")
            }
            Entity("Voucher", className: "Voucher") {
                Attribute("code", .stringAttributeType) { $0.maxValueString = "8" }
                Attribute("amount", .integer32AttributeType, optional: false, defaultValue: Int32(5)) {
                    bounds($0, "1", "100")
                }
            }
        }
    }

    private static func bounds(_ attribute: NSAttributeDescription, _ min: String, _ max: String) {
        attribute.minValueString = min
        attribute.maxValueString = max
    }

    /// A private-queue context on an in-memory store of `model`.
    static func context(_ model: NSManagedObjectModel = model()) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        _ = try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// A specimen that passes every rule: a label and two tags.
    static func validSpecimen(in context: NSManagedObjectContext) -> Specimen {
        let specimen = Specimen(context: context)
        specimen.label = "valid"
        for name in ["a", "b"] {
            let tag = SpecimenTag(context: context)
            tag.name = name
            tag.specimen = specimen
        }
        return specimen
    }

    /// The error a save throws, or `nil` when it succeeds.
    static func saveError(_ context: NSManagedObjectContext) -> NSError? {
        do {
            try context.save()
            return nil
        } catch {
            return error as NSError
        }
    }

    /// The error `body` throws, or `nil`.
    static func thrown(_ body: () throws -> Void) -> NSError? {
        do {
            try body()
            return nil
        } catch {
            return error as NSError
        }
    }

    /// Checks a validation error's domain, code, key and object.
    static func expect(
        _ error: NSError?, code: Int, key: String, object: NSManagedObject,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let error else {
            Issue.record("expected validation error \(code) for \(key), got none", sourceLocation: sourceLocation)
            return
        }
        #expect(error.domain == NSCocoaErrorDomain, sourceLocation: sourceLocation)
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        #expect(error.userInfo[NSValidationKeyErrorKey] as? String == key, sourceLocation: sourceLocation)
        #expect(error.userInfo[NSValidationObjectErrorKey] as? NSManagedObject === object, sourceLocation: sourceLocation)
    }
}
