import Crypto
import Foundation
import PostgresNIO
import Strata
import StrataSyncProtocol

extension SyncStore {
    /// `CKQuery` on the server: the zone's live records of one type that match the predicate,
    /// sorted, a page at a time.
    ///
    /// The predicate is parsed with Strata's own parser (the language `NSPredicate(format:)`
    /// reads on the client) and evaluated in Swift over the records, read from PostgreSQL page
    /// by page in record-name order: correctness first, since Strata's evaluator already
    /// knows every operator, modifier (`[cd]`), and the number and date comparisons that a
    /// translation to SQL over JSONB would have to redo. The cost is reading every live record
    /// of the type per query; an index on JSONB paths can come later for simple predicates.
    ///
    /// The cursor is the position in the sorted matches plus a fingerprint of the query, so
    /// a cursor sent with another query is a 400.
    func query(_ request: QueryRequest, owner: String, zoneName: String) async throws -> QueryResponse {
        guard RequestValidation.isIdentifier(request.recordType) else {
            throw SyncError.badRequest("Bad record type: letters, digits and '_', at most 255.")
        }
        for key in request.sort where !(RequestValidation.isIdentifier(key.field) || key.field == "recordName") {
            throw SyncError.badRequest("Bad sort field \(key.field.prefix(64)).")
        }
        let predicate = try Self.predicate(request.predicate)
        let limit = min(max(request.limit ?? configuration.maxRecords, 1), configuration.maxRecords)
        let fingerprint = Self.fingerprint(of: request)
        let offset = try request.cursor.map { try QueryCursor(decoding: $0, fingerprint: fingerprint).offset } ?? 0
        let zone = try await zone(owner: owner, name: zoneName)

        var matches: [StoredRecord] = []
        var after = ""
        let pageSize = 500
        while true {
            let rows = try await client.query(
                """
                SELECT record_type, record_name, fields::text, clocks::text, deleted, delete_clock, server_seq, changed_by
                FROM records WHERE zone_id = \(zone.id) AND record_type = \(request.recordType) AND NOT deleted
                AND record_name > \(after) ORDER BY record_name LIMIT \(pageSize)
                """, logger: logger)
            var count = 0
            for try await row in rows.decode(RecordRow.self) {
                count += 1
                let record = try Self.record(row)
                after = record.recordName
                if predicate.evaluate(with: Self.predicateObject(record)) {
                    matches.append(record)
                }
            }
            if count < pageSize { break }
        }
        matches.sort { Self.precedes($0, $1, by: request.sort) }
        let page = matches.dropFirst(offset).prefix(limit)
        let nextOffset = offset + page.count
        let cursor = nextOffset < matches.count ? QueryCursor(offset: nextOffset, fingerprint: fingerprint).encoded : nil
        return QueryResponse(records: page.map(\.state), cursor: cursor)
    }

    /// The request's predicate, parsed by Strata; 400 with the parser's message when it is
    /// not one.
    static func predicate(_ format: String?) throws -> NSPredicate {
        guard let format, !format.trimmingCharacters(in: .whitespaces).isEmpty else {
            return try NSPredicate.parse(format: "TRUEPREDICATE")
        }
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
            return try NSPredicate.parse(format: format)
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

    /// Sort order: each key in turn (nil first when ascending, as Core Data's SQLite store
    /// sorts), then the record name, so that pages never overlap.
    static func precedes(_ lhs: StoredRecord, _ rhs: StoredRecord, by keys: [SortKey]) -> Bool {
        for key in keys {
            let left = key.field == "recordName" ? .string(lhs.recordName) : lhs.fields[key.field] ?? .null
            let right = key.field == "recordName" ? .string(rhs.recordName) : rhs.fields[key.field] ?? .null
            let order = compare(left, right)
            if order != .orderedSame {
                return key.ascending ? order == .orderedAscending : order == .orderedDescending
            }
        }
        return lhs.recordName < rhs.recordName
    }

    static func compare(_ lhs: FieldValue, _ rhs: FieldValue) -> ComparisonResult {
        switch (sortKey(lhs), sortKey(rhs)) {
        case (.none, .none): return .orderedSame
        case (.none, _): return .orderedAscending
        case (_, .none): return .orderedDescending
        case (.number(let a), .number(let b)): return a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame
        case (.text(let a), .text(let b)): return a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame
        case (.number, .text): return .orderedAscending
        case (.text, .number): return .orderedDescending
        }
    }

    private enum SortValue {
        case none
        case number(Double)
        case text(String)
    }

    private static func sortKey(_ value: FieldValue) -> SortValue {
        switch value {
        case .null: .none
        case .int(let number): .number(Double(number))
        case .double(let number), .date(let number): .number(number)
        case .bool(let flag): .number(flag ? 1 : 0)
        case .decimal(let text): Double(text).map(SortValue.number) ?? .text(text)
        case .string(let text), .reference(let text), .url(let text): .text(text)
        case .uuid(let uuid): .text(uuid.uuidString)
        case .bytes(let data): .text(data.base64EncodedString())
        case .asset(let reference): .text(reference.sha256)
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

/// Where a query's next page starts, tied to the query it continues.
struct QueryCursor: Codable {
    var offset: Int
    var fingerprint: String

    private enum CodingKeys: String, CodingKey {
        case offset = "o"
        case fingerprint = "q"
    }

    init(offset: Int, fingerprint: String) {
        self.offset = offset
        self.fingerprint = fingerprint
    }

    init(decoding text: String, fingerprint: String) throws {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard text.count <= 1024, let data = Data(base64Encoded: base64),
            let cursor = try? JSONDecoder().decode(QueryCursor.self, from: data), cursor.offset >= 0
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
