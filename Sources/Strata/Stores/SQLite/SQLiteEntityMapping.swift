import Foundation

/// How the objects of one entity map to columns of their table: built once per store from
/// `SQLiteSchema`, so that reading and writing rows go by position, never by name lookups.
/// A class, so that looking one up for every row passes a reference instead of copying it.
final class SQLiteEntityMapping: @unchecked Sendable {
    enum Binding {
        case attribute(NSAttributeDescription)
        /// A to-one relationship: its foreign-key column, the `Z<n>_` column holding the
        /// destination's entity number when the destination has subentities.
        case toOne(NSRelationshipDescription, entityColumn: String?)
        /// A leaf element of a composite attribute: one of the composite's columns, which all
        /// fill the composite's position (a dictionary of the leaves' values).
        case compositeLeaf(NSCompositeAttributeDescription, CompositeValues.Leaf)
    }

    struct Column {
        /// Position in the entity's layout.
        var index: Int
        var name: String
        var binding: Binding
        /// How an attribute's values are read and bound.
        var kind: SQLiteValueKind = .other
    }

    /// How a to-many relationship is stored.
    enum ToMany {
        /// A join table (many-to-many): this object's key in `selfColumn`, the other's in
        /// `otherColumn`, this side's order in `orderColumn` when ordered.
        case joinTable(table: String, selfColumn: String, otherColumn: String, orderColumn: String?)
        /// The destination rows' foreign key (`column`) of the to-one inverse, with the
        /// `Z_FOK_` order column when the relationship is ordered.
        case inverseForeignKey(column: String, orderColumn: String?)
        /// A to-many without inverse: a hidden column on the destination rows.
        case hiddenColumn(String)
    }

    let entity: NSEntityDescription
    let number: Int
    let rootNumber: Int
    let table: String
    let columns: [Column]
    /// Layout position → how that to-many relationship is stored.
    let toMany: [Int: ToMany]
    /// The positions of `toMany` whose order the destination rows hold (an ordered to-many with
    /// a to-one inverse): what `OrderedInsertKeys` looks at, so that a save of other entities
    /// asks nothing for each changed property.
    let orderedByDestination: [Int]
    /// Layout position → the part that side of a many-to-many relationship plays when a save
    /// writes join-table links (`JoinSide`).
    let joinSides: [Int: JoinSide]
    /// The positions of `joinSides` the other side relies on, in layout order.
    let reliedOnJoinSides: [Int]
    /// `INSERT INTO <table> (Z_PK, Z_ENT, Z_OPT, <columns>) VALUES (?, …)`, the columns in
    /// `columns` order (a to-one's entity column after its key column).
    let insertSQL: String
    /// The `Z_FOK_` columns of the entity's to-ones whose inverse is an ordered to-many: a row
    /// a save inserts into such a relationship takes its order key in its `INSERT`
    /// (`insertRowSQL`), not in an `UPDATE` after it (`OrderedInsertKeys`).
    let orderColumns: [String]
    /// `insertSQL` with `orderColumns` after the other columns: what a save inserts a row with.
    let insertRowSQL: String
    /// `DELETE FROM <table> WHERE Z_PK = ? AND Z_OPT = ?`.
    let deleteSQL: String
    /// Whether some attribute may keep its values in files beside the store.
    let hasExternalStorage: Bool

    init?(entity: NSEntityDescription, schema: SQLiteSchema) {
        guard let number = schema.entityNumber(for: entity), let rootNumber = schema.entityNumber(for: entity.rootEntity)
        else { return nil }
        self.entity = entity
        self.number = number
        self.rootNumber = rootNumber
        self.table = schema.tableName(for: entity)
        let layout = entity.layout
        var columns: [Column] = []
        var toMany: [Int: ToMany] = [:]
        var joinSides: [Int: JoinSide] = [:]
        var orderColumns: [String] = []
        for index in layout.persistentIndexes {
            let property = layout.properties[index]
            switch (property, layout.kinds[index]) {
            case (let composite as NSCompositeAttributeDescription, .attribute):
                for leaf in CompositeValues.leaves(of: composite) {
                    guard let name = schema.leafColumnName(entity: entity, composite: composite.name, path: leaf.path)
                    else { continue }
                    columns.append(
                        Column(
                            index: index, name: name, binding: .compositeLeaf(composite, leaf),
                            kind: SQLiteValueKind(leaf.attribute)))
                }
            case (let attribute as NSAttributeDescription, .attribute):
                guard let name = schema.columnName(entity: entity, property: attribute.name) else { continue }
                columns.append(Column(index: index, name: name, binding: .attribute(attribute), kind: SQLiteValueKind(attribute)))
            case (let relationship as NSRelationshipDescription, .toOne):
                guard let name = schema.columnName(entity: entity, property: relationship.name) else { continue }
                let entityColumn = schema.entityColumnNames[entity.name ?? ""]?[relationship.name]
                columns.append(Column(index: index, name: name, binding: .toOne(relationship, entityColumn: entityColumn)))
                if let order = schema.orderColumnNames[entity.name ?? ""]?[relationship.name] { orderColumns.append(order) }
            case (let relationship as NSRelationshipDescription, .toMany):
                if let storage = Self.toManyStorage(relationship, schema: schema) { toMany[index] = storage }
                if let side = JoinSide(relationship, schema: schema) { joinSides[index] = side }
            default:
                continue
            }
        }
        self.columns = columns
        self.toMany = toMany
        orderedByDestination = toMany.compactMap { index, storage in
            guard case .inverseForeignKey(_, _?) = storage else { return nil }
            return index
        }.sorted()
        self.joinSides = joinSides
        reliedOnJoinSides = joinSides.filter(\.value.isReliedOn).keys.sorted()
        let names =
            ["Z_PK", "Z_ENT", "Z_OPT"]
            + columns.flatMap { column -> [String] in
                guard case .toOne(_, let entityColumn?) = column.binding else { return [column.name] }
                return [column.name, entityColumn]
            }
        insertSQL = Self.insertSQL(into: table, names)
        self.orderColumns = orderColumns
        insertRowSQL = Self.insertSQL(into: table, names + orderColumns)
        deleteSQL = "DELETE FROM \(table) WHERE Z_PK = ? AND Z_OPT = ?"
        hasExternalStorage = columns.contains { column in
            guard case .attribute(let attribute) = column.binding else { return false }
            return SQLiteExternalStorage.usesFiles(attribute)
        }
    }

    /// `INSERT INTO <table> (<names>) VALUES (?, …)`.
    private static func insertSQL(into table: String, _ names: [String]) -> String {
        "INSERT INTO \(table) (\(names.joined(separator: ", "))) "
            + "VALUES (\(Array(repeating: "?", count: names.count).joined(separator: ", ")))"
    }

    private static func toManyStorage(_ relationship: NSRelationshipDescription, schema: SQLiteSchema) -> ToMany? {
        guard let declaring = relationship.entity else { return nil }
        guard let inverse = relationship.inverseRelationship, let inverseEntity = inverse.entity else {
            return schema.hiddenInverseColumns["\(declaring.name ?? "").\(relationship.name)"].map { .hiddenColumn($0) }
        }
        if inverse.isToMany {
            guard let join = schema.joinTable(entity: declaring, relationship: relationship.name) else { return nil }
            let isSideA = join.sourceEntity == declaring.name && join.sourceRelationship == relationship.name
            return isSideA
                ? .joinTable(
                    table: join.name, selfColumn: join.sourceColumn, otherColumn: join.destinationColumn,
                    orderColumn: join.sourceOrderColumn)
                : .joinTable(
                    table: join.name, selfColumn: join.destinationColumn, otherColumn: join.sourceColumn,
                    orderColumn: join.destinationOrderColumn)
        }
        guard let column = schema.columnName(entity: inverseEntity, property: inverse.name) else { return nil }
        let order = relationship.isOrdered ? schema.orderColumnNames[inverseEntity.name ?? ""]?[inverse.name] : nil
        return .inverseForeignKey(column: column, orderColumn: order)
    }
}

/// Which side of a many-to-many relationship writes a link when the objects at both of its ends
/// are in one save, each holding the other: written from both sides, each link cost two
/// `INSERT`s (the second finding the row there) and each removal two `DELETE`s.
///
/// An ordered side writes every link of its objects, since its order column is its own to
/// write. Between two unordered sides, side A (the one the join table is named after, as Core
/// Data picks it) writes. The other side defers: it leaves out a link whose other object is in
/// the save with that relationship changed and loaded (which then writes its links in full,
/// added and removed), and writes every other link itself, so that a change made on one side
/// only (the other a fault, or refreshed) is still written once.
struct JoinSide {
    /// `table.selfColumn`, naming this side's objects among a save's writers.
    let key: String
    /// `table.otherColumn`: the other side's key.
    let otherKey: String
    /// Whether this side leaves out the links of the other side's writing objects.
    let defers: Bool
    /// Whether the other side defers to this one: a save notes which of its objects write.
    let isReliedOn: Bool

    init?(_ relationship: NSRelationshipDescription, schema: SQLiteSchema) {
        guard let declaring = relationship.entity, let inverse = relationship.inverseRelationship, inverse.isToMany,
            let join = schema.joinTable(entity: declaring, relationship: relationship.name)
        else { return nil }
        let isSideA = join.sourceEntity == declaring.name && join.sourceRelationship == relationship.name
        let (selfColumn, otherColumn) =
            isSideA ? (join.sourceColumn, join.destinationColumn) : (join.destinationColumn, join.sourceColumn)
        key = join.name + "." + selfColumn
        otherKey = join.name + "." + otherColumn
        // A relationship that is its own inverse has one side, which writes all its links.
        let symmetric = inverse === relationship
        defers = !symmetric && !relationship.isOrdered && (inverse.isOrdered || !isSideA)
        isReliedOn = !symmetric && !inverse.isOrdered && (relationship.isOrdered || isSideA)
    }
}

/// Every entity's mapping, by entity number and by entity.
struct SQLiteStoreMapping {
    let schema: SQLiteSchema
    private let byNumber: [Int: SQLiteEntityMapping]
    private let byEntity: [ObjectIdentifier: SQLiteEntityMapping]
    /// Table name → every column its entities read, in one order, for `SELECT`s.
    let selectColumns: [String: [String]]
    /// `t0.Z_PK, t0.Z_ENT, …`: each table's `selectColumns` as a fetch selects them.
    let selectLists: [String: String]
    /// Entity number → where each of its columns is in its table's `SELECT` list.
    private let readPlans: [Int: [ReadColumn]]
    /// The row plans made so far, by entity number.
    private let rowPlans = Protected([Int: SQLiteRowPlan]())
    /// The `UPDATE`s made so far, by entity and changed columns.
    let updateTexts = SQLiteStatementTexts<UpdateKey>()
    /// The `SELECT`s of relationship faults made so far, by relationship and source entity.
    let relatedTexts = SQLiteStatementTexts<RelatedKey>()
    /// The fetch SQL kept by the shape of its plan (`SQLiteQueryTemplates`).
    let queryTemplates = SQLiteQueryTemplates()

    struct UpdateKey: Hashable {
        var entity: Int
        /// Positions in the entity's `columns`.
        var columns: [Int]
    }

    struct RelatedKey: Hashable {
        var relationship: ObjectIdentifier
        var entity: Int
    }

    /// One column of a row to decode: the layout position it fills, its place in the
    /// `SELECT` list, and for a to-one the place of its entity-number column.
    final class ReadColumn: @unchecked Sendable {
        let index: Int
        let position: Int
        let binding: SQLiteEntityMapping.Binding
        let entityPosition: Int?
        let kind: SQLiteValueKind
        /// The attribute, for reading without unpacking `binding` at every row.
        let attribute: NSAttributeDescription?

        init(index: Int, position: Int, binding: SQLiteEntityMapping.Binding, entityPosition: Int?, kind: SQLiteValueKind) {
            self.index = index
            self.position = position
            self.binding = binding
            self.entityPosition = entityPosition
            self.kind = kind
            if case .attribute(let attribute) = binding { self.attribute = attribute } else { self.attribute = nil }
        }
    }

    init(model: NSManagedObjectModel) {
        schema = SQLiteSchema(model: model)
        var byNumber: [Int: SQLiteEntityMapping] = [:]
        var byEntity: [ObjectIdentifier: SQLiteEntityMapping] = [:]
        var selectColumns: [String: [String]] = [:]
        for entity in schema.orderedEntities {
            guard let mapping = SQLiteEntityMapping(entity: entity, schema: schema) else { continue }
            byNumber[mapping.number] = mapping
            byEntity[ObjectIdentifier(entity)] = mapping
            var names = selectColumns[mapping.table] ?? ["Z_PK", "Z_ENT", "Z_OPT"]
            for column in mapping.columns {
                if !names.contains(column.name) { names.append(column.name) }
                if case .toOne(_, let entityColumn?) = column.binding, !names.contains(entityColumn) {
                    names.append(entityColumn)
                }
            }
            selectColumns[mapping.table] = names
        }
        self.byNumber = byNumber
        self.byEntity = byEntity
        self.selectColumns = selectColumns
        selectLists = selectColumns.mapValues { names in names.map { "t0.\($0)" }.joined(separator: ", ") }
        var readPlans: [Int: [ReadColumn]] = [:]
        for (number, mapping) in byNumber {
            let names = selectColumns[mapping.table] ?? []
            let positions = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
            // In layout order, so that a row's values can be appended position by position.
            readPlans[number] = mapping.columns.sorted { $0.index < $1.index }.compactMap { column in
                guard let position = positions[column.name] else { return nil }
                var entityPosition: Int?
                if case .toOne(_, let entityColumn?) = column.binding { entityPosition = positions[entityColumn] }
                return ReadColumn(
                    index: column.index, position: position, binding: column.binding, entityPosition: entityPosition,
                    kind: column.kind)
            }
        }
        self.readPlans = readPlans
    }

    func readPlan(number: Int) -> [ReadColumn] { readPlans[number] ?? [] }

    /// The row plan of an entity, made at its first query and shared by the later ones.
    func rowPlan(for entity: SQLiteEntityMapping) -> SQLiteRowPlan {
        if let plan = rowPlans.withLock({ $0[entity.number] }) { return plan }
        let plan = SQLiteRowPlan(entity: entity.entity, columns: readPlan(number: entity.number), mapping: self)
        rowPlans.withLock { $0[entity.number] = plan }
        return plan
    }

    func mapping(for entity: NSEntityDescription) -> SQLiteEntityMapping? { byEntity[ObjectIdentifier(entity)] }
    func mapping(number: Int) -> SQLiteEntityMapping? { byNumber[number] }

    /// The mapping of a row of `expected`'s table whose `Z_ENT` is `number`: the entity
    /// with that number when it lives in that table, otherwise `expected` itself. Core Data
    /// does not read `Z_ENT` of tables that hold one entity, and real stores have rows whose
    /// `Z_ENT` names an entity of another table there.
    func mapping(number: Int?, rowOf expected: SQLiteEntityMapping) -> SQLiteEntityMapping {
        guard let number, let found = byNumber[number], found.table == expected.table else { return expected }
        return found
    }
}
