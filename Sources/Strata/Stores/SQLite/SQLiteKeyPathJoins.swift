import Foundation

/// The rows a part of a query reads: the fetched table (`t0`) or the elements of a to-many
/// in a subquery (`s1`, `s2`…), with the `LEFT JOIN`s its to-one key paths need, one per
/// distinct path prefix.
final class SQLiteQueryScope {
    let alias: String
    let entity: NSEntityDescription
    private(set) var joins: [String] = []
    private var joined: [String: String] = [:]

    init(alias: String, entity: NSEntityDescription) {
        self.alias = alias
        self.entity = entity
    }

    /// The alias of the destination of the to-one key path `path` (relative to this scope),
    /// joined through the foreign key `foreignKey` the first time it is asked for.
    func join(path: String, foreignKey: String, table: String, builder: SQLiteQueryBuilder) -> String {
        if let alias = joined[path] { return alias }
        let alias = builder.alias("t")
        joined[path] = alias
        joins.append("LEFT JOIN \(table) \(alias) ON \(alias).Z_PK = \(foreignKey)")
        return alias
    }
}

/// What a key path reaches, relative to a scope.
enum SQLiteKeyPathTarget {
    /// An attribute's column (`t1.ZNAME`).
    case attribute(sql: String, attribute: NSAttributeDescription)
    /// A to-one relationship's foreign-key column (`t0.ZAUTHOR`).
    case toOne(sql: String, relationship: NSRelationshipDescription)
    /// The object itself (`SELF`): its `Z_PK`.
    case object(alias: String, entity: NSEntityDescription)
    /// `entity`: the row's `Z_ENT`.
    case entityNumber(alias: String)
    /// A to-many relationship of the object at `owner`, with the key path after it.
    case toMany(owner: SQLiteCollectionOwner, relationship: NSRelationshipDescription, rest: [String])
}

/// The object a to-many relationship is read from.
struct SQLiteCollectionOwner {
    var alias: String
    /// The entity that has the relationship (the scope's entity or one of its subentities).
    var entity: NSEntityDescription
    /// Whether the owner was reached through a `LEFT JOIN` and so can be missing.
    var isJoined: Bool
}

/// A key path that goes through a to-many relationship, split there: `ANY author.books.title`
/// is `author` / `books` / `title`.
struct CollectionSplit {
    var scope: SQLiteQueryScope
    var prefix: [String]
    var relationship: String
    var rest: [String]
}

/// The elements of a to-many relationship as the `FROM` and `WHERE` of a correlated subquery.
struct SQLiteCollectionSource {
    let element: SQLiteQueryScope
    let owner: SQLiteCollectionOwner
    /// `ZTAG s1`, or `Z_1TAGS j2 JOIN ZTAG s1 ON s1.Z_PK = j2.Z_3TAGS` through a join table.
    let from: String
    /// Ties the elements to the owner: `s1.ZBOOK = t0.Z_PK`.
    let correlation: String
    /// The `FROM` and correlation that suffice to count the elements (the join table alone).
    let countFrom: String
    let countCorrelation: String

    /// `EXISTS (SELECT 1 FROM … WHERE <correlation> AND <condition>)`.
    func exists(_ condition: SQLFragment) -> SQLFragment {
        SQLFragment(
            sql: "EXISTS (SELECT 1 FROM \(from)\(joinText) WHERE \(correlation) AND \(condition.sql))",
            arguments: condition.arguments, nullable: false)
    }

    /// `(SELECT <expression> FROM … WHERE <correlation> [AND <condition>])`; NULL when the
    /// owner is a missing to-one destination and `nilWithoutOwner` (a collection operator on
    /// nil is nil, a `SUBQUERY` of nil is empty).
    func select(
        _ expression: SQLFragment, condition: SQLFragment?, countOnly: Bool = false, nilWithoutOwner: Bool = true
    ) -> SQLFragment {
        let source =
            countOnly && condition == nil
            ? "\(countFrom) WHERE \(countCorrelation)" : "\(from)\(joinText) WHERE \(correlation)"
        var sql = "(SELECT \(expression.sql) FROM \(source)\(condition.map { " AND \($0.sql)" } ?? ""))"
        if owner.isJoined, nilWithoutOwner { sql = "CASE WHEN \(owner.alias).Z_PK IS NULL THEN NULL ELSE \(sql) END" }
        return SQLFragment(sql: sql, arguments: expression.arguments + (condition?.arguments ?? []))
    }

    private var joinText: String { element.joins.map { " " + $0 }.joined() }
}

extension SQLiteQueryBuilder {
    static func segments(_ path: String) -> [String] {
        // Most key paths are one property name: no splitting by `Character` for them.
        guard path.utf8.contains(UInt8(ascii: ".")) else { return [path] }
        return path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    /// The property named `name` of the entity, or of one of its subentities (whose columns
    /// share the table), with the entity that has it.
    func property(_ name: String, of entity: NSEntityDescription) -> (NSPropertyDescription, NSEntityDescription)? {
        if let property = entity.property(named: name) { return (property, entity) }
        for sub in entity.selfAndDescendants.dropFirst() {
            if let property = sub.property(named: name) { return (property, sub) }
        }
        return nil
    }

    /// Walks a key path from a scope: to-one relationships before the end become joins; the
    /// walk stops at an attribute, a final to-one, or the first to-many.
    func walk(_ segments: [String], scope: SQLiteQueryScope, label: String) throws -> SQLiteKeyPathTarget {
        var path = segments[...]
        while let first = path.first, first == "SELF" || first == "self" { path = path.dropFirst() }
        var alias = scope.alias
        var entity = scope.entity
        var isJoined = false
        var prefix: [String] = []
        guard !path.isEmpty else { return .object(alias: alias, entity: entity) }
        for (offset, segment) in path.enumerated() {
            let isLast = offset == path.count - 1
            guard let (property, owner) = property(segment, of: entity) else {
                if isLast, segment == "entity" { return .entityNumber(alias: alias) }
                if isLast, segment == "objectID" { return .object(alias: alias, entity: entity) }
                throw Self.keyPathError(
                    label, "\"\(segment)\" is not a property of entity \(entity.name ?? "?")."
                )
            }
            let column = mapping.schema.columnName(entity: owner, property: segment)
            switch property {
            case let composite as NSCompositeAttributeDescription:
                // `magnitude.richter`: the rest of the path names a leaf element, whose column
                // is compared.
                let rest = Array(path.dropFirst(offset + 1))
                guard !rest.isEmpty else {
                    throw Self.keyPathError(
                        label, "\"\(segment)\" is a composite attribute: name one of its elements (\(segment).element).")
                }
                guard let leaf = CompositeValues.leaf(rest, of: composite),
                    let leafColumn = mapping.schema.leafColumnName(entity: owner, composite: segment, path: rest)
                else {
                    throw Self.keyPathError(
                        label, "\"\(rest.joined(separator: "."))\" is not an element of the composite attribute \(segment).")
                }
                return .attribute(sql: "\(alias).\(leafColumn)", attribute: leaf.attribute)
            case let attribute as NSAttributeDescription:
                guard isLast else {
                    throw Self.keyPathError(
                        label, "\"\(segment)\" is an attribute, not a relationship."
                    )
                }
                guard let column else {
                    throw Self.keyPathError(label, "\"\(segment)\" is not stored (transient).")
                }
                return .attribute(sql: "\(alias).\(column)", attribute: attribute)
            case let relationship as NSRelationshipDescription where relationship.isToMany:
                let owner = SQLiteCollectionOwner(alias: alias, entity: owner, isJoined: isJoined)
                return .toMany(owner: owner, relationship: relationship, rest: Array(path.dropFirst(offset + 1)))
            case let relationship as NSRelationshipDescription:
                guard let column, let destination = relationship.destinationEntity,
                    mapping.mapping(for: destination) != nil
                else {
                    throw Self.keyPathError(label, "\"\(segment)\" is not stored.")
                }
                if isLast { return .toOne(sql: "\(alias).\(column)", relationship: relationship) }
                prefix.append(segment)
                alias = scope.join(
                    path: prefix.joined(separator: "."), foreignKey: "\(alias).\(column)",
                    table: SQLiteSchema.tableName(destination), builder: self)
                entity = destination
                isJoined = true
            default:
                throw Self.keyPathError(
                    label, "\"\(segment)\" is not an attribute or a relationship."
                )
            }
        }
        return .object(alias: alias, entity: entity)
    }

    /// The scope and key path an expression reads: `title` from the scope, `$t.name` from
    /// the variable's, `SELF` as an empty path. `nil` for other expressions.
    func pathBase(_ expression: ExpressionNode, scope: SQLiteQueryScope) -> (SQLiteQueryScope, [String])? {
        switch expression {
        case .keyPath(let path): return (scope, Self.segments(path))
        case .evaluatedObject: return (scope, [])
        case .variable(let name): return variables[name].map { ($0, []) }
        case .member(let base, let path):
            guard let (baseScope, segments) = pathBase(base, scope: scope) else { return nil }
            return (baseScope, segments + Self.segments(path))
        default: return nil
        }
    }

    /// Where an expression's key path first goes through a to-many relationship, when it
    /// does and is not an aggregate (`tags.@count`). Only reads the model.
    func collectionSplit(_ expression: ExpressionNode, scope: SQLiteQueryScope) -> CollectionSplit? {
        guard let (base, segments) = pathBase(expression, scope: scope) else { return nil }
        var entity = base.entity
        var path = segments
        while let first = path.first, first == "SELF" || first == "self" { path.removeFirst() }
        for (index, segment) in path.enumerated() {
            guard !segment.hasPrefix("@"), let (property, _) = property(segment, of: entity),
                let relationship = property as? NSRelationshipDescription,
                let destination = relationship.destinationEntity
            else { return nil }
            if relationship.isToMany {
                // Collection operators after a to-many read the flattened collection: aggregates, not `ANY`.
                if path[(index + 1)...].contains(where: { $0.hasPrefix("@") }) { return nil }
                return CollectionSplit(
                    scope: base, prefix: Array(path[..<index]), relationship: segment, rest: Array(path[(index + 1)...])
                )
            }
            entity = destination
        }
        return nil
    }

    /// The elements of the to-many relationship a split names.
    func collectionSource(_ split: CollectionSplit) throws -> SQLiteCollectionSource {
        let label = (split.prefix + [split.relationship]).joined(separator: ".")
        guard
            case .toMany(let owner, let relationship, _) = try walk(
                split.prefix + [split.relationship], scope: split.scope, label: label)
        else { throw Self.keyPathError(label, "it is not a to-many relationship.") }
        return try collectionSource(owner: owner, relationship: relationship, label: label)
    }

    func collectionSource(
        owner: SQLiteCollectionOwner, relationship: NSRelationshipDescription, label: String
    ) throws -> SQLiteCollectionSource {
        guard let destination = relationship.destinationEntity, mapping.mapping(for: destination) != nil,
            let index = owner.entity.layout.indexByName[relationship.name],
            let storage = mapping.mapping(for: owner.entity)?.toMany[index]
        else {
            throw Self.keyPathError(label, "the to-many relationship is not stored.")
        }
        let table = SQLiteSchema.tableName(destination)
        let element = SQLiteQueryScope(alias: alias("s"), entity: destination)
        switch storage {
        case .inverseForeignKey(let column, _), .hiddenColumn(let column):
            let from = "\(table) \(element.alias)"
            let correlation = "\(element.alias).\(column) = \(owner.alias).Z_PK"
            return SQLiteCollectionSource(
                element: element, owner: owner, from: from, correlation: correlation, countFrom: from,
                countCorrelation: correlation)
        case .joinTable(let joinTable, let selfColumn, let otherColumn, _):
            let join = alias("j")
            let correlation = "\(join).\(selfColumn) = \(owner.alias).Z_PK"
            let destination = "\(table) \(element.alias) ON \(element.alias).Z_PK = \(join).\(otherColumn)"
            return SQLiteCollectionSource(
                element: element, owner: owner, from: "\(joinTable) \(join) JOIN \(destination)",
                correlation: correlation, countFrom: "\(joinTable) \(join)", countCorrelation: correlation)
        }
    }

    // MARK: Aggregates

    static let aggregateOperators: Set<String> = ["@count", "@sum", "@avg", "@min", "@max"]

    /// A key path with a collection operator: `tags.@count`, `items.@sum.price`,
    /// `@avg.items.price`, `author.books.@max.year`.
    func aggregatePath(_ segments: [String], scope: SQLiteQueryScope, label: String) throws -> SQLOperand {
        let collection: [String]
        let op: String
        var valuePath: [String]
        if let first = segments.first, first.hasPrefix("@") {
            op = first
            guard case .toMany(_, _, let rest) = try walk(Array(segments.dropFirst()), scope: scope, label: label)
            else {
                throw Self.keyPathError(label, "\(first) needs a to-many relationship.")
            }
            collection = Array(segments.dropFirst().dropLast(rest.count))
            valuePath = rest
        } else {
            let index = segments.firstIndex { $0.hasPrefix("@") } ?? segments.count
            collection = Array(segments[..<index])
            op = index < segments.count ? segments[index] : ""
            valuePath = Array(segments.dropFirst(index + 1))
        }
        guard Self.aggregateOperators.contains(op) else {
            throw Self.keyPathError(label, "the collection operator \(op) cannot run in SQL.")
        }
        guard case .toMany(let owner, let relationship, let rest) = try walk(collection, scope: scope, label: label),
            rest.isEmpty
        else {
            throw Self.keyPathError(
                label, "\(op) needs a key path that ends in a to-many relationship."
            )
        }
        while valuePath.first == "self" || valuePath.first == "SELF" { valuePath.removeFirst() }
        let source = try collectionSource(owner: owner, relationship: relationship, label: label)
        return try aggregate(op, of: source, valuePath: valuePath, condition: nil, label: label)
    }

    /// `SUBQUERY(collection, $x, predicate)` followed by `.@count` (or another operator).
    func subqueryAggregate(
        collection: ExpressionNode, variable: String, predicate node: PredicateNode, path: [String],
        scope: SQLiteQueryScope
    ) throws -> SQLOperand {
        let label = "SUBQUERY(…).\(path.joined(separator: "."))"
        guard let (base, segments) = pathBase(collection, scope: scope),
            case .toMany(let owner, let relationship, let rest) = try walk(segments, scope: base, label: label),
            rest.isEmpty
        else {
            throw Self.error("Cannot fetch with \(label): the collection of a SUBQUERY must be a to-many key path.")
        }
        guard let op = path.first, Self.aggregateOperators.contains(op) else {
            throw Self.error(
                "Cannot fetch with \(label): a SUBQUERY must be followed by @count, @sum, @avg, @min or @max.")
        }
        let source = try collectionSource(owner: owner, relationship: relationship, label: label)
        let previous = variables[variable]
        variables[variable] = source.element
        defer { variables[variable] = previous }
        let condition = try predicate(node, scope: source.element)
        return try aggregate(op, of: source, valuePath: Array(path.dropFirst()), condition: condition, label: label)
    }

    /// `@count` as `COUNT(*)`; `@sum` as `TOTAL` (nils skipped, 0 for no elements); `@avg`,
    /// `@min`, `@max` as `AVG`, `MIN`, `MAX` (nils skipped, NULL for no elements), as the
    /// in-memory collection operators compute them.
    private func aggregate(
        _ op: String, of source: SQLiteCollectionSource, valuePath: [String], condition: SQLFragment?, label: String
    ) throws -> SQLOperand {
        if op == "@count" {
            guard valuePath.isEmpty else {
                throw Self.keyPathError(label, "nothing may follow @count.")
            }
            let count = source.select(
                SQLFragment(sql: "COUNT(*)"), condition: condition, countOnly: true, nilWithoutOwner: condition == nil)
            return SQLOperand(kind: .value(nil), fragment: count)
        }
        guard !valuePath.isEmpty else {
            throw Self.keyPathError(label, "\(op) needs the key path of a value after it.")
        }
        let value = try pathOperand(valuePath, scope: source.element, label: label)
        guard case .value = value.kind else {
            throw Self.keyPathError(label, "\(op) needs an attribute.")
        }
        let v = value.fragment.sql
        let expression: String
        switch op {
        case "@sum": expression = "TOTAL(\(v))"
        case "@avg": expression = "AVG(\(v))"
        case "@min": expression = "MIN(\(v))"
        default: expression = "MAX(\(v))"
        }
        let selected = source.select(
            SQLFragment(sql: expression, arguments: value.fragment.arguments), condition: condition,
            nilWithoutOwner: condition == nil)
        return SQLOperand(kind: .value(nil), fragment: selected)
    }
}
