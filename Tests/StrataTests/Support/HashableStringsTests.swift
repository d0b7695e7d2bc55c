import Foundation
import Testing

@testable import Strata

/// `HashableStrings` reads the `String` an `AnyHashable` wraps in place: it must give back
/// every Swift string key exactly, and refuse every key of another type, whatever its bytes.
@Suite struct HashableStringsTests {
    /// A hashable value whose first two words are a string's own bytes.
    struct LooksLikeAString: Hashable {
        let first: UInt
        let second: UInt
        let third: UInt
    }

    @Test func theLayoutWasProbed() {
        // On the 64-bit platforms Strata runs on, the probe must succeed, or B2 loses its fast path.
        #expect(HashableStrings.shared.stringBoxType != 0)
    }

    @Test(arguments: ["", "id", "category", "fifteen bytes!!", "sixteen bytes!!!", "名前", String(repeating: "长", count: 40)])
    func swiftStringKeysReadBack(key: String) {
        #expect(HashableStrings.shared.string(in: AnyHashable(key)) == key)
        let literal: AnyHashable = "category"
        #expect(HashableStrings.shared.string(in: literal) == "category")
    }

    @Test func keysOfOtherTypesAreRefused() {
        let text = "category"
        let words = withUnsafeBytes(of: text) { ($0.load(as: UInt.self), $0.load(fromByteOffset: 8, as: UInt.self)) }
        let others: [AnyHashable] = [
            AnyHashable(NSString(string: text)), AnyHashable(Substring(text)), AnyHashable(7), AnyHashable(Int16(7)),
            AnyHashable(Character("c")), AnyHashable(LooksLikeAString(first: words.0, second: words.1, third: 0)),
            AnyHashable(NSNumber(value: 7)), AnyHashable([text]),
        ]
        for key in others {
            #expect(HashableStrings.shared.string(in: key) == nil, "\(type(of: key.base))")
        }
    }
}
