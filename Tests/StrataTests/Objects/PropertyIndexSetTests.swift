import Testing

@testable import Strata

/// The bit set of changed property positions: what `Set<Int>` answered, for any position.
@Suite struct PropertyIndexSetTests {
    @Test func insertsContainsAndIteratesInOrder() {
        var set = PropertyIndexSet()
        #expect(set.isEmpty)
        for index in [200, 3, 64, 0, 63, 3, 130] { set.insert(index) }
        #expect(!set.isEmpty)
        #expect(Array(set) == [0, 3, 63, 64, 130, 200])
        #expect(set.contains(63) && set.contains(64) && set.contains(200))
        #expect(!set.contains(1) && !set.contains(65) && !set.contains(201) && !set.contains(10_000) && !set.contains(-1))
        set.removeAll()
        #expect(set.isEmpty && Array(set).isEmpty)
    }

    @Test func equalityIgnoresEmptyHighWords() {
        var wide = PropertyIndexSet([5, 300])
        var narrow = PropertyIndexSet([5])
        #expect(wide != narrow)
        narrow.insert(300)
        #expect(wide == narrow)
        wide.removeAll()
        wide.insert(5)
        #expect(wide == PropertyIndexSet([5]))
    }

    @Test func agreesWithSetOnRandomPositions() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            let positions = (0..<Int.random(in: 0...40, using: &generator)).map { _ in Int.random(in: 0..<260, using: &generator)
            }
            let bits = PropertyIndexSet(positions)
            #expect(Array(bits) == Set(positions).sorted())
            #expect((0..<260).allSatisfy { bits.contains($0) == positions.contains($0) })
        }
    }
}
