import Foundation
internal import GRDB

/// A lightweight migration of a SQLite store in place, in set-based SQL and in one
/// transaction: a failure, or the process killed, leaves the store as it was.
///
/// The steps, as `run(in:metadata:)` reads:
/// 1. plan every destination table: kept as it is when its columns and values do not
///    change, otherwise made anew under a temporary name and filled with one
///    `INSERT … SELECT` from the source tables (rows keep their `Z_PK`; `Z_ENT` follows the
///    new entity numbers; relationships are read through `SQLiteMigrationLinks`);
/// 2. check what the destination model requires (mandatory values, uniqueness);
/// 3. drop the replaced source tables and give the new ones their names, then create
///    the destination's indexes and derived-attribute triggers;
/// 4. rewrite Z_PRIMARYKEY (entity numbers and each hierarchy's last key) and Z_METADATA.
///
/// No object is made per row: memory stays flat however large the store.
struct SQLiteMigration {
    let source: NSManagedObjectModel
    let destination: NSManagedObjectModel
    let sourceSchema: SQLiteSchema
    let destinationSchema: SQLiteSchema
    let destinationMapping: SQLiteStoreMapping
    /// Destination entity name → the source entity its objects come from.
    var sourceEntities: [String: NSEntityDescription] = [:]
    /// Source entity name → the destination entity its objects become.
    var destinationEntities: [String: NSEntityDescription] = [:]
    /// Destination entity name → destination property name → source property name.
    var sourceProperties: [String: [String: String]] = [:]

    /// Prepares the migration a mapping model describes; entity mappings other than add,
    /// remove, copy and transform with `$source` expressions are refused (134110).
    init(
        mappingModel: NSMappingModel, source: NSManagedObjectModel, destination: NSManagedObjectModel,
        destinationMapping: SQLiteStoreMapping
    ) throws {
        self.source = source
        self.destination = destination
        self.destinationMapping = destinationMapping
        sourceSchema = SQLiteSchema(model: source)
        destinationSchema = destinationMapping.schema
        let sourceByName = source.entitiesByName
        let destinationByName = Dictionary(
            destinationSchema.orderedEntities.map { ($0.name ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        for mapping in mappingModel.entityMappings ?? [] {
            switch mapping.mappingType {
            case .addEntityMappingType, .removeEntityMappingType:
                continue
            case .copyEntityMappingType, .transformEntityMappingType:
                guard let sourceName = mapping.sourceEntityName, let sourceEntity = sourceByName[sourceName],
                    let destinationName = mapping.destinationEntityName, let entity = destinationByName[destinationName]
                else {
                    throw Self.error("The entity mapping \(mapping.name ?? "?") names an entity the models do not have.")
                }
                sourceEntities[destinationName] = sourceEntity
                destinationEntities[sourceName] = entity
                var properties: [String: String] = [:]
                for property in (mapping.attributeMappings ?? []) + (mapping.relationshipMappings ?? []) {
                    guard let name = property.name else { continue }
                    if let sourceName = property.sourcePropertyName {
                        properties[name] = sourceName
                    } else if property.valueExpression != nil {
                        throw Self.error(
                            "The mapping of \(destinationName).\(name) is not a plain $source value; only inferred mappings migrate in SQL.",
                            entity: destinationName, property: name)
                    }
                }
                sourceProperties[destinationName] = properties
            default:
                throw Self.error(
                    "The entity mapping \(mapping.name ?? "?") needs a migration policy; only inferred mappings migrate in SQL.",
                    entity: mapping.destinationEntityName)
            }
        }
    }

    // MARK: Running

    /// Migrates the store the connection holds, inside the caller's transaction, and returns
    /// the metadata it now has.
    func run(in db: Database, metadata: [String: Any]) throws -> [String: Any] {
        let existing = try tableColumns(db)
        let links = SQLiteMigrationLinks(
            schema: sourceSchema, columns: existing.mapValues { Set($0.map(\.name)) })
        var plans: [TablePlan] = []
        for table in destinationSchema.tables {
            if let join = destinationSchema.joinTables.values.first(where: { $0.name == table.name }) {
                plans.append(joinTablePlan(table, join: join, links: links, existing: existing))
            } else if let root = destinationSchema.orderedEntities.first(where: {
                $0.superentity == nil && SQLiteSchema.tableName($0) == table.name
            }) {
                plans.append(entityTablePlan(table, root: root, links: links, existing: existing))
            }
        }
        let oldKeys = try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_MAX FROM Z_PRIMARYKEY")
        var lastKeys: [String: Int64] = [:]
        for row in oldKeys {
            if let name: String = row["Z_NAME"] { lastKeys[name] = row["Z_MAX"] ?? 0 }
        }
        try dropDerivedAttributeTriggers(db)
        for plan in plans {
            if plan.isKept {
                for statement in plan.alterSQL { try db.execute(sql: statement) }
            } else {
                try db.execute(sql: plan.createSQL)
                if let fill = plan.fillSQL { try db.execute(sql: fill) }
            }
        }
        try checkMandatoryValues(plans, in: db)
        let kept = Set(plans.filter(\.isKept).map(\.table.name))
        for table in sourceSchema.tables.map(\.name) + plans.map(\.table.name)
        where !kept.contains(table) && existing[table] != nil {
            try db.execute(sql: "DROP TABLE IF EXISTS \(table)")
        }
        for plan in plans where !plan.isKept {
            try db.execute(sql: "ALTER TABLE \(plan.temporaryName) RENAME TO \(plan.table.name)")
        }
        try createIndexes(db, kept: kept)
        try rewritePrimaryKeys(db, plans: plans, lastKeys: lastKeys)
        try renumberHistory(db)
        try SQLiteDerivedAttributes.createTriggers(in: db, mapping: destinationMapping)
        for item in SQLiteDerivedAttributes.maintenance(for: destinationMapping) {
            if let recompute = item.recompute { try db.execute(sql: recompute) }
        }
        if try db.tableExists("Z_MODELCACHE") { try db.execute(sql: "DELETE FROM Z_MODELCACHE") }
        var updated = metadata
        updated["NSStoreModelVersionHashesDigest"] = nil
        for (key, value) in NSPersistentStore.modelMetadata(for: destination, type: NSSQLiteStoreType) {
            updated[key] = value
        }
        try db.execute(
            sql: "UPDATE Z_METADATA SET Z_PLIST = ? WHERE Z_VERSION = 1", arguments: [try SQLiteStore.plistData(updated)])
        db.clearSchemaCache()
        return updated
    }

    /// Every table's columns (name and declared type), as SQLite reports them.
    private func tableColumns(_ db: Database) throws -> [String: [SQLiteSchema.Column]] {
        var result: [String: [SQLiteSchema.Column]] = [:]
        for table in try String.fetchAll(
            db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        {
            result[table] = try Row.fetchAll(db, sql: "PRAGMA table_info(\(table.quotedDatabaseIdentifier))").map {
                SQLiteSchema.Column(name: $0["name"], type: ($0["type"] as String?)?.uppercased() ?? "")
            }
        }
        return result
    }

    private func dropDerivedAttributeTriggers(_ db: Database) throws {
        let triggers = try String.fetchAll(
            db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'Z\\_DA\\_%' ESCAPE '\\'")
        for trigger in triggers { try db.execute(sql: "DROP TRIGGER \(trigger.quotedDatabaseIdentifier)") }
    }

    /// Creates the destination's indexes: all of a table made anew; on a kept table, those it
    /// lacks, after dropping the ones the destination no longer has. An index of a wanted name
    /// that the file has elsewhere (on another table, or on other columns: a store whose
    /// tables an earlier migration renamed keeps its old index names) is dropped and made
    /// anew, and each name is created once, so that a join table's index is never made twice.
    private func createIndexes(_ db: Database, kept: Set<String>) throws {
        let wantedIndexes = Dictionary(
            destinationSchema.indexes.map { ($0.name.uppercased(), $0) }, uniquingKeysWith: { a, _ in a })
        let present = try Row.fetchAll(
            db, sql: "SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")
        var existing = Set<String>()
        for row in present {
            let name: String = row["name"]
            let table: String = row["tbl_name"]
            let sql: String = row["sql"] ?? ""
            if let wanted = wantedIndexes[name.uppercased()] {
                // SQLite's index names are one namespace, compared without case.
                if kept.contains(table), table.uppercased() == wanted.table.uppercased(),
                    Self.sameIndex(sql, wanted)
                {
                    existing.insert(wanted.name.uppercased())
                } else {
                    try db.execute(sql: "DROP INDEX \(name.quotedDatabaseIdentifier)")
                }
            } else if kept.contains(table), destinationSchema.tables.contains(where: { $0.name == table }) {
                try db.execute(sql: "DROP INDEX \(name.quotedDatabaseIdentifier)")
            }
        }
        for index in destinationSchema.indexes where existing.insert(index.name.uppercased()).inserted {
            let sql =
                "CREATE \(index.isUnique ? "UNIQUE " : "")INDEX \(index.name) ON \(index.table) (\(index.elements.joined(separator: ", ")))"
            do {
                try db.execute(sql: sql)
            } catch let error as DatabaseError where index.isUnique && error.resultCode == .SQLITE_CONSTRAINT {
                let entity = String(index.name.dropFirst(2).prefix { $0 != "_" })
                throw CoreDataError.make(
                    NSMigrationConstraintViolationError,
                    "The objects of \(entity) violate the uniqueness constraint \(index.columns.joined(separator: ", ")) of the destination model.",
                    userInfo: ["entity": entity, "constraint": index.columns, NSUnderlyingErrorKey: error as NSError])
            }
        }
    }

    /// Whether an index's SQL in the file is on the destination index's columns (and as
    /// unique): spaces and case aside.
    static func sameIndex(_ sql: String, _ index: SQLiteSchema.Index) -> Bool {
        func squeeze(_ text: String) -> String { text.uppercased().filter { !$0.isWhitespace } }
        let wanted =
            "CREATE \(index.isUnique ? "UNIQUE " : "")INDEX \(index.name) ON \(index.table) (\(index.elements.joined(separator: ", ")))"
        if squeeze(sql) == squeeze(wanted) { return true }
        // Apple writes the bare column names where Strata writes `COLLATE BINARY ASC`.
        guard let open = sql.firstIndex(of: "("), let close = sql.lastIndex(of: ")"), open < close else { return false }
        // Each element's column: its first word (what follows is a collation or an order).
        let columns = sql[sql.index(after: open)..<close].split(separator: ",").map {
            ($0.split(whereSeparator: \.isWhitespace).first).map { String($0).uppercased() } ?? ""
        }
        let isUnique = squeeze(String(sql.prefix(upTo: open))).hasPrefix("CREATEUNIQUE")
        return isUnique == index.isUnique && columns == index.columns.map { $0.uppercased() }
    }

    /// Z_PRIMARYKEY for the destination's entity numbers. Each root keeps the last key its
    /// table's rows had (so that deleted keys are not handed out again), or the highest key
    /// the table now holds when that is higher.
    private func rewritePrimaryKeys(_ db: Database, plans: [TablePlan], lastKeys: [String: Int64]) throws {
        try db.execute(sql: "DELETE FROM Z_PRIMARYKEY WHERE Z_ENT < 16000")
        for row in destinationSchema.primaryKeyRows {
            var last: Int64 = 0
            if row.superEntity == 0, let plan = plans.first(where: { $0.rootName == row.name }) {
                let highest = try Int64.fetchOne(db, sql: "SELECT max(Z_PK) FROM \(plan.table.name)") ?? 0
                last = max(highest, plan.sourceRootName.flatMap { lastKeys[$0] } ?? 0)
            }
            try db.execute(
                sql: "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, ?)",
                arguments: [row.entity, row.name, row.superEntity, last])
        }
    }

    /// Persistent history names entities by number: changes keep naming the same entity.
    private func renumberHistory(_ db: Database) throws {
        guard try db.tableExists("ACHANGE") else { return }
        let moves = numberMoves()
        guard !moves.isEmpty else { return }
        let cases = moves.map { "WHEN \($0.old) THEN \($0.new)" }.joined(separator: " ")
        try db.execute(sql: "UPDATE ACHANGE SET ZENTITY = CASE ZENTITY \(cases) ELSE ZENTITY END")
    }

    /// The source entity numbers that change, with their destination numbers.
    private func numberMoves() -> [(old: Int, new: Int)] {
        sourceSchema.orderedEntities.compactMap { entity in
            guard let old = sourceSchema.entityNumber(for: entity),
                let target = destinationEntities[entity.name ?? ""],
                let new = destinationSchema.entityNumber(for: target), old != new
            else { return nil }
            return (old, new)
        }
    }

    // MARK: Checks

    /// Apple's migration validates each destination object; a mandatory attribute or to-one
    /// left empty fails it (134110, "missing attribute values on mandatory destination
    /// attribute"). Only values the migration may leave empty are looked at.
    private func checkMandatoryValues(_ plans: [TablePlan], in db: Database) throws {
        for plan in plans {
            // A kept table is checked in place: its values are the ones it keeps.
            let table = plan.isKept ? plan.table.name : plan.temporaryName
            for check in plan.mandatoryChecks {
                let count =
                    try Int.fetchOne(
                        db,
                        sql: "SELECT count(*) FROM \(table) WHERE Z_ENT = \(check.entityNumber) AND \(check.column) IS NULL"
                    ) ?? 0
                guard count > 0 else { continue }
                let kind = check.isRelationship ? "relationship" : "attribute"
                throw Self.error(
                    "Validation error missing attribute values on mandatory destination \(kind): \(count) objects of \(check.entity) have no \(check.property).",
                    entity: check.entity, property: check.property, key: check.isRelationship ? "relationship" : "attribute")
            }
        }
    }

    static func error(
        _ reason: String, entity: String? = nil, property: String? = nil, key: String = "property"
    )
        -> NSError
    {
        var info: [String: Any] = ["reason": reason]
        if let entity { info["entity"] = entity }
        if let property { info[key] = property }
        return CoreDataError.make(NSMigrationError, reason, userInfo: info)
    }

    // MARK: Plans

    /// What becomes of one destination table.
    struct TablePlan {
        var table: SQLiteSchema.Table
        /// The root entity of an entity table, and the source root its rows come from.
        var rootName: String?
        var sourceRootName: String?
        /// Whether the source table of the same name stays, as it is or changed by `alterSQL`.
        var isKept = false
        /// `ALTER TABLE` statements (renamed and added columns) run on a kept table.
        var alterSQL: [String] = []
        /// `INSERT INTO <temporary> … SELECT …`, or `nil` for a table that starts empty.
        var fillSQL: String?
        var mandatoryChecks: [MandatoryCheck] = []

        var temporaryName: String { "Z_MIGRATING_" + table.name }

        var createSQL: String {
            var parts = table.columns.map { column in
                column.name == "Z_PK" && table.primaryKey.isEmpty
                    ? "Z_PK INTEGER PRIMARY KEY" : "\(column.name) \(column.type)"
            }
            if !table.primaryKey.isEmpty { parts.append("PRIMARY KEY (\(table.primaryKey.joined(separator: ", ")))") }
            return "CREATE TABLE \(temporaryName) ( \(parts.joined(separator: ", ")) )"
        }
    }

    /// A mandatory value the migration may leave empty.
    struct MandatoryCheck {
        var entity: String
        var entityNumber: Int
        var property: String
        var column: String
        var isRelationship: Bool
    }

    /// Whether a table in the file has exactly the destination's columns.
    func sameColumns(_ table: SQLiteSchema.Table, _ existing: [String: [SQLiteSchema.Column]]) -> Bool {
        guard let columns = existing[table.name] else { return false }
        let have = Set(columns.map { "\($0.name) \($0.type)" })
        let want = Set(table.columns.map { "\($0.name) \($0.type)" })
        return have == want
    }
}
