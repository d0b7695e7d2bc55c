import Foundation
import Testing

@testable import Strata

/// A subclass's own per-key rule, `validateValue(_:forKey:)` overridden as Apple's
/// `validate<Key>:error:` methods would be written: it can refuse a value or replace it.
@Suite struct ValidationHookTests {
    private typealias F = ValidationFixtures

    @Test func overrideRefusesAValueAndTheSaveFails() throws {
        let context = try F.context()
        context.performAndWait {
            let voucher = Voucher(context: context)
            voucher.code = "VOID"
            let error = F.saveError(context)
            #expect(error?.domain == Voucher.errorDomain)
            #expect(error?.code == 1)
            #expect(error?.userInfo[NSValidationKeyErrorKey] as? String == "code")
            #expect(error?.userInfo[NSValidationObjectErrorKey] as? NSManagedObject === voucher)
            #expect(voucher.isInserted)
        }
    }

    @Test func overrideErrorIsCollectedWithTheModelsErrors() throws {
        let context = try F.context()
        context.performAndWait {
            let voucher = Voucher(context: context)
            voucher.code = "void"
            voucher.amount = 0
            let error = F.saveError(context)
            #expect(error?.code == NSValidationMultipleErrorsError)
            let detailed = error?.userInfo[NSDetailedErrorsKey] as? [NSError] ?? []
            #expect(detailed.count == 2)
            #expect(detailed.contains { $0.domain == Voucher.errorDomain && $0.code == 1 })
            F.expect(
                detailed.first { $0.domain == NSCocoaErrorDomain }, code: NSValidationNumberTooSmallError, key: "amount",
                object: voucher)
        }
    }

    @Test func overrideReplacesAValueAndTheSaveWritesIt() throws {
        let context = try F.context()
        try context.performAndWait {
            let voucher = Voucher(context: context)
            voucher.code = "summer"
            try context.save()
            #expect(voucher.code == "SUMMER")
            #expect(!context.hasChanges)
        }
        let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        other.persistentStoreCoordinator = context.persistentStoreCoordinator
        try other.performAndWait {
            let vouchers = try other.fetch(NSFetchRequest<Voucher>(entityName: "Voucher"))
            #expect(vouchers.map(\.code) == ["SUMMER"])
        }
    }

    @Test func replacedValueIsCheckedByTheModelsRules() throws {
        let context = try F.context()
        context.performAndWait {
            let voucher = Voucher(context: context)
            voucher.code = "toolongcode"
            F.expect(F.saveError(context), code: NSValidationStringTooLongError, key: "code", object: voucher)
        }
    }

    @Test func pointerFormCallsTheOverride() throws {
        let context = try F.context()
        context.performAndWait {
            let voucher = Voucher(context: context)
            var object: AnyObject? = NSString(string: "gift")
            #expect(F.thrown { try voucher.validateValue(&object, forKey: "code") } == nil)
            #expect(object as? NSString == "GIFT")
            #expect(voucher.code == nil)

            object = NSString(string: "void")
            #expect(F.thrown { try voucher.validateValue(&object, forKey: "code") }?.domain == Voucher.errorDomain)
        }
    }

    /// A struct that is not `Hashable`, as a transformable attribute may hold.
    private struct Payload { var bytes: [UInt8] }

    @Test func onlyAHookThatAssignsReplacesTheValue() {
        let payload: Any? = Payload(bytes: [1])
        let object: Any? = NSObject()
        #expect(!NSManagedObject.isReplacement(payload, of: payload))
        #expect(!NSManagedObject.isReplacement(object, of: object))
        #expect(!NSManagedObject.isReplacement("a", of: "a"))
        #expect(!NSManagedObject.isReplacement(nil, of: nil))
        #expect(NSManagedObject.isReplacement("A", of: "a"))
        #expect(NSManagedObject.isReplacement(nil, of: "a"))
        #expect(NSManagedObject.isReplacement(NSObject(), of: object))
    }

    /// The plain types are compared in place: equal values of the same type are kept, any
    /// difference of value or of type is a replacement.
    @Test func plainValuesAreComparedByValueAndType() {
        let date = Date(timeIntervalSinceReferenceDate: 42.5)
        let long = String(repeating: "ü", count: 40)
        #expect(!NSManagedObject.isReplacement(Int16(7), of: Int16(7)))
        #expect(NSManagedObject.isReplacement(Int16(8), of: Int16(7)))
        #expect(!NSManagedObject.isReplacement(Int32(-1), of: Int32(-1)))
        #expect(!NSManagedObject.isReplacement(Int64.max, of: Int64.max))
        #expect(NSManagedObject.isReplacement(Int64.max, of: Int64.min))
        #expect(!NSManagedObject.isReplacement(3, of: 3))
        #expect(!NSManagedObject.isReplacement(2.5, of: 2.5))
        #expect(NSManagedObject.isReplacement(2.5, of: 2.25))
        #expect(NSManagedObject.isReplacement(Double.nan, of: Double.nan))
        #expect(!NSManagedObject.isReplacement(Float(1), of: Float(1)))
        #expect(!NSManagedObject.isReplacement(true, of: true))
        #expect(NSManagedObject.isReplacement(false, of: true))
        #expect(!NSManagedObject.isReplacement(date, of: Date(timeIntervalSinceReferenceDate: 42.5)))
        #expect(NSManagedObject.isReplacement(date.addingTimeInterval(1), of: date))
        #expect(!NSManagedObject.isReplacement(String(long.reversed()), of: long))
        #expect(NSManagedObject.isReplacement(long + "!", of: long))
        let uuid = UUID()
        #expect(!NSManagedObject.isReplacement(UUID(uuid: uuid.uuid), of: uuid))
        #expect(NSManagedObject.isReplacement(UUID(), of: uuid))
        #expect(!NSManagedObject.isReplacement(Data([1, 2, 3]), of: Data([1, 2, 3])))
        #expect(NSManagedObject.isReplacement(Data([1, 2]), of: Data([1, 2, 3])))
        #expect(!NSManagedObject.isReplacement(Data(repeating: 7, count: 100), of: Data(repeating: 7, count: 100)))
        // Values of different types go on to `AnyHashable`, which takes the same number in
        // another type or as an `NSNumber` for equal, as `NSNumber` comparisons do.
        #expect(!NSManagedObject.isReplacement(Int32(7), of: Int16(7)))
        #expect(!NSManagedObject.isReplacement(NSNumber(value: 7), of: Int16(7)))
        #expect(NSManagedObject.isReplacement(NSNumber(value: 8), of: Int16(7)))
        #expect(NSManagedObject.isReplacement(Int16(7), of: nil))
    }

    /// Rule-free attributes with a value pass validation at once when the value is of a plain
    /// type; `nil`, `NSNull` and other types are left to the full check.
    @Test func presentPlainValuesAreToldFromTheirContainer() {
        #expect(PlainValues.isPresentPlainValue(Int16(3)))
        #expect(PlainValues.isPresentPlainValue("text"))
        #expect(PlainValues.isPresentPlainValue(String(repeating: "long text ", count: 9)))
        #expect(PlainValues.isPresentPlainValue(Date()))
        #expect(PlainValues.isPresentPlainValue(2.5))
        #expect(!PlainValues.isPresentPlainValue(nil))
        #expect(!PlainValues.isPresentPlainValue(NSNull()))
        #expect(!PlainValues.isPresentPlainValue(NSNumber(value: 3)))
        #expect(!PlainValues.isPresentPlainValue(Data([1])))
    }
}
