import Foundation
internal import GRDB

/// Derived attributes in a SQLite store. Core Data computes them in the database itself:
/// `Z_DA_` triggers beside the tables recompute a derived column whenever a row it depends
/// on is inserted, updated or deleted (STORE-FORMAT §3.5). Strata creates the same triggers,
/// so that any writer of the file (Strata, Apple's Core Data, plain SQL) keeps the values
/// right, and a store written here carries what Apple's would.
///
/// Names follow Apple's scheme `Z_DA_<table the trigger is on>_<Entity>_<attribute>_<role>`.
/// The `@count` triggers reproduce those of an Apple-written store character for character;
/// the other forms follow the same scheme, and their exact text is unconfirmed (DEVIATIONS.md).
///
/// Each trigger body ends with a call of `NSCoreDataDATriggerUpdatedAffectedObjectValue` (or its
/// `Insert` variant) naming the row it changed: Core Data learns from it which cached rows are
/// stale, and so does Strata (`SQLiteDerivedAttributeFunctions`).
enum SQLiteDerivedAttributes {
    struct Trigger: Equatable {
        var name: String
        var sql: String
    }

    /// What keeps one derived attribute: its triggers, and the statement that brings the
    /// rows already in a store up to date (`nil` for `now()`, which only a save sets).
    struct Maintenance {
        var entity: String
        var attribute: String
        var triggers: [Trigger]
        var recompute: String?
    }

    /// The triggers of every derived attribute of the store's model, in entity order.
    /// Derivations Core Data's SQL store does not support (key paths of more than one
    /// to-one step, aggregates other than `@count` and `@sum`) get none.
    static func maintenance(for mapping: SQLiteStoreMapping) -> [Maintenance] {
        var result: [Maintenance] = []
        for entity in mapping.schema.orderedEntities {
            for case let attribute as NSDerivedAttributeDescription in entity.declaredProperties
            where !attribute.isTransient {
                guard let target = Target(attribute: attribute, entity: entity, mapping: mapping),
                    let derivation = attribute.derivation,
                    let item = maintenance(derivation, target: target, mapping: mapping)
                else { continue }
                result.append(item)
            }
        }
        return result
    }

    /// Creates the triggers in a new store, in the transaction that creates its tables.
    static func createTriggers(in db: Database, mapping: SQLiteStoreMapping) throws {
        for item in maintenance(for: mapping) {
            for trigger in item.triggers { try db.execute(sql: trigger.sql) }
        }
    }

    /// Gives a store made by an earlier Strata, which created no triggers, the triggers of
    /// every derived attribute that has none, and recomputes those attributes for its rows.
    ///
    /// Stores written by Apple's Core Data are left alone: Apple created their triggers
    /// itself, perhaps with other text, and a second set would count twice. They are told
    /// apart by `Z_MODELCACHE`, which Apple fills with the model and earlier Strata left empty
    /// (Strata now fills it too, in stores it creates with their triggers).
    static func addMissingTriggers(to database: any DatabaseWriter, mapping: SQLiteStoreMapping) throws {
        let items = maintenance(for: mapping)
        guard !items.isEmpty else { return }
        try database.write { db in
            guard try db.tableExists("Z_MODELCACHE"),
                try Int.fetchOne(db, sql: "SELECT count(*) FROM Z_MODELCACHE") == 0
            else { return }
            let existing = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger'"))
            for item in items {
                let missing = item.triggers.filter { !existing.contains($0.name) }
                guard !missing.isEmpty else { continue }
                for trigger in missing { try db.execute(sql: trigger.sql) }
                if missing.count == item.triggers.count, let recompute = item.recompute {
                    try db.execute(sql: recompute)
                }
            }
        }
    }

    // MARK: Forms

    private static func maintenance(
        _ derivation: NSDerivedAttributeDescription.Derivation, target: Target, mapping: SQLiteStoreMapping
    ) -> Maintenance? {
        switch derivation {
        case .keyPath(let path):
            return keyPathMaintenance(path, function: nil, target: target, mapping: mapping)
        case .function(let name, let path):
            guard let function = SQLiteDerivedAttributeFunctions.sqlName(of: name) else { return nil }
            return keyPathMaintenance(path, function: function, target: target, mapping: mapping)
        case .count(let relationship):
            return aggregateMaintenance(relationship, summing: nil, target: target, mapping: mapping)
        case .sum(let relationship, let attribute):
            return aggregateMaintenance(relationship, summing: attribute, target: target, mapping: mapping)
        case .now:
            // Every update writes Z_OPT, so watching it sets the time at each save of the row.
            return ownColumnMaintenance(
                value: "\(SQLiteDerivedAttributeFunctions.now)()", watched: "Z_OPT", recomputes: false, target: target)
        }
    }

    /// `title`, `uppercase:(title)`, `author.name`, `canonical:(author.name)`: a copy, or a
    /// function of a copy, of an attribute of the row or of its to-one destination.
    private static func keyPathMaintenance(
        _ path: String, function: String?, target: Target, mapping: SQLiteStoreMapping
    ) -> Maintenance? {
        let steps = path.split(separator: ".").map(String.init)
        let entity = target.entity
        func wrap(_ value: String) -> String { function.map { "\($0)(\(value))" } ?? value }
        switch steps.count {
        case 1:
            guard entity.attributesByName[steps[0]] != nil,
                let column = mapping.schema.columnName(entity: entity, property: steps[0])
            else { return nil }
            return ownColumnMaintenance(value: wrap(column), watched: column, recomputes: true, target: target)
        case 2:
            guard let relationship = entity.relationshipsByName[steps[0]], !relationship.isToMany,
                let destination = relationship.destinationEntity,
                destination.attributesByName[steps[1]] != nil,
                let foreignKey = mapping.schema.columnName(entity: entity, property: relationship.name),
                let column = mapping.schema.columnName(entity: destination, property: steps[1])
            else { return nil }
            return ToOneCopy(
                target: target, foreignKey: foreignKey, destinationTable: mapping.schema.tableName(for: destination),
                column: column, wrap: wrap
            ).maintenance
        default:
            return nil
        }
    }

    /// `pages.@count`, `lines.@sum.amount`: over the rows of a one-to-many relationship
    /// (through the foreign key of its inverse) or a many-to-many one (through its join table).
    private static func aggregateMaintenance(
        _ relationshipName: String, summing attributeName: String?, target: Target, mapping: SQLiteStoreMapping
    ) -> Maintenance? {
        let entity = target.entity
        guard let relationship = entity.relationshipsByName[relationshipName], relationship.isToMany,
            let destination = relationship.destinationEntity,
            let index = entity.layout.indexByName[relationshipName],
            let storage = mapping.mapping(for: entity)?.toMany[index]
        else { return nil }
        let destinationTable = mapping.schema.tableName(for: destination)
        var summed: String?
        if let attributeName {
            guard destination.attributesByName[attributeName] != nil,
                let column = mapping.schema.columnName(entity: destination, property: attributeName)
            else { return nil }
            summed = column
        }
        switch storage {
        case .inverseForeignKey(let foreignKey, _), .hiddenColumn(let foreignKey):
            return ToManyAggregate(
                target: target, destinationTable: destinationTable, foreignKey: foreignKey, summed: summed
            ).maintenance
        case .joinTable(let table, let selfColumn, let otherColumn, _):
            let join = JoinAggregate(
                target: target, joinTable: table, selfColumn: selfColumn, otherColumn: otherColumn,
                destinationTable: destinationTable)
            return summed.map { join.sumMaintenance(summed: $0) } ?? join.countMaintenance
        }
    }

    /// A value computed from the row's own columns (`title`, `lowercase:(title)`) or from none
    /// (`now()`): set after the insert, and again whenever the watched column is written.
    private static func ownColumnMaintenance(
        value: String, watched: String, recomputes: Bool, target: Target
    ) -> Maintenance {
        let (table, column) = (target.table, target.column)
        let set = "UPDATE \(table) SET \(column) = \(value) WHERE Z_PK = NEW.Z_PK"
        let insert = trigger(
            target.name(table, "INSERT"), "AFTER INSERT ON \(table)", when: target.whenNewEntity,
            [set, target.callback(inserted: true, where: "Z_PK = NEW.Z_PK")])
        let update = trigger(
            target.name(table, "UPDATE"), "AFTER UPDATE OF \(watched) ON \(table)", when: target.whenNewEntity,
            [set, target.callback(inserted: false, where: "Z_PK = NEW.Z_PK")])
        let recompute = recomputes ? "UPDATE \(table) SET \(column) = \(value)\(target.whereEntity)" : nil
        return target.maintenance([insert, update], recompute: recompute)
    }

    /// `CREATE TRIGGER IF NOT EXISTS <name> <event> FOR EACH ROW[ WHEN …] BEGIN <s1>; <s2>; END`,
    /// spaced as Apple's (SQLite drops `IF NOT EXISTS` from the text it keeps).
    static func trigger(_ name: String, _ event: String, when: String = "", _ statements: [String]) -> Trigger {
        let body = statements.map { " \($0);" }.joined()
        return Trigger(
            name: name, sql: "CREATE TRIGGER IF NOT EXISTS \(name) \(event) FOR EACH ROW\(when) BEGIN\(body) END")
    }
}

extension SQLiteDerivedAttributes {
    /// The derived column being maintained, and what every trigger of it shares.
    struct Target {
        let entity: NSEntityDescription
        let attribute: String
        let table: String
        let column: String
        /// The entity numbers of the entity and its subentities, when the entity is itself a
        /// subentity and so shares its table with rows it must leave alone.
        let entityRange: ClosedRange<Int>?

        init?(attribute: NSDerivedAttributeDescription, entity: NSEntityDescription, mapping: SQLiteStoreMapping) {
            guard let column = mapping.schema.columnName(entity: entity, property: attribute.name) else { return nil }
            self.entity = entity
            self.attribute = attribute.name
            self.table = mapping.schema.tableName(for: entity)
            self.column = column
            if entity.superentity != nil {
                let numbers = entity.selfAndDescendants.compactMap { mapping.schema.entityNumber(for: $0) }
                entityRange = numbers.min().flatMap { low in numbers.max().map { low...$0 } }
            } else {
                entityRange = nil
            }
        }

        func name(_ table: String, _ role: String) -> String {
            "Z_DA_\(table)_\(entity.name ?? "")_\(attribute)_\(role)"
        }

        private func entityTest(_ prefix: String) -> String? {
            guard let range = entityRange else { return nil }
            return range.count == 1
                ? "\(range.lowerBound) = \(prefix)Z_ENT"
                : "\(range.lowerBound) <= \(prefix)Z_ENT AND \(prefix)Z_ENT <= \(range.upperBound)"
        }

        /// ` WHEN 4 = NEW.Z_ENT` for a trigger on the entity's own table; empty for a root.
        var whenNewEntity: String { entityTest("NEW.").map { " WHEN \($0)" } ?? "" }
        /// ` AND 4 = Z_ENT`, restricting an `UPDATE` of the entity's table.
        var andEntity: String { entityTest("").map { " AND \($0)" } ?? "" }
        /// ` WHERE 4 = Z_ENT`.
        var whereEntity: String { entityTest("").map { " WHERE \($0)" } ?? "" }

        /// `SELECT NSCoreDataDATrigger…AffectedObjectValue('ZBOOK', Z_ENT, Z_PK, 'pagesCount',
        /// ZPAGESCOUNT) FROM ZBOOK WHERE …`: reports the rows just changed.
        func callback(inserted: Bool, where condition: String) -> String {
            let function =
                inserted
                ? SQLiteDerivedAttributeFunctions.insertedCallback : SQLiteDerivedAttributeFunctions.updatedCallback
            return
                "SELECT \(function)('\(table)', Z_ENT, Z_PK, '\(attribute)', \(column)) "
                + "FROM \(table) WHERE \(condition)"
        }

        func maintenance(_ triggers: [Trigger], recompute: String?) -> Maintenance {
            Maintenance(entity: entity.name ?? "", attribute: attribute, triggers: triggers, recompute: recompute)
        }
    }
}
