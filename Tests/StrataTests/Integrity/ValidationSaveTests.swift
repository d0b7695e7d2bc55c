import Foundation
import Testing

@testable import Strata

/// A save that fails validation: every failure in one error, nothing written to the store,
/// and the context still holding its changes.
@Suite struct ValidationSaveTests {
    private typealias F = ValidationFixtures
    private typealias Stack = ObjectGraphTests.Stack

    private let scratch = ObjectGraphTests.ScratchDirectory()
    private var url: URL { scratch.file("specimens.sqlite") }

    @Test func threeFailuresAreReportedTogether() throws {
        let context = try F.context()
        context.performAndWait {
            let specimen = F.validSpecimen(in: context)
            specimen.label = nil
            specimen.quantity = 0
            specimen.code = "abc"
            let error = F.saveError(context)
            #expect(error?.domain == NSCocoaErrorDomain)
            #expect(error?.code == NSValidationMultipleErrorsError)
            let detailed = error?.userInfo[NSDetailedErrorsKey] as? [NSError] ?? []
            #expect(detailed.count == 3)
            let byKey = Dictionary(grouping: detailed) { $0.userInfo[NSValidationKeyErrorKey] as? String ?? "" }
            F.expect(byKey["label"]?.first, code: NSValidationMissingMandatoryPropertyError, key: "label", object: specimen)
            F.expect(byKey["quantity"]?.first, code: NSValidationNumberTooSmallError, key: "quantity", object: specimen)
            F.expect(byKey["code"]?.first, code: NSValidationStringPatternMatchingError, key: "code", object: specimen)
        }
    }

    @Test func failuresOfSeveralObjectsAreReportedTogether() throws {
        let context = try F.context()
        context.performAndWait {
            let first = F.validSpecimen(in: context)
            first.weight = 0
            let second = F.validSpecimen(in: context)
            second.takenAt = F.latest.addingTimeInterval(60)
            let detailed = F.saveError(context)?.userInfo[NSDetailedErrorsKey] as? [NSError] ?? []
            #expect(detailed.count == 2)
            F.expect(
                detailed.first { $0.code == NSValidationNumberTooSmallError }, code: NSValidationNumberTooSmallError,
                key: "weight", object: first)
            F.expect(
                detailed.first { $0.code == NSValidationDateTooLateError }, code: NSValidationDateTooLateError,
                key: "takenAt", object: second)
        }
    }

    @Test func failedSaveWritesNothingAndKeepsTheChanges() throws {
        let model = F.model()
        let stack = try Stack(model, at: url)
        let context = stack.newContext()
        try context.performAndWait {
            let saved = F.validSpecimen(in: context)
            saved.label = "saved"
            saved.quantity = 3
            try context.save()

            saved.quantity = 50
            let newcomer = F.validSpecimen(in: context)
            newcomer.label = "newcomer"
            newcomer.code = "x"
            let error = F.saveError(context)
            #expect(error?.code == NSValidationMultipleErrorsError)

            #expect(context.hasChanges)
            #expect(saved.isUpdated && saved.quantity == 50)
            #expect(newcomer.isInserted && newcomer.code == "x")
        }
        try stack.close()

        let reopened = try Stack(model, at: url)
        defer { try? reopened.close() }
        let check = reopened.newContext()
        try check.performAndWait {
            let specimens = try check.fetch(NSFetchRequest<Specimen>(entityName: "Specimen"))
            #expect(specimens.count == 1)
            #expect(specimens.first?.label == "saved")
            #expect(specimens.first?.quantity == 3)
            #expect(try check.count(for: NSFetchRequest<SpecimenTag>(entityName: "SpecimenTag")) == 2)
        }
    }

    @Test func fixingTheValuesLetsTheSameChangesSave() throws {
        let model = F.model()
        let stack = try Stack(model, at: url)
        let context = stack.newContext()
        try context.performAndWait {
            let specimen = F.validSpecimen(in: context)
            specimen.quantity = 99
            #expect(F.saveError(context)?.code == NSValidationNumberTooLargeError)
            specimen.quantity = 9
            try context.save()
        }
        try stack.close()

        let reopened = try Stack(model, at: url)
        defer { try? reopened.close() }
        let check = reopened.newContext()
        try check.performAndWait {
            let specimens = try check.fetch(NSFetchRequest<Specimen>(entityName: "Specimen"))
            #expect(specimens.map(\.quantity) == [9])
        }
    }
}
