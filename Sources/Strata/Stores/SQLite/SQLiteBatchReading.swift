import Foundation
internal import GRDB

/// Reading many rows in one query: the batches of a batched fetch and prefetched
/// relationships. Keys go in bound parameters, a few hundred per statement.
extension SQLiteStore {
    private static let chunk = 500

    func sqliteSnapshots(for objectIDs: [NSManagedObjectID]) throws -> [Snapshot] {
        let (database, mapping) = try openDatabase()
        let byTable = Dictionary(grouping: objectIDs.filter { !$0.isTemporaryID }) {
            mapping.mapping(for: $0.entity)?.table ?? ""
        }
        return try database.read { db in
            var snapshots: [Snapshot] = []
            for (_, ids) in byTable {
                guard let expected = ids.first.flatMap({ mapping.mapping(for: $0.entity) }) else { continue }
                let columns = mapping.selectColumns[expected.table] ?? ["Z_PK", "Z_ENT", "Z_OPT"]
                for start in stride(from: 0, to: ids.count, by: Self.chunk) {
                    let part = ids[start..<min(ids.count, start + Self.chunk)]
                    let marks = Array(repeating: "?", count: part.count).joined(separator: ", ")
                    let sql = "SELECT \(columns.joined(separator: ", ")) FROM \(expected.table) WHERE Z_PK IN (\(marks))"
                    let rows = try Row.fetchCursor(db, sql: sql, arguments: StatementArguments(part.map(\.primaryKey)))
                    while let row = try rows.next() { snapshots.append(decode(row, mapping: mapping, expected: expected)) }
                }
            }
            return snapshots
        }
    }

    func sqliteRelatedObjectIDs(
        of objectIDs: [NSManagedObjectID], relationship: NSRelationshipDescription
    ) throws -> [NSManagedObjectID: [NSManagedObjectID]] {
        let (database, mapping) = try openDatabase()
        let saved = objectIDs.filter { !$0.isTemporaryID }
        guard let first = saved.first, let source = mapping.mapping(for: first.entity),
            let index = first.entity.layout.indexByName[relationship.name], let storage = source.toMany[index],
            let destination = relationship.destinationEntity.flatMap({ mapping.mapping(for: $0) })
        else { return [:] }
        let byKey = Dictionary(saved.map { ($0.primaryKey, $0) }, uniquingKeysWith: { a, _ in a })
        var result: [NSManagedObjectID: [NSManagedObjectID]] = Dictionary(uniqueKeysWithValues: saved.map { ($0, []) })
        try database.read { db in
            for start in stride(from: 0, to: saved.count, by: Self.chunk) {
                let part = saved[start..<min(saved.count, start + Self.chunk)]
                let marks = Array(repeating: "?", count: part.count).joined(separator: ", ")
                let sql: String
                switch storage {
                case .joinTable(let table, let selfColumn, let otherColumn, let orderColumn):
                    sql = """
                        SELECT j.\(selfColumn), d.Z_PK, d.Z_ENT FROM \(table) j JOIN \(destination.table) d \
                        ON d.Z_PK = j.\(otherColumn) WHERE j.\(selfColumn) IN (\(marks)) \
                        ORDER BY j.\(selfColumn)\(orderColumn.map { ", j.\($0)" } ?? ""), d.Z_PK
                        """
                case .inverseForeignKey(let column, let orderColumn):
                    sql = """
                        SELECT \(column), Z_PK, Z_ENT FROM \(destination.table) WHERE \(column) IN (\(marks)) \
                        ORDER BY \(column)\(orderColumn.map { ", \($0)" } ?? ""), Z_PK
                        """
                case .hiddenColumn(let column):
                    sql = "SELECT \(column), Z_PK, Z_ENT FROM \(destination.table) WHERE \(column) IN (\(marks)) ORDER BY Z_PK"
                }
                let rows = try Row.fetchCursor(db, sql: sql, arguments: StatementArguments(part.map(\.primaryKey)))
                while let row = try rows.next() {
                    guard let owner = byKey[row[0]] else { continue }
                    let entity = mapping.mapping(number: row[2], rowOf: destination).entity
                    result[owner, default: []].append(objectID(entity: entity, primaryKey: row[1]))
                }
            }
        }
        return result
    }
}
