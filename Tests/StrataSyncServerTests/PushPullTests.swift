import Foundation
import StrataSyncProtocol
import SyncTestSupport
import Testing

/// Pushes and pulls against a real PostgreSQL: batches applied once and in order, the merge
/// rules as stored, pages and tokens, the horizon and epochs, the schema, assets.
@Suite("Sync push and pull", .enabled(if: TestPostgres.isAvailable, "PostgreSQL is absent"))
struct PushPullTests {
    @Test("zones are made once per user, listed, and read back")
    func zones() async throws {
        try await withSyncServer { fixture in
            let made = try await fixture.alice.createZone("notes")
            #expect(made.name == "notes" && made.serverSequence == 0 && made.epoch == 1)
            #expect(try await fixture.alice.createZone("notes") == made)
            #expect(try await fixture.alice.send("GET", SyncPaths.zones).expectOK(ZoneList.self).zones == [made])
            #expect(try await fixture.alice.send("GET", SyncPaths.zone("missing")).status == 404)
            #expect(try await fixture.alice.push(push("c", [(1, [])]), zone: "missing").status == 404)
        }
    }

    @Test("a retried push changes nothing: the batches come back as already applied and the sequence stays")
    func idempotentPush() async throws {
        try await withSyncServer { fixture in
            try await fixture.alice.createZone()
            let request = push(
                "phone",
                [
                    (
                        1,
                        [
                            upsert("t1", ["CD_title": .string("milk")], at: clock(1)),
                            upsert("t2", ["CD_title": .string("eggs")], at: clock(1)),
                        ]
                    ),
                    (2, [delete("t2", at: clock(2))]),
                ])
            let first = try await fixture.alice.push(request).expectOK(PushResponse.self)
            #expect(first.applied == [1, 2] && first.alreadyApplied.isEmpty)
            #expect(first.lastBatchSequence == 2)
            #expect(first.serverSequence == 3)
            let before = try await fixture.alice.pullAll()
            let again = try await fixture.alice.push(request).expectOK(PushResponse.self)
            #expect(again.applied.isEmpty && again.alreadyApplied == [1, 2])
            #expect(again.serverSequence == 3 && again.lastBatchSequence == 2)
            let after = try await fixture.alice.pullAll()
            #expect(after.records == before.records)
            #expect(after.records.map(\.serverSequence) == [1, 3])
            #expect(after.records.map(\.deleted) == [false, true])
            #expect(after.records.allSatisfy { $0.changedBy == "phone" })
            // An empty push tells where the client stands.
            let status = try await fixture.alice.push(push("phone", [])).expectOK(PushResponse.self)
            #expect(status.lastBatchSequence == 2 && status.serverSequence == 3)
        }
    }

    @Test("a batch past a gap answers 409 outOfOrder with the last applied batch; resending from there works")
    func outOfOrder() async throws {
        try await withSyncServer { fixture in
            try await fixture.alice.createZone()
            _ = try await fixture.alice.push(push("phone", [(1, [upsert("a", [:], at: clock(1))])])).expectOK(PushResponse.self)
            let gap = try await fixture.alice.push(push("phone", [(3, [upsert("c", [:], at: clock(3))])]))
            #expect(gap.status == 409)
            #expect(gap.error?.code == .outOfOrder)
            #expect(gap.error?.lastBatchSequence == 1)
            // Batches 2 and 3 together: 2 applies, then 3; a retry of 1–3 applies nothing.
            let resent = try await fixture.alice.push(
                push("phone", [(2, [upsert("b", [:], at: clock(2))]), (3, [upsert("c", [:], at: clock(3))])])
            ).expectOK(PushResponse.self)
            #expect(resent.applied == [2, 3])
            let retried = try await fixture.alice.push(
                push(
                    "phone",
                    [
                        (1, [upsert("a", [:], at: clock(1))]), (2, [upsert("b", [:], at: clock(2))]),
                        (3, [upsert("c", [:], at: clock(3))]),
                    ])
            ).expectOK(PushResponse.self)
            #expect(retried.alreadyApplied == [1, 2, 3] && retried.serverSequence == 3)
            #expect(try await fixture.alice.pullAll().records.map(\.recordName) == ["a", "b", "c"])
        }
    }

    @Test("per field the greater clock wins, whatever order pushes arrive in; ties go to the greater client ID")
    func lastWriterWins() async throws {
        try await withSyncServer { fixture in
            try await fixture.alice.createZone()
            _ = try await fixture.alice.push(
                push("b", [(1, [upsert("t", ["CD_title": .string("new"), "CD_n": .int(1)], at: clock(20, "b"))])])
            ).expectOK(PushResponse.self)
            // An older edit of the title and a newer one of n, from another client.
            let older = RecordChange(
                recordType: "CD_Todo", recordName: "t", operation: .upsert,
                fields: ["CD_title": .string("old"), "CD_n": .int(2)],
                clocks: ["CD_title": clock(10, "a"), "CD_n": clock(30, "a")])
            _ = try await fixture.alice.push(push("a", [(1, [older])])).expectOK(PushResponse.self)
            var record = try #require(try await fixture.alice.pullAll().records.first)
            #expect(record.fields == ["CD_title": .string("new"), "CD_n": .int(2)])
            #expect(record.clocks == ["CD_title": clock(20, "b"), "CD_n": clock(30, "a")])
            // Same wall time and counter: client "c" > "b" wins, client "a" < "b" loses.
            _ = try await fixture.alice.push(push("a", [(2, [upsert("t", ["CD_title": .string("by a")], at: clock(20, "a"))])]))
            record = try #require(try await fixture.alice.pullAll().records.first)
            #expect(record.fields["CD_title"] == .string("new"))
            _ = try await fixture.alice.push(push("c", [(1, [upsert("t", ["CD_title": .string("by c")], at: clock(20, "c"))])]))
            record = try #require(try await fixture.alice.pullAll().records.first)
            #expect(record.fields["CD_title"] == .string("by c"))
            #expect(record.changedBy == "c")
            // A push that loses every field changes nothing and takes no sequence number.
            let sequence = record.serverSequence
            let lost = try await fixture.alice.push(
                push("a", [(3, [upsert("t", ["CD_title": .string("x")], at: clock(1, "a"))])])
            )
            .expectOK(PushResponse.self)
            #expect(lost.applied == [3] && lost.serverSequence == sequence)
        }
    }

    @Test("a pull by a client leaves out the records it alone wrote, and the token moves past them")
    func ownRecordsLeftOut() async throws {
        try await withSyncServer { fixture in
            try await fixture.alice.createZone()
            _ = try await fixture.alice.push(
                push(
                    "a",
                    [
                        (
                            1,
                            [
                                upsert("mine", ["CD_title": .string("a's")], at: clock(1)),
                                upsert("shared", ["CD_title": .string("a's")], at: clock(1)),
                                upsert("deleted-by-b", ["CD_title": .string("a's")], at: clock(1)),
                                upsert("mine-deleted", ["CD_title": .string("a's")], at: clock(1)),
                            ]
                        )
                    ])
            ).expectOK(PushResponse.self)
            _ = try await fixture.alice.push(
                push(
                    "b",
                    [
                        (
                            1,
                            [
                                upsert("shared", ["CD_n": .int(1)], at: clock(2, "b")),
                                delete("deleted-by-b", at: clock(2, "b")),
                            ]
                        )
                    ])
            ).expectOK(PushResponse.self)
            // a brings two back and deletes one of its own: the delete of b stays on the record.
            let after = try await fixture.alice.push(
                push(
                    "a",
                    [
                        (
                            2,
                            [
                                upsert("deleted-by-b", ["CD_title": .string("again")], at: clock(3)),
                                delete("mine-deleted", at: clock(3)),
                            ]
                        )
                    ])
            ).expectOK(PushResponse.self)
            let everything = try await fixture.alice.pullAll()
            #expect(Set(everything.records.map(\.recordName)) == ["mine", "shared", "deleted-by-b", "mine-deleted"])
            // "shared" has b's field, "deleted-by-b" b's delete: a needs both; the other two are a's alone.
            let forA = try await fixture.alice.pullAll(client: "a")
            #expect(forA.records.map(\.recordName) == ["shared", "deleted-by-b"])
            #expect(forA.records[1].fields == ["CD_title": .string("again")])
            let forB = try await fixture.alice.pullAll(client: "b")
            #expect(Set(forB.records.map(\.recordName)) == ["mine", "mine-deleted", "shared", "deleted-by-b"])
            // The token is the zone's: a pull after it, with or without the client, has nothing.
            #expect(forA.token == everything.token)
            #expect(try await fixture.alice.pullAll(since: forA.token).records.isEmpty)
            // A page of nothing but a's own records moves the token at once, even when asked to wait.
            _ = try await fixture.alice.push(push("a", [(3, [upsert("mine", ["CD_n": .int(5)], at: clock(4))])]))
            let started = ContinuousClock.now
            let page = try await fixture.alice.changes(since: forA.token, wait: 20, client: "a").expectOK(
                ChangesResponse.self)
            #expect(page.records.isEmpty && page.nextToken != forA.token && !page.hasMore)
            #expect(ContinuousClock.now - started < .seconds(15))
            #expect(try await fixture.alice.pullAll(since: page.nextToken).records.isEmpty)
            #expect(page.nextToken != everything.token && after.serverSequence == 8)
            // A client ID that is not one (too long) answers 400.
            #expect(try await fixture.alice.changes(client: String(repeating: "x", count: 300)).status == 400)
        }
    }

    @Test("a delete wins over older updates; the record comes back only with a newer clock")
    func deleteWins() async throws {
        try await withSyncServer { fixture in
            try await fixture.alice.createZone()
            _ = try await fixture.alice.push(push("a", [(1, [upsert("t", ["CD_title": .string("x")], at: clock(10))])]))
            _ = try await fixture.alice.push(push("b", [(1, [delete("t", at: clock(20, "b"))])]))
            _ = try await fixture.alice.push(push("a", [(2, [upsert("t", ["CD_title": .string("raced")], at: clock(15))])]))
            var record = try #require(try await fixture.alice.pullAll().records.first)
            #expect(record.deleted && record.fields.isEmpty && record.deleteClock == clock(20, "b"))
            _ = try await fixture.alice.push(push("a", [(3, [upsert("t", ["CD_title": .string("again")], at: clock(25))])]))
            record = try #require(try await fixture.alice.pullAll().records.first)
            #expect(!record.deleted && record.fields == ["CD_title": .string("again")])
        }
    }

    @Test("pulls page by limit with hasMore, continue from the token, and see only later changes")
    func paging() async throws {
        try await withSyncServer { fixture in
            try await fixture.alice.createZone()
            let changes = (0..<25).map { upsert(String(format: "r%02d", $0), ["CD_n": .int(Int64($0))], at: clock(1)) }
            _ = try await fixture.alice.push(push("a", [(1, changes)])).expectOK(PushResponse.self)
            let first = try await fixture.alice.changes(limit: 10).expectOK(ChangesResponse.self)
            #expect(first.records.count == 10 && first.hasMore)
            let all = try await fixture.alice.pullAll(limit: 10)
            #expect(all.records.map(\.serverSequence) == Array(1...25))
            let nothing = try await fixture.alice.changes(since: all.token).expectOK(ChangesResponse.self)
            #expect(nothing.records.isEmpty && !nothing.hasMore && nothing.nextToken == all.token)
            _ = try await fixture.alice.push(push("a", [(2, [upsert("r03", ["CD_n": .int(99)], at: clock(2))])]))
            let later = try await fixture.alice.changes(since: all.token).expectOK(ChangesResponse.self)
            #expect(later.records.map(\.recordName) == ["r03"] && later.records.first?.serverSequence == 26)
            // A token of another zone is refused.
            try await fixture.alice.createZone("other")
            #expect(try await fixture.alice.changes(zone: "other", since: all.token).status == 400)
        }
    }

    @Test("a token below the tombstone horizon answers 410; a fresh pull and newer tokens work")
    func tombstoneHorizon() async throws {
        try await withSyncServer { fixture in
            try await fixture.alice.createZone()
            _ = try await fixture.alice.push(
                push("a", [(1, [upsert("t1", [:], at: clock(1)), upsert("t2", [:], at: clock(1))])]))
            let old = try await fixture.alice.pullAll().token
            _ = try await fixture.alice.push(push("a", [(2, [delete("t1", at: clock(2))])]))
            let current = try await fixture.alice.pullAll().token
            #expect(try await fixture.server.server.purgeTombstones(olderThan: .zero) == 1)
            let zone = try await fixture.alice.send("GET", SyncPaths.zone(SyncPaths.defaultZone)).expectOK(ZoneInfo.self)
            #expect(zone.tombstoneHorizon == 3)
            let stale = try await fixture.alice.changes(since: old)
            #expect(stale.status == 410)
            #expect(stale.error?.code == .resyncRequired)
            #expect(try await fixture.alice.changes(since: current).status == 200)
            let fresh = try await fixture.alice.pullAll(limit: 1)
            #expect(fresh.records.map(\.recordName) == ["t2"])
        }
    }

    @Test("deleting a zone moves its epoch: old tokens answer 410, the zone starts empty")
    func epoch() async throws {
        try await withSyncServer { fixture in
            try await fixture.alice.createZone()
            _ = try await fixture.alice.push(push("a", [(1, [upsert("t1", ["CD_n": .int(1)], at: clock(1))])]))
            let token = try await fixture.alice.pullAll().token
            #expect(try await fixture.alice.send("DELETE", SyncPaths.zone(SyncPaths.defaultZone)).status == 204)
            #expect(try await fixture.alice.changes(since: token).status == 404)
            let again = try await fixture.alice.createZone()
            #expect(again.epoch == 2 && again.schema.isEmpty)
            let gone = try await fixture.alice.changes(since: token)
            #expect(gone.status == 410)
            #expect(gone.error?.code == .resyncRequired)
            #expect(try await fixture.alice.pullAll().records.isEmpty)
            // The client goes on counting its batches where it was; a new kind for n is fine now.
            let next = try await fixture.alice.push(push("a", [(2, [upsert("t1", ["CD_n": .string("one")], at: clock(2))])]))
            #expect(next.status == 200)
        }
    }

    @Test("a field whose kind differs from the zone's schema answers 409 schemaConflict; new fields and nulls pass")
    func schemaConflict() async throws {
        try await withSyncServer { fixture in
            try await fixture.alice.createZone()
            _ = try await fixture.alice.push(push("a", [(1, [upsert("t1", ["CD_n": .int(1)], at: clock(1))])])).expectOK(
                PushResponse.self)
            let conflict = try await fixture.alice.push(push("a", [(2, [upsert("t2", ["CD_n": .string("x")], at: clock(2))])]))
            #expect(conflict.status == 409)
            #expect(conflict.error?.code == .schemaConflict)
            let additive = try await fixture.alice.push(
                push("a", [(2, [upsert("t2", ["CD_n": .null, "CD_title": .string("x")], at: clock(2))])]))
            #expect(additive.status == 200)
            let zone = try await fixture.alice.send("GET", SyncPaths.zone(SyncPaths.defaultZone)).expectOK(ZoneInfo.self)
            #expect(zone.schema == ["CD_Todo": ["CD_n": .int, "CD_title": .string]])
            #expect(try await fixture.alice.pullAll().records.map(\.recordName) == ["t1", "t2"])
        }
    }

    @Test("assets are stored under their SHA-256, checked, and read back byte for byte")
    func assets() async throws {
        try await withSyncServer { fixture in
            try await fixture.alice.createZone()
            let bytes = Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 * 7) })
            let sha = sha256Hex(bytes)
            let path = SyncPaths.asset(SyncPaths.defaultZone, sha256: sha)
            #expect(try await fixture.alice.send("GET", path).status == 404)
            let wrong = try await fixture.alice.send(
                "PUT", SyncPaths.asset(SyncPaths.defaultZone, sha256: sha256Hex(Data("other".utf8))), body: bytes,
                contentType: "application/octet-stream")
            #expect(wrong.status == 400)
            #expect(try await fixture.alice.send("PUT", path, body: bytes, contentType: "application/octet-stream").status == 204)
            #expect(try await fixture.alice.send("PUT", path, body: bytes, contentType: "application/octet-stream").status == 204)
            let read = try await fixture.alice.send("GET", path)
            #expect(read.status == 200 && read.data == bytes)
        }
    }

    @Test("every field kind goes through the server unchanged")
    func fieldKinds() async throws {
        try await withSyncServer { fixture in
            try await fixture.alice.createZone()
            let fields: [String: FieldValue] = [
                "CD_s": .string("Grüße ✓ \"quoted\""), "CD_i": .int(Int64.min), "CD_d": .double(0.1),
                "CD_b": .bool(true), "CD_date": .date(786_000_000.123_456_7), "CD_bytes": .bytes(Data([0, 1, 255])),
                "CD_asset": .asset(AssetReference(sha256: String(repeating: "ab", count: 32), size: 3)),
                "CD_dec": .decimal("12345678901234567890.25"), "CD_uuid": .uuid(UUID()), "CD_url": .url("file:///a%20b"),
                "CD_ref": .reference("CD_Tag_1"), "CD_null": .null, "CD_big": .double(1e300),
                "CD_tiny": .double(1.5e-7), "CD_negative": .double(-2.718281828459045), "CD_third": .double(1.0 / 3.0),
            ]
            _ = try await fixture.alice.push(push("a", [(1, [upsert("t", fields, at: clock(1))])])).expectOK(PushResponse.self)
            let record = try #require(try await fixture.alice.pullAll().records.first)
            #expect(record.fields == fields)
            // A live record has no delete clock on the wire, and names the client that changed it.
            #expect(!record.deleted && record.deleteClock == nil && record.changedBy == "a")
            #expect(Set(record.clocks.keys) == Set(fields.keys))
        }
    }
}
