import Foundation

/// Core Data's SQLite layout for a model (STORE-FORMAT.md §3.1–3.4): entity numbers,
/// one table per root entity, join tables for many-to-many relationships, indexes and the
/// SQL that creates them all.
struct SQLiteSchema {
    struct Column: Equatable {
        var name: String
        var type: String
    }

    struct Table {
        var name: String
        var columns: [Column]
        /// A compound primary key (join tables); entity tables declare `Z_PK` inline.
        var primaryKey: [String] = []
    }

    struct Index {
        var name: String
        var table: String
        /// Column names, in order.
        var columns: [String]
        /// The SQL of each element, e.g. `ZNAME COLLATE BINARY ASC`.
        var elements: [String]
        var isUnique: Bool
    }

    /// The join table of a many-to-many relationship pair.
    struct JoinTable {
        var name: String
        /// Holds the Z_PK of the entity that names the table (side A).
        var sourceColumn: String
        /// Holds the Z_PK of the other side (side B).
        var destinationColumn: String
        /// `Z_FOK_` column ordering A's relationship (when it is ordered).
        var sourceOrderColumn: String?
        /// `Z_FOK_` column ordering B's relationship (when it is ordered).
        var destinationOrderColumn: String?
        /// The entity name and relationship name of side A.
        var sourceEntity: String
        var sourceRelationship: String
    }

    /// Entities in numbering order; the entity number is the position plus one.
    private(set) var orderedEntities: [NSEntityDescription] = []
    private(set) var entityNumbers: [String: Int] = [:]
    private(set) var tables: [Table] = []
    private(set) var indexes: [Index] = []
    /// Entity name → property name → column name (FKs for to-one relationships).
    private(set) var columnNames: [String: [String: String]] = [:]
    /// Entity name → to-one relationship name → `Z<n>_` entity column.
    private(set) var entityColumnNames: [String: [String: String]] = [:]
    /// Entity name → to-one relationship name → `Z_FOK_` order column of the ordered inverse.
    private(set) var orderColumnNames: [String: [String: String]] = [:]
    /// "Entity.relationship" → column on the destination table of a to-many without inverse.
    private(set) var hiddenInverseColumns: [String: String] = [:]
    /// "Entity.relationship" → join table, for both sides of each many-to-many pair.
    private(set) var joinTables: [String: JoinTable] = [:]

    init(model: NSManagedObjectModel) {
        numberEntities(model)
        for root in orderedEntities where root.superentity == nil { addEntityTable(root: root) }
        addJoinTables()
    }

    func entityNumber(for entity: NSEntityDescription) -> Int? { entity.name.flatMap { entityNumbers[$0] } }

    func tableName(for entity: NSEntityDescription) -> String { Self.tableName(entity.rootEntity) }

    func columnName(entity: NSEntityDescription, property: String) -> String? {
        columnNames[entity.name ?? ""]?[property]
    }

    /// The column of a composite attribute's leaf element, by the element path.
    func leafColumnName(entity: NSEntityDescription, composite: String, path: [String]) -> String? {
        columnNames[entity.name ?? ""]?[composite + "." + path.joined(separator: ".")]
    }

    /// `Z` + the composite's name and the element path, upper-cased and joined by `_`
    /// (`ZMAGNITUDE_RICHTER`). Core Data flattens a composite into the entity's table; the
    /// names it gives those columns could not be confirmed (DEVIATIONS.md).
    static func leafColumnBase(composite: String, path: [String]) -> String {
        "Z" + ([composite] + path).map { $0.uppercased() }.joined(separator: "_")
    }

    func joinTable(entity: NSEntityDescription, relationship: String) -> JoinTable? {
        joinTables["\(entity.name ?? "").\(relationship)"]
    }

    static func tableName(_ entity: NSEntityDescription) -> String { "Z" + (entity.rootEntity.name ?? "").uppercased() }

    static func sqlType(_ type: NSAttributeType) -> String? {
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType:
            "INTEGER"
        case .decimalAttributeType: "DECIMAL"
        case .doubleAttributeType, .floatAttributeType: "FLOAT"
        case .stringAttributeType, .URIAttributeType: "VARCHAR"
        case .dateAttributeType: "TIMESTAMP"
        case .binaryDataAttributeType, .UUIDAttributeType, .transformableAttributeType: "BLOB"
        default: nil
        }
    }

    // MARK: Numbering

    private mutating func numberEntities(_ model: NSManagedObjectModel) {
        orderedEntities = Self.numbered(model)
        for (offset, entity) in orderedEntities.enumerated() { entityNumbers[entity.name ?? ""] = offset + 1 }
    }

    /// The model's entities in Core Data's numbering order: roots by name, each followed by
    /// its subentities, depth first.
    static func numbered(_ model: NSManagedObjectModel) -> [NSEntityDescription] {
        var result: [NSEntityDescription] = []
        func visit(_ entity: NSEntityDescription) {
            result.append(entity)
            for sub in entity.subentities.sorted(by: byName) { visit(sub) }
        }
        for root in model.entities.filter({ $0.superentity == nil }).sorted(by: byName) { visit(root) }
        return result
    }

    /// Case-insensitive, as Apple numbers `SyncableSettingsMetadata` (1) before `SyncFeatureEntity` (2).
    private static func byName(_ a: NSEntityDescription, _ b: NSEntityDescription) -> Bool {
        let (x, y) = (a.name ?? "", b.name ?? "")
        let (lx, ly) = (x.lowercased(), y.lowercased())
        if lx != ly { return Array(lx.utf8).lexicographicallyPrecedes(Array(ly.utf8)) }
        return Array(x.utf8).lexicographicallyPrecedes(Array(y.utf8))
    }

    /// The fixed rows of Z_PRIMARYKEY: (Z_ENT, Z_NAME, Z_SUPER).
    var primaryKeyRows: [(entity: Int, name: String, superEntity: Int)] {
        orderedEntities.enumerated().map { offset, entity in
            (offset + 1, entity.name ?? "", entity.superentity.flatMap { entityNumber(for: $0) } ?? 0)
        }
    }

    // MARK: Entity tables

    private mutating func addEntityTable(root: NSEntityDescription) {
        let table = Self.tableName(root)
        let hierarchy = orderedEntities.filter { $0.rootEntity === root }
        var columns = [Column(name: "Z_PK", type: "INTEGER"), Column(name: "Z_ENT", type: "INTEGER")]
        columns.append(Column(name: "Z_OPT", type: "INTEGER"))
        var used = ColumnNameAllocator(taken: columns.map(\.name))
        func unique(_ base: String) -> String { used.allocate(base) }
        var foreignKeys: [String] = []
        for entity in hierarchy {
            var names: [String: String] = [:]
            var entityColumns: [String: String] = [:]
            for property in entity.declaredProperties where !property.isTransient {
                if let composite = property as? NSCompositeAttributeDescription {
                    // A column per leaf element, named after the composite and the path to
                    // it; key paths reach it by that path (`magnitude.richter`).
                    for leaf in CompositeValues.leaves(of: composite) {
                        guard let type = Self.sqlType(leaf.attribute.attributeType) else { continue }
                        let name = unique(Self.leafColumnBase(composite: composite.name, path: leaf.path))
                        names[composite.name + "." + leaf.keyPath] = name
                        columns.append(Column(name: name, type: type))
                    }
                } else if let attribute = property as? NSAttributeDescription {
                    guard let type = Self.sqlType(attribute.attributeType) else { continue }
                    let name = unique("Z" + attribute.name.uppercased())
                    names[attribute.name] = name
                    columns.append(Column(name: name, type: type))
                } else if let relationship = property as? NSRelationshipDescription, !relationship.isToMany {
                    let name = unique("Z" + relationship.name.uppercased())
                    names[relationship.name] = name
                    columns.append(Column(name: name, type: "INTEGER"))
                    foreignKeys.append(name)
                    if let destination = relationship.destinationEntity, !destination.subentities.isEmpty,
                        let number = entityNumber(for: destination)
                    {
                        let entityColumn = unique("Z\(number)_" + relationship.name.uppercased())
                        entityColumns[relationship.name] = entityColumn
                        columns.append(Column(name: entityColumn, type: "INTEGER"))
                    }
                    if let inverse = relationship.inverseRelationship, inverse.isToMany, inverse.isOrdered {
                        let orderColumn = unique("Z_FOK_" + relationship.name.uppercased())
                        orderColumnNames[entity.name ?? "", default: [:]][relationship.name] = orderColumn
                        columns.append(Column(name: orderColumn, type: "INTEGER"))
                    }
                }
            }
            // Inherited properties share the ancestor's column.
            for ancestor in entity.selfAndAncestors.dropFirst() {
                for (property, column) in columnNames[ancestor.name ?? ""] ?? [:] where names[property] == nil {
                    names[property] = column
                }
                for (relationship, column) in entityColumnNames[ancestor.name ?? ""] ?? [:]
                where entityColumns[relationship] == nil {
                    entityColumns[relationship] = column
                }
                for (relationship, column) in orderColumnNames[ancestor.name ?? ""] ?? [:] {
                    orderColumnNames[entity.name ?? "", default: [:]][relationship] = column
                }
            }
            columnNames[entity.name ?? ""] = names
            entityColumnNames[entity.name ?? ""] = entityColumns
        }
        // A to-many without inverse is stored as a hidden to-one on the destination: a
        // `Z<source entity number><NAME>` column holding the source's Z_PK (ArtsyPartner_1.6's
        // `ZDOCUMENT.Z1DOCUMENTS` for Album.documents).
        for source in orderedEntities {
            for case let relationship as NSRelationshipDescription in source.declaredProperties
            where relationship.isToMany && !relationship.isTransient && relationship.inverseRelationship == nil
                && relationship.destinationEntity?.rootEntity === root
            {
                guard let number = entityNumber(for: source) else { continue }
                let name = unique("Z\(number)" + relationship.name.uppercased())
                hiddenInverseColumns["\(source.name ?? "").\(relationship.name)"] = name
                columns.append(Column(name: name, type: "INTEGER"))
                foreignKeys.append(name)
            }
        }
        let groups = ["INTEGER": 0, "TIMESTAMP": 1, "DECIMAL": 2, "FLOAT": 2, "VARCHAR": 3, "BLOB": 4]
        let ordered = columns.enumerated().sorted {
            (groups[$0.element.type] ?? 5, $0.offset) < (groups[$1.element.type] ?? 5, $1.offset)
        }
        tables.append(Table(name: table, columns: ordered.map(\.element)))
        if hierarchy.count > 1 {
            addIndex(name: "\(table)_Z_ENT_INDEX", table: table, columns: ["Z_ENT"], elements: ["Z_ENT"])
        }
        for key in foreignKeys {
            addIndex(name: "\(table)_\(key)_INDEX", table: table, columns: [key], elements: [key])
        }
        for entity in hierarchy { addFetchIndexes(entity: entity, table: table) }
    }

    private mutating func addIndex(name: String, table: String, columns: [String], elements: [String], unique: Bool = false) {
        indexes.append(Index(name: name, table: table, columns: columns, elements: elements, isUnique: unique))
    }

    private mutating func addFetchIndexes(entity: NSEntityDescription, table: String) {
        let entityName = entity.name ?? ""
        let names = columnNames[entityName] ?? [:]
        func element(_ property: String, ascending: Bool = true) -> (String, String)? {
            names[property].map { ($0, "\($0) COLLATE BINARY \(ascending ? "ASC" : "DESC")") }
        }
        func add(_ name: String, _ parts: [(String, String)?], unique: Bool = false) {
            let parts = parts.compactMap { $0 }
            guard !parts.isEmpty else { return }
            addIndex(name: name, table: table, columns: parts.map(\.0), elements: parts.map(\.1), unique: unique)
        }
        for index in entity.indexes {
            add(
                "Z_\(entityName)_\(index.name)",
                index.elements.map { item in item.propertyName.flatMap { element($0, ascending: item.isAscending) } })
        }
        for property in entity.declaredProperties where property.isIndexed && !property.isTransient {
            add("Z_\(entityName)_\(property.name)", [element(property.name)])
        }
        for compound in entity.compoundIndexNames where !compound.isEmpty {
            add("Z_\(entityName)_\(compound.joined(separator: "_"))", compound.map { element($0) })
        }
        // Inherited constraints are not repeated for subentities (SampleModel_V1: only Z_Car_UNIQUE_numberPlate).
        let inherited = Set(entity.superentity?.uniquenessConstraintNames ?? [])
        for constraint in entity.uniquenessConstraintNames where !constraint.isEmpty && !inherited.contains(constraint) {
            add("Z_\(entityName)_UNIQUE_\(constraint.joined(separator: "_"))", constraint.map { element($0) }, unique: true)
        }
    }

    // MARK: Join tables

    private mutating func addJoinTables() {
        // Join-column names are unique store-wide, not per table (STORE-FORMAT §3.3).
        var usedColumns = ColumnNameAllocator(taken: [])
        func unique(_ base: String) -> String { usedColumns.allocate(base) }
        var done = Set<ObjectIdentifier>()
        for entity in orderedEntities {
            let relationships = entity.declaredProperties.compactMap { $0 as? NSRelationshipDescription }
            for relationship in relationships.sorted(by: { Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) })
            where relationship.isToMany && !relationship.isTransient && !done.contains(ObjectIdentifier(relationship)) {
                guard let inverse = relationship.inverseRelationship, inverse.isToMany,
                    let inverseEntity = inverse.entity, let number = entityNumber(for: entity),
                    let inverseNumber = entityNumber(for: inverseEntity)
                else { continue }
                done.insert(ObjectIdentifier(relationship))
                done.insert(ObjectIdentifier(inverse))
                // Side A: the lower entity number; with equal numbers, the later-sorting name.
                let relationshipFirst =
                    number != inverseNumber
                    ? number < inverseNumber
                    : Array(inverse.name.utf8).lexicographicallyPrecedes(Array(relationship.name.utf8))
                let (a, aNumber, b, bNumber) =
                    relationshipFirst
                    ? (relationship, number, inverse, inverseNumber) : (inverse, inverseNumber, relationship, number)
                let name = "Z_\(aNumber)" + a.name.uppercased()
                let sourceColumn = unique("Z_\(aNumber)" + b.name.uppercased())
                let destinationColumn = unique("Z_\(bNumber)" + a.name.uppercased())
                let join = JoinTable(
                    name: name, sourceColumn: sourceColumn, destinationColumn: destinationColumn,
                    sourceOrderColumn: a.isOrdered ? "Z_FOK_" + destinationColumn.dropFirst(2) : nil,
                    destinationOrderColumn: b.isOrdered ? "Z_FOK_" + sourceColumn.dropFirst(2) : nil,
                    sourceEntity: a.entity?.name ?? "", sourceRelationship: a.name)
                joinTables["\(a.entity?.name ?? "").\(a.name)"] = join
                joinTables["\(b.entity?.name ?? "").\(b.name)"] = join
                var columns = [Column(name: sourceColumn, type: "INTEGER"), Column(name: destinationColumn, type: "INTEGER")]
                for order in [join.sourceOrderColumn, join.destinationOrderColumn].compactMap({ $0 }) {
                    columns.append(Column(name: order, type: "INTEGER"))
                }
                tables.append(Table(name: name, columns: columns, primaryKey: [sourceColumn, destinationColumn]))
                addIndex(
                    name: "\(name)_\(destinationColumn)_INDEX", table: name, columns: [destinationColumn, sourceColumn],
                    elements: [destinationColumn, sourceColumn])
            }
        }
    }

    // MARK: SQL

    static let fixedTableStatements = [
        "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)",
        "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)",
        "CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)",
    ]

    /// `CREATE TABLE` and `CREATE [UNIQUE] INDEX` statements for the whole store, fixed tables included.
    var createStatements: [String] {
        var statements = Self.fixedTableStatements
        for table in tables {
            var parts = table.columns.map { column in
                column.name == "Z_PK" && table.primaryKey.isEmpty
                    ? "Z_PK INTEGER PRIMARY KEY" : "\(column.name) \(column.type)"
            }
            if !table.primaryKey.isEmpty { parts.append("PRIMARY KEY (\(table.primaryKey.joined(separator: ", ")))") }
            statements.append("CREATE TABLE \(table.name) ( \(parts.joined(separator: ", ")) )")
        }
        for index in indexes {
            statements.append(
                "CREATE \(index.isUnique ? "UNIQUE " : "")INDEX \(index.name) ON \(index.table) (\(index.elements.joined(separator: ", ")))"
            )
        }
        return statements
    }

    /// Statements that fill Z_PRIMARYKEY with one row per entity (Z_MAX = 0).
    var primaryKeyInsertStatements: [String] {
        primaryKeyRows.map { row in
            let name = row.name.replacingOccurrences(of: "'", with: "''")
            return
                "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (\(row.entity), '\(name)', \(row.superEntity), 0)"
        }
    }
}

/// Hands out column names, adding Core Data's numeric suffix (`ZTEXT`, `ZTEXT1`, `ZTEXT2`…)
/// when a name is already taken.
struct ColumnNameAllocator {
    private var taken: Set<String>

    init(taken: [String]) { self.taken = Set(taken) }

    mutating func allocate(_ base: String) -> String {
        var name = base
        var suffix = 1
        while taken.contains(name) {
            name = base + String(suffix)
            suffix += 1
        }
        taken.insert(name)
        return name
    }
}
