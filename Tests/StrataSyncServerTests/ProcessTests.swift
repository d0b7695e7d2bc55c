import Foundation
import StrataSyncProtocol
import SyncTestSupport
import Testing

/// The `strata-sync` program itself: configured by the environment, killed in the middle of
/// pushes without losing or doubling anything, and stopped cleanly by SIGTERM.
@Suite("strata-sync process", .enabled(if: TestPostgres.isAvailable, "PostgreSQL is absent"))
struct ProcessTests {
    @Test("SIGTERM ends the server cleanly (status 0), answering a long poll under way")
    func gracefulShutdown() async throws {
        let url = try await TestPostgres.shared.makeDatabase()
        // At debug level the server logs each long poll it receives: the event this test waits
        // for before the signal.
        let server = try await SyncServerProcess.start(databaseURL: url, extraArguments: ["--log-level", "debug"])
        let client = SyncTestClient(base: server.url, token: try await TestTokens.token(for: "alice"))
        try await client.createZone()
        let token = try await client.pullAll().token
        async let poll = client.changes(since: token, wait: 30)
        #expect(await server.waitForLog(containing: "A long poll of up to 30 s"), "\(server.log)")
        let started = ContinuousClock.now
        server.signal(SIGTERM)
        let reply = try await poll
        #expect(reply.status == 200, "\(reply.text)")
        let status = await server.waitForExit()
        #expect(status == 0, "\(server.log)")
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    @Test(
        "a server killed (SIGKILL) in the middle of pushes: after a restart and the clients' retries nothing is lost or doubled")
    func killedMidPush() async throws {
        let url = try await TestPostgres.shared.makeDatabase()
        let first = try await SyncServerProcess.start(databaseURL: url)
        let clients = 8
        let batches = 30
        let perBatch = 5
        let token = try await TestTokens.token(for: "alice")
        try await SyncTestClient(base: first.url, token: token).createZone()

        func request(_ c: Int, _ b: Int) -> PushRequest {
            push(
                "client-\(c)",
                [
                    (
                        Int64(b),
                        (0..<perBatch).map {
                            upsert("c\(c)-b\(b)-\($0)", ["CD_n": .int(Int64($0))], at: clock(Int64(b), "c\(c)"))
                        }
                    )
                ])
        }
        /// Pushes batches in order until one fails; the first batch not acknowledged.
        func pushUntilFailure(_ c: Int, from start: Int, to server: URL) async -> Int {
            let client = SyncTestClient(base: server, token: token)
            guard start <= batches else { return start }
            for b in start...batches {
                guard let reply = try? await client.push(request(c, b)), reply.status == 200 else { return b }
            }
            return batches + 1
        }

        let killer = Task {
            try await Task.sleep(for: .milliseconds(700))
            first.signal(SIGKILL)
        }
        let resumePoints = await withTaskGroup(of: (Int, Int).self) { group in
            for c in 0..<clients {
                group.addTask { (c, await pushUntilFailure(c, from: 1, to: first.url)) }
            }
            var points: [Int: Int] = [:]
            for await (c, point) in group { points[c] = point }
            return points
        }
        try await killer.value
        _ = await first.waitForExit()
        #expect(resumePoints.values.contains { $0 <= batches }, "the kill came after every push had finished")

        let second = try await SyncServerProcess.start(databaseURL: url)
        let finished = await withTaskGroup(of: Int.self) { group in
            for c in 0..<clients {
                // Retry from the first batch not acknowledged: it may have been applied already.
                group.addTask { await pushUntilFailure(c, from: resumePoints[c] ?? 1, to: second.url) }
            }
            var ends: [Int] = []
            for await end in group { ends.append(end) }
            return ends
        }
        #expect(finished.allSatisfy { $0 == batches + 1 })
        let client = SyncTestClient(base: second.url, token: token)
        let records = try await client.pullAll().records
        let total = clients * batches * perBatch
        #expect(records.count == total)
        #expect(Set(records.map(\.recordName)).count == total)
        #expect(records.map(\.serverSequence) == Array(1...Int64(total)))
        second.signal(SIGTERM)
        #expect(await second.waitForExit() == 0)
    }
}
