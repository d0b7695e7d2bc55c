import Foundation
import StrataSyncProtocol
import StrataSyncServer
import SyncTestSupport
import Testing

/// A fresh database and a server on it for one test, with a client for a user. The suites
/// that use it are enabled only where PostgreSQL is (`TestPostgres.isAvailable`).
struct SyncFixture {
    let databaseURL: String
    let server: TestSyncServer
    /// Alice's client; most tests are about one user.
    let alice: SyncTestClient

    static func start(
        configure: (inout SyncServerConfiguration) -> Void = { _ in }
    ) async throws -> SyncFixture {
        let url = try await TestPostgres.shared.makeDatabase()
        var configuration = TestSyncServer.configuration(databaseURL: url)
        configure(&configuration)
        let server = try await TestSyncServer.start(configuration: configuration)
        return SyncFixture(
            databaseURL: url, server: server,
            alice: SyncTestClient(base: server.url, token: try await TestTokens.token(for: "alice")))
    }

    func client(for user: String, server: TestSyncServer? = nil) async throws -> SyncTestClient {
        SyncTestClient(base: (server ?? self.server).url, token: try await TestTokens.token(for: user))
    }

    func stop() async {
        await server.stop()
    }
}

/// Runs `body` with a fixture, stopping its server afterwards.
func withSyncServer(
    configure: (inout SyncServerConfiguration) -> Void = { _ in },
    _ body: (SyncFixture) async throws -> Void
) async throws {
    let fixture = try await SyncFixture.start(configure: configure)
    do {
        try await body(fixture)
    } catch {
        await fixture.stop()
        throw error
    }
    await fixture.stop()
}

/// Clock readings for tests: wall time in whole "ticks", so that orders are easy to read.
func clock(_ wall: Int64, _ node: String = "a", counter: UInt32 = 0) -> HybridLogicalClock {
    HybridLogicalClock(wallMilliseconds: wall, counter: counter, node: node)
}

func upsert(
    _ name: String, type: String = "CD_Todo", _ fields: [String: FieldValue], at clock: HybridLogicalClock
) -> RecordChange {
    RecordChange(
        recordType: type, recordName: name, operation: .upsert, fields: fields,
        clocks: fields.mapValues { _ in clock })
}

func delete(_ name: String, type: String = "CD_Todo", at clock: HybridLogicalClock) -> RecordChange {
    RecordChange(recordType: type, recordName: name, operation: .delete, deleteClock: clock)
}

func push(_ client: String, _ batches: [(Int64, [RecordChange])]) -> PushRequest {
    PushRequest(clientID: client, batches: batches.map { ChangeBatch(batchSequence: $0.0, changes: $0.1) })
}

extension SyncTestClient.Reply {
    /// The decoded success, or a test failure showing the reply.
    func expectOK<Value: Decodable>(_ type: Value.Type, sourceLocation: SourceLocation = #_sourceLocation) throws -> Value {
        #expect(status == 200, "\(text)", sourceLocation: sourceLocation)
        return try decode(type)
    }
}
