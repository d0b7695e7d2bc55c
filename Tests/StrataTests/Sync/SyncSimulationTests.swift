import Foundation
import Testing

@testable import Strata

extension SyncTests {
    /// Issue 33: seeded random schedules of 2–5 devices (see `Simulation`), each checked
    /// against the oracle of what must survive. CI runs 200 schedules; `scripts/sync-simulation`
    /// runs thousands (`STRATA_SYNC_SCHEDULES`), and `STRATA_SYNC_SEED` replays one.
    @Suite struct SimulationTests {
        /// The schedules of one run, split in groups that run in parallel.
        static let groups = 4

        static var seeds: [UInt64] {
            let environment = ProcessInfo.processInfo.environment
            if let seed = environment["STRATA_SYNC_SEED"].flatMap(UInt64.init) { return [seed] }
            let count = environment["STRATA_SYNC_SCHEDULES"].flatMap(Int.init) ?? 200
            return (1...UInt64(max(count, 1))).map { $0 }
        }

        /// What one group's schedules came to.
        struct Outcome: Sendable {
            var schedules = 0
            var writes = 0
            var failures: [String] = []
        }

        @Test(arguments: 0..<groups)
        func randomSchedulesLoseNoWrite(group: Int) async throws {
            let seeds = Self.seeds.enumerated().filter { $0.offset % Self.groups == group }.map(\.element)
            // The schedules run on a thread of their own: minutes of synchronous work on Swift's
            // cooperative threads would starve the suites that await events meanwhile.
            let outcome = try await Self.onThreadOfItsOwn { try Self.run(seeds) }
            for failure in outcome.failures { Issue.record(Comment(rawValue: failure)) }
            // A run that checked nothing proves nothing.
            #expect(seeds.isEmpty || outcome.writes > seeds.count)
            print(
                "sync simulation group \(group): \(outcome.schedules) schedules, \(outcome.writes) writes checked, \(outcome.failures.count) failed"
            )
        }

        static func run(_ seeds: [UInt64]) throws -> Outcome {
            var outcome = Outcome()
            for seed in seeds {
                let simulation = Simulation(seed: seed)
                let problems = try simulation.run()
                outcome.schedules += 1
                outcome.writes += simulation.writeCount
                guard !problems.isEmpty else { continue }
                outcome.failures.append(
                    """
                    Seed \(seed) (replay: STRATA_SYNC_SEED=\(seed)) ends away from the oracle:
                    \(problems.prefix(8).joined(separator: "\n"))
                    Schedule:
                    \(simulation.log.joined(separator: "\n"))
                    """)
                if outcome.failures.count == 2 { break }
            }
            return outcome
        }

        static func onThreadOfItsOwn<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
            try await withCheckedThrowingContinuation { continuation in
                let thread = Thread { continuation.resume(with: Result { try body() }) }
                thread.stackSize = 8 << 20
                thread.start()
            }
        }
    }
}
