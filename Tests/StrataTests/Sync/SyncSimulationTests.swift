import Foundation
import Testing

@testable import Strata
@testable import SyncSimulationSupport

extension SyncTests {
    /// Issue 33: seeded random schedules of 2–5 devices (see `Simulation`) against the
    /// in-memory zone, each checked against the oracle of what must survive. CI runs 200
    /// schedules; `scripts/sync-simulation` runs thousands (`STRATA_SYNC_SCHEDULES`), and
    /// `STRATA_SYNC_SEED` replays one. The same schedules run against `strata-sync` processes
    /// in StrataSyncServerTests (`ServerSchedules`).
    @Suite struct SimulationTests {
        /// The schedules of one run, split in groups that run in parallel.
        static let groups = 4

        static let seeds = SimulationRun.seeds(
            defaultCount: 200, seedVariable: "STRATA_SYNC_SEED", countVariable: "STRATA_SYNC_SCHEDULES")

        @Test(arguments: 0..<groups)
        func randomSchedulesLoseNoWrite(group: Int) async throws {
            let seeds = SimulationRun.seeds(Self.seeds, group: group, of: Self.groups)
            let outcome = try await SimulationRun.onThreadOfItsOwn {
                try SimulationRun.run(seeds, replayVariable: "STRATA_SYNC_SEED") { MemoryZone() }
            }
            for failure in outcome.failures { Issue.record(Comment(rawValue: failure)) }
            // A run that checked nothing proves nothing.
            #expect(seeds.isEmpty || outcome.writes > seeds.count)
            print(
                "sync simulation group \(group): \(outcome.schedules) schedules, \(outcome.writes) writes checked, \(outcome.failures.count) failed"
            )
        }
    }
}
