import Foundation
import JWTKit
import StrataSyncProtocol
import StrataSyncServer
import SyncTestSupport
import Testing

/// How an instance is configured and started: public-key tokens, keys refused at start, and
/// two instances migrating one new database at the same time.
@Suite("Sync server configuration")
struct ConfigurationTests {
    @Test(
        "with an ES256 public key, tokens signed by its private key pass and HS256 tokens do not",
        .enabled(if: TestPostgres.isAvailable, "PostgreSQL is absent"))
    func publicKeyTokens() async throws {
        let privateKey = ES256PrivateKey()
        try await withSyncServer(configure: {
            $0.jwt = JWTConfiguration(publicKeyPEM: privateKey.publicKey.pemRepresentation)
        }) { fixture in
            let keys = JWTKeyCollection()
            await keys.add(ecdsa: privateKey)
            let token = try await keys.sign(
                SyncTokenClaims(subject: "carol", expires: Date().addingTimeInterval(600), audience: "strata-sync"))
            let carol = SyncTestClient(base: fixture.server.url, token: token)
            #expect(try await carol.createZone().name == SyncPaths.defaultZone)
            #expect(try await fixture.alice.send("GET", SyncPaths.zones).status == 401)
        }
    }

    @Test("no key, a short secret or an unreadable public key stop the server before it starts")
    func badKeys() async throws {
        let url = "postgresql://postgres@127.0.0.1:1/unused"
        for jwt in [
            JWTConfiguration(), JWTConfiguration(hmacSecret: "short"), JWTConfiguration(publicKeyPEM: "not a key"),
        ] {
            var configuration = SyncServerConfiguration(databaseURL: url)
            configuration.jwt = jwt
            let server = try SyncServer(configuration: configuration)
            await #expect(throws: SyncServerError.self) { _ = try await server.service() }
        }
        #expect(throws: SyncServerError.self) { try SyncServer(configuration: .init(databaseURL: "mysql://x/y")) }
    }

    @Test(
        "two instances starting at once on a new database both migrate it (advisory lock) and serve",
        .enabled(if: TestPostgres.isAvailable, "PostgreSQL is absent"))
    func concurrentMigrations() async throws {
        let url = try await TestPostgres.shared.makeDatabase()
        async let first = TestSyncServer.start(databaseURL: url)
        async let second = TestSyncServer.start(databaseURL: url)
        let servers = try await [first, second]
        let token = try await TestTokens.token(for: "alice")
        let a = SyncTestClient(base: servers[0].url, token: token)
        let b = SyncTestClient(base: servers[1].url, token: token)
        try await a.createZone()
        #expect(try await b.send("GET", SyncPaths.zones).expectOK(ZoneList.self).zones.count == 1)
        for server in servers { await server.stop() }
    }
}
