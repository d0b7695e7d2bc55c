import Foundation
import Testing

@testable import Strata

/// The typed accessors' fast read of a stored value whose type is exactly the property's: it
/// must give what `as?` gives for every type it takes, and leave every other case to `as?`.
@Suite struct ManagedExactValueTests {
    @Test func theStoredTypesReadBackEqual() {
        let date = Date(timeIntervalSinceReferenceDate: 123_456.75)
        let uuid = UUID()
        #expect(_ManagedExactValue.read(Int16(-7) as Any, as: Int16.self) == -7)
        #expect(_ManagedExactValue.read(Int32.max as Any, as: Int32.self) == .max)
        #expect(_ManagedExactValue.read(Int64.min as Any, as: Int64.self) == .min)
        #expect(_ManagedExactValue.read(2.5 as Any, as: Double.self) == 2.5)
        #expect(_ManagedExactValue.read(Float(1.25) as Any, as: Float.self) == 1.25)
        #expect(_ManagedExactValue.read(true as Any, as: Bool.self) == true)
        #expect(_ManagedExactValue.read(date as Any, as: Date.self) == date)
        #expect(_ManagedExactValue.read(uuid as Any, as: UUID.self) == uuid)
        let decimal = Decimal(sign: .minus, exponent: -2, significand: 1234)
        #expect(_ManagedExactValue.read(decimal as Any, as: Decimal.self) == decimal)
        #expect(_ManagedExactValue.read("short" as Any, as: String.self) == "short")
    }

    @Test func aStringOnTheHeapIsCopiedNotBorrowed() {
        var stored: Any? = String(repeating: "crème brûlée ", count: 40)
        var copies: [String] = []
        for _ in 0..<1000 {
            guard let stored, let text = _ManagedExactValue.read(stored, as: String.self) else { break }
            copies.append(text)
        }
        stored = nil
        #expect(copies.count == 1000)
        #expect(copies.allSatisfy { $0 == String(repeating: "crème brûlée ", count: 40) })
    }

    @Test func anythingElseIsLeftToTheCast() {
        #expect(_ManagedExactValue.read(Int64(5) as Any, as: Int32.self) == nil)
        #expect(_ManagedExactValue.read(Int32(5) as Any, as: Int64.self) == nil)
        #expect(_ManagedExactValue.read(NSNull() as Any, as: Int64.self) == nil)
        #expect(_ManagedExactValue.read(NSNumber(value: 5) as Any, as: Int64.self) == nil)
        #expect(_ManagedExactValue.read("5" as Any, as: Int64.self) == nil)
        #expect(_ManagedExactValue.read(Data([1, 2]) as Any, as: Data.self) == nil)
        #expect(_ManagedExactValue.read(URL(fileURLWithPath: "/tmp") as Any, as: URL.self) == nil)
        #expect(_ManagedExactValue.read(Optional(Int64(5)) as Any, as: Int64.self) == nil)
    }
}
