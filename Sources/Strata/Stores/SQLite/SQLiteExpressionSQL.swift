import Foundation
internal import GRDB

/// One side of a comparison, compiled: SQL that gives a value, an object's key or an
/// entity number, or a constant still to be bound as the other side's column stores it.
struct SQLOperand {
    enum Kind {
        /// A scalar; the attribute when the SQL is that attribute's column.
        case value(NSAttributeDescription?)
        /// SQL giving an object's `Z_PK` (a foreign key, or `Z_PK` itself), with its entity.
        case object(NSEntityDescription?)
        /// SQL giving a row's `Z_ENT`.
        case entityNumber
        /// A constant, bound when the comparison knows how the other side is stored.
        case constant(PredicateValue)
        /// `{a, b, c}`.
        case list([SQLOperand])
    }

    var kind: Kind
    var fragment: SQLFragment

    static func constant(_ value: PredicateValue) -> SQLOperand {
        SQLOperand(kind: .constant(value), fragment: SQLFragment(sql: "?"))
    }

    static func value(_ sql: String, arguments: [DatabaseValue] = []) -> SQLOperand {
        SQLOperand(kind: .value(nil), fragment: SQLFragment(sql: sql, arguments: arguments))
    }
}

extension SQLiteQueryBuilder {
    func operand(_ expression: ExpressionNode, scope: SQLiteQueryScope) throws -> SQLOperand {
        switch expression {
        case .constant(let value):
            return .constant(value)
        case .evaluatedObject:
            return SQLOperand(kind: .object(scope.entity), fragment: SQLFragment(sql: "\(scope.alias).Z_PK"))
        case .variable(let name):
            guard let bound = variables[name] else {
                throw Self.error("Cannot fetch with the variable $\(name): substitute variables before fetching.")
            }
            return SQLOperand(kind: .object(bound.entity), fragment: SQLFragment(sql: "\(bound.alias).Z_PK"))
        case .keyPath(let path):
            return try pathOperand(Self.segments(path), scope: scope, label: path)
        case .member(.subquery(let collection, let variable, let predicate), let path):
            return try subqueryAggregate(
                collection: collection, variable: variable, predicate: predicate, path: Self.segments(path),
                scope: scope)
        case .member(let base, let path):
            guard let (baseScope, segments) = pathBase(base, scope: scope) else {
                throw Self.error("Cannot fetch with the key path \"\(path)\" of an expression: it cannot run in SQL.")
            }
            return try pathOperand(segments + Self.segments(path), scope: baseScope, label: path)
        case .function(let name, let arguments):
            return try function(name, arguments, scope: scope)
        case .aggregate(let items):
            return SQLOperand(
                kind: .list(try items.map { try operand($0, scope: scope) }), fragment: SQLFragment(sql: ""))
        case .index(let base, .size):
            return try operand(.member(base, "@count"), scope: scope)
        case .subquery:
            throw Self.error("Cannot fetch with a SUBQUERY that is not counted: SQL needs SUBQUERY(…).@count.")
        case .conditional(let condition, let whenTrue, let whenFalse):
            let test = try predicate(condition, scope: scope)
            let a = try scalar(try operand(whenTrue, scope: scope), hint: nil, label: "TERNARY")
            let b = try scalar(try operand(whenFalse, scope: scope), hint: nil, label: "TERNARY")
            return .value(
                "CASE WHEN \(test.sql) THEN \(a.sql) ELSE \(b.sql) END",
                arguments: test.arguments + a.arguments + b.arguments)
        case .index, .assignment, .setOperation, .anyKey:
            throw Self.error("Cannot fetch with the expression \(expression): it cannot run in SQL.")
        }
    }

    /// A key path as an operand; collection operators make a correlated aggregate.
    func pathOperand(_ segments: [String], scope: SQLiteQueryScope, label: String) throws -> SQLOperand {
        if segments.contains(where: { $0.hasPrefix("@") }) {
            return try aggregatePath(segments, scope: scope, label: label)
        }
        // `name.length`: a string's length, as NSString's `length` key reads it.
        if segments.count > 1, segments.last == "length",
            case .attribute(let sql, let attribute) = try walk(Array(segments.dropLast()), scope: scope, label: label)
        {
            guard attribute.attributeType == .stringAttributeType else {
                throw Self.keyPathError(label, "only strings have a length.")
            }
            return .value("\(SQLitePredicateFunctions.length)(\(sql))")
        }
        switch try walk(segments, scope: scope, label: label) {
        case .attribute(let sql, let attribute):
            return SQLOperand(kind: .value(attribute), fragment: SQLFragment(sql: sql))
        case .toOne(let sql, let relationship):
            return SQLOperand(kind: .object(relationship.destinationEntity), fragment: SQLFragment(sql: sql))
        case .object(let alias, let entity):
            return SQLOperand(kind: .object(entity), fragment: SQLFragment(sql: "\(alias).Z_PK"))
        case .entityNumber(let alias):
            return SQLOperand(kind: .entityNumber, fragment: SQLFragment(sql: "\(alias).Z_ENT"))
        case .toMany:
            throw Self.keyPathError(
                label,
                "it goes through a to-many relationship where one value is "
                    + "needed (use ANY, ALL, NONE, @count or SUBQUERY).")
        }
    }

    // MARK: Functions

    private static let mathFunctions: [String: String] = [
        "sqrt:": "sqrt", "log:": "log", "ln:": "ln", "exp:": "exp", "floor:": "floor", "ceiling:": "ceiling",
        "trunc:": "trunc", "abs:": "abs",
    ]

    private static let binaryOperators: [String: String] = [
        "add:to:": "+", "from:subtract:": "-", "multiply:by:": "*", "bitwiseAnd:with:": "&", "bitwiseOr:with:": "|",
        "leftshift:by:": "<<", "rightshift:by:": ">>",
    ]

    private static let stringFunctions: [String: String] = [
        "uppercase:": SQLitePredicateFunctions.uppercase, "lowercase:": SQLitePredicateFunctions.lowercase,
        "canonical:": SQLitePredicateFunctions.canonical, "length:": SQLitePredicateFunctions.length,
    ]

    private func function(_ name: String, _ arguments: [ExpressionNode], scope: SQLiteQueryScope) throws -> SQLOperand {
        func argument(_ index: Int) throws -> SQLFragment {
            try scalar(try operand(arguments[index], scope: scope), hint: nil, label: ComparisonLabel(name))
        }
        switch (name, arguments.count) {
        case ("now", 0), ("now()", 0), ("now:", 0):
            return .constant(.date(now))
        case (let name, 2) where Self.binaryOperators[name] != nil:
            let (a, b) = (try argument(0), try argument(1))
            return .value(
                "(\(a.sql) \(Self.binaryOperators[name] ?? "+") \(b.sql))", arguments: a.arguments + b.arguments)
        case ("divide:by:", 2):
            let (a, b) = (try argument(0), try argument(1))
            return .value("(\(a.sql) * 1.0 / \(b.sql))", arguments: a.arguments + b.arguments)
        case ("bitwiseXor:with:", 2):
            let (a, b) = (try argument(0), try argument(1))
            return .value(
                "((\(a.sql) | \(b.sql)) - (\(a.sql) & \(b.sql)))",
                arguments: a.arguments + b.arguments + a.arguments + b.arguments)
        case ("onesComplement:", 1):
            let a = try argument(0)
            return .value("(~\(a.sql))", arguments: a.arguments)
        case ("modulus:by:", 2), ("raise:toPower:", 2):
            let (a, b) = (try argument(0), try argument(1))
            let op = name == "modulus:by:" ? "modulus" : "raise"
            return .value(
                "\(SQLitePredicateFunctions.math)('\(op)', \(a.sql), \(b.sql))", arguments: a.arguments + b.arguments)
        case (let name, 1) where Self.mathFunctions[name] != nil:
            let a = try argument(0)
            return .value(
                "\(SQLitePredicateFunctions.math)('\(Self.mathFunctions[name] ?? "")', \(a.sql))",
                arguments: a.arguments)
        case (let name, 1) where Self.stringFunctions[name] != nil:
            let a = try argument(0)
            return .value("\(Self.stringFunctions[name] ?? "")(\(a.sql))", arguments: a.arguments)
        case ("noindex:", 1):
            var inner = try operand(arguments[0], scope: scope)
            if case .value = inner.kind { inner.fragment.sql = "+\(inner.fragment.sql)" }
            return inner
        case ("count:", 1):
            switch arguments[0] {
            case .aggregate(let items): return .constant(.integer(Int64(items.count)))
            case .constant(.array(let items)), .constant(.set(let items)):
                return .constant(.integer(Int64(items.count)))
            default: return try operand(.member(arguments[0], "@count"), scope: scope)
            }
        case ("sum:", 1), ("average:", 1), ("min:", 1), ("max:", 1):
            let op = ["sum:": "@sum", "average:": "@avg", "min:": "@min", "max:": "@max"][name] ?? "@sum"
            guard let (base, segments) = pathBase(arguments[0], scope: scope) else {
                throw Self.error(
                    "Cannot fetch with \(name): in SQL its argument must be a key path through a to-many relationship.")
            }
            return try aggregatePath([op] + segments, scope: base, label: "\(name)(\(segments.joined(separator: ".")))")
        case ("castObject:toType:", 2):
            return try cast(arguments[0], to: arguments[1], scope: scope)
        default:
            throw Self.error("Cannot fetch with the function \(name): it cannot run in SQL.")
        }
    }

    /// `CAST(x, 'NSDate')` and `CAST(x, 'NSNumber')`: dates are stored as numbers (seconds
    /// since 2001), so a column casts to itself and a constant converts now.
    private func cast(_ value: ExpressionNode, to type: ExpressionNode, scope: SQLiteQueryScope) throws -> SQLOperand {
        guard case .constant(.string(let typeName)) = type else {
            throw Self.error("Cannot fetch with CAST: the type must be a class name.")
        }
        let compiled = try operand(value, scope: scope)
        guard case .constant(let constant) = compiled.kind else {
            guard ["NSDate", "Date", "NSNumber"].contains(typeName), case .value(let attribute) = compiled.kind,
                attribute.map({ ![.stringAttributeType, .URIAttributeType].contains($0.attributeType) }) ?? true
            else {
                throw Self.error(
                    "Cannot fetch with CAST to \(typeName): only NSDate and NSNumber casts of values run in SQL.")
            }
            return compiled
        }
        switch (
            ["Date": "NSDate", "NSDecimalNumber": "NSNumber", "String": "NSString"][typeName] ?? typeName, constant
        ) {
        case ("NSDate", .integer(let number)):
            return .constant(.date(Date(timeIntervalSinceReferenceDate: Double(number))))
        case ("NSDate", .double(let number)): return .constant(.date(Date(timeIntervalSinceReferenceDate: number)))
        case ("NSDate", .string(let text)) where Double(text) != nil:
            return .constant(.date(Date(timeIntervalSinceReferenceDate: Double(text) ?? 0)))
        case ("NSDate", .date): return compiled
        case ("NSNumber", .date(let date)): return .constant(.double(date.timeIntervalSinceReferenceDate))
        case ("NSNumber", .string(let text)) where Double(text) != nil:
            return .constant(Int64(text).map { .integer($0) } ?? .double(Double(text) ?? 0))
        case ("NSNumber", .integer), ("NSNumber", .double), ("NSNumber", .decimal), ("NSNumber", .bool): return compiled
        case ("NSString", .string): return compiled
        case ("NSString", .integer(let number)): return .constant(.string(String(number)))
        default:
            throw Self.error("Cannot fetch with CAST of \(constant) to \(typeName): it cannot run in SQL.")
        }
    }

    // MARK: Sort keys

    /// `<expression> ASC|DESC` for a sort key: a column of the entity or through to-one
    /// relationships (or an aggregate). Case-insensitive comparisons sort by the `[c]`-folded
    /// string, localized ones through collations; NULLs come first ascending, last descending.
    func sortTerm(_ key: FetchPlan.SortKey) throws -> SQLFragment {
        let sorted = try pathOperand(Self.segments(key.key), scope: root, label: key.key)
        switch sorted.kind {
        case .value, .object, .entityNumber: break
        default: throw Self.error("Cannot sort by \"\(key.key)\": it is not a stored property.")
        }
        let value = sorted.fragment
        let direction = key.ascending ? "ASC" : "DESC"
        let expression: String
        switch key.comparison {
        case .compare: expression = value.sql
        case .caseInsensitiveCompare, .localizedCaseInsensitiveCompare:
            let options = ComparisonNode.Options.caseInsensitive.rawValue
            expression = "\(SQLitePredicateFunctions.fold)(\(value.sql), \(options))"
        case .localizedCompare: expression = "\(value.sql) COLLATE \(SQLitePredicateFunctions.localizedCollation)"
        case .localizedStandardCompare:
            expression = "\(value.sql) COLLATE \(SQLitePredicateFunctions.localizedStandardCollation)"
        }
        return SQLFragment(sql: "\(expression) \(direction)", arguments: value.arguments)
    }
}
