import Foundation

/// Runs seeded schedules (`Simulation`) and gathers what they came to: the in-memory run and
/// the run against `strata-sync` processes both go through it.
enum SimulationRun {
    /// What a run's schedules came to.
    struct Outcome: Sendable {
        var schedules = 0
        var writes = 0
        var failures: [String] = []
    }

    /// The seeds of a run: the one `seedVariable` names (a replay), else 1…N with N from
    /// `countVariable` (else `defaultCount`).
    static func seeds(defaultCount: Int, seedVariable: String, countVariable: String) -> [UInt64] {
        let environment = ProcessInfo.processInfo.environment
        if let seed = environment[seedVariable].flatMap(UInt64.init) { return [seed] }
        let count = environment[countVariable].flatMap(Int.init) ?? defaultCount
        return (1...UInt64(max(count, 1))).map { $0 }
    }

    /// The seeds of group `group` of `groups` (every `groups`-th one).
    static func seeds(_ seeds: [UInt64], group: Int, of groups: Int) -> [UInt64] {
        seeds.enumerated().filter { $0.offset % groups == group }.map(\.element)
    }

    /// Runs the schedules of `seeds`, each on a server `makeServer` gives (and `finish` ends),
    /// until two have failed. A schedule fails when it ends away from the oracle or throws;
    /// its failure says its seed, how to replay it (`replayVariable`), the differences and
    /// its log.
    static func run<Server: SimulatedServer>(
        _ seeds: [UInt64], replayVariable: String, makeServer: () throws -> Server, finish: (Server) -> Void = { _ in }
    ) throws -> Outcome {
        var outcome = Outcome()
        for seed in seeds {
            let server = try makeServer()
            let simulation = Simulation(seed: seed, server: server)
            let problems: [String]
            do {
                problems = try simulation.run()
            } catch {
                // In full: PostgresNIO's errors describe themselves as a generic line unless
                // reflected, which hid what failed (a test database, no secret of an app's).
                problems = ["the schedule stopped on an error: \(String(reflecting: error))"]
            }
            finish(server)
            outcome.schedules += 1
            outcome.writes += simulation.writeCount
            guard !problems.isEmpty else { continue }
            outcome.failures.append(
                """
                Seed \(seed) (replay: \(replayVariable)=\(seed)) ends away from the oracle:
                \(problems.prefix(8).joined(separator: "\n"))
                Schedule:
                \(simulation.log.joined(separator: "\n"))
                """)
            if outcome.failures.count == 2 { break }
        }
        return outcome
    }

    /// Runs `body` on a thread of its own: minutes of synchronous work on Swift's cooperative
    /// threads would starve the suites that await events meanwhile.
    static func onThreadOfItsOwn<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Result { try body() }) }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    /// Waits on this (non-cooperative) thread for async work: a schedule is synchronous, the
    /// sync engine and the server's process are not.
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let result = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        Task {
            do {
                result.set(.success(try await body()))
            } catch {
                result.set(.failure(error))
            }
            done.signal()
        }
        done.wait()
        return try result.get()
    }
}

/// A result handed from a task to the thread that waits for it.
private final class ResultBox<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<T, any Error>?

    func set(_ result: Result<T, any Error>) { lock.withLock { self.result = result } }

    func get() throws -> T {
        guard let result = lock.withLock({ result }) else { throw CancellationError() }
        return try result.get()
    }
}
