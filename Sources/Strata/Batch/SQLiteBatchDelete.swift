import Foundation
internal import GRDB

/// Batch delete in the SQLite store, set by set: the keys to delete go into a temporary table
/// per entity table; each cascade is one `INSERT … SELECT` from the related rows, repeated
/// until no new row joins; a deny rule is one `EXISTS` query; nullify is one `UPDATE` of the
/// foreign keys that point at deleted rows; join-table rows go with one `DELETE` per table;
/// each table's rows go with one `DELETE … WHERE Z_PK IN (…)`. All in one transaction; the
/// external files of the deleted rows are removed once it committed.
extension SQLiteStore {
    func batchDelete(_ plan: BatchDeletePlan) throws -> BatchOutcome {
        let (database, mapping) = try openDatabase()
        let files = SQLiteExternalStorage(directory: externalDataDirectory)
        let url = self.url ?? URL(fileURLWithPath: "/")
        if let fetch = plan.fetch, let entity = mapping.mapping(for: fetch.entity),
            !SQLiteBatchDeletion.hasRulesToApply(deleting: entity.table, mapping: mapping)
        {
            return try StoreFile.translatingSQLiteErrors(url) {
                try database.write { db in
                    try recordingBatchHistory(db, mapping: mapping, author: plan.author) {
                        try deleteAlone(fetch, entity: entity, mapping: mapping, plan: plan, db: db)
                    }
                }
            }
        }
        return try files.transaction {
            try StoreFile.translatingSQLiteErrors(url) {
                try database.write { db in
                    try recordingBatchHistory(db, mapping: mapping, author: plan.author) {
                        let deletion = try SQLiteBatchDeletion(store: self, mapping: mapping, db: db)
                        try deletion.select(plan)
                        try deletion.followCascades()
                        try deletion.checkDenyRules()
                        let outcome = try deletion.outcome(collectingIDs: plan.collectsIDs)
                        try deletion.nullifyReferences()
                        try deletion.noteFiles(files)
                        try deletion.deleteRows()
                        _ = AffectedRowLog.drain(db)
                        return outcome
                    }
                }
            }
        }
    }
}

extension SQLiteStore {
    /// A delete that touches no other row and no file: one `DELETE` of the rows the fetch
    /// selects, as a hand-written statement would be.
    fileprivate func deleteAlone(
        _ fetch: FetchPlan, entity: SQLiteEntityMapping, mapping: SQLiteStoreMapping, plan: BatchDeletePlan, db: Database
    ) throws -> BatchOutcome {
        var sql = "DELETE FROM \(entity.table) AS t0"
        var arguments: StatementArguments
        if fetch.limit > 0 || fetch.offset > 0 {
            let (from, selected) = try fromWhereSQL(plan: fetch, mapping: mapping, sorted: true)
            sql += " WHERE t0.Z_PK IN (SELECT t0.Z_PK \(from) LIMIT ? OFFSET ?)"
            arguments = selected
            arguments += [fetch.limit > 0 ? fetch.limit : -1, fetch.offset]
        } else {
            let (condition, values) = try batchCondition(fetch, entity: entity, mapping: mapping)
            if let condition { sql += " WHERE \(condition)" }
            arguments = StatementArguments(values: values)
        }
        var outcome = BatchOutcome()
        if plan.collectsIDs {
            let rows = try Row.fetchAll(db, sql: sql + " RETURNING Z_PK, Z_ENT", arguments: arguments)
            outcome.objectIDs = rows.map { row in
                objectID(entity: mapping.mapping(number: row[1], rowOf: entity).entity, primaryKey: row[0])
            }
            outcome.count = rows.count
        } else {
            try db.execute(sql: sql, arguments: arguments)
            outcome.count = db.changesCount
        }
        _ = AffectedRowLog.drain(db)
        return outcome
    }
}

/// One batch delete's transaction.
private final class SQLiteBatchDeletion {
    /// Whether deleting rows of the table needs the rows' sets: a cascade or deny rule from
    /// it, a nullify rule whose foreign keys are elsewhere, join-table rows or hidden columns
    /// that point at its rows, or files beside the store.
    static func hasRulesToApply(deleting table: String, mapping: SQLiteStoreMapping) -> Bool {
        for entity in mapping.schema.orderedEntities.compactMap({ mapping.mapping(for: $0) }) {
            if entity.table == table {
                if entity.hasExternalStorage { return true }
                for (index, storage) in entity.toMany {
                    guard let relationship = entity.entity.layout.properties[index] as? NSRelationshipDescription else {
                        continue
                    }
                    // Only a foreign key on the destination rows left as it is (no action) needs
                    // nothing; join rows, hidden columns and every other rule need the sets.
                    if case .inverseForeignKey = storage, relationship.deleteRule == .noActionDeleteRule { continue }
                    return true
                }
            }
            for column in entity.columns {
                guard case .toOne(let relationship, _) = column.binding else { continue }
                if entity.table == table,
                    relationship.deleteRule == .cascadeDeleteRule || relationship.deleteRule == .denyDeleteRule
                {
                    return true
                }
                guard let destination = relationship.destinationEntity.flatMap({ mapping.mapping(for: $0) }),
                    destination.table == table, relationship.inverseRelationship?.deleteRule == .nullifyDeleteRule
                else { continue }
                return true
            }
        }
        return false
    }

    /// One relationship of the rows of a table, as SQL giving `(s, k)` pairs: the key of a
    /// row in the table's deleted set and the key of a row it is related to.
    struct Edge {
        var relationship: NSRelationshipDescription
        var sourceTable: String
        var destinationTable: String
        var pairs: String
    }

    let store: SQLiteStore
    let mapping: SQLiteStoreMapping
    let db: Database
    /// Table → the first entity mapping of it (the hierarchy's root comes first).
    let tables: [String: SQLiteEntityMapping]
    let edges: [Edge]

    init(store: SQLiteStore, mapping: SQLiteStoreMapping, db: Database) throws {
        self.store = store
        self.mapping = mapping
        self.db = db
        let mappings = mapping.schema.orderedEntities.compactMap { mapping.mapping(for: $0) }
        var tables: [String: SQLiteEntityMapping] = [:]
        for entity in mappings where tables[entity.table] == nil { tables[entity.table] = entity }
        self.tables = tables
        var edges: [Edge] = []
        var seen = Set<String>()
        for entity in mappings {
            for edge in Self.edges(of: entity, mapping: mapping) where seen.insert(edge.pairs).inserted { edges.append(edge) }
        }
        self.edges = edges
        for table in tables.keys.sorted() {
            try db.execute(sql: "CREATE TEMP TABLE IF NOT EXISTS \(Self.deleted(table)) (Z_PK INTEGER PRIMARY KEY)")
            try db.execute(sql: "DELETE FROM \(Self.deleted(table))")
        }
    }

    /// The temporary table of a table's deleted keys.
    static func deleted(_ table: String) -> String { "temp.STRATA_BATCH_DELETE_\(table)" }

    private static func edges(of entity: SQLiteEntityMapping, mapping: SQLiteStoreMapping) -> [Edge] {
        let source = deleted(entity.table)
        var edges: [Edge] = []
        for column in entity.columns {
            guard case .toOne(let relationship, _) = column.binding,
                let destination = relationship.destinationEntity.flatMap({ mapping.mapping(for: $0) })
            else { continue }
            let pairs = """
                SELECT r.Z_PK AS s, r.\(column.name) AS k FROM \(entity.table) r \
                WHERE r.Z_PK IN (SELECT Z_PK FROM \(source)) AND r.\(column.name) IS NOT NULL
                """
            edges.append(
                Edge(relationship: relationship, sourceTable: entity.table, destinationTable: destination.table, pairs: pairs))
        }
        for (index, storage) in entity.toMany {
            guard let relationship = entity.entity.layout.properties[index] as? NSRelationshipDescription,
                let destination = relationship.destinationEntity.flatMap({ mapping.mapping(for: $0) })
            else { continue }
            let pairs: String
            switch storage {
            case .joinTable(let table, let selfColumn, let otherColumn, _):
                pairs =
                    "SELECT j.\(selfColumn) AS s, j.\(otherColumn) AS k FROM \(table) j WHERE j.\(selfColumn) IN (SELECT Z_PK FROM \(source))"
            case .inverseForeignKey(let column, _), .hiddenColumn(let column):
                pairs =
                    "SELECT d.\(column) AS s, d.Z_PK AS k FROM \(destination.table) d WHERE d.\(column) IN (SELECT Z_PK FROM \(source))"
            }
            edges.append(
                Edge(relationship: relationship, sourceTable: entity.table, destinationTable: destination.table, pairs: pairs))
        }
        return edges
    }

    /// Puts the requested rows in the deleted sets.
    func select(_ plan: BatchDeletePlan) throws {
        if let fetch = plan.fetch {
            guard let root = mapping.mapping(for: fetch.entity) else { return }
            var (from, arguments) = try store.fromWhereSQL(plan: fetch, mapping: mapping, sorted: true)
            var sql = "INSERT OR IGNORE INTO \(Self.deleted(root.table)) SELECT t0.Z_PK \(from)"
            if fetch.limit > 0 || fetch.offset > 0 {
                sql += " LIMIT ? OFFSET ?"
                arguments += [fetch.limit > 0 ? fetch.limit : -1, fetch.offset]
            }
            try db.execute(sql: sql, arguments: arguments)
            return
        }
        for id in plan.objectIDs {
            guard let entity = mapping.mapping(for: id.entity) else { continue }
            try db.cachedStatement(sql: "INSERT OR IGNORE INTO \(Self.deleted(entity.table)) VALUES (?)")
                .execute(arguments: [id.primaryKey])
        }
    }

    /// Adds the rows cascades reach, pass after pass, until a pass adds none.
    func followCascades() throws {
        let cascades = edges.filter { $0.relationship.deleteRule == .cascadeDeleteRule }
        var added = !cascades.isEmpty
        while added {
            added = false
            for edge in cascades {
                try db.execute(
                    sql: "INSERT OR IGNORE INTO \(Self.deleted(edge.destinationTable)) SELECT k FROM (\(edge.pairs))")
                if db.changesCount > 0 { added = true }
            }
        }
    }

    /// Throws when a deleted row has a deny relationship to a row that stays.
    func checkDenyRules() throws {
        for edge in edges where edge.relationship.deleteRule == .denyDeleteRule {
            let sql = """
                SELECT p.s FROM (\(edge.pairs)) p JOIN \(edge.destinationTable) d ON d.Z_PK = p.k \
                WHERE p.k NOT IN (SELECT Z_PK FROM \(Self.deleted(edge.destinationTable))) LIMIT 1
                """
            guard let key = try Int64.fetchOne(db, sql: sql), let entity = edge.relationship.entity else { continue }
            throw BatchError.denied(edge.relationship, of: store.objectID(entity: entity, primaryKey: key))
        }
    }

    /// The number of rows to delete and, when asked, their IDs.
    func outcome(collectingIDs: Bool) throws -> BatchOutcome {
        var outcome = BatchOutcome()
        for (table, root) in tables.sorted(by: { $0.key < $1.key }) {
            let filter = "Z_PK IN (SELECT Z_PK FROM \(Self.deleted(table)))"
            if collectingIDs {
                for row in try Row.fetchAll(db, sql: "SELECT Z_PK, Z_ENT FROM \(table) WHERE \(filter)") {
                    let entity = mapping.mapping(number: row[1], rowOf: root).entity
                    outcome.objectIDs.append(store.objectID(entity: entity, primaryKey: row[0]))
                }
                outcome.count = outcome.objectIDs.count
            } else {
                outcome.count += try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table) WHERE \(filter)") ?? 0
            }
        }
        return outcome
    }

    /// Clears what points at deleted rows from rows that stay: to-one foreign keys whose
    /// inverse has the nullify rule (a cascade or deny inverse leaves no such row behind),
    /// hidden columns of to-many relationships without inverse, and every join-table row of
    /// a deleted row.
    func nullifyReferences() throws {
        var done = Set<String>()
        for table in tables.keys.sorted() {
            for entity in mapping.schema.orderedEntities.compactMap({ mapping.mapping(for: $0) }) where entity.table == table {
                for column in entity.columns {
                    guard case .toOne(let relationship, let entityColumn) = column.binding,
                        let inverse = relationship.inverseRelationship, inverse.deleteRule == .nullifyDeleteRule,
                        let destination = relationship.destinationEntity.flatMap({ mapping.mapping(for: $0) }),
                        done.insert("\(table).\(column.name)").inserted
                    else { continue }
                    let assignments = ([column.name] + (entityColumn.map { [$0] } ?? [])).map { "\($0) = NULL" }
                    try db.execute(
                        sql: "UPDATE \(table) SET \(assignments.joined(separator: ", ")) "
                            + "WHERE \(column.name) IN (SELECT Z_PK FROM \(Self.deleted(destination.table)))")
                }
                for (index, storage) in entity.toMany {
                    guard let relationship = entity.entity.layout.properties[index] as? NSRelationshipDescription,
                        let destination = relationship.destinationEntity.flatMap({ mapping.mapping(for: $0) })
                    else { continue }
                    switch storage {
                    case .joinTable(let joinTable, let selfColumn, _, _) where done.insert("\(joinTable).\(selfColumn)").inserted:
                        try db.execute(
                            sql: "DELETE FROM \(joinTable) WHERE \(selfColumn) IN (SELECT Z_PK FROM \(Self.deleted(table)))")
                    case .hiddenColumn(let column) where done.insert("\(destination.table).\(column)").inserted:
                        try db.execute(
                            sql: "UPDATE \(destination.table) SET \(column) = NULL "
                                + "WHERE \(column) IN (SELECT Z_PK FROM \(Self.deleted(table)))")
                    default:
                        continue
                    }
                }
            }
        }
    }

    /// Notes the external files of the deleted rows, removed after the commit.
    func noteFiles(_ files: SQLiteExternalStorage) throws {
        for entity in mapping.schema.orderedEntities.compactMap({ mapping.mapping(for: $0) }) where entity.hasExternalStorage {
            let keys = try Int64.fetchAll(db, sql: "SELECT Z_PK FROM \(Self.deleted(entity.table))")
            for key in keys { try files.noteReplacedFiles(ofRow: key, in: entity, changed: nil, db: db) }
        }
    }

    /// Deletes the rows of every deleted set, and the temporary tables.
    func deleteRows() throws {
        for table in tables.keys.sorted() {
            try db.execute(sql: "DELETE FROM \(table) WHERE Z_PK IN (SELECT Z_PK FROM \(Self.deleted(table)))")
            try db.execute(sql: "DROP TABLE \(Self.deleted(table))")
        }
    }
}
