import Foundation
import SyncTestSupport
import Testing

@testable import SyncSimulationSupport

/// Issue 33: the sync simulation's seeded schedules (the same writes and the same oracle as
/// the in-memory run, `SyncTests.SimulationTests`) against the built `strata-sync` on
/// PostgreSQL, stopped with SIGTERM and killed with SIGKILL while a device's push is on its
/// way, and started again on the same database (`ProcessServer`). After quiescence every
/// device must hold what per-field last-writer-wins says: every acknowledged write survives
/// unless a later one replaced it, and nothing deleted comes back.
///
/// CI runs 24 schedules; `scripts/sync-simulation --server` runs more
/// (`STRATA_SYNC_SERVER_SCHEDULES`), and `STRATA_SYNC_SERVER_SEED` replays one.
@Suite("sync simulation against strata-sync processes", .enabled(if: TestPostgres.isAvailable, "PostgreSQL is absent"))
struct ServerSchedules {
    /// The schedules of one run, split in groups that run in parallel.
    static let groups = 2

    static let seeds = SimulationRun.seeds(
        defaultCount: 24, seedVariable: "STRATA_SYNC_SERVER_SEED", countVariable: "STRATA_SYNC_SERVER_SCHEDULES")

    @Test(arguments: 0..<groups)
    func randomSchedulesOnRestartedAndKilledServersLoseNoWrite(group: Int) async throws {
        let seeds = SimulationRun.seeds(Self.seeds, group: group, of: Self.groups)
        let (outcome, figures) = try await SimulationRun.onThreadOfItsOwn {
            var figures = ProcessServer.Figures()
            let outcome = try SimulationRun.run(
                seeds, replayVariable: "STRATA_SYNC_SERVER_SEED", makeServer: { try ProcessServer.start() },
                finish: { server in
                    figures.add(server.figures)
                    server.stop()
                })
            return (outcome, figures)
        }
        for failure in outcome.failures { Issue.record(Comment(rawValue: failure)) }
        // A run that checked nothing, or never killed its server, proves nothing.
        #expect(seeds.isEmpty || outcome.writes > seeds.count)
        #expect(seeds.count < 8 || figures.kills > 0, "no schedule killed its server")
        print(
            "sync simulation on strata-sync group \(group): \(outcome.schedules) schedules, \(outcome.writes) writes checked, \(outcome.failures.count) failed, \(figures.stops) stops, \(figures.kills) kills, \(figures.answersLost) answers lost, \(figures.pushesLost) pushes lost"
        )
    }
}
