import Foundation

/// How each destination table of a lightweight migration is filled: one `SELECT` over its
/// source table (alias `s`) for an entity table, one over a relationship's links (alias `l`)
/// for a join table. Every value is an SQL expression over the source row, so that the
/// whole table is copied by one statement.
extension SQLiteMigration {
    /// Who a column of a destination entity table belongs to.
    enum ColumnOwner {
        case attribute(NSEntityDescription, NSAttributeDescription)
        /// The foreign key of a to-one relationship.
        case toOne(NSEntityDescription, NSRelationshipDescription)
        /// The `Z<n>_` entity-number column of a to-one relationship.
        case entityColumn(NSEntityDescription, NSRelationshipDescription)
        /// The `Z_FOK_` column: this row's place in the ordered inverse of a to-one.
        case order(NSEntityDescription, NSRelationshipDescription)
        /// The hidden column of a to-many without inverse declared by another entity.
        case hidden(NSEntityDescription, NSRelationshipDescription)
        /// A leaf element's column of a composite attribute.
        case compositeLeaf(NSEntityDescription, NSCompositeAttributeDescription, CompositeValues.Leaf)
    }

    /// The source table a plan reads and what it knows of it.
    struct SourceRows {
        var table: String
        var links: SQLiteMigrationLinks
    }

    func entityTablePlan(
        _ table: SQLiteSchema.Table, root: NSEntityDescription, links: SQLiteMigrationLinks,
        existing: [String: [SQLiteSchema.Column]]
    ) -> TablePlan {
        var plan = TablePlan(table: table, rootName: root.name)
        let hierarchy = destinationSchema.orderedEntities.filter { $0.rootEntity === root }
        let mapped = hierarchy.compactMap { entity in sourceEntities[entity.name ?? ""].map { (entity, $0) } }
        guard let first = mapped.first else { return plan }
        let sourceTable = sourceSchema.tableName(for: first.1)
        guard existing[sourceTable] != nil else { return plan }
        plan.sourceRootName = first.1.rootEntity.name
        let rows = SourceRows(table: sourceTable, links: links)
        let sourceHierarchy = sourceSchema.orderedEntities.filter { sourceSchema.tableName(for: $0) == sourceTable }
        let single = sourceHierarchy.count == 1
        let keepsAll = Set(mapped.map { ObjectIdentifier($0.1) }) == Set(sourceHierarchy.map(ObjectIdentifier.init))
        let filter =
            single || keepsAll
            ? ""
            : "WHERE s.Z_ENT IN (\(mapped.compactMap { sourceSchema.entityNumber(for: $0.1) }.map(String.init).joined(separator: ", ")))"
        let owners = columnOwners(hierarchy: hierarchy, root: root)
        var selects: [String] = []
        for column in table.columns {
            switch column.name {
            case "Z_PK": selects.append("s.Z_PK")
            case "Z_OPT": selects.append("s.Z_OPT")
            case "Z_ENT": selects.append(entityExpression(mapped, single: single))
            default:
                guard let owner = owners[column.name] else {
                    selects.append("NULL")
                    continue
                }
                selects.append(combined(owner, mapped: mapped, single: single, rows: rows))
            }
        }
        plan.mandatoryChecks = mandatoryChecks(mapped, rows: rows)
        if sourceTable == table.name, filter.isEmpty, let alterations = alterations(table, selects, existing[sourceTable] ?? []) {
            plan.isKept = true
            plan.alterSQL = alterations
        }
        plan.fillSQL =
            "INSERT INTO \(plan.temporaryName) (\(table.columns.map(\.name).joined(separator: ", "))) SELECT \(selects.joined(separator: ", ")) FROM \(sourceTable) AS s \(filter)"
        return plan
    }

    /// The `ALTER TABLE` statements that turn the source table into the destination's in
    /// place, or `nil` when the table must be made anew. Renamed columns and columns added
    /// with a constant (a default, or `NULL`) change the schema only, whatever the number of
    /// rows; SQLite reads an added column's default for the rows it had.
    private func alterations(
        _ table: SQLiteSchema.Table, _ selects: [String], _ existing: [SQLiteSchema.Column]
    )
        -> [String]?
    {
        let existingNames = Set(existing.map(\.name))
        var used = Set<String>()
        var renames: [String] = []
        var additions: [String] = []
        for (column, select) in zip(table.columns, selects) {
            if select.hasPrefix("s."), select.dropFirst(2).allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) {
                let old = String(select.dropFirst(2))
                guard let found = existing.first(where: { $0.name == old }), found.type == column.type,
                    used.insert(old).inserted
                else { return nil }
                guard old != column.name else { continue }
                // A rename onto a name the table still has would need a swap.
                guard !existingNames.contains(column.name) else { return nil }
                renames.append("ALTER TABLE \(table.name) RENAME COLUMN \(old) TO \(column.name)")
            } else if !select.contains("("), !select.hasPrefix("s."), !select.hasPrefix("CASE") {
                let value = select == "NULL" ? "" : " DEFAULT \(select)"
                additions.append("ALTER TABLE \(table.name) ADD COLUMN \(column.name) \(column.type)\(value)")
            } else {
                return nil
            }
        }
        guard used == existingNames else { return nil }
        return renames + additions
    }

    /// `Z_ENT` of the new rows: the destination numbers of the source entities.
    private func entityExpression(_ mapped: [(NSEntityDescription, NSEntityDescription)], single: Bool) -> String {
        let moves = mapped.compactMap { pair -> (Int, Int)? in
            guard let old = sourceSchema.entityNumber(for: pair.1), let new = destinationSchema.entityNumber(for: pair.0)
            else { return nil }
            return (old, new)
        }
        if moves.allSatisfy({ $0.0 == $0.1 }) { return "s.Z_ENT" }
        if single, let move = moves.first { return String(move.1) }
        return "CASE s.Z_ENT " + moves.map { "WHEN \($0.0) THEN \($0.1)" }.joined(separator: " ") + " END"
    }

    /// A source entity-number expression turned into destination numbers (`NULL` for an
    /// entity that is gone).
    func renumbered(_ expression: String) -> String {
        let moves = sourceSchema.orderedEntities.compactMap { entity -> String? in
            guard let old = sourceSchema.entityNumber(for: entity),
                let target = destinationEntities[entity.name ?? ""],
                let new = destinationSchema.entityNumber(for: target)
            else { return nil }
            return "WHEN \(old) THEN \(new)"
        }
        guard !moves.isEmpty else { return "NULL" }
        return "CASE \(expression) \(moves.joined(separator: " ")) END"
    }

    private func columnOwners(hierarchy: [NSEntityDescription], root: NSEntityDescription) -> [String: ColumnOwner] {
        var owners: [String: ColumnOwner] = [:]
        for entity in hierarchy {
            let name = entity.name ?? ""
            for property in entity.declaredProperties where !property.isTransient {
                if let composite = property as? NSCompositeAttributeDescription {
                    for leaf in CompositeValues.leaves(of: composite) {
                        if let column = destinationSchema.leafColumnName(
                            entity: entity, composite: composite.name, path: leaf.path)
                        {
                            owners[column] = .compositeLeaf(entity, composite, leaf)
                        }
                    }
                } else if let attribute = property as? NSAttributeDescription,
                    let column = destinationSchema.columnName(entity: entity, property: attribute.name)
                {
                    owners[column] = .attribute(entity, attribute)
                } else if let relationship = property as? NSRelationshipDescription, !relationship.isToMany {
                    if let column = destinationSchema.columnName(entity: entity, property: relationship.name) {
                        owners[column] = .toOne(entity, relationship)
                    }
                    if let column = destinationSchema.entityColumnNames[name]?[relationship.name] {
                        owners[column] = .entityColumn(entity, relationship)
                    }
                    if let column = destinationSchema.orderColumnNames[name]?[relationship.name] {
                        owners[column] = .order(entity, relationship)
                    }
                }
            }
        }
        for (key, column) in destinationSchema.hiddenInverseColumns {
            let parts = key.split(separator: ".", maxSplits: 1).map(String.init)
            guard parts.count == 2, let entity = destinationSchema.orderedEntities.first(where: { $0.name == parts[0] }),
                let relationship = entity.relationshipsByName[parts[1]],
                relationship.destinationEntity?.rootEntity === root
            else { continue }
            owners[column] = .hidden(entity, relationship)
        }
        return owners
    }

    /// One column's value for every kind of row: the same expression for all, or a `CASE`
    /// on the source entity when rows of different entities get it differently.
    private func combined(
        _ owner: ColumnOwner, mapped: [(NSEntityDescription, NSEntityDescription)], single: Bool, rows: SourceRows
    ) -> String {
        let relevant = mapped.filter { pair in
            switch owner {
            case .attribute(let entity, _), .toOne(let entity, _), .entityColumn(let entity, _), .order(let entity, _),
                .compositeLeaf(let entity, _, _):
                return pair.0.isKindOf(entity: entity)
            case .hidden(_, let relationship):
                return relationship.destinationEntity.map { pair.0.isKindOf(entity: $0) } ?? false
            }
        }
        let values = relevant.map { value(owner, destination: $0.0, source: $0.1, rows: rows) ?? "NULL" }
        guard let first = values.first else { return "NULL" }
        if single || (relevant.count == mapped.count && values.allSatisfy({ $0 == first })) { return first }
        let cases = zip(relevant, values).compactMap { pair, value -> String? in
            sourceSchema.entityNumber(for: pair.1).map { "WHEN \($0) THEN \(value)" }
        }
        return "CASE s.Z_ENT \(cases.joined(separator: " ")) END"
    }

    private func value(
        _ owner: ColumnOwner, destination entity: NSEntityDescription, source: NSEntityDescription, rows: SourceRows
    ) -> String? {
        switch owner {
        case .attribute(_, let attribute):
            return attributeValue(attribute, destination: entity, source: source, rows: rows)
        case .toOne(_, let relationship):
            return toOneValue(relationship, destination: entity, source: source, rows: rows)?.key
        case .entityColumn(_, let relationship):
            return toOneValue(relationship, destination: entity, source: source, rows: rows)?.entity
        case .order(_, let relationship):
            return orderValue(relationship, destination: entity, source: source, rows: rows)
        case .hidden(let owner, let relationship):
            return hiddenValue(relationship, owner: owner, rows: rows)
        case .compositeLeaf(_, let composite, let leaf):
            return leafValue(leaf, of: composite, destination: entity, source: source, rows: rows)
        }
    }

    /// A composite leaf's column: the source's leaf at the same element path of the mapped
    /// composite attribute (converted as an attribute's value is), else the leaf's default.
    private func leafValue(
        _ leaf: CompositeValues.Leaf, of composite: NSCompositeAttributeDescription, destination entity: NSEntityDescription,
        source: NSEntityDescription, rows: SourceRows
    ) -> String? {
        let defaultValue = leaf.attribute.defaultValue.map { SQLiteLiteral.text($0, attribute: leaf.attribute) }
        guard let old = sourceAttribute(composite, destination: entity, source: source) as? NSCompositeAttributeDescription,
            let oldLeaf = CompositeValues.leaf(leaf.path, of: old),
            let column = sourceSchema.leafColumnName(entity: source, composite: old.name, path: leaf.path),
            rows.links.has(rows.table, column)
        else { return defaultValue }
        return Self.converted("s.\(column)", from: oldLeaf.attribute.attributeType, to: leaf.attribute.attributeType)
    }

    /// A source column's value as a destination attribute of another type reads it: numbers cast.
    private static func converted(_ value: String, from old: NSAttributeType, to new: NSAttributeType) -> String {
        guard old != new else { return value }
        switch new {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType:
            return "CAST(\(value) AS INTEGER)"
        case .doubleAttributeType, .floatAttributeType:
            return "CAST(\(value) AS REAL)"
        default:
            return value
        }
    }

    // MARK: Attributes

    func sourceAttribute(
        _ attribute: NSAttributeDescription, destination entity: NSEntityDescription, source: NSEntityDescription
    )
        -> NSAttributeDescription?
    {
        sourceProperties[entity.name ?? ""]?[attribute.name].flatMap { source.attributesByName[$0] }
    }

    private func attributeValue(
        _ attribute: NSAttributeDescription, destination entity: NSEntityDescription, source: NSEntityDescription,
        rows: SourceRows
    ) -> String? {
        let defaultValue = attribute.defaultValue.map { SQLiteLiteral.text($0, attribute: attribute) }
        guard let old = sourceAttribute(attribute, destination: entity, source: source),
            let column = sourceSchema.columnName(entity: source, property: old.name), rows.links.has(rows.table, column)
        else { return defaultValue }
        var value = Self.converted("s.\(column)", from: old.attributeType, to: attribute.attributeType)
        let oldExternal = SQLiteExternalStorage.usesFiles(old)
        let newExternal = SQLiteExternalStorage.usesFiles(attribute)
        if !oldExternal && newExternal {
            value = "CASE WHEN \(value) IS NULL THEN NULL ELSE CAST(X'01' || \(value) AS BLOB) END"
        } else if oldExternal && !newExternal {
            value = "CASE WHEN substr(\(value), 1, 1) = X'01' THEN substr(\(value), 2) ELSE \(value) END"
        }
        if !attribute.isOptional, old.isOptional, let defaultValue { value = "COALESCE(\(value), \(defaultValue))" }
        return value
    }

    // MARK: Relationships

    /// Whether the objects a source relationship points at live in the table the destination
    /// relationship points into, so that their keys still name them.
    func sameTargets(_ old: NSRelationshipDescription, _ new: NSRelationshipDescription) -> Bool {
        guard let oldTarget = old.destinationEntity?.name, let mapped = destinationEntities[oldTarget],
            let newTarget = new.destinationEntity
        else { return false }
        return mapped.rootEntity === newTarget.rootEntity
    }

    func sourceRelationship(
        _ relationship: NSRelationshipDescription, destination entity: NSEntityDescription, source: NSEntityDescription?
    ) -> NSRelationshipDescription? {
        guard let source, let name = sourceProperties[entity.name ?? ""]?[relationship.name],
            let old = source.relationshipsByName[name], sameTargets(old, relationship)
        else { return nil }
        return old
    }

    /// The foreign key of a to-one and its entity-number column, for one kind of row.
    private func toOneValue(
        _ relationship: NSRelationshipDescription, destination entity: NSEntityDescription, source: NSEntityDescription,
        rows: SourceRows
    ) -> (key: String, entity: String)? {
        let sourceName = source.name ?? ""
        if let old = sourceRelationship(relationship, destination: entity, source: source) {
            let targetTable = old.destinationEntity.map { sourceSchema.tableName(for: $0) } ?? ""
            if !old.isToMany, let column = sourceSchema.columnName(entity: source, property: old.name),
                rows.links.has(rows.table, column)
            {
                let key = "s.\(column)"
                if let entityColumn = sourceSchema.entityColumnNames[sourceName]?[old.name],
                    rows.links.has(rows.table, entityColumn)
                {
                    return (key, renumbered("s.\(entityColumn)"))
                }
                let target = old.destinationEntity.flatMap { destinationEntities[$0.name ?? ""] }
                let number = target.flatMap { destinationSchema.entityNumber(for: $0) }.map(String.init) ?? "NULL"
                return (key, "CASE WHEN \(key) IS NULL THEN NULL ELSE \(number) END")
            }
            guard let query = rows.links.query(old) else { return nil }
            let key = "(SELECT l.t FROM (\(query)) AS l WHERE l.o = s.Z_PK ORDER BY l.oo, l.t LIMIT 1)"
            return (key, targetEntity(key, table: targetTable))
        }
        // A relationship new on this side whose inverse existed: its links, reversed.
        guard let inverse = relationship.inverseRelationship, let inverseEntity = inverse.entity,
            let old = sourceRelationship(
                inverse, destination: inverseEntity, source: sourceEntities[inverseEntity.name ?? ""]),
            let query = rows.links.query(old)
        else { return nil }
        let key = "(SELECT l.o FROM (\(query)) AS l WHERE l.t = s.Z_PK ORDER BY l.ot, l.o LIMIT 1)"
        return (key, targetEntity(key, table: old.entity.map { sourceSchema.tableName(for: $0) } ?? ""))
    }

    /// The destination entity number of the source row a key names.
    private func targetEntity(_ key: String, table: String) -> String {
        "(SELECT \(renumbered("x.Z_ENT")) FROM \(table) AS x WHERE x.Z_PK = \(key))"
    }

    /// The `Z_FOK_` order key of a row in its owner's ordered to-many: the stored one when
    /// the source was ordered too, otherwise the row's place among its owner's in key order.
    private func orderValue(
        _ relationship: NSRelationshipDescription, destination entity: NSEntityDescription, source: NSEntityDescription,
        rows: SourceRows
    ) -> String? {
        if let old = sourceRelationship(relationship, destination: entity, source: source), !old.isToMany,
            let column = sourceSchema.orderColumnNames[source.name ?? ""]?[old.name], rows.links.has(rows.table, column)
        {
            return "s.\(column)"
        }
        guard let key = toOneValue(relationship, destination: entity, source: source, rows: rows)?.key else { return nil }
        return "CASE WHEN \(key) IS NULL THEN NULL ELSE (ROW_NUMBER() OVER (PARTITION BY \(key) ORDER BY s.Z_PK) + 1) * 1024 END"
    }

    /// The hidden column of a to-many without inverse: the key of the object holding this row.
    private func hiddenValue(
        _ relationship: NSRelationshipDescription, owner: NSEntityDescription, rows: SourceRows
    )
        -> String?
    {
        guard let old = sourceRelationship(relationship, destination: owner, source: sourceEntities[owner.name ?? ""])
        else { return nil }
        if old.inverseRelationship == nil,
            let column = sourceSchema.hiddenInverseColumns["\(old.entity?.name ?? "").\(old.name)"],
            rows.links.has(rows.table, column)
        {
            return "s.\(column)"
        }
        guard let query = rows.links.query(old) else { return nil }
        return "(SELECT l.o FROM (\(query)) AS l WHERE l.t = s.Z_PK ORDER BY l.o LIMIT 1)"
    }

    // MARK: Checks

    /// The mandatory values of the destination that the migration may leave empty: new
    /// ones without a default, and ones that were optional.
    private func mandatoryChecks(
        _ mapped: [(NSEntityDescription, NSEntityDescription)], rows: SourceRows
    )
        -> [MandatoryCheck]
    {
        var checks: [MandatoryCheck] = []
        for (entity, source) in mapped {
            guard let number = destinationSchema.entityNumber(for: entity) else { continue }
            for property in entity.properties where !property.isOptional && !property.isTransient {
                guard let column = destinationSchema.columnName(entity: entity, property: property.name) else { continue }
                switch property {
                case is NSDerivedAttributeDescription:
                    continue
                case let attribute as NSAttributeDescription:
                    let old = sourceAttribute(attribute, destination: entity, source: source)
                    let needed = attribute.defaultValue == nil && (old == nil || old?.isOptional == true)
                    guard needed else { continue }
                    checks.append(
                        MandatoryCheck(
                            entity: entity.name ?? "", entityNumber: number, property: attribute.name, column: column,
                            isRelationship: false))
                case let relationship as NSRelationshipDescription where !relationship.isToMany:
                    let old = sourceRelationship(relationship, destination: entity, source: source)
                    guard old == nil || old?.isOptional == true || old?.isToMany == true else { continue }
                    checks.append(
                        MandatoryCheck(
                            entity: entity.name ?? "", entityNumber: number, property: relationship.name, column: column,
                            isRelationship: true))
                default:
                    continue
                }
            }
        }
        return checks
    }

    // MARK: Join tables

    func joinTablePlan(
        _ table: SQLiteSchema.Table, join: SQLiteSchema.JoinTable, links: SQLiteMigrationLinks,
        existing: [String: [SQLiteSchema.Column]]
    ) -> TablePlan {
        var plan = TablePlan(table: table)
        guard let sideA = destinationSchema.orderedEntities.first(where: { $0.name == join.sourceEntity }),
            let relationship = sideA.relationshipsByName[join.sourceRelationship],
            let inverse = relationship.inverseRelationship, let sideB = inverse.entity
        else { return plan }
        var query: String?
        if let old = sourceRelationship(relationship, destination: sideA, source: sourceEntities[sideA.name ?? ""]) {
            query = links.query(old)
            if let oldJoin = old.entity.flatMap({ sourceSchema.joinTable(entity: $0, relationship: old.name) }),
                oldJoin.sourceEntity == old.entity?.name, oldJoin.sourceRelationship == old.name,
                oldJoin.name == join.name, oldJoin.sourceColumn == join.sourceColumn,
                oldJoin.destinationColumn == join.destinationColumn, oldJoin.sourceOrderColumn == join.sourceOrderColumn,
                oldJoin.destinationOrderColumn == join.destinationOrderColumn, sameColumns(table, existing)
            {
                plan.isKept = true
            }
        } else if let old = sourceRelationship(inverse, destination: sideB, source: sourceEntities[sideB.name ?? ""]) {
            query = links.query(old).map(SQLiteMigrationLinks.reversed)
        }
        guard let query else { return plan }
        var columns = [join.sourceColumn, join.destinationColumn]
        var selects = ["l.o", "l.t"]
        if let order = join.sourceOrderColumn {
            columns.append(order)
            selects.append("COALESCE(l.oo, (ROW_NUMBER() OVER (PARTITION BY l.o ORDER BY l.t) + 1) * 1024)")
        }
        if let order = join.destinationOrderColumn {
            columns.append(order)
            selects.append("COALESCE(l.ot, (ROW_NUMBER() OVER (PARTITION BY l.t ORDER BY l.o) + 1) * 1024)")
        }
        plan.fillSQL =
            "INSERT OR IGNORE INTO \(plan.temporaryName) (\(columns.joined(separator: ", "))) SELECT \(selects.joined(separator: ", ")) FROM (\(query)) AS l WHERE l.o IS NOT NULL AND l.t IS NOT NULL"
        return plan
    }
}
