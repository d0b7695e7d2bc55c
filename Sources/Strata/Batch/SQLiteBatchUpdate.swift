import Foundation
internal import GRDB

/// Batch update in the SQLite store: one `UPDATE <table> AS t0 SET … , Z_OPT = Z_OPT + 1
/// WHERE …` for the whole request. Constants are bound once; expressions are compiled to SQL
/// by the fetch compiler, with the updated row as `t0`, so SQLite computes each row's value.
/// Values read through to-one relationships come from a second copy of the row joined to its
/// destinations (`UPDATE <table> AS u0 SET … FROM <table> t0 LEFT JOIN … WHERE t0.Z_PK =
/// u0.Z_PK`). A binary constant for an attribute with external storage that is large enough
/// for a file gets a file of its own for each row, as saves write them. The derived-attribute
/// triggers run as for any write.
extension SQLiteStore {
    func batchUpdate(_ plan: BatchUpdatePlan) throws -> BatchOutcome {
        let (database, mapping) = try openDatabase()
        guard let entity = mapping.mapping(for: plan.fetch.entity) else {
            throw CoreDataError.make(NSCoreDataError, "Entity \(plan.fetch.entity.name ?? "?") is not in the store's model.")
        }
        let files = SQLiteExternalStorage(directory: externalDataDirectory)
        let set = try setClause(plan, entity: entity, mapping: mapping, files: files)
        let (condition, conditionArguments) = try batchCondition(plan.fetch, entity: entity, mapping: mapping)
        var sql: String
        if set.joins.isEmpty {
            sql = "UPDATE \(entity.table) AS t0 SET \(set.assignments.sql), Z_OPT = Z_OPT + 1"
            if let condition { sql += " WHERE \(condition)" }
        } else {
            sql = "UPDATE \(entity.table) AS u0 SET \(set.assignments.sql), Z_OPT = u0.Z_OPT + 1"
            sql += " FROM \(entity.table) t0 \(set.joins.joined(separator: " ")) WHERE t0.Z_PK = u0.Z_PK"
            if let condition { sql += " AND \(condition)" }
        }
        let needsKeys = plan.collectsIDs || !set.fileValues.isEmpty
        // RETURNING reads the updated row (it cannot name an alias).
        if needsKeys { sql += " RETURNING Z_PK, Z_ENT" }
        let arguments = StatementArguments(values: set.assignments.arguments + conditionArguments)
        let externalColumns = plan.assignments.contains { SQLiteExternalStorage.usesFiles($0.attribute) }
        let url = self.url ?? URL(fileURLWithPath: "/")
        return try files.transaction {
            try StoreFile.translatingSQLiteErrors(url) {
                try database.write { db in
                    let names = plan.assignments.map(\.attribute.name)
                    let updated: (NSEntityDescription) -> [Int]? = { entity in names.compactMap { entity.layout.indexByName[$0] }
                    }
                    return try recordingBatchHistory(db, mapping: mapping, author: plan.author, updated: updated) {
                        if externalColumns {
                            // The files of the values being replaced go once the update committed.
                            let keys = try Int64.fetchAll(
                                db, sql: "SELECT t0.Z_PK FROM \(entity.table) AS t0\(condition.map { " WHERE \($0)" } ?? "")",
                                arguments: StatementArguments(values: conditionArguments))
                            let changed = plan.assignments.map(\.index)
                            for key in keys { try files.noteReplacedFiles(ofRow: key, in: entity, changed: changed, db: db) }
                        }
                        var outcome = BatchOutcome()
                        if needsKeys {
                            let rows = try Row.fetchAll(db, sql: sql, arguments: arguments)
                            try writeFiles(set.fileValues, toRows: rows.map { $0[0] }, of: entity, files: files, db: db)
                            if plan.collectsIDs {
                                outcome.objectIDs = rows.map { row in
                                    let rowEntity = mapping.mapping(number: row[1], rowOf: entity).entity
                                    return objectID(entity: rowEntity, primaryKey: row[0])
                                }
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
            }
        }
    }

    /// The columns of a batch update and what they are set to.
    private struct SetClause {
        /// `column = value, …` for the values one statement sets in every row.
        var assignments: SQLFragment
        /// The `LEFT JOIN`s the values' key paths through to-one relationships need.
        var joins: [String]
        /// Binary values that go to a file of each row's own (column, data).
        var fileValues: [(column: String, data: Data)]
    }

    /// `column = value, …`: constants as parameters, expressions as SQL over `t0`.
    private func setClause(
        _ plan: BatchUpdatePlan, entity: SQLiteEntityMapping, mapping: SQLiteStoreMapping, files: SQLiteExternalStorage
    ) throws -> SetClause {
        let builder = SQLiteQueryBuilder(entity: plan.fetch.entity, mapping: mapping, now: Date())
        var parts: [SQLFragment] = []
        var fileValues: [(column: String, data: Data)] = []
        for assignment in plan.assignments {
            if let composite = assignment.attribute as? NSCompositeAttributeDescription {
                // A dictionary of the elements' values: each leaf's column set to its value.
                guard case .constant(let constant) = assignment.value else {
                    throw BatchError.invalidValue(
                        nil, key: composite.name, entity: plan.fetch.entity,
                        reason: "is a composite attribute, which a batch update sets to a dictionary of its elements' values")
                }
                for column in entity.columns where column.index == assignment.index {
                    guard case .compositeLeaf(_, let leaf) = column.binding else { continue }
                    let encoded = try SQLiteValueCodec.encode(
                        CompositeValues.value(at: leaf.path, in: constant), attribute: leaf.attribute)
                    parts.append(SQLFragment(sql: "\(column.name) = ?", arguments: [encoded]))
                }
                continue
            }
            guard let column = entity.columns.first(where: { $0.index == assignment.index }) else {
                throw BatchError.invalidValue(
                    nil, key: assignment.attribute.name, entity: plan.fetch.entity, reason: "has no column in the store")
            }
            let external = SQLiteExternalStorage.usesFiles(assignment.attribute)
            let value: SQLFragment
            switch assignment.value {
            case .constant(let constant):
                if external, files.directory != nil, let data = constant as? Data, data.count > SQLiteExternalStorage.threshold {
                    // Each row gets its own file: deleting one row must not take another's value.
                    fileValues.append((column.name, data))
                    parts.append(SQLFragment(sql: "\(column.name) = NULL", arguments: []))
                    continue
                }
                let encoded = try SQLiteValueCodec.encode(constant, attribute: assignment.attribute, external: files)
                value = SQLFragment(sql: "?", arguments: [encoded])
            case .expression(let expression):
                guard !external else {
                    // A computed value would be written without the marker byte that tells an
                    // inline value from a file's name.
                    throw BatchError.unsupported(
                        "A batch update can set the externally stored attribute \(assignment.attribute.name) to a constant only, not to an expression."
                    )
                }
                let operand = try builder.operand(expression, scope: builder.root)
                value = try builder.scalar(operand, hint: assignment.attribute, label: "propertiesToUpdate")
            }
            parts.append(SQLFragment(sql: "\(column.name) = \(value.sql)", arguments: value.arguments))
        }
        return SetClause(
            assignments: SQLFragment.joined(parts, separator: ", "), joins: builder.root.joins, fileValues: fileValues)
    }

    /// Writes each external binary value to a new file per row and its marker into the row.
    private func writeFiles(
        _ values: [(column: String, data: Data)], toRows keys: [Int64], of entity: SQLiteEntityMapping,
        files: SQLiteExternalStorage, db: Database
    ) throws {
        for (column, data) in values {
            let statement = try db.makeStatement(sql: "UPDATE \(entity.table) SET \(column) = ? WHERE Z_PK = ?")
            for key in keys {
                try statement.execute(arguments: [try files.columnValue(for: data), key])
            }
        }
    }

    /// The rows a batch update or delete changes: the entity filter and the predicate,
    /// directly on `t0` when the predicate needs no join, else as the keys a fetch of the plan
    /// selects.
    func batchCondition(
        _ fetch: FetchPlan, entity: SQLiteEntityMapping, mapping: SQLiteStoreMapping
    ) throws -> (String?, [DatabaseValue]) {
        let query = try SQLitePredicateCompiler.compile(
            predicate: fetch.predicate, sortKeys: [], entity: fetch.entity, mapping: mapping)
        var conditions: [String] = []
        if let filter = entityFilter(fetch, mapping: mapping) { conditions.append("t0." + filter) }
        if let clause = query.whereClause { conditions.append("(\(clause))") }
        if !query.joins.isEmpty {
            // The subquery's own `t0` hides the updated row's inside it.
            let inner = "SELECT t0.Z_PK FROM \(entity.table) t0 \(query.joins.joined(separator: " "))"
            return ("t0.Z_PK IN (\(inner) WHERE \(conditions.joined(separator: " AND ")))", query.arguments)
        }
        return (conditions.isEmpty ? nil : conditions.joined(separator: " AND "), query.arguments)
    }
}
