import Foundation
internal import GRDB

/// Batch update in the SQLite store: one `UPDATE <table> AS t0 SET … , Z_OPT = Z_OPT + 1
/// WHERE …` for the whole request. Constants are bound once; expressions are compiled to SQL
/// by the fetch compiler, with the updated row as `t0`, so SQLite computes each row's value.
/// The derived-attribute triggers run as for any write.
extension SQLiteStore {
    func batchUpdate(_ plan: BatchUpdatePlan) throws -> BatchOutcome {
        let (database, mapping) = try openDatabase()
        guard let entity = mapping.mapping(for: plan.fetch.entity) else {
            throw CoreDataError.make(NSCoreDataError, "Entity \(plan.fetch.entity.name ?? "?") is not in the store's model.")
        }
        let assignments = try setClause(plan, entity: entity, mapping: mapping)
        let (condition, conditionArguments) = try batchCondition(plan.fetch, entity: entity, mapping: mapping)
        var sql = "UPDATE \(entity.table) AS t0 SET \(assignments.sql), Z_OPT = Z_OPT + 1"
        if let condition { sql += " WHERE \(condition)" }
        if plan.collectsIDs { sql += " RETURNING Z_PK, Z_ENT" }
        let arguments = StatementArguments(values: assignments.arguments + conditionArguments)
        let externalColumns = plan.assignments.contains { SQLiteExternalStorage.usesFiles($0.attribute) }
        let files = SQLiteExternalStorage(directory: externalDataDirectory)
        let url = self.url ?? URL(fileURLWithPath: "/")
        return try files.transaction {
            try StoreFile.translatingSQLiteErrors(url) {
                try database.write { db in
                    if externalColumns {
                        // The files of the values being replaced go once the update committed.
                        let keys = try Int64.fetchAll(
                            db, sql: "SELECT t0.Z_PK FROM \(entity.table) AS t0\(condition.map { " WHERE \($0)" } ?? "")",
                            arguments: StatementArguments(values: conditionArguments))
                        let changed = plan.assignments.map(\.index)
                        for key in keys { try files.noteReplacedFiles(ofRow: key, in: entity, changed: changed, db: db) }
                    }
                    var outcome = BatchOutcome()
                    if plan.collectsIDs {
                        let rows = try Row.fetchAll(db, sql: sql, arguments: arguments)
                        outcome.objectIDs = rows.map { row in
                            let rowEntity = mapping.mapping(number: row[1], rowOf: entity).entity
                            return objectID(entity: rowEntity, primaryKey: row[0])
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

    /// `column = value, …`: constants as parameters, expressions as SQL over `t0`.
    private func setClause(
        _ plan: BatchUpdatePlan, entity: SQLiteEntityMapping, mapping: SQLiteStoreMapping
    ) throws -> SQLFragment {
        let builder = SQLiteQueryBuilder(entity: plan.fetch.entity, mapping: mapping, now: Date())
        var parts: [SQLFragment] = []
        for assignment in plan.assignments {
            guard let column = entity.columns.first(where: { $0.index == assignment.index }) else {
                throw BatchError.invalidValue(
                    nil, key: assignment.attribute.name, entity: plan.fetch.entity, reason: "has no column in the store")
            }
            let value: SQLFragment
            switch assignment.value {
            case .constant(let constant):
                value = SQLFragment(sql: "?", arguments: [try SQLiteValueCodec.encode(constant, attribute: assignment.attribute)])
            case .expression(let expression):
                let operand = try builder.operand(expression, scope: builder.root)
                value = try builder.scalar(operand, hint: assignment.attribute, label: "propertiesToUpdate")
            }
            parts.append(SQLFragment(sql: "\(column.name) = \(value.sql)", arguments: value.arguments))
        }
        // A value read through a relationship would need a join, which an UPDATE of one table
        // cannot have: such expressions are refused before anything is written.
        guard builder.root.joins.isEmpty else {
            throw BatchError.unsupported(
                "A batch update's values can only use the updated entity's own attributes, not key paths through relationships.")
        }
        return SQLFragment.joined(parts, separator: ", ")
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
