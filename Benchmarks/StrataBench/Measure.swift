import Foundation

/// How much work each case does. The full sizes are SPEC §5's; `--quick` divides them by 100
/// so that CI can run every case in seconds, in a debug build, to keep the program working.
struct Sizes {
    /// B1: objects inserted in one save.
    var inserts = 100_000
    /// B3, B4, B5, B8, M1: rows fetched or modified.
    var fetched = 100_000
    /// B6 and M2: rows in the large store.
    var large = 1_000_000
    /// B7, B10: owners, each with `children` items.
    var owners = 10_000
    var children = 10
    /// B11: to-dos linked to tags and places in one save; B11s compares a tenth of it.
    var tagged = 100_000
    /// B6: queries per trial (the time reported is per query).
    var queries = 200
    /// B4: `fetchBatchSize`.
    var batchSize = 100
    /// M2: rows per page of the paged variant.
    var pageSize = 1_000
    /// Trials per case and stack; the median is reported.
    var rounds = 5

    static let full = Sizes()
    static let quick = Sizes(
        inserts: 1_000, fetched: 1_000, large: 10_000, owners: 100, children: 10, tagged: 1_000, queries: 20,
        batchSize: 100,
        pageSize: 100, rounds: 2)
}

/// One trial: the time of the measured part and the checksum of what it read or wrote.
struct Sample {
    var seconds: Double
    var checksum: Int
}

/// Times `work`, the part of a trial that is measured (setup and teardown are not).
func measure(_ work: () throws -> Int) rethrows -> Sample {
    let clock = ContinuousClock()
    var checksum = 0
    let elapsed = try clock.measure { checksum = try work() }
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return Sample(seconds: seconds, checksum: checksum)
}

extension Array where Element == Double {
    var median: Double {
        guard !isEmpty else { return .nan }
        let sorted = self.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
