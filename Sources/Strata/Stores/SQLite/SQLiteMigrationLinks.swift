import Foundation
internal import GRDB

/// Where the links of a source relationship are, as one SQL query: each row one link, its
/// columns `o` (the Z_PK of the object that holds the relationship), `t` (the Z_PK of the
/// related object), `oo` (the order key of `t` in `o`'s relationship, when ordered) and `ot`
/// (the order key of `o` in the inverse, when that is ordered).
///
/// A relationship is stored in one of four ways (STORE-FORMAT §3.2–3.3): a foreign key on its
/// own table (to-one), the inverse's foreign key on the destination table (one-to-many), a
/// join table (many-to-many), or a hidden column on the destination table (to-many without
/// inverse). The migration reads links through this one shape whatever the way, so that any
/// storage can become any other.
struct SQLiteMigrationLinks {
    let schema: SQLiteSchema
    /// The columns of every table of the store being migrated, as SQLite reports them.
    let columns: [String: Set<String>]

    func has(_ table: String, _ column: String?) -> Bool {
        guard let column else { return false }
        return columns[table]?.contains(column) ?? false
    }

    /// The links query of a source relationship, or `nil` when its storage is not in the file.
    func query(_ relationship: NSRelationshipDescription) -> String? {
        guard let entity = relationship.entity, let name = entity.name else { return nil }
        if !relationship.isToMany {
            let table = schema.tableName(for: entity)
            guard let key = schema.columnName(entity: entity, property: relationship.name), has(table, key) else {
                return nil
            }
            let order = schema.orderColumnNames[name]?[relationship.name].flatMap { has(table, $0) ? $0 : nil }
            return "SELECT Z_PK AS o, \(key) AS t, NULL AS oo, \(order ?? "NULL") AS ot FROM \(table) WHERE \(key) IS NOT NULL"
        }
        guard let inverse = relationship.inverseRelationship, let inverseEntity = inverse.entity else {
            guard let destination = relationship.destinationEntity,
                let hidden = schema.hiddenInverseColumns["\(name).\(relationship.name)"],
                has(schema.tableName(for: destination), hidden)
            else { return nil }
            let table = schema.tableName(for: destination)
            return "SELECT \(hidden) AS o, Z_PK AS t, NULL AS oo, NULL AS ot FROM \(table) WHERE \(hidden) IS NOT NULL"
        }
        if inverse.isToMany {
            guard let join = schema.joinTable(entity: entity, relationship: relationship.name) else { return nil }
            let isSideA = join.sourceEntity == name && join.sourceRelationship == relationship.name
            let (selfColumn, otherColumn) =
                isSideA ? (join.sourceColumn, join.destinationColumn) : (join.destinationColumn, join.sourceColumn)
            let (selfOrder, otherOrder) =
                isSideA
                ? (join.sourceOrderColumn, join.destinationOrderColumn)
                : (join.destinationOrderColumn, join.sourceOrderColumn)
            guard has(join.name, selfColumn), has(join.name, otherColumn) else { return nil }
            let oo = selfOrder.flatMap { has(join.name, $0) ? $0 : nil } ?? "NULL"
            let ot = otherOrder.flatMap { has(join.name, $0) ? $0 : nil } ?? "NULL"
            return "SELECT \(selfColumn) AS o, \(otherColumn) AS t, \(oo) AS oo, \(ot) AS ot FROM \(join.name)"
        }
        let table = schema.tableName(for: inverseEntity)
        guard let key = schema.columnName(entity: inverseEntity, property: inverse.name), has(table, key) else {
            return nil
        }
        let order =
            relationship.isOrdered
            ? schema.orderColumnNames[inverseEntity.name ?? ""]?[inverse.name].flatMap { has(table, $0) ? $0 : nil } : nil
        return "SELECT \(key) AS o, Z_PK AS t, \(order ?? "NULL") AS oo, NULL AS ot FROM \(table) WHERE \(key) IS NOT NULL"
    }

    /// The same links seen from the other side: `o` and `t` (and their orders) swapped.
    static func reversed(_ query: String) -> String {
        "SELECT r.t AS o, r.o AS t, r.ot AS oo, r.oo AS ot FROM (\(query)) AS r"
    }
}

/// SQL literals of values a migration writes as constants (defaults), so that every
/// expression of a plan is self-contained text and equal texts mean equal values.
enum SQLiteLiteral {
    static func text(_ value: Any?, attribute: NSAttributeDescription) -> String {
        guard let encoded = try? SQLiteValueCodec.encode(value, attribute: attribute) else { return "NULL" }
        return text(encoded)
    }

    static func text(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: return "NULL"
        case .int64(let number): return String(number)
        case .double(let number): return number.isFinite ? "\(number)" : "NULL"
        case .string(let string): return "'" + string.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let data): return "X'" + data.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }
}
