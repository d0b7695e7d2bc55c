import Foundation
internal import GRDB
internal import GRDBSQLite

/// Reading many rows in one query: the batches of a batched fetch and prefetched
/// relationships. Keys go in bound parameters, a few hundred per statement.
extension SQLiteStore {
    private static let chunk = 500

    /// The keys as a closed range, when they are its every value, each once, in increasing order.
    static func consecutiveRange(_ keys: [Int64]) -> ClosedRange<Int64>? {
        guard let first = keys.first, let last = keys.last, keys.count > 1 else { return nil }
        var expected = first
        for key in keys {
            guard key == expected else { return nil }
            expected &+= 1
        }
        return first...last
    }

    func sqliteSnapshots(for objectIDs: [NSManagedObjectID]) throws -> [Snapshot] {
        let (database, mapping) = try readDatabase()
        let byTable = Self.groupedByTable(objectIDs.filter { !$0.isTemporaryID }, mapping: mapping)
        let read = { [self] (db: Database) throws -> [Snapshot] in
            var snapshots: [Snapshot] = []
            for (_, ids) in byTable {
                guard let expected = ids.first.flatMap({ mapping.mapping(for: $0.entity) }) else { continue }
                let columns = mapping.selectColumns[expected.table] ?? ["Z_PK", "Z_ENT", "Z_OPT"]
                let select = "SELECT \(columns.joined(separator: ", ")) FROM \(expected.table) WHERE Z_PK"
                for start in stride(from: 0, to: ids.count, by: Self.chunk) {
                    let part = ids[start..<min(ids.count, start + Self.chunk)]
                    let keys = part.map(\.primaryKey)
                    let decoder = SQLiteRowDecoder(store: self, mapping: mapping, expected: expected)
                    // The rows come in key order: they take the IDs asked for, not new ones.
                    decoder.reuse(
                        keys.indices.dropFirst().allSatisfy { keys[$0 - 1] <= keys[$0] }
                            ? Array(part) : part.sorted { $0.primaryKey < $1.primaryKey })
                    // Keys that run without a gap (the batches of a fetch in key order) are one
                    // range of the table: the same rows as `IN (…)`, read without binding and
                    // looking up each key.
                    let (sql, arguments): (String, [DatabaseValue]) =
                        if let range = Self.consecutiveRange(keys) {
                            ("\(select) BETWEEN ? AND ?", [range.lowerBound.databaseValue, range.upperBound.databaseValue])
                        } else {
                            (
                                "\(select) IN (\(Array(repeating: "?", count: keys.count).joined(separator: ", ")))",
                                keys.map { $0.databaseValue }
                            )
                        }
                    snapshots += try readRows(db, sql: sql, arguments: arguments) { decoder.decode($0) }
                }
            }
            return snapshots
        }
        // One statement (a batch of a batched fetch) needs no transaction around it.
        let single = byTable.count == 1 && (byTable.first?.value.count ?? 0) <= Self.chunk
        return try single ? readOneStatement(database, read) : database.read(read)
    }

    /// The IDs by the table of their entity. IDs of one entity (a batch of a batched fetch)
    /// are one group, found without hashing the table's name for each ID (640 instructions an
    /// ID of such a batch).
    static func groupedByTable(
        _ objectIDs: [NSManagedObjectID], mapping: SQLiteStoreMapping
    ) -> [String: [NSManagedObjectID]] {
        guard let entity = objectIDs.first?.entity else { return [:] }
        if objectIDs.allSatisfy({ $0.entity === entity }) {
            return [mapping.mapping(for: entity)?.table ?? "": objectIDs]
        }
        return Dictionary(grouping: objectIDs) { mapping.mapping(for: $0.entity)?.table ?? "" }
    }

    func sqliteRelatedObjectIDs(
        of objectIDs: [NSManagedObjectID], relationship: NSRelationshipDescription
    ) throws -> [NSManagedObjectID: [NSManagedObjectID]] {
        try sqliteRelatedSnapshots(of: objectIDs, relationship: relationship).mapValues { $0.map(\.objectID) }
    }

    /// The destination rows of a to-many relationship of several objects, each object's in
    /// the relationship's order: prefetching reads IDs and values in one query per chunk.
    func sqliteRelatedSnapshots(
        of objectIDs: [NSManagedObjectID], relationship: NSRelationshipDescription
    ) throws -> [NSManagedObjectID: [Snapshot]] {
        let (database, mapping) = try readDatabase()
        let saved = objectIDs.filter { !$0.isTemporaryID }
        guard let first = saved.first, let source = mapping.mapping(for: first.entity),
            let index = first.entity.layout.indexByName[relationship.name], let storage = source.toMany[index],
            let destination = relationship.destinationEntity.flatMap({ mapping.mapping(for: $0) })
        else { return [:] }
        let byKey = Dictionary(saved.map { ($0.primaryKey, $0) }, uniquingKeysWith: { a, _ in a })
        var result: [NSManagedObjectID: [Snapshot]] = Dictionary(uniqueKeysWithValues: saved.map { ($0, []) })
        // The owner's key first, then the destination's columns as `decodeRow` reads them.
        let columns = (mapping.selectColumns[destination.table] ?? ["Z_PK", "Z_ENT", "Z_OPT"])
            .map { "d.\($0)" }.joined(separator: ", ")
        try database.read { db in
            for start in stride(from: 0, to: saved.count, by: Self.chunk) {
                let part = saved[start..<min(saved.count, start + Self.chunk)]
                let marks = Array(repeating: "?", count: part.count).joined(separator: ", ")
                let owner: String
                let sql: String
                switch storage {
                case .joinTable(let table, let selfColumn, let otherColumn, let orderColumn):
                    owner = "j.\(selfColumn)"
                    sql = """
                        SELECT \(columns), \(owner) FROM \(table) j JOIN \(destination.table) d \
                        ON d.Z_PK = j.\(otherColumn) WHERE \(owner) IN (\(marks)) \
                        ORDER BY \(owner)\(orderColumn.map { ", j.\($0)" } ?? ""), d.Z_PK
                        """
                case .inverseForeignKey(let column, let orderColumn):
                    owner = "d.\(column)"
                    sql = """
                        SELECT \(columns), \(owner) FROM \(destination.table) d WHERE \(owner) IN (\(marks)) \
                        ORDER BY \(owner)\(orderColumn.map { ", d.\($0)" } ?? ""), d.Z_PK
                        """
                case .hiddenColumn(let column):
                    owner = "d.\(column)"
                    sql = """
                        SELECT \(columns), \(owner) FROM \(destination.table) d WHERE \(owner) IN (\(marks)) \
                        ORDER BY d.Z_PK
                        """
                }
                let decoder = SQLiteRowDecoder(store: self, mapping: mapping, expected: destination)
                let rows = try readRows(db, sql: sql, arguments: part.map { $0.primaryKey.databaseValue }) { statement in
                    let last = sqlite3_column_count(statement) - 1
                    return (sqlite3_column_int64(statement, last), decoder.decode(statement))
                }
                // Rows mostly come ordered by owner (not those of a hidden column, ordered by
                // key): each run of one owner's rows is added at once.
                rows.forEachRun(where: { $0.0 == $1.0 }) { run in
                    guard let key = run.first?.0, let owner = byKey[key] else { return }
                    result[owner, default: []] += run.map(\.1)
                }
            }
        }
        return result
    }
}
