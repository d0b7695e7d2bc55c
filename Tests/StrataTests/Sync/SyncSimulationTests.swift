import Foundation
import Testing

@testable import Strata

extension SyncTests {
    /// Issue 33: seeded random schedules of 2–5 devices (see `Simulation`), each checked
    /// against the oracle of what must survive. CI runs 200 schedules; `scripts/sync-simulation`
    /// runs thousands (`STRATA_SYNC_SCHEDULES`), and `STRATA_SYNC_SEED` replays one.
    @Suite struct SimulationTests {
        /// The schedules of one run, split in groups that run in parallel.
        static let groups = 8

        static var seeds: [UInt64] {
            let environment = ProcessInfo.processInfo.environment
            if let seed = environment["STRATA_SYNC_SEED"].flatMap(UInt64.init) { return [seed] }
            let count = environment["STRATA_SYNC_SCHEDULES"].flatMap(Int.init) ?? 200
            return (1...UInt64(max(count, 1))).map { $0 }
        }

        @Test(arguments: 0..<groups)
        func randomSchedulesLoseNoWrite(group: Int) throws {
            let seeds = Self.seeds.enumerated().filter { $0.offset % Self.groups == group }.map(\.element)
            var writes = 0
            var failed = 0
            for seed in seeds {
                let simulation = Simulation(seed: seed)
                let problems = try simulation.run()
                writes += simulation.writeCount
                guard !problems.isEmpty else { continue }
                failed += 1
                Issue.record(
                    """
                    Seed \(seed) (replay: STRATA_SYNC_SEED=\(seed)) ends away from the oracle:
                    \(problems.prefix(8).joined(separator: "\n"))
                    Schedule:
                    \(simulation.log.joined(separator: "\n"))
                    """)
                if failed == 2 { break }
            }
            // A run that checked nothing proves nothing.
            #expect(seeds.isEmpty || writes > seeds.count)
            print("sync simulation group \(group): \(seeds.count) schedules, \(writes) writes checked, \(failed) failed")
        }
    }
}
