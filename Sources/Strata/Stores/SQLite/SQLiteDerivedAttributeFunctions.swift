import Foundation
internal import GRDB

/// The SQL functions the `Z_DA_` triggers call, registered on every connection of a SQLite
/// store. They carry the names Apple's Core Data registers, so that a store written here
/// also works when Apple's framework writes to it, and the other way round.
///
/// The two callbacks tell which rows the triggers changed: Core Data updates its row cache
/// from them. Strata records them per connection, and at the end of a save reads those rows
/// again (`refreshDerivedValues`), so that the coordinator's cache holds the values the
/// store computed while the saved objects themselves stay stale until refreshed, as in
/// Core Data.
enum SQLiteDerivedAttributeFunctions {
    static let updatedCallback = "NSCoreDataDATriggerUpdatedAffectedObjectValue"
    static let insertedCallback = "NSCoreDataDATriggerInsertUpdatedAffectedObjectValue"
    /// `NSCoreDataNow()`: the time, as seconds since 2001-01-01 (Core Data's date column).
    static let now = "NSCoreDataNow"

    /// The SQL function of a derivation's string function (`uppercase:` and so on).
    static func sqlName(of function: String) -> String? {
        switch function {
        case "uppercase:": "NSCoreDataToUpper"
        case "lowercase:": "NSCoreDataToLower"
        case "canonical:": "NSCoreDataCanonical"
        default: nil
        }
    }

    /// The string functions of derivations, as the in-memory stores compute them too.
    static func apply(_ function: String, to text: String) -> String {
        switch function {
        case "uppercase:": text.uppercased()
        case "lowercase:": text.lowercased()
        case "canonical:": PredicateStringMatching.fold(text, [.caseInsensitive, .diacriticInsensitive])
        default: text
        }
    }

    /// Adds the functions to a connection. The callbacks take precedence over the no-op,
    /// any-argument versions `SQLiteFunctions` registers: SQLite prefers an exact argument count.
    static func register(in db: Database) {
        let log = AffectedRowLog.start(for: db)
        for name in [updatedCallback, insertedCallback] {
            db.add(
                function: DatabaseFunction(name, argumentCount: 5, pure: false) { values in
                    log.record(table: String.fromDatabaseValue(values[0]), key: Int64.fromDatabaseValue(values[2]))
                    return nil
                })
        }
        for function in ["uppercase:", "lowercase:", "canonical:"] {
            guard let name = sqlName(of: function) else { continue }
            db.add(
                function: DatabaseFunction(name, argumentCount: 1, pure: true) { values in
                    // Strings are transformed; NULL and other values pass unchanged.
                    guard let text = String.fromDatabaseValue(values[0]), case .string = values[0].storage else {
                        return values[0]
                    }
                    return apply(function, to: text)
                })
        }
        db.add(
            function: DatabaseFunction(now, argumentCount: 0, pure: false) { _ in
                Date().timeIntervalSinceReferenceDate
            })
    }
}

/// The rows a connection's triggers reported changing since the last save read them.
final class AffectedRowLog: @unchecked Sendable {
    struct Row: Hashable {
        var table: String
        var key: Int64
    }

    /// A connection that is never drained (one opened outside a store) stops recording here.
    private static let limit = 100_000
    private static let logs = Protected([ObjectIdentifier: AffectedRowLog]())
    private let rows = Protected(Set<Row>())
    /// The connection, to forget the log once the connection is gone.
    private weak var connection: Database?

    /// A new, empty log for the connection, replacing any earlier one.
    static func start(for db: Database) -> AffectedRowLog {
        let log = AffectedRowLog()
        log.connection = db
        logs.withLock { logs in
            logs = logs.filter { $0.value.connection != nil }
            logs[ObjectIdentifier(db)] = log
        }
        return log
    }

    /// The rows recorded on the connection, which are then forgotten.
    static func drain(_ db: Database) -> Set<Row> {
        guard let log = logs.withLock({ $0[ObjectIdentifier(db)] }) else { return [] }
        return log.rows.withLock { rows in
            defer { rows.removeAll() }
            return rows
        }
    }

    func record(table: String?, key: Int64?) {
        guard let table, let key else { return }
        rows.withLock { rows in
            if rows.count < Self.limit { rows.insert(Row(table: table, key: key)) }
        }
    }
}

extension SQLiteStore {
    /// Reads again, at the end of a save's transaction, the rows whose derived values its
    /// triggers changed: saved rows get the computed values in their new snapshots, other
    /// rows (a book whose page was added) a fresh snapshot. The coordinator drops them all from
    /// its row cache, so that a fault or a refresh reads the values the store computed.
    func refreshDerivedValues(_ result: inout StoreSaveResult, db: Database, mapping: SQLiteStoreMapping) throws {
        let affected = AffectedRowLog.drain(db)
        guard !affected.isEmpty else { return }
        var fresh: [Snapshot] = []
        for (table, rows) in Dictionary(grouping: affected, by: \.table) {
            guard let columns = mapping.selectColumns[table],
                let expected = mapping.schema.orderedEntities.lazy.compactMap({ mapping.mapping(for: $0) })
                    .first(where: { $0.table == table })
            else { continue }
            let keys = rows.map(\.key).sorted()
            for start in stride(from: 0, to: keys.count, by: 500) {
                let chunk = Array(keys[start..<min(start + 500, keys.count)])
                let sql =
                    "SELECT \(columns.joined(separator: ", ")) FROM \(table) "
                    + "WHERE Z_PK IN (\(chunk.map { _ in "?" }.joined(separator: ", ")))"
                for row in try Row.fetchAll(db, sql: sql, arguments: StatementArguments(keys: chunk)) {
                    fresh.append(decode(row, mapping: mapping, expected: expected))
                }
            }
        }
        result.replaceRows(fresh, combine: Self.merging)
    }

    /// A saved row's snapshot with the derived values of the row read back; the row read
    /// back itself when the save did not write it.
    private static func merging(_ fresh: Snapshot, into saved: Snapshot?) -> Snapshot {
        guard let saved, saved.values.count == fresh.values.count else { return fresh }
        var values = saved.values
        for (index, property) in fresh.objectID.entity.layout.properties.enumerated()
        where property is NSDerivedAttributeDescription {
            values[index] = fresh.values[index]
        }
        return Snapshot(objectID: saved.objectID, version: saved.version, values: values)
    }
}
