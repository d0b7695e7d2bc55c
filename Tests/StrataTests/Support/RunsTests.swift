import Testing

@testable import Strata

/// `forEachRun(where:_:)`: adjacent elements that belong together come as one run, in order;
/// equal elements that are not adjacent start new runs.
@Suite struct RunsTests {
    @Test func adjacentEqualElementsFormOneRun() {
        var runs: [[Int]] = []
        [1, 1, 2, 3, 3, 3, 1].forEachRun(where: ==) { runs.append(Array($0)) }
        #expect(runs == [[1, 1], [2], [3, 3, 3], [1]])
    }

    @Test func anEmptyCollectionHasNoRunAndOneElementHasOne() {
        var calls = 0
        [Int]().forEachRun(where: ==) { _ in calls += 1 }
        #expect(calls == 0)
        var single: [[String]] = []
        ["a"].forEachRun(where: ==) { single.append(Array($0)) }
        #expect(single == [["a"]])
    }

    @Test func runsAreComparedWithTheirFirstElement() {
        // Each element within 2 of the run's first joins it, even when its neighbour is farther.
        var runs: [[Int]] = []
        [10, 11, 12, 13, 20].forEachRun(where: { abs($0 - $1) <= 2 }) { runs.append(Array($0)) }
        #expect(runs == [[10, 11, 12], [13], [20]])
    }
}
