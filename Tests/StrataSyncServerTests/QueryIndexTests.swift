import Foundation
import PostgresNIO
import Strata
import StrataSyncProtocol
import SyncTestSupport
import Testing

@testable import StrataSyncServer

/// Queries answered by PostgreSQL (issue 35): the indexes of `PUT /v1/schema`, the plans that
/// use them, keyset cursors, the limits of a request, and the folded values of `[cd]`.
@Suite("Sync query in SQL", .enabled(if: TestPostgres.isAvailable, "PostgreSQL is absent"))
struct QueryIndexTests {
    /// A zone of `count` to-dos written straight into the table (pushing 100k records through a
    /// debug server would take minutes): `CD_title` "Todo number <i>", `CD_priority` i % 10,
    /// `CD_notes` that hold "needle" in one record of 1,000. Two records go through a push
    /// first, so that the zone's schema knows the fields' kinds as a real zone would.
    private func bulkZone(_ fixture: SyncFixture, count: Int) async throws {
        try await fixture.alice.createZone()
        let kinds = upsert(
            "seed", ["CD_title": .string("Seed"), "CD_priority": .int(0), "CD_notes": .string("seed")], at: clock(1))
        _ = try await fixture.alice.push(push("seed", [(1, [kinds])])).expectOK(PushResponse.self)
        _ = try await TestPostgres.query(
            """
            INSERT INTO records (zone_id, record_type, record_name, fields, clocks, server_seq, folded)
            SELECT z.id, 'CD_Todo', 'r' || i,
                jsonb_build_object(
                    'CD_title', jsonb_build_object('type', 'string', 'value', 'Todo number ' || i),
                    'CD_priority', jsonb_build_object('type', 'int', 'value', i % 10),
                    'CD_notes', jsonb_build_object('type', 'string',
                        'value', CASE WHEN i % 1000 = 7 THEN 'a needle here' ELSE 'hay ' || (i % 97) END)),
                '{}'::jsonb, 100 + i, jsonb_build_object('CD_title', 'todo number ' || i)
            FROM generate_series(1, \(count)) AS i, zones z WHERE z.owner = 'alice'
            """, databaseURL: fixture.databaseURL)
        _ = try await TestPostgres.query("ANALYZE records", databaseURL: fixture.databaseURL)
    }

    private func declare(_ fixture: SyncFixture, _ indexes: [FieldIndex]) async throws -> SchemaIndexes {
        try await fixture.alice.send("PUT", SyncPaths.schema, json: SchemaIndexes(indexes: indexes))
            .expectOK(SchemaIndexes.self)
    }

    /// Polls `GET /v1/schema` until no index is building; the last answer.
    private func waitForIndexes(_ fixture: SyncFixture) async throws -> SchemaIndexes {
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            let schema = try await fixture.alice.send("GET", SyncPaths.schema).expectOK(SchemaIndexes.self)
            if !schema.indexes.contains(where: { $0.state == .building }) || ContinuousClock.now > deadline {
                return schema
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    private func names(_ fixture: SyncFixture, _ request: QueryRequest) async throws -> [String] {
        try await fixture.alice.query(request).expectOK(QueryResponse.self).records.map(\.recordName)
    }

    @Test("at 100k records, indexed equality and prefix queries are index scans, and answer right")
    func indexedQueriesUseTheirIndexes() async throws {
        try await withSyncServer { fixture in
            try await bulkZone(fixture, count: 100_000)
            let title = FieldIndex(recordType: "CD_Todo", field: "CD_title", kind: .string)
            let priority = FieldIndex(recordType: "CD_Todo", field: "CD_priority", kind: .int, queryable: true, sortable: false)
            _ = try await declare(fixture, [title, priority])
            let schema = try await waitForIndexes(fixture)
            #expect(schema.indexes.map(\.state) == [.ready, .ready], "\(schema)")
            let titleIndex = SyncStore.indexName(title)
            let definitions = try await TestPostgres.query(
                "SELECT indexdef FROM pg_indexes WHERE indexname = '\(titleIndex)'", databaseURL: fixture.databaseURL)
            #expect(definitions.first??.contains("WHERE ((record_type = 'CD_Todo'::text) AND (NOT deleted))") == true)

            let store = fixture.server.server.store
            let equality = QueryRequest(recordType: "CD_Todo", predicate: "CD_title == \"Todo number 77777\"", limit: 10)
            let equalityPlan = try await store.explain(equality, owner: "alice", zoneName: SyncPaths.defaultZone)
            #expect(
                equalityPlan.contains("Index Scan using \(titleIndex)")
                    || equalityPlan.contains("Bitmap Index Scan on \(titleIndex)"), "\(equalityPlan)")
            #expect(try await names(fixture, equality) == ["r77777"])

            let prefix = QueryRequest(
                recordType: "CD_Todo", predicate: "CD_title BEGINSWITH \"Todo number 7777\"",
                sort: [SortKey(field: "CD_title", ascending: true)], limit: 20)
            let prefixPlan = try await store.explain(prefix, owner: "alice", zoneName: SyncPaths.defaultZone)
            #expect(prefixPlan.contains(titleIndex), "\(prefixPlan)")
            #expect(!prefixPlan.contains("Seq Scan"), "\(prefixPlan)")
            #expect(try await names(fixture, prefix) == ["r7777"] + (0...9).map { "r7777\($0)" })

            // A field without an index is read from the zone's rows, still in SQL.
            let notes = QueryRequest(
                recordType: "CD_Todo", predicate: "CD_notes == \"a needle here\"",
                sort: [SortKey(field: "recordName", ascending: true)], limit: 3)
            let notesPlan = try await store.explain(notes, owner: "alice", zoneName: SyncPaths.defaultZone)
            #expect(!notesPlan.contains("field_index_"), "\(notesPlan)")
            #expect(try await names(fixture, notes) == ["r10007", "r1007", "r11007"])
        }
    }

    @Test("an unsorted query walks the index of the field its predicate bounds, and its pages keep that order")
    func unsortedQueriesWalkTheBoundedIndex() async throws {
        try await withSyncServer { fixture in
            try await bulkZone(fixture, count: 100_000)
            let title = FieldIndex(recordType: "CD_Todo", field: "CD_title", kind: .string)
            let priority = FieldIndex(recordType: "CD_Todo", field: "CD_priority", kind: .int, queryable: true, sortable: false)
            _ = try await declare(fixture, [title, priority])
            #expect(try await waitForIndexes(fixture).indexes.map(\.state) == [.ready, .ready])
            let store = fixture.server.server.store

            // 11,111 titles begin so: the first page's rows are the index's first ones, no sort
            // of every match (by record name) before the limit.
            let prefix = QueryRequest(recordType: "CD_Todo", predicate: "CD_title BEGINSWITH \"Todo number 1\"", limit: 500)
            let plan = try await store.explain(prefix, owner: "alice", zoneName: SyncPaths.defaultZone)
            #expect(plan.contains("Index Scan using \(SyncStore.indexName(title))"), "\(plan)")
            #expect(!plan.contains("Sort"), "\(plan)")
            var titles: [String] = []
            var request = prefix
            var pages = 0
            repeat {
                let page = try await fixture.alice.query(request).expectOK(QueryResponse.self)
                titles += page.records.map { record -> String in
                    if case .string(let title)? = record.fields["CD_title"] { return title }
                    return "?"
                }
                request.cursor = page.cursor
                pages += 1
            } while request.cursor != nil && pages < 100
            let expected = (1...100_000).map { "Todo number \($0)" }.filter { $0.hasPrefix("Todo number 1") }
            #expect(titles.count == expected.count)
            #expect(titles == expected.sorted { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) })

            // An equality on an indexed field keeps the record name's order, which its index gives.
            let both = QueryRequest(
                recordType: "CD_Todo", predicate: "CD_title BEGINSWITH \"Todo number 1\" AND CD_priority == 3", limit: 5)
            let byName = (1...100_000).filter { "\($0)".hasPrefix("1") && $0 % 10 == 3 }.map { "r\($0)" }.sorted()
            #expect(try await names(fixture, both) == Array(byName.prefix(5)))

            // A cursor naming a field to walk that is not one of the zone's is refused.
            let forged = QueryCursor(
                position: .init(keys: ["x"], recordName: "r1"), fingerprint: SyncStore.fingerprint(of: prefix),
                walkedField: "CD_nothing"
            ).encoded
            var continued = prefix
            continued.cursor = forged
            let refused = try await fixture.alice.query(continued)
            #expect(refused.status == 400, "\(refused.text)")
        }
    }

    @Test("a cursor keeps its place while records are added, changed and deleted between pages")
    func keysetCursor() async throws {
        try await withSyncServer { fixture in
            try await fixture.alice.createZone()
            let seed = (0..<30).map { upsert("t\($0)", ["CD_rank": .int(Int64($0))], at: clock(1)) }
            _ = try await fixture.alice.push(push("c", [(1, seed)])).expectOK(PushResponse.self)
            var request = QueryRequest(
                recordType: "CD_Todo", predicate: "CD_rank >= 0", sort: [SortKey(field: "CD_rank", ascending: true)],
                limit: 10)
            let first = try await fixture.alice.query(request).expectOK(QueryResponse.self)
            #expect(first.records.map(\.recordName) == (0..<10).map { "t\($0)" })
            // Between pages: one of page 1 deleted, a record before the position and one after
            // it added, one of a later page moved before the position.
            let between = [
                delete("t3", at: clock(2)),
                upsert("new-early", ["CD_rank": .int(5)], at: clock(2)),
                upsert("new-late", ["CD_rank": .int(25)], at: clock(2)),
                upsert("t20", ["CD_rank": .int(-1)], at: clock(2)),
            ]
            _ = try await fixture.alice.push(push("c", [(2, between)])).expectOK(PushResponse.self)
            var rest: [String] = []
            request.cursor = first.cursor
            while request.cursor != nil {
                let page = try await fixture.alice.query(request).expectOK(QueryResponse.self)
                rest += page.records.map(\.recordName)
                request.cursor = page.cursor
            }
            // Rank 25 twice: the tie goes by record name, in code points ("n" < "t").
            let expected = (10..<30).filter { $0 != 20 }.flatMap { $0 == 25 ? ["new-late", "t25"] : ["t\($0)"] }
            #expect(rest == expected)
        }
    }

    @Test("a cursor holds the sort values of its page's last record, however long they are")
    func longSortValues() async throws {
        try await withSyncServer { fixture in
            try await fixture.alice.createZone()
            let long = String(repeating: "long title ", count: 3_000)
            let records = (0..<3).map { upsert("l\($0)", ["CD_title": .string(long + "\($0)")], at: clock(1)) }
            _ = try await fixture.alice.push(push("c", [(1, records)])).expectOK(PushResponse.self)
            var request = QueryRequest(
                recordType: "CD_Todo", predicate: nil, sort: [SortKey(field: "CD_title", ascending: false)], limit: 1)
            var seen: [String] = []
            repeat {
                let page = try await fixture.alice.query(request).expectOK(QueryResponse.self)
                seen += page.records.map(\.recordName)
                request.cursor = page.cursor
            } while request.cursor != nil && seen.count < 5
            #expect(seen == ["l2", "l1", "l0"])
        }
    }

    @Test("a request that reads too many rows or runs too long answers 400 limitExceeded")
    func limits() async throws {
        try await withSyncServer(configure: { $0.maxQueryRowsExamined = 50 }) { fixture in
            try await fixture.alice.createZone()
            let records = (0..<200).map { upsert("r\($0)", ["CD_title": .string("Item \($0)")], at: clock(1)) }
            _ = try await fixture.alice.push(push("c", [(1, records)])).expectOK(PushResponse.self)
            // MATCHES is decided in Swift: two matches among 200 rows, more than 50 read.
            let sparse = try await fixture.alice.query(
                QueryRequest(recordType: "CD_Todo", predicate: "CD_title MATCHES '.*77.*'", limit: 10))
            #expect(sparse.status == 400, "\(sparse.text)")
            #expect(sparse.error?.code == .limitExceeded)
            // A page that fills before the cap is answered.
            let dense = try await fixture.alice.query(
                QueryRequest(recordType: "CD_Todo", predicate: "CD_title MATCHES 'Item .*'", limit: 10))
            #expect(dense.status == 200, "\(dense.text)")
            #expect(try dense.decode(QueryResponse.self).records.count == 10)
            #expect(try await names(fixture, QueryRequest(recordType: "CD_Todo", predicate: "CD_title == 'Item 7'")) == ["r7"])
        }
        try await withSyncServer(configure: { $0.queryTimeout = .milliseconds(1) }) { fixture in
            try await bulkZone(fixture, count: 50_000)
            let slow = try await fixture.alice.query(
                QueryRequest(recordType: "CD_Todo", predicate: "CD_notes CONTAINS 'no such text'", limit: 10))
            #expect(slow.status == 400, "\(slow.text)")
            #expect(slow.error?.code == .limitExceeded)
            #expect(slow.error?.message.contains("longer than") == true, "\(slow.text)")
        }
    }

    @Test("PUT /v1/schema checks what it is asked, keeps one row per index and a cap")
    func schemaEndpoint() async throws {
        try await withSyncServer(configure: { $0.maxIndexes = 2 }) { fixture in
            let bytes = FieldIndex(recordType: "CD_Todo", field: "CD_data", kind: .bytes)
            let reply = try await fixture.alice.send("PUT", SyncPaths.schema, json: SchemaIndexes(indexes: [bytes]))
            #expect(reply.status == 400, "\(reply.text)")
            let badName = FieldIndex(recordType: "CD_Todo; DROP TABLE records", field: "CD_title", kind: .string)
            #expect(try await fixture.alice.send("PUT", SyncPaths.schema, json: SchemaIndexes(indexes: [badName])).status == 400)
            let neither = FieldIndex(recordType: "CD_Todo", field: "CD_title", kind: .string, queryable: false, sortable: false)
            #expect(try await fixture.alice.send("PUT", SyncPaths.schema, json: SchemaIndexes(indexes: [neither])).status == 400)

            let title = FieldIndex(recordType: "CD_Todo", field: "CD_title", kind: .string, queryable: true, sortable: false)
            _ = try await declare(fixture, [title])
            let again = FieldIndex(recordType: "CD_Todo", field: "CD_title", kind: .string, queryable: false, sortable: true)
            _ = try await declare(fixture, [again])
            let schema = try await waitForIndexes(fixture)
            #expect(
                schema.indexes == [
                    FieldIndex(
                        recordType: "CD_Todo", field: "CD_title", kind: .string, queryable: true, sortable: true, state: .ready)
                ])
            let more = [
                FieldIndex(recordType: "CD_Todo", field: "CD_a", kind: .int),
                FieldIndex(recordType: "CD_Todo", field: "CD_b", kind: .int),
            ]
            let full = try await fixture.alice.send("PUT", SyncPaths.schema, json: SchemaIndexes(indexes: more))
            #expect(full.status == 400 && full.error?.code == .limitExceeded, "\(full.text)")
            #expect(try await fixture.alice.send("GET", SyncPaths.schema).expectOK(SchemaIndexes.self).indexes.count == 1)
            let count = try await TestPostgres.query(
                "SELECT count(*)::text FROM pg_indexes WHERE starts_with(indexname, 'field_index_')",
                databaseURL: fixture.databaseURL)
            #expect(count == ["1"])
        }
    }

    @Test("string fields keep their [cd] folding beside them, and older rows get it when the server migrates")
    func foldedValues() async throws {
        try await withSyncServer { fixture in
            try await fixture.alice.createZone()
            let records = [
                upsert("a", ["CD_title": .string("Café Straße"), "CD_count": .int(1)], at: clock(1)),
                upsert("b", ["CD_title": .string("plain")], at: clock(1)),
            ]
            _ = try await fixture.alice.push(push("c", [(1, records)])).expectOK(PushResponse.self)
            let folded = try await TestPostgres.query(
                "SELECT folded::text FROM records ORDER BY record_name", databaseURL: fixture.databaseURL)
            let expected = PredicateTreeAccess.fold("Café Straße", [.caseInsensitive, .diacriticInsensitive])
            #expect(expected == "cafe strasse")
            #expect(folded == [#"{"CD_title": "cafe strasse"}"#, "{}"])
            #expect(
                try await names(fixture, QueryRequest(recordType: "CD_Todo", predicate: "CD_title ==[cd] 'CAFE STRASSE'")) == [
                    "a"
                ])

            // Rows from before the column: the migration's backfill fills them.
            _ = try await TestPostgres.query("UPDATE records SET folded = NULL", databaseURL: fixture.databaseURL)
            try await fixture.server.server.store.client.withConnection { connection in
                try await SyncSchema.backfillFolded(on: connection, logger: fixture.server.server.logger)
            }
            let refilled = try await TestPostgres.query(
                "SELECT folded::text FROM records ORDER BY record_name", databaseURL: fixture.databaseURL)
            #expect(refilled == folded)
        }
    }
}

/// The compiler alone: what becomes SQL, what is exact, and the translations of `LIKE` and of
/// a regular expression's literal start.
@Suite("Query compiler")
struct QueryCompilerTests {
    private let kinds: [String: FieldValue.Kind] = [
        "CD_title": .string, "CD_count": .int, "CD_rating": .double, "CD_done": .bool, "CD_due": .date, "CD_id": .uuid,
        "CD_link": .url,
    ]

    private func compile(_ format: String) throws -> QueryCompiler.Condition {
        var compiler = QueryCompiler(kinds: kinds)
        return compiler.compile(try PredicateTreeAccess.parse(format))
    }

    @Test("comparisons of a field's kind are exact SQL; others narrow or decide at once")
    func exactness() throws {
        #expect(try compile("CD_title == 'a'").isExact)
        #expect(try compile("CD_title ==[cd] 'a'").isExact)
        #expect(try !compile("CD_title ==[c] 'a'").isExact)
        #expect(try compile("CD_count > 2.5 AND CD_rating <= 3").isExact)
        #expect(try compile("CD_title BEGINSWITH 'Bu'").isExact)
        #expect(try !compile("CD_title CONTAINS 'u'").isExact)
        #expect(try !compile("CD_title MATCHES 'B.*'").isExact)
        // Kinds that never compare: decided without SQL.
        #expect(try compile("CD_title == 5") == .none)
        #expect(try compile("CD_title != 5") == .all(exact: true))
        #expect(try compile("CD_count < 'x'") == .none)
        #expect(try compile("CD_count == 2.5") == .none)
        #expect(try compile("CD_missing == 'x'") == .none)
        #expect(try compile("CD_missing == nil") == .all(exact: true))
        #expect(try compile("1 == 1") == .all(exact: true))
        // Negating what is not exact filters nothing, and keeps the rest.
        #expect(try compile("NOT CD_title CONTAINS 'u'") == .all(exact: false))
        #expect(try compile("CD_link == 'x'") == .all(exact: false))
        guard case .sql(let text, true) = try compile("NOT (CD_count == 1 OR CD_done == YES)") else {
            Issue.record("not exact SQL")
            return
        }
        #expect(text.contains("IS NOT TRUE") && text.contains(" AND "), "\(text)")
    }

    @Test("an integer field against a fractional bound rounds exactly as the evaluator compares")
    func fractionalBounds() throws {
        var compiler = QueryCompiler(kinds: kinds)
        guard case .sql(let text, true) = compiler.compile(try PredicateTreeAccess.parse("CD_count > 2.5")) else {
            Issue.record("not exact SQL")
            return
        }
        #expect(text.hasSuffix("> $1"), "\(text)")
        #expect(compiler.bindings.count == 1)
    }

    @Test("the folded column's fast path for ASCII is Foundation's folding, and its JSON reads back")
    func foldingFastPath() throws {
        var texts = (0..<128).map { String(UnicodeScalar(UInt8($0))) }
        texts += ["Todo number 7", "ALL CAPS", "mixed Case 123 !?*", "", "Café", "STRASSE Straße", "İstanbul", "e\u{301}"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            texts.append(
                String(
                    decoding: (0..<Int.random(in: 0...20, using: &generator)).map { _ in
                        UInt8.random(in: 0...127, using: &generator)
                    }, as: UTF8.self))
        }
        for text in texts {
            let expected = PredicateTreeAccess.fold(text, [.caseInsensitive, .diacriticInsensitive])
            #expect(
                StoredRecord.queryFold(text).unicodeScalars.elementsEqual(expected.unicodeScalars), "\(text.debugDescription)")
        }
        let fields: [String: FieldValue] = [
            "CD_a": .string("Quote \" back\\slash \u{1} tab\t"), "CD_b": .string("lower"), "CD_c": .int(1),
            "CD_d": .string("Ünïcode"),
        ]
        let decoded = try JSONDecoder().decode([String: String].self, from: Data(StoredRecord.foldedJSON(fields).utf8))
        #expect(
            decoded == [
                "CD_a": "quote \" back\\slash \u{1} tab\t",
                "CD_d": PredicateTreeAccess.fold("Ünïcode", [.caseInsensitive, .diacriticInsensitive]),
            ])
    }

    @Test("LIKE becomes a wider SQL pattern; a regular expression's literal start narrows MATCHES")
    func patterns() {
        #expect(QueryCompiler.likePattern("a*b?c") == "a%b_%c")
        #expect(QueryCompiler.likePattern(#"50\%_x\*"#) == #"50\%\_x*"#)
        #expect(QueryCompiler.likePattern("Café") == "Caf_%")
        #expect(QueryCompiler.likePattern("OK;") == "O_%_%")
        #expect(QueryCompiler.literalPrefix(ofRegex: "Buy .*") == "Buy ")
        #expect(QueryCompiler.literalPrefix(ofRegex: "Buys?") == "Buy")
        #expect(QueryCompiler.literalPrefix(ofRegex: "a|b") == nil)
        #expect(QueryCompiler.literalPrefix(ofRegex: "(?i)abc") == "")
    }
}
