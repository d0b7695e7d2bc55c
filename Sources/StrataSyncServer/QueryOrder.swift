import Foundation
import PostgresNIO
import StrataSyncProtocol

/// The order of a query's answer in SQL, and the keyset condition that continues it after a
/// cursor's position.
///
/// Keys in turn, each by the typed value of its field in the zone (strings by Unicode scalars,
/// as `COLLATE "C"` orders UTF-8; numbers, dates and booleans by value; UUIDs by their hex
/// digits), nil first when ascending and last when descending, as Core Data's SQLite store
/// sorts; then the record name, in the direction of the last key (ascending without keys), so
/// that no two records tie and a single-key order is one direction an index can walk.
struct QueryOrder {
    struct Key {
        /// The SQL of the value.
        var expression: String
        /// How a cursor's text of the value is bound (`::bigint`…; empty for text).
        var cast: String
        var ascending: Bool
    }

    /// The request's sort keys (the record name follows them).
    let keys: [Key]
    let nameAscending: Bool

    init(_ sort: [SortKey], kinds: [String: FieldValue.Kind]) {
        keys = sort.map { key in
            let (expression, cast) =
                key.field == "recordName"
                ? (Self.recordName, "") : Self.sortExpression(field: key.field, kind: kinds[key.field])
            return Key(expression: expression, cast: cast, ascending: key.ascending)
        }
        nameAscending = sort.last?.ascending ?? true
    }

    static let recordName = "(record_name COLLATE \"C\")"

    /// The sort value of a field and the cast that binds a text of it.
    static func sortExpression(field: String, kind: FieldValue.Kind?) -> (String, String) {
        let json = "fields->'\(field)'"
        guard let kind else { return ("NULL::text", "") }
        switch kind {
        case .int, .double, .date, .uuid, .bool:
            let cast = [.int: "::bigint", .double: "::float8", .date: "::float8", .uuid: "::uuid", .bool: "::int"][kind] ?? ""
            return (QueryCompiler.expression(field: field, kind: kind) ?? "NULL::text", cast)
        case .decimal:
            return (
                "(CASE WHEN \(json)->>'type' = 'decimal' AND (\(json)->>'value') ~ '^[+-]?[0-9]+(\\.[0-9]+)?([eE][+-]?[0-9]+)?$' THEN (\(json)->>'value')::numeric END)",
                "::numeric"
            )
        case .asset: return ("((\(json)->'value'->>'sha256') COLLATE \"C\")", "")
        case .string, .reference, .url, .bytes, .null: return ("((\(json)->>'value') COLLATE \"C\")", "")
        }
    }

    /// `ORDER BY` of the keys and the record name.
    var orderBy: String {
        var terms = keys.map { "\($0.expression) \($0.ascending ? "ASC NULLS FIRST" : "DESC NULLS LAST")" }
        terms.append("\(Self.recordName) \(nameAscending ? "ASC" : "DESC")")
        return terms.joined(separator: ", ")
    }

    /// The column that gives a row's sort values, as a JSON array of their texts.
    var keysColumn: String {
        keys.isEmpty ? "'[]'" : "json_build_array(\(keys.map { "(\($0.expression))::text" }.joined(separator: ", ")))::text"
    }

    /// The sort values of a row, from `keysColumn`.
    static func keys(from json: String, count: Int) throws -> [String?] {
        if count == 0 { return [] }
        guard let values = try? JSONDecoder().decode([String?].self, from: Data(json.utf8)), values.count == count else {
            throw SyncError(.internalError, "A query row's sort values did not read back.")
        }
        return values
    }

    /// Whether a position's values read as the keys' kinds (a cursor from a zone whose field
    /// changed kind since, or one made up, does not).
    func accepts(_ position: QueryCursor.Position) -> Bool {
        guard position.keys.count == keys.count else { return false }
        for (key, value) in zip(keys, position.keys) {
            guard let value else { continue }
            let allowed: Set<Character>
            switch key.cast {
            case "::bigint", "::int":
                guard Int64(value) != nil else { return false }
                continue
            case "::uuid":
                guard UUID(uuidString: value) != nil else { return false }
                continue
            case "::float8":
                if ["Infinity", "-Infinity", "NaN"].contains(value) { continue }
                allowed = Set("0123456789.eE+-")
            case "::numeric":
                allowed = Set("0123456789.eE+-")
            default:
                continue
            }
            guard !value.isEmpty, value.allSatisfy(allowed.contains), Double(value) != nil else { return false }
        }
        return true
    }

    /// The rows after the position in this order.
    func after(_ position: QueryCursor.Position, bindings: inout PostgresBindings) -> String {
        var terms: [(expression: String, value: String?, ascending: Bool)] = []
        for (key, value) in zip(keys, position.keys) {
            var bound: String?
            if let value {
                bindings.append(value)
                bound = "$\(bindings.count)\(key.cast)"
            }
            terms.append((key.expression, bound, key.ascending))
        }
        bindings.append(position.recordName)
        terms.append((Self.recordName, "$\(bindings.count)", nameAscending))

        // All ascending and no nil among the values: one row comparison, which an index of
        // the same columns answers as a range.
        if terms.allSatisfy({ $0.ascending && $0.value != nil }) {
            let values = terms.compactMap(\.value)
            return "(\(terms.map(\.expression).joined(separator: ", "))) > (\(values.joined(separator: ", ")))"
        }
        var alternatives: [String] = []
        var equalSoFar: [String] = []
        for term in terms {
            let later: String
            switch (term.ascending, term.value) {
            case (true, nil): later = "\(term.expression) IS NOT NULL"
            case (true, let value?): later = "\(term.expression) > \(value)"
            case (false, nil): later = "false"
            case (false, let value?): later = "(\(term.expression) < \(value) OR \(term.expression) IS NULL)"
            }
            alternatives.append((equalSoFar + [later]).joined(separator: " AND "))
            equalSoFar.append(
                term.value.map { "\(term.expression) = \($0)" } ?? "\(term.expression) IS NULL")
        }
        return alternatives.map { "(\($0))" }.joined(separator: " OR ")
    }
}

/// A compiled query's statement: the zone's live records of the type that pass the condition,
/// after a position, in the order, a batch at a time.
struct QueryPlan {
    let zoneID: Int64
    let recordType: String
    let condition: QueryCompiler.Condition
    /// The condition's values ($1…).
    let bindings: PostgresBindings
    let order: QueryOrder
    /// The field an unsorted query is ordered by, for its cursor (`SyncStore.plan`).
    let walkedField: String?

    /// Rows a statement asks for when `wanted` more matches are needed: as many when SQL
    /// decides the predicate exactly, else a batch large enough for Swift to sift.
    func batchSize(wanting wanted: Int) -> Int { condition.isExact ? wanted : max(wanted, 1000) }

    func statement(after position: QueryCursor.Position?, limit: Int) -> PostgresQuery {
        var bindings = bindings
        let after = position.map { order.after($0, bindings: &bindings) } ?? "true"
        bindings.append(zoneID)
        let zone = bindings.count
        bindings.append(recordType)
        let type = bindings.count
        bindings.append(Int64(limit))
        return PostgresQuery(
            unsafeSQL: """
                SELECT record_type, record_name, fields::text, clocks::text, deleted, delete_clock, server_seq, changed_by,
                    \(order.keysColumn)
                FROM records WHERE zone_id = $\(zone) AND record_type = $\(type) AND NOT deleted
                AND (\(condition.text)) AND (\(after))
                ORDER BY \(order.orderBy) LIMIT $\(bindings.count)
                """, binds: bindings)
    }
}
