import Foundation
import Strata
import Testing

@Suite struct NSSetCompatibilityTests {
    @Test func emptyArrayLiteralStandsInForAMissingSet() {
        let missing: NSSet? = nil
        let present: NSSet? = NSSet(array: [1, 2])
        #expect((missing ?? []).count == 0)
        #expect((present ?? []).count == 2)
        let missingOrdered: NSOrderedSet? = nil
        #expect((missingOrdered ?? []).count == 0)
        #expect((NSOrderedSet(array: ["a"]) as NSOrderedSet? ?? []).array as? [String] == ["a"])
    }

    @Test func otherOptionalsStillCoalesceAsUsual() {
        let number: Int? = nil
        let names: [String]? = nil
        #expect((number ?? 3) == 3)
        #expect((names ?? []).isEmpty)
    }
}
