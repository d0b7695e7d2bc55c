import Foundation
import StrataSyncProtocol
import SyncTestSupport
import Testing

/// Issue 33 item 5: where the server and Documentation/sync-openapi.yaml disagreed, the server
/// now answers as the document says (scripts/test-sync-contract checks the rest with
/// generated requests).
@Suite("Sync server as its OpenAPI document says")
struct OpenAPIAgreementTests {
    @Test("a pull's limit below 1, wait past 60 seconds and empty values answer 400; the bounds themselves pass")
    func pullBounds() async throws {
        try await withSyncServer { fixture in
            try await fixture.alice.createZone()
            _ = try await fixture.alice.push(push("c", [(1, [upsert("t1", ["CD_n": .int(1)], at: clock(1))])]))
                .expectOK(PushResponse.self)
            for (name, reply) in [
                ("wait 61", try await fixture.alice.changes(wait: 61)),
                (
                    "wait past Int.max",
                    try await fixture.alice.send("GET", SyncPaths.changes(SyncPaths.defaultZone) + "?wait=9223372036854775808")
                ),
                ("limit 0", try await fixture.alice.changes(limit: 0)),
                ("empty client", try await fixture.alice.changes(client: "")),
                ("empty wait", try await fixture.alice.send("GET", SyncPaths.changes(SyncPaths.defaultZone) + "?wait=")),
                ("empty limit", try await fixture.alice.send("GET", SyncPaths.changes(SyncPaths.defaultZone) + "?limit=")),
            ] {
                #expect(reply.status == 400, "\(name): \(reply.status) \(reply.text)")
                #expect(reply.error?.code == .badRequest, "\(name): \(reply.text)")
            }
            #expect(try await fixture.alice.changes(wait: 61).error?.message == "wait must be a whole number from 0 to 60.")
            #expect(try await fixture.alice.changes(limit: 0).error?.message == "limit must be a whole number ≥ 1.")
            // A zone with a record answers a long poll at once, so the largest wait costs nothing.
            let page = try await fixture.alice.changes(limit: 1, wait: 60).expectOK(ChangesResponse.self)
            #expect(page.records.map(\.recordName) == ["t1"])
        }
    }

    @Test("a change whose deleteClock is null, or a batch whose modelHash is null, answers 400")
    func nullsTheDocumentForbids() async throws {
        try await withSyncServer { fixture in
            try await fixture.alice.createZone()
            let path = SyncPaths.push(SyncPaths.defaultZone)
            let upsert =
                #""recordType":"CD_T","recordName":"a","operation":"upsert","fields":{"CD_x":{"type":"int","value":1}}"#
                + #","clocks":{"CD_x":"1-0-c"}"#
            let delete = #""recordType":"CD_T","recordName":"a","operation":"delete","fields":{},"clocks":{}"#
            func batch(_ text: String) -> String { #"{"clientID":"c","batches":[{"batchSequence":1,\#(text)}]}"# }
            let bodies = [
                "upsert with deleteClock null": batch(#""changes":[{\#(upsert),"deleteClock":null}]"#),
                "delete with deleteClock null": batch(#""changes":[{\#(delete),"deleteClock":null}]"#),
                "modelHash null": batch(#""modelHash":null,"changes":[{\#(upsert)}]"#),
            ]
            for (name, body) in bodies {
                let reply = try await fixture.alice.send("POST", path, body: Data(body.utf8))
                #expect(reply.status == 400, "\(name): \(reply.status) \(reply.text)")
                #expect(reply.error?.code == .badRequest, "\(name): \(reply.text)")
            }
            // Nothing of it was stored; the same changes without the nulls are taken.
            #expect(try await fixture.alice.pullAll().records.isEmpty)
            let fine = batch(#""modelHash":"h","changes":[{\#(upsert)}]"#)
            let reply = try await fixture.alice.send("POST", path, body: Data(fine.utf8))
            #expect(reply.status == 200, "\(reply.text)")
        }
    }

    @Test("GET of an asset in a badly named zone answers 400, which the document lists")
    func assetOfABadZone() async throws {
        try await withSyncServer { fixture in
            let reply = try await fixture.alice.send("GET", "/v1/zones/a%20b/assets/" + String(repeating: "0", count: 64))
            #expect(reply.status == 400, "\(reply.text)")
            #expect(reply.error?.code == .badRequest)
            let missing = try await fixture.alice.send("GET", SyncPaths.asset("fine", sha256: String(repeating: "0", count: 64)))
            #expect(missing.status == 404, "\(missing.text)")
        }
    }
}
