import Foundation
import Strata
import StrataSyncProtocol
import SyncTestSupport
import Testing

/// `CKQuery` on the server: Strata's predicate language over the zone's live records.
@Suite("Sync query", .enabled(if: TestPostgres.isAvailable, "PostgreSQL is absent"))
struct QueryTests {
    /// Five habits: names, counts, dates, flags, and one deleted.
    private func seed(_ client: SyncTestClient) async throws {
        try await client.createZone()
        func habit(_ name: String, _ title: String, count: Int64, day: Double, example: Bool, rating: Double) -> RecordChange {
            upsert(
                name, type: "CD_Habit",
                [
                    "CD_title": .string(title), "CD_count": .int(count), "CD_created": .date(day * 86_400),
                    "CD_isExample": .bool(example), "CD_rating": .double(rating),
                ], at: clock(1))
        }
        let changes = [
            habit("h1", "Drink water", count: 8, day: 1, example: true, rating: 4.5),
            habit("h2", "Read a book", count: 1, day: 2, example: false, rating: 3.0),
            habit("h3", "Méditer", count: 2, day: 3, example: true, rating: 5.0),
            habit("h4", "Walk the dog", count: 3, day: 4, example: false, rating: 2.5),
            habit("h5", "Deleted example", count: 9, day: 5, example: true, rating: 1.0),
            upsert("n1", type: "CD_Note", ["CD_title": .string("Drink water note")], at: clock(1)),
        ]
        _ = try await client.push(push("seed", [(1, changes), (2, [delete("h5", type: "CD_Habit", at: clock(2))])]))
            .expectOK(PushResponse.self)
    }

    private func names(
        _ client: SyncTestClient, _ predicate: String?, sort: [SortKey] = [], limit: Int? = nil
    )
        async throws -> [String]
    {
        try await client.query(QueryRequest(recordType: "CD_Habit", predicate: predicate, sort: sort, limit: limit))
            .expectOK(QueryResponse.self).records.map(\.recordName)
    }

    @Test("seed 004's CKQuery: CD_isExample = %@ with NSNumber(true) matches the bool field")
    func seedQuery() async throws {
        try await withSyncServer { fixture in
            try await seed(fixture.alice)
            let format = NSPredicate(format: "CD_isExample = %@", NSNumber(value: true)).predicateFormat
            #expect(
                try await names(fixture.alice, format, sort: [SortKey(field: "recordName", ascending: true)]) == ["h1", "h3"])
            #expect(try await names(fixture.alice, "CD_isExample == NO").sorted() == ["h2", "h4"])
        }
    }

    @Test("=, CONTAINS[cd], AND/OR, numbers, dates, sort and limit")
    func predicates() async throws {
        try await withSyncServer { fixture in
            try await seed(fixture.alice)
            let byName = [SortKey(field: "recordName", ascending: true)]
            #expect(try await names(fixture.alice, "CD_title == 'Read a book'") == ["h2"])
            #expect(try await names(fixture.alice, "CD_title CONTAINS[cd] 'MEDIT'") == ["h3"])
            #expect(try await names(fixture.alice, "CD_title CONTAINS 'MEDIT'").isEmpty)
            #expect(try await names(fixture.alice, "CD_count > 2 AND CD_rating >= 4", sort: byName) == ["h1"])
            #expect(try await names(fixture.alice, "CD_count == 1 OR CD_rating < 3", sort: byName) == ["h2", "h4"])
            #expect(try await names(fixture.alice, "CD_rating BETWEEN {2.5, 4.5}", sort: byName) == ["h1", "h2", "h4"])
            let day2 = NSPredicate(format: "CD_created >= %@", Date(timeIntervalSinceReferenceDate: 2 * 86_400)).predicateFormat
            #expect(try await names(fixture.alice, day2, sort: byName) == ["h2", "h3", "h4"])
            #expect(
                try await names(fixture.alice, nil, sort: [SortKey(field: "CD_count", ascending: false)]) == [
                    "h1", "h4", "h3", "h2",
                ])
            #expect(
                try await names(fixture.alice, "TRUEPREDICATE", sort: [SortKey(field: "CD_title", ascending: true)], limit: 2)
                    == ["h1", "h3"])
            // Deleted records and other types never match.
            #expect(try await names(fixture.alice, "CD_title BEGINSWITH 'D'") == ["h1"])
        }
    }

    @Test("the cursor continues a query page by page without overlap; a cursor of another query is refused")
    func cursor() async throws {
        try await withSyncServer { fixture in
            try await seed(fixture.alice)
            let sort = [SortKey(field: "CD_rating", ascending: true)]
            var request = QueryRequest(recordType: "CD_Habit", predicate: "CD_count >= 1", sort: sort, limit: 3)
            let first = try await fixture.alice.query(request).expectOK(QueryResponse.self)
            #expect(first.records.map(\.recordName) == ["h4", "h2", "h1"])
            let cursor = try #require(first.cursor)
            request.cursor = cursor
            let second = try await fixture.alice.query(request).expectOK(QueryResponse.self)
            #expect(second.records.map(\.recordName) == ["h3"])
            #expect(second.cursor == nil)
            var other = QueryRequest(recordType: "CD_Habit", predicate: "CD_count >= 2", sort: sort, limit: 3)
            other.cursor = cursor
            #expect(try await fixture.alice.query(other).status == 400)
        }
    }

    @Test("a bad predicate answers 400 with the parser's message")
    func badPredicate() async throws {
        try await withSyncServer { fixture in
            try await seed(fixture.alice)
            let deep = String(repeating: "(", count: 100) + "CD_count > 1" + String(repeating: ")", count: 100)
            let long = Array(repeating: "CD_count > 1", count: 700).joined(separator: " OR ")
            for format in ["CD_title ==", "CD_title = %@", "((CD_count > 1", "CD_title LIKEWISE 'x'", deep, long] {
                let reply = try await fixture.alice.query(QueryRequest(recordType: "CD_Habit", predicate: format))
                #expect(reply.status == 400, "\(format.prefix(80)): \(reply.text)")
                #expect(reply.error?.message.contains("predicate") == true, "\(format.prefix(80))")
            }
            #expect(try await fixture.alice.query(QueryRequest(recordType: "bad type!", predicate: nil)).status == 400)
        }
    }
}
