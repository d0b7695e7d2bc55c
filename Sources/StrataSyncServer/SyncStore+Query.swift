import Crypto
import Foundation
import PostgresNIO
import Strata
import StrataSyncProtocol

extension SyncStore {
    /// `CKQuery` on the server: the zone's live records of one type that match the predicate,
    /// sorted, a page at a time.
    ///
    /// The predicate is parsed by Strata's parser and compiled to a PostgreSQL condition
    /// (`QueryCompiler`) over the typed values of the fields, which the indexes of
    /// `PUT /v1/schema` serve; sorting and the page's limit are SQL too. Each row the condition
    /// lets through is checked with Strata's evaluator, so what SQL cannot decide (`MATCHES`,
    /// `[c]` alone…) is decided in Swift — on rows streamed a batch at a time, never a whole
    /// zone: the server holds at most a page of matches and one batch of rows.
    ///
    /// The cursor is the position of the page's last record in the sort order (its sort values
    /// and name: a keyset), so a page follows the one before it however records were written
    /// between them, and it carries a fingerprint of the query: a cursor sent with another
    /// query is a 400. Without sort keys the order is the server's: by record name, or, when
    /// the predicate bounds an indexed field by a range and no indexed field by an equality,
    /// by that field (then record name), the order its index walks, so that the page's first
    /// records end the scan; the cursor keeps the order its first page chose. A statement that runs past `queryTimeout`, or a request that reads more
    /// than `maxQueryRowsExamined` rows, answers 400 `limitExceeded`.
    func query(_ request: QueryRequest, owner: String, zoneName: String) async throws -> QueryResponse {
        guard RequestValidation.isIdentifier(request.recordType) else {
            throw SyncError.badRequest("Bad record type: letters, digits and '_', at most 255.")
        }
        for key in request.sort where !(RequestValidation.isIdentifier(key.field) || key.field == "recordName") {
            throw SyncError.badRequest("Bad sort field \(key.field.prefix(64)).")
        }
        guard request.sort.count <= 8 else { throw SyncError.badRequest("At most 8 sort keys.") }
        let predicate = try Self.predicate(request.predicate)
        let fingerprint = Self.fingerprint(of: request)
        let cursor = try request.cursor.map { try QueryCursor(decoding: $0, fingerprint: fingerprint) }
        let plan = try await plan(of: predicate, request, in: try await zone(owner: owner, name: zoneName), continuing: cursor)
        let (order, limit) = (plan.order, pageSize(of: request))
        if let cursor, !order.accepts(cursor.position) {
            throw SyncError.badRequest("The cursor does not fit this zone's fields any more: start the query again.")
        }
        let start = cursor?.position
        if plan.condition == .none { return QueryResponse(records: [], cursor: nil) }

        let maxExamined = configuration.maxQueryRowsExamined
        return try await withQueryTimeout { connection in
            var matches: [(record: StoredRecord, keys: [String?])] = []
            var position = start
            var examined = 0
            while matches.count <= limit {
                let batch = plan.batchSize(wanting: limit + 1 - matches.count)
                let rows = try await connection.query(plan.statement(after: position, limit: batch), logger: logger)
                var count = 0
                for try await row in rows.decode(QueryRow.self) {
                    count += 1
                    examined += 1
                    let record = try Self.record((row.0, row.1, row.2, row.3, row.4, row.5, row.6, row.7))
                    let keys = try QueryOrder.keys(from: row.8, count: order.keys.count)
                    position = QueryCursor.Position(keys: keys, recordName: record.recordName)
                    if PredicateTreeAccess.evaluate(predicate, with: Self.predicateObject(record)) {
                        matches.append((record, keys))
                        // One past the page says whether there is a next one.
                        if matches.count > limit { break }
                    } else if examined >= maxExamined {
                        throw SyncError(
                            .limitExceeded,
                            "The query read \(examined) records without filling a page: narrow it, or index its fields (PUT /v1/schema)."
                        )
                    }
                }
                if matches.count > limit || count < batch { break }
            }
            let page = matches.prefix(limit)
            var next: String?
            if matches.count > limit, let last = page.last {
                next =
                    QueryCursor(
                        position: .init(keys: last.keys, recordName: last.record.recordName), fingerprint: fingerprint,
                        walkedField: plan.walkedField
                    ).encoded
            }
            return QueryResponse(records: page.map(\.record.state), cursor: next)
        }
    }

    /// PostgreSQL's plan of the first statement a query runs (`EXPLAIN`), for tests and for
    /// whoever wonders why a query is slow.
    func explain(_ request: QueryRequest, owner: String, zoneName: String) async throws -> String {
        let predicate = try Self.predicate(request.predicate)
        let plan = try await plan(of: predicate, request, in: try await zone(owner: owner, name: zoneName), continuing: nil)
        var statement = plan.statement(after: nil, limit: plan.batchSize(wanting: pageSize(of: request) + 1))
        statement.sql = "EXPLAIN " + statement.sql
        let explained = statement
        return try await withQueryTimeout { connection in
            var lines: [String] = []
            for try await line in try await connection.query(explained, logger: logger).decode(String.self) {
                lines.append(line)
            }
            return lines.joined(separator: "\n")
        }
    }

    /// The plan of a request's predicate over the zone's fields; an unsorted query continued
    /// by a cursor keeps the order of its first page.
    private func plan(
        of predicate: PredicateNode, _ request: QueryRequest, in zone: Zone, continuing cursor: QueryCursor?
    ) async throws -> QueryPlan {
        let kinds = zone.schema[request.recordType] ?? [:]
        var compiler = QueryCompiler(kinds: kinds)
        let condition = compiler.compile(predicate)
        var sort = request.sort
        var walked: String?
        if sort.isEmpty {
            if let cursor {
                walked = cursor.walkedField
                if let field = walked, !RequestValidation.isIdentifier(field) || kinds[field] == nil {
                    throw SyncError.badRequest("The cursor does not fit this zone's fields any more: start the query again.")
                }
            } else if condition != .none {
                walked = try await walkedField(compiler.bounds(of: predicate), recordType: request.recordType, kinds: kinds)
            }
            if let walked { sort = [SortKey(field: walked, ascending: true)] }
        }
        return QueryPlan(
            zoneID: zone.id, recordType: request.recordType, condition: condition, bindings: compiler.bindings,
            order: QueryOrder(sort, kinds: kinds), walkedField: walked)
    }

    /// The field an unsorted query is ordered by: the first the predicate bounds by a range
    /// whose index is ready, unless an indexed field is bounded by an equality (its index
    /// gives the record-name order itself, `(zone, value, record name)`); nil for the record
    /// name's order.
    private func walkedField(
        _ bounds: [QueryCompiler.Bound], recordType: String, kinds: [String: FieldValue.Kind]
    ) async throws -> String? {
        guard bounds.contains(where: { !$0.isEquality }) else { return nil }
        let rows = try await client.query(
            "SELECT field, kind FROM field_indexes WHERE record_type = \(recordType) AND state = 'ready'", logger: logger)
        var indexed: Set<String> = []
        for try await (field, kind) in rows.decode((String, String).self) where kinds[field]?.rawValue == kind {
            indexed.insert(field)
        }
        let walkable = bounds.filter { indexed.contains($0.field) }
        if walkable.contains(where: \.isEquality) { return nil }
        return walkable.first?.field
    }

    /// The records a page holds: the request's limit within the server's cap.
    private func pageSize(of request: QueryRequest) -> Int {
        min(max(request.limit ?? configuration.maxRecords, 1), configuration.maxRecords)
    }

    /// Runs `body` in a transaction whose statements stop after `queryTimeout` (400
    /// `limitExceeded` then).
    private func withQueryTimeout<Result: Sendable>(
        _ body: @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let timeout = configuration.queryTimeout.components
        let milliseconds = max(1, Int(timeout.seconds) * 1000 + Int(timeout.attoseconds / 1_000_000_000_000_000))
        do {
            return try await client.withConnection { connection in
                try await connection.inTransaction(logger: logger) { connection in
                    try await connection.query(
                        PostgresQuery(unsafeSQL: "SET LOCAL statement_timeout = \(milliseconds)"), logger: logger)
                    return try await body(connection)
                }
            }
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "57014" {
            throw SyncError(
                .limitExceeded, "The query ran longer than \(milliseconds) ms: narrow it, or index its fields (PUT /v1/schema).")
        }
    }

    /// A row of a query: the record and its sort values as a JSON array of text.
    typealias QueryRow = (String, String, String, String, Bool, String?, Int64, String?, String)

    /// The request's predicate, parsed by Strata; 400 with the parser's message when it is
    /// not one.
    static func predicate(_ format: String?) throws -> PredicateNode {
        guard let format, !format.trimmingCharacters(in: .whitespaces).isEmpty else { return .constant(true) }
        guard format.utf8.count <= 8 * 1024 else { throw SyncError.badRequest("The predicate is too long.") }
        // The parser recurses once per nesting level: a bound keeps a hostile predicate from
        // exhausting the stack. (Brackets inside string constants count too; no real
        // predicate comes near.)
        var depth = 0
        for byte in format.utf8 {
            if byte == UInt8(ascii: "(") || byte == UInt8(ascii: "{") {
                depth += 1
                guard depth <= 64 else { throw SyncError.badRequest("The predicate nests too deeply (64 levels at most).") }
            } else if byte == UInt8(ascii: ")") || byte == UInt8(ascii: "}") {
                depth -= 1
            }
        }
        do {
            return try PredicateTreeAccess.parse(format)
        } catch {
            throw SyncError.badRequest("Bad predicate: \(error)")
        }
    }

    /// A record as the predicate sees it: its fields by name as the Foundation values the
    /// client's predicate was written against (dates as `Date`, decimals as `Decimal`…), and
    /// `recordName`. Null fields are absent, so they compare as nil.
    static func predicateObject(_ record: StoredRecord) -> [String: Any] {
        var object: [String: Any] = ["recordName": record.recordName]
        for (name, value) in record.fields {
            if let value = foundationValue(value) { object[name] = value }
        }
        return object
    }

    static func foundationValue(_ value: FieldValue) -> Any? {
        switch value {
        case .null: nil
        case .string(let text), .reference(let text): text
        case .int(let number): number
        case .double(let number): number
        case .bool(let flag): flag
        case .date(let seconds): Date(timeIntervalSinceReferenceDate: seconds)
        case .bytes(let data): data
        case .asset(let reference): reference.sha256
        case .decimal(let text): Decimal(string: text) ?? text
        case .uuid(let uuid): uuid
        case .url(let text): URL(string: text) ?? text
        }
    }

    static func fingerprint(of request: QueryRequest) -> String {
        var key = request
        key.limit = nil
        key.cursor = nil
        let data = (try? RecordJSON.encode(key)) ?? ""
        return SHA256.hash(data: Data(data.utf8)).prefix(12).map { String(format: "%02x", $0) }.joined()
    }
}

/// Where a query's next page starts, tied to the query it continues: the sort values (as
/// PostgreSQL writes them in text) and the name of the last record of the page before.
struct QueryCursor: Codable {
    struct Position: Codable, Equatable {
        var keys: [String?]
        var recordName: String

        private enum CodingKeys: String, CodingKey {
            case keys = "k"
            case recordName = "n"
        }
    }

    var position: Position
    var fingerprint: String
    /// The field an unsorted query's pages are ordered by (nil: the record name).
    var walkedField: String?

    private enum CodingKeys: String, CodingKey {
        case position = "p"
        case fingerprint = "q"
        case walkedField = "o"
    }

    init(position: Position, fingerprint: String, walkedField: String? = nil) {
        self.position = position
        self.fingerprint = fingerprint
        self.walkedField = walkedField
    }

    /// The cursor a text names; 400 for a cursor this server did not issue for this query.
    /// (Whether its values are of the kinds the sort reads now is the order's to say,
    /// `QueryOrder.accepts`.)
    init(decoding text: String, fingerprint: String) throws {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        // A cursor carries the last record's sort values, long strings included: bounded by
        // what a body may hold rather than by what cursors usually take.
        guard text.utf8.count <= 4 * 1024 * 1024, let data = Data(base64Encoded: base64),
            let cursor = try? JSONDecoder().decode(QueryCursor.self, from: data)
        else { throw SyncError.badRequest("The cursor is not one this server issued.") }
        guard cursor.fingerprint == fingerprint else {
            throw SyncError.badRequest("The cursor belongs to another query.")
        }
        self = cursor
    }

    var encoded: String {
        ((try? JSONEncoder().encode(self)) ?? Data()).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
