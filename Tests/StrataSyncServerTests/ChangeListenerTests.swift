import Foundation
import StrataSyncProtocol
import SyncTestSupport
import Testing

/// The server's change listener (`ChangeNotifier`: one connection that LISTENs on
/// `SyncStore.notificationChannel` and wakes long polls) after PostgreSQL ends its connection.
@Suite("the change listener", .enabled(if: TestPostgres.isAvailable, "PostgreSQL is absent"))
struct ChangeListenerTests {
    /// The listening backend of the server's database, found by what it runs: the listener's
    /// connection is leased for as long as it listens, so its last statement stays its LISTEN.
    private static let listeners = """
        SELECT pid::text FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() AND query ILIKE 'LISTEN%'
        """

    @Test("PostgreSQL ends the listener's connection: the server listens again, and a long poll still wakes at a push")
    func listenerReconnectsAfterItsConnectionIsEnded() async throws {
        let url = try await TestPostgres.shared.makeDatabase()
        // At debug level the server logs each long poll it receives.
        let server = try await SyncServerProcess.start(databaseURL: url, extraArguments: ["--log-level", "debug"])
        defer { server.signal(SIGTERM) }
        let alice = SyncTestClient(base: server.url, token: try await TestTokens.token(for: "alice"))
        try await alice.createZone()
        let token = try await alice.pullAll().token

        let before = try await TestPostgres.query(Self.listeners, databaseURL: url)
        #expect(before.count == 1, "one listening connection: \(before)")
        let ended = try await TestPostgres.query(
            """
            SELECT pg_terminate_backend(pid)::text FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid() AND query ILIKE 'LISTEN%'
            """, databaseURL: url)
        #expect(ended == ["true"])

        // The server listens again, on a connection of a new backend.
        var after: [String?] = []
        let deadline = ContinuousClock.now + .seconds(60)
        repeat {
            after = try await TestPostgres.query(Self.listeners, databaseURL: url)
            if !after.isEmpty && after != before { break }
            try await Task.sleep(for: .milliseconds(50))
        } while ContinuousClock.now < deadline
        #expect(after.count == 1 && after != before, "listening before: \(before), after: \(after)\n\(server.log)")

        // A long poll of 20 s, then a push from another device: the poll answers the change
        // at once, woken by the new connection's notification, not at its end.
        async let poll = alice.changes(since: token, wait: 20)
        #expect(await server.waitForLog(containing: "A long poll of up to 20 s"), "\(server.log)")
        // Time for the poll to read the zone and wait (a push before that is answered at once
        // too, without the listener: this only makes that rare).
        try await Task.sleep(for: .milliseconds(300))
        let pushed = ContinuousClock.now
        _ = try await alice.push(push("device-b", [(1, [upsert("t1", ["CD_n": .int(1)], at: clock(1, "b"))])]))
            .expectOK(PushResponse.self)
        let answer = try await poll.expectOK(ChangesResponse.self)
        let waited = ContinuousClock.now - pushed
        #expect(answer.records.map(\.recordName) == ["t1"])
        #expect(waited < .seconds(10), "the long poll answered \(waited) after the push, at its end rather than at the push")
    }
}
