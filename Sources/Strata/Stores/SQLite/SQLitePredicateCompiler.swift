import Foundation
internal import GRDB

/// The SQL of a fetch's predicate and sort keys, to go into
/// `SELECT … FROM <table> t0 <joins> WHERE <entity filter> AND (<whereClause>) ORDER BY <orderBy>`.
///
/// `arguments` are the values of the `?` parameters of `whereClause` then `orderBy`, in
/// order (the joins have none).
struct SQLiteQuery {
    /// `LEFT JOIN <table> tN ON tN.Z_PK = …` clauses, one per to-one key path prefix.
    var joins: [String]
    /// The predicate, or `nil` when there is none.
    var whereClause: String?
    /// `<expression> ASC|DESC` terms.
    var orderBy: [String]
    var arguments: [DatabaseValue]
}

/// Compiles predicates (`PredicateNode`) and sort keys to SQL over Core Data's SQLite layout,
/// with the fetched table as `t0`.
///
/// Every value is a bound parameter; table and column names come from the schema mapping
/// only; a key path that names no stored property, a to-many where one value is needed, or
/// any form SQL cannot run throws an `NSCoreDataError` that names the key path.
///
/// Comparisons keep the in-memory evaluator's answers: `!=` and `== nil` are null-safe,
/// ordering comparisons never match NULL, `NOT` of a comparison with NULL is true; string
/// operators and `==` with `[c]`/`[d]` go through `SQLitePredicateFunctions`; plain `==` stays
/// `column = ?` so that indexes are used.
enum SQLitePredicateCompiler {
    static func compile(
        predicate: PredicateNode?, sortKeys: [FetchPlan.SortKey], entity: NSEntityDescription,
        mapping: SQLiteStoreMapping
    ) throws -> SQLiteQuery {
        guard mapping.mapping(for: entity) != nil else {
            throw CoreDataError.make(NSCoreDataError, "Entity \(entity.name ?? "?") is not in this store's model.")
        }
        let builder = SQLiteQueryBuilder(entity: entity, mapping: mapping, now: Date())
        let condition = try predicate.map { try builder.predicate($0, scope: builder.root) }
        let order = try sortKeys.map { try builder.sortTerm($0) }
        return SQLiteQuery(
            joins: builder.root.joins, whereClause: condition?.sql, orderBy: order.map(\.sql),
            arguments: (condition?.arguments ?? []) + order.flatMap(\.arguments))
    }
}

/// A piece of SQL with the values of its `?` parameters in the order they appear.
struct SQLFragment {
    var sql: String
    var arguments: [DatabaseValue] = []
    /// Whether the SQL, as a condition, can be NULL rather than 0 or 1 (`NOT` must then
    /// read NULL as false).
    var nullable: Bool = true

    static let yes = SQLFragment(sql: "1", nullable: false)
    static let no = SQLFragment(sql: "0", nullable: false)

    /// Joins fragments with a separator, keeping their arguments in order.
    static func joined(_ parts: [SQLFragment], separator: String, nullable: Bool? = nil) -> SQLFragment {
        SQLFragment(
            sql: parts.map(\.sql).joined(separator: separator), arguments: parts.flatMap(\.arguments),
            nullable: nullable ?? parts.contains { $0.nullable })
    }

    /// The fragment as a two-valued condition: NULL becomes 0.
    var twoValued: SQLFragment {
        nullable ? SQLFragment(sql: "IFNULL(\(sql), 0)", arguments: arguments, nullable: false) : self
    }

    /// `NOT` of the condition, reading NULL as false as the in-memory evaluator does.
    var negated: SQLFragment {
        SQLFragment(sql: "NOT \(twoValued.sql)", arguments: arguments, nullable: false)
    }
}

/// The state of one compilation: the fetched table's scope, the aliases handed out, the
/// variables bound by `SUBQUERY` and quantifiers.
final class SQLiteQueryBuilder {
    let mapping: SQLiteStoreMapping
    let now: Date
    let root: SQLiteQueryScope
    /// `$name` → the scope of the element it stands for.
    var variables: [String: SQLiteQueryScope] = [:]
    private var counter = 0

    init(entity: NSEntityDescription, mapping: SQLiteStoreMapping, now: Date) {
        self.mapping = mapping
        self.now = now
        self.root = SQLiteQueryScope(alias: "t0", entity: entity)
    }

    /// A fresh alias with the prefix: `t` for joined tables, `s` for subquery elements, `j`
    /// for join tables.
    func alias(_ prefix: String) -> String {
        counter += 1
        return "\(prefix)\(counter)"
    }

    static func error(_ reason: String) -> NSError { CoreDataError.make(NSCoreDataError, reason) }

    /// An error about a key path, which it names.
    static func keyPathError(_ path: String, _ reason: String) -> NSError {
        error("Cannot fetch with the key path \"\(path)\": \(reason)")
    }

    // MARK: Predicates

    func predicate(_ node: PredicateNode, scope: SQLiteQueryScope) throws -> SQLFragment {
        switch node {
        case .constant(let value):
            return value ? .yes : .no
        case .and(let parts):
            guard !parts.isEmpty else { return .yes }
            let compiled = try parts.map { try predicate($0, scope: scope) }
            return compiled.count == 1 ? compiled[0] : parenthesized(.joined(compiled, separator: " AND "))
        case .or(let parts):
            guard !parts.isEmpty else { return .no }
            let compiled = try parts.map { try predicate($0, scope: scope) }
            return compiled.count == 1 ? compiled[0] : parenthesized(.joined(compiled, separator: " OR "))
        case .not(let inner):
            return parenthesized(try predicate(inner, scope: scope).negated)
        case .comparison(let comparison):
            return try self.comparison(comparison, scope: scope)
        }
    }

    private func parenthesized(_ fragment: SQLFragment) -> SQLFragment {
        SQLFragment(sql: "(\(fragment.sql))", arguments: fragment.arguments, nullable: fragment.nullable)
    }

    /// A comparison: membership tests of to-many key paths (`%@ IN tags`, `tags CONTAINS %@`)
    /// become `ANY`; `ANY`/`ALL` over a to-many key path become `EXISTS`/`NOT EXISTS` with the
    /// element bound to a variable; everything else compares two operands.
    func comparison(_ node: ComparisonNode, scope: SQLiteQueryScope) throws -> SQLFragment {
        var node = node
        if node.modifier == .direct {
            if node.op == .in, collectionSplit(node.right, scope: scope) != nil {
                node = ComparisonNode(
                    left: node.right, op: .equalTo, right: node.left, modifier: .any, options: node.options)
            } else if node.op == .contains, collectionSplit(node.left, scope: scope) != nil {
                node = ComparisonNode(
                    left: node.left, op: .equalTo, right: node.right, modifier: .any, options: node.options)
            }
        }
        if node.modifier != .direct {
            if let split = collectionSplit(node.left, scope: scope) {
                return try quantified(node, split: split, scope: scope)
            }
            return try quantifiedValue(node, scope: scope)
        }
        let left = try operand(node.left, scope: scope)
        let right = try operand(node.right, scope: scope)
        return try compare(left, node.op, right, options: node.options, label: ComparisonLabel(node: node))
    }

    /// `ANY`/`ALL` over what is not a to-many key path, as the in-memory evaluator reads it: a
    /// collection constant's elements, nothing for nil, a single value as its only element.
    private func quantifiedValue(_ node: ComparisonNode, scope: SQLiteQueryScope) throws -> SQLFragment {
        let any = node.modifier == .any
        let label = ComparisonLabel(node: node)
        let left = try operand(node.left, scope: scope)
        let right = try operand(node.right, scope: scope)
        if let items = Self.items(left) {
            guard !items.isEmpty else { return any ? .no : .yes }
            let parts = try items.map { try compare($0, node.op, right, options: node.options, label: label) }
            let joined = SQLFragment.joined(parts, separator: any ? " OR " : " AND ")
            return SQLFragment(sql: "(\(joined.sql))", arguments: joined.arguments, nullable: joined.nullable)
        }
        let condition = try compare(left, node.op, right, options: node.options, label: label)
        switch left.kind {
        case .constant(.null):
            return any ? .no : .yes
        case .value, .object:
            let value = left.fragment
            let sql =
                any ? "(\(value.sql) IS NOT NULL AND \(condition.sql))" : "(\(value.sql) IS NULL OR \(condition.sql))"
            return SQLFragment(sql: sql, arguments: value.arguments + condition.arguments, nullable: condition.nullable)
        default:
            return condition
        }
    }

    /// `ANY path op x` as `EXISTS (SELECT 1 FROM <elements> WHERE <correlation> AND <element op x>)`,
    /// `ALL` as `NOT EXISTS (… AND NOT <element op x>)`.
    private func quantified(
        _ node: ComparisonNode, split: CollectionSplit, scope: SQLiteQueryScope
    ) throws -> SQLFragment {
        let source = try collectionSource(split)
        let variable = "\u{1}element\(source.element.alias)"
        variables[variable] = source.element
        defer { variables[variable] = nil }
        let element: ExpressionNode =
            split.rest.isEmpty ? .variable(variable) : .member(.variable(variable), split.rest.joined(separator: "."))
        var inner = node
        inner.left = element
        var condition = try comparison(inner, scope: scope)
        if node.modifier == .all { condition = condition.negated }
        // A key path through a collection drops the elements whose value is nil, as key-value
        // coding flattens it (`tags.name` has no nil names); a further collection does so itself.
        if !split.rest.isEmpty, collectionSplit(element, scope: scope) == nil {
            let value = try operand(element, scope: scope).fragment
            condition = SQLFragment(
                sql: "\(value.sql) IS NOT NULL AND \(condition.sql)", arguments: value.arguments + condition.arguments,
                nullable: condition.nullable)
        }
        let exists = source.exists(condition)
        return node.modifier == .all ? exists.negated : exists
    }

    /// The comparison as text for error messages.
    static func describe(_ node: ComparisonNode) -> String {
        func text(_ expression: ExpressionNode) -> String {
            switch expression {
            case .keyPath(let path): path
            case .member(let base, let path): "\(text(base)).\(path)"
            case .variable(let name): name.hasPrefix("\u{1}") ? "element" : "$\(name)"
            case .evaluatedObject: "SELF"
            case .constant: "value"
            case .function(let name, _): name
            default: "expression"
            }
        }
        return "\(text(node.left)) \(operatorNames[node.op] ?? "") \(text(node.right))"
    }

    /// The operators' names, made once: describing an enum case reflects on its type, which
    /// costs more than compiling the rest of a comparison (and labels are made for every one).
    private static let operatorNames = Dictionary(
        uniqueKeysWithValues: ComparisonNode.Operator.allCases.map { ($0, "\($0)") })
}

/// A comparison (or key path) named in an error message, made into text only when an error
/// is thrown: every comparison of every fetch carries one, and few fail (describing them was a
/// tenth of a small query's time).
struct ComparisonLabel: CustomStringConvertible, ExpressibleByStringLiteral {
    private let node: ComparisonNode?
    private let text: String

    init(node: ComparisonNode) {
        self.node = node
        self.text = ""
    }

    init(_ text: String) {
        self.node = nil
        self.text = text
    }

    init(stringLiteral text: String) { self.init(text) }

    var description: String { node.map(SQLiteQueryBuilder.describe) ?? text }
}
