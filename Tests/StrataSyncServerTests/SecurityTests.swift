import Foundation
import StrataSyncProtocol
import SyncTestSupport
import Testing

/// Issue 24 item 2: tokens, users kept apart, limits, and bad input answered with JSON
/// errors, never a crash.
@Suite("Sync server security", .enabled(if: TestPostgres.isAvailable, "PostgreSQL is absent"))
struct SecurityTests {
    @Test("no token, a bad signature, an expired token and another audience answer 401 with a JSON error")
    func unauthorized() async throws {
        try await withSyncServer { fixture in
            var client = fixture.alice
            client.token = nil
            let none = try await client.send("GET", SyncPaths.zones)
            #expect(none.status == 401)
            #expect(none.error?.code == .unauthorized)

            client.token = try await TestTokens.token(for: "alice", secret: "not-the-server-secret-but-as-long-as-one-0123456789")
            let forged = try await client.send("GET", SyncPaths.zones)
            #expect(forged.status == 401)
            #expect(forged.error?.code == .unauthorized)

            client.token = try await TestTokens.token(for: "alice", expires: Date().addingTimeInterval(-60))
            let expired = try await client.send("GET", SyncPaths.zones)
            #expect(expired.status == 401)
            #expect(expired.error?.message.contains("expired") == true)

            client.token = try await TestTokens.token(for: "alice", audience: "another-service")
            #expect(try await client.send("GET", SyncPaths.zones).status == 401)

            client.token = "not.a.jwt"
            #expect(try await client.send("GET", SyncPaths.zones).status == 401)

            // The same request with a good token passes; /health needs none.
            #expect(try await fixture.alice.send("GET", SyncPaths.zones).status == 200)
            client.token = nil
            #expect(try await client.send("GET", SyncPaths.health).status == 200)
        }
    }

    @Test("another user's zone, asset and client ID read as not found (404), never 403")
    func usersKeptApart() async throws {
        try await withSyncServer { fixture in
            let bob = try await fixture.client(for: "bob")
            try await fixture.alice.createZone("private")
            let bytes = Data("alice's secret".utf8)
            let sha = sha256Hex(bytes)
            let put = try await fixture.alice.send(
                "PUT", SyncPaths.asset("private", sha256: sha), body: bytes, contentType: "application/octet-stream")
            #expect(put.status == 204)
            let pushed = try await fixture.alice.push(
                push("alice-phone", [(1, [upsert("t1", ["CD_title": .string("mine")], at: clock(1))])]), zone: "private")
            #expect(pushed.status == 200)

            for reply in [
                try await bob.send("GET", SyncPaths.zone("private")),
                try await bob.changes(zone: "private"),
                try await bob.push(push("bob-phone", [(1, [])]), zone: "private"),
                try await bob.query(QueryRequest(recordType: "CD_Todo", predicate: nil), zone: "private"),
                try await bob.send("GET", SyncPaths.asset("private", sha256: sha)),
                try await bob.send("DELETE", SyncPaths.zone("private")),
            ] {
                #expect(reply.status == 404, "\(reply.text)")
                #expect(reply.error?.code == .notFound)
            }
            // Bob's own zone of the same name is his, and empty.
            try await bob.createZone("private")
            #expect(try await bob.changes(zone: "private").expectOK(ChangesResponse.self).records.isEmpty)
            // Alice's asset is not in Bob's zone of the same name.
            #expect(try await bob.send("GET", SyncPaths.asset("private", sha256: sha)).status == 404)
            // Alice's client ID cannot push as Bob's.
            let stolen = try await bob.push(push("alice-phone", [(2, [])]), zone: "private")
            #expect(stolen.status == 404)
            #expect(try await bob.send("GET", SyncPaths.zones).expectOK(ZoneList.self).zones.map(\.name) == ["private"])
            // Alice's zone still holds only her record.
            let records = try await fixture.alice.pullAll(zone: "private").records
            #expect(records.map(\.recordName) == ["t1"])
        }
    }

    @Test("a body past the limit answers 413; more records than the limit in one push answers 400 limitExceeded")
    func limits() async throws {
        try await withSyncServer(configure: {
            $0.maxBodyBytes = 64 * 1024
            $0.maxRecords = 10
        }) { fixture in
            try await fixture.alice.createZone()
            let big = Data(repeating: UInt8(ascii: "a"), count: 100 * 1024)
            let tooLarge = try await fixture.alice.send(
                "PUT", SyncPaths.asset(SyncPaths.defaultZone, sha256: sha256Hex(big)), body: big,
                contentType: "application/octet-stream")
            #expect(tooLarge.status == 413)
            #expect(tooLarge.error?.code == .payloadTooLarge)

            let changes = (0..<11).map { upsert("t\($0)", ["CD_n": .int(Int64($0))], at: clock(1)) }
            let tooMany = try await fixture.alice.push(push("c1", [(1, changes)]))
            #expect(tooMany.status == 400)
            #expect(tooMany.error?.code == .limitExceeded)
            let fine = try await fixture.alice.push(push("c1", [(1, Array(changes.prefix(10)))]))
            #expect(fine.status == 200)
        }
    }

    @Test("past the rate a user gets 429 with Retry-After; other users are not slowed")
    func rateLimit() async throws {
        // One request a second: twelve in a row exceed it however slowly a busy machine sends them.
        try await withSyncServer(configure: { $0.rateLimit = 1 }) { fixture in
            var statuses: [Int] = []
            var retryAfter: String?
            for _ in 0..<12 {
                let reply = try await fixture.alice.send("GET", SyncPaths.zones)
                statuses.append(reply.status)
                if reply.status == 429 {
                    retryAfter = reply.header("Retry-After")
                    #expect(reply.error?.code == .rateLimited)
                }
            }
            #expect(statuses.first == 200)
            #expect(statuses.contains(429))
            #expect(retryAfter.flatMap(Int.init).map { $0 >= 1 } == true)
            let bob = try await fixture.client(for: "bob")
            #expect(try await bob.send("GET", SyncPaths.zones).status == 200)
        }
    }

    @Test("malformed JSON, bad records, bad names and bad tokens answer 400 with a JSON error")
    func badInput() async throws {
        try await withSyncServer { fixture in
            try await fixture.alice.createZone()
            let path = SyncPaths.push(SyncPaths.defaultZone)
            var replies: [(String, SyncTestClient.Reply)] = []
            replies.append(("not JSON", try await fixture.alice.send("POST", path, body: Data("{nope".utf8))))
            replies.append(("empty", try await fixture.alice.send("POST", path, body: Data())))
            replies.append(("wrong shape", try await fixture.alice.send("POST", path, body: Data(#"{"clientID":5}"#.utf8))))
            replies.append(
                (
                    "bad clock",
                    try await fixture.alice.send(
                        "POST", path,
                        body: Data(
                            #"{"clientID":"c","batches":[{"batchSequence":1,"changes":[{"recordType":"CD_T","recordName":"a","operation":"upsert","fields":{"CD_x":{"type":"int","value":1}},"clocks":{"CD_x":"yesterday"}}]}]}"#
                                .utf8))
                ))
            let badField = upsert("t1", ["CD_title; DROP TABLE records": .string("x")], at: clock(1))
            replies.append(("bad field name", try await fixture.alice.push(push("c", [(1, [badField])]))))
            let longField = upsert("t1", [String(repeating: "f", count: 300): .string("x")], at: clock(1))
            replies.append(("long field name", try await fixture.alice.push(push("c", [(1, [longField])]))))
            replies.append(
                (
                    "NUL in a value",
                    try await fixture.alice.push(push("c", [(1, [upsert("t1", ["CD_t": .string("a\u{0}b")], at: clock(1))])]))
                ))
            replies.append(
                ("space in a name", try await fixture.alice.push(push("c", [(1, [upsert("t 1", [:], at: clock(1))])]))))
            var noClock = upsert("t1", ["CD_t": .string("a")], at: clock(1))
            noClock.clocks = [:]
            replies.append(("field without a clock", try await fixture.alice.push(push("c", [(1, [noClock])]))))
            var deleteWithoutClock = delete("t1", at: clock(1))
            deleteWithoutClock.deleteClock = nil
            replies.append(("delete without a clock", try await fixture.alice.push(push("c", [(1, [deleteWithoutClock])]))))
            replies.append(("batch 0", try await fixture.alice.push(push("c", [(0, [])]))))
            replies.append(("batches past Int64.max", try await fixture.alice.push(push("c", [(Int64.max, []), (1, [])]))))
            replies.append(("garbage token", try await fixture.alice.changes(since: "garbage!!")))
            replies.append(("token of JSON junk", try await fixture.alice.changes(since: "eyJhIjoxfQ")))
            replies.append(("negative limit", try await fixture.alice.changes(limit: -1)))
            replies.append(("bad zone name", try await fixture.alice.send("PUT", "/v1/zones/a%20b")))
            replies.append(
                (
                    "bad asset hash",
                    try await fixture.alice.send(
                        "PUT", SyncPaths.asset(SyncPaths.defaultZone, sha256: "abc"), body: Data("x".utf8))
                ))
            for (name, reply) in replies {
                #expect(reply.status == 400, "\(name): \(reply.status) \(reply.text)")
                #expect(reply.error?.code == .badRequest, "\(name): \(reply.text)")
                #expect(reply.error?.message.isEmpty == false, "\(name)")
            }
            // Nothing of it was stored, and the server still answers.
            #expect(try await fixture.alice.pullAll().records.isEmpty)
            #expect(try await fixture.alice.send("GET", SyncPaths.zones).status == 200)
        }
    }
}
