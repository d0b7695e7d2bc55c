import Foundation
internal import GRDB

/// Comparisons of compiled operands, with the in-memory evaluator's answers:
///
/// - `== nil` is `IS NULL`; `!=` is null-safe (`IS NOT ?`), so nil != "x" is true;
/// - plain `==` with a constant is `column = ?` (indexes apply); two expressions compare
///   with `IS`, so nil == nil is true;
/// - `<`, `<=`, `>`, `>=`, `BETWEEN` never match NULL;
/// - `IN` lists bind each element (empty: false; a nil element matches NULL);
/// - string operators and `==`/`!=` with `[c]`/`[d]` call `STRATA_MATCH`, ordering with
///   options compares `STRATA_FOLD`ed strings;
/// - objects compare by key (a temporary object ID matches nothing), entities by `Z_ENT`.
extension SQLiteQueryBuilder {
    func compare(
        _ left: SQLOperand, _ op: ComparisonNode.Operator, _ right: SQLOperand, options: ComparisonNode.Options,
        label: ComparisonLabel
    ) throws -> SQLFragment {
        // `{a, b} CONTAINS x` is `x IN {a, b}`.
        if op == .contains, Self.items(left) != nil {
            return try compare(right, .in, left, options: options, label: label)
        }
        if case .entityNumber = left.kind { return try entityComparison(left, op, right, label: label) }
        if case .entityNumber = right.kind { return try entityComparison(right, op, left, label: label) }
        if case .object = left.kind { return try objectComparison(left, op, right, label: label) }
        if case .object = right.kind, op != .in { return try objectComparison(right, op, left, label: label) }
        return try scalarComparison(left, op, right, options: options, label: label)
    }

    /// The elements of a list operand or of a constant collection.
    static func items(_ operand: SQLOperand) -> [SQLOperand]? {
        switch operand.kind {
        case .list(let items): return items
        case .constant(.array(let values)), .constant(.set(let values)): return values.map { .constant($0) }
        case .constant(.dictionary(let values)):
            return values.keys.sorted().compactMap { values[$0] }.map { .constant($0) }
        default: return nil
        }
    }

    /// A constant operand's value.
    private static func constantValue(_ operand: SQLOperand) -> PredicateValue? {
        if case .constant(let value) = operand.kind { return value }
        return nil
    }

    private static func isNull(_ operand: SQLOperand) -> Bool { constantValue(operand) == .null }

    /// The SQL of a scalar operand; a constant is bound as `hint`'s column stores it.
    func scalar(_ operand: SQLOperand, hint: NSAttributeDescription?, label: ComparisonLabel) throws -> SQLFragment {
        switch operand.kind {
        case .value, .entityNumber:
            return operand.fragment
        case .constant(let value):
            return SQLFragment(sql: "?", arguments: [try encode(value, hint: hint, label: label)])
        case .object:
            throw Self.error("Cannot fetch with \(label): an object compares only with ==, != or IN and an object.")
        case .list:
            throw Self.error("Cannot fetch with \(label): a list of values where one value is needed (use IN).")
        }
    }

    private static func attribute(_ operand: SQLOperand) -> NSAttributeDescription? {
        if case .value(let attribute) = operand.kind { return attribute }
        return nil
    }

    /// A constant as its column stores it (SQLiteValueCodec): dates as seconds since 2001,
    /// UUIDs as 16 bytes, Booleans as 0/1, URLs as text, decimals as numbers (as text beside a
    /// decimal column, whose numeric affinity converts it as it converted the stored text),
    /// data with the inline marker beside a column that allows external storage.
    func encode(_ value: PredicateValue, hint: NSAttributeDescription?, label: ComparisonLabel) throws -> DatabaseValue {
        switch value {
        case .null: return .null
        case .bool(let flag): return (flag ? 1 : 0).databaseValue
        case .integer(let number): return number.databaseValue
        case .double(let number): return number.databaseValue
        case .decimal(let number):
            let text = NSDecimalNumber(decimal: number).stringValue
            if hint?.attributeType == .decimalAttributeType { return text.databaseValue }
            return (Double(text) ?? NSDecimalNumber(decimal: number).doubleValue).databaseValue
        case .string(let text): return text.databaseValue
        case .date(let date): return date.timeIntervalSinceReferenceDate.databaseValue
        case .data(let data):
            if let hint, hint.attributeType == .binaryDataAttributeType, hint.allowsExternalBinaryDataStorage {
                return (Data([SQLiteValueCodec.inlineMarker]) + data).databaseValue
            }
            return data.databaseValue
        case .uuid(let uuid): return withUnsafeBytes(of: uuid.uuid) { Data($0) }.databaseValue
        case .url(let url): return url.absoluteString.databaseValue
        case .array, .set, .dictionary:
            throw Self.error("Cannot fetch with \(label): a collection where one value is needed (use IN).")
        case .object(let object):
            throw Self.error(
                "Cannot fetch with \(label): \(type(of: object.object)) compares only with relationships and SELF."
            )
        }
    }

    // MARK: Scalars

    private func scalarComparison(
        _ left: SQLOperand, _ op: ComparisonNode.Operator, _ right: SQLOperand, options: ComparisonNode.Options,
        label: ComparisonLabel
    ) throws -> SQLFragment {
        let raw = options.intersection([.caseInsensitive, .diacriticInsensitive, .normalized]).rawValue
        let folds =
            !options.contains(.normalized) && !options.isDisjoint(with: [.caseInsensitive, .diacriticInsensitive])
        func sql(_ operand: SQLOperand, beside other: SQLOperand) throws -> SQLFragment {
            try scalar(operand, hint: Self.attribute(other), label: label)
        }
        func folded(_ fragment: SQLFragment) -> SQLFragment {
            folds
                ? SQLFragment(
                    sql: "\(SQLitePredicateFunctions.fold)(\(fragment.sql), \(raw))", arguments: fragment.arguments)
                : fragment
        }
        func match(_ name: String, _ a: SQLFragment, _ b: SQLFragment) -> SQLFragment {
            SQLFragment(
                sql: "\(SQLitePredicateFunctions.match)('\(name)', \(raw), \(a.sql), \(b.sql))",
                arguments: a.arguments + b.arguments, nullable: false)
        }
        func binary(_ a: SQLFragment, _ sqlOperator: String, _ b: SQLFragment, nullable: Bool) -> SQLFragment {
            SQLFragment(
                sql: "\(a.sql) \(sqlOperator) \(b.sql)", arguments: a.arguments + b.arguments, nullable: nullable)
        }
        switch op {
        case .equalTo, .notEqualTo:
            let equal = op == .equalTo
            if Self.isNull(left) || Self.isNull(right) {
                if Self.isNull(left) && Self.isNull(right) { return equal ? .yes : .no }
                let other = try Self.isNull(left) ? sql(right, beside: left) : sql(left, beside: right)
                return SQLFragment(
                    sql: "\(other.sql) IS \(equal ? "" : "NOT ")NULL", arguments: other.arguments, nullable: false)
            }
            let (a, b) = (try sql(left, beside: right), try sql(right, beside: left))
            if folds { return match(equal ? "==" : "!=", a, b) }
            if !equal { return binary(a, "IS NOT", b, nullable: false) }
            if Self.constantValue(left) != nil || Self.constantValue(right) != nil {
                return binary(a, "=", b, nullable: true)
            }
            return binary(a, "IS", b, nullable: false)
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            if Self.isNull(left) || Self.isNull(right) { return .no }
            let operators: [ComparisonNode.Operator: String] = [
                .lessThan: "<", .lessThanOrEqualTo: "<=", .greaterThan: ">",
            ]
            let sqlOperator = operators[op] ?? ">="
            return binary(
                folded(try sql(left, beside: right)), sqlOperator, folded(try sql(right, beside: left)), nullable: true)
        case .between:
            guard let bounds = Self.items(right), bounds.count == 2 else {
                throw Self.error("Cannot fetch with \(label): BETWEEN needs two bounds, {low, high}.")
            }
            if Self.isNull(left) || bounds.contains(where: Self.isNull) { return .no }
            let value = folded(try sql(left, beside: bounds[0]))
            let low = folded(try sql(bounds[0], beside: left))
            let high = folded(try sql(bounds[1], beside: left))
            return SQLFragment(
                sql: "\(value.sql) BETWEEN \(low.sql) AND \(high.sql)",
                arguments: value.arguments + low.arguments + high.arguments)
        case .in:
            guard let elements = Self.items(right) else {
                // `x IN "text"`: a substring test.
                return match("CONTAINS", try sql(right, beside: left), try sql(left, beside: right))
            }
            return try membership(left, in: elements, folds: folds, label: label) { value, element in
                match("==", value, element)
            }
        case .contains, .beginsWith, .endsWith, .like, .matches:
            let names: [ComparisonNode.Operator: String] = [
                .contains: "CONTAINS", .beginsWith: "BEGINSWITH", .endsWith: "ENDSWITH", .like: "LIKE",
            ]
            let name = names[op] ?? "MATCHES"
            return match(name, try sql(left, beside: right), try sql(right, beside: left))
        }
    }

    /// `x IN (?, ?, …)`; with `[c]`/`[d]` one `STRATA_MATCH` per element; a nil element adds
    /// `OR x IS NULL`; no elements is false.
    private func membership(
        _ left: SQLOperand, in elements: [SQLOperand], folds: Bool, label: ComparisonLabel,
        match: (SQLFragment, SQLFragment) -> SQLFragment
    ) throws -> SQLFragment {
        let hasNull = elements.contains(where: Self.isNull)
        let values = elements.filter { !Self.isNull($0) }
        if Self.isNull(left) { return hasNull ? .yes : .no }
        let value = try scalar(left, hint: nil, label: label)
        var parts: [SQLFragment] = []
        if !values.isEmpty {
            let compiled = try values.map { try scalar($0, hint: Self.attribute(left), label: label) }
            if folds {
                parts += compiled.map { match(value, $0) }
            } else {
                let list = SQLFragment.joined(compiled, separator: ", ")
                parts.append(
                    SQLFragment(sql: "\(value.sql) IN (\(list.sql))", arguments: value.arguments + list.arguments))
            }
        }
        if hasNull {
            parts.append(SQLFragment(sql: "\(value.sql) IS NULL", arguments: value.arguments, nullable: false))
        }
        if parts.isEmpty { return .no }
        if parts.count == 1 { return parts[0] }
        let joined = SQLFragment.joined(parts, separator: " OR ")
        return SQLFragment(sql: "(\(joined.sql))", arguments: joined.arguments, nullable: joined.nullable)
    }

    // MARK: Objects and entities

    /// The key an object constant compares by: `nil` for nil, `.some(nil)` when it matches no
    /// row (a temporary ID, an object of another entity hierarchy).
    private func objectKey(_ value: PredicateValue, entity: NSEntityDescription?, label: ComparisonLabel) throws -> Int64?? {
        switch value {
        case .null: return nil
        case .object(let object):
            guard let id = (object.object as? NSManagedObject)?.objectID ?? (object.object as? NSManagedObjectID) else {
                throw Self.error(
                    "Cannot fetch with \(label): \(type(of: object.object)) is not a managed object or an object ID.")
            }
            if id.isTemporaryID { return .some(nil) }
            if let entity, id.entity.rootEntity.name != entity.rootEntity.name { return .some(nil) }
            return .some(id.primaryKey)
        default:
            throw Self.error(
                "Cannot fetch with \(label): a relationship or SELF compares only with objects or object IDs.")
        }
    }

    private func objectComparison(
        _ key: SQLOperand, _ op: ComparisonNode.Operator, _ other: SQLOperand, label: ComparisonLabel
    ) throws -> SQLFragment {
        guard case .object(let entity) = key.kind else { return .no }
        let column = key.fragment
        if case .object = other.kind {
            guard op == .equalTo || op == .notEqualTo else {
                throw Self.error("Cannot fetch with \(label): objects compare only with ==, != and IN.")
            }
            let sqlOperator = op == .equalTo ? "IS" : "IS NOT"
            return SQLFragment(
                sql: "\(column.sql) \(sqlOperator) \(other.fragment.sql)",
                arguments: column.arguments + other.fragment.arguments,
                nullable: false)
        }
        switch op {
        case .equalTo, .notEqualTo:
            guard let value = Self.constantValue(other) else {
                throw Self.error("Cannot fetch with \(label): an object compares only with objects or object IDs.")
            }
            let equal = op == .equalTo
            switch try objectKey(value, entity: entity, label: label) {
            case nil:
                return SQLFragment(
                    sql: "\(column.sql) IS \(equal ? "" : "NOT ")NULL", arguments: column.arguments, nullable: false)
            case .some(nil):
                return equal ? .no : .yes
            case .some(let primaryKey?):
                return SQLFragment(
                    sql: "\(column.sql) \(equal ? "=" : "IS NOT") ?",
                    arguments: column.arguments + [primaryKey.databaseValue],
                    nullable: equal)
            }
        case .in:
            guard let elements = Self.items(other) else {
                throw Self.error("Cannot fetch with \(label): IN needs a collection of objects.")
            }
            var keys: [Int64] = []
            var hasNull = false
            for element in elements {
                guard let value = Self.constantValue(element) else {
                    throw Self.error("Cannot fetch with \(label): IN needs a collection of objects.")
                }
                switch try objectKey(value, entity: entity, label: label) {
                case nil: hasNull = true
                case .some(let primaryKey?): keys.append(primaryKey)
                case .some(nil): break
                }
            }
            let nullTest = SQLFragment(sql: "\(column.sql) IS NULL", arguments: column.arguments, nullable: false)
            guard !keys.isEmpty else { return hasNull ? nullTest : .no }
            let list = SQLFragment(
                sql: "\(column.sql) IN (\(keys.map { _ in "?" }.joined(separator: ", ")))",
                arguments: column.arguments + keys.map(\.databaseValue))
            guard hasNull else { return list }
            return SQLFragment(
                sql: "(\(list.sql) OR \(nullTest.sql))", arguments: list.arguments + nullTest.arguments, nullable: true)
        default:
            throw Self.error("Cannot fetch with \(label): objects compare only with ==, != and IN.")
        }
    }

    /// The entity numbers an entity constant stands for: it and its subentities. A name
    /// stands for the model's entity of that name.
    private func entityNumbers(_ value: PredicateValue, label: ComparisonLabel) throws -> [Int] {
        let entity: NSEntityDescription?
        switch value {
        case .null: return []
        case .object(let object):
            guard let described = object.object as? NSEntityDescription else {
                throw Self.error("Cannot fetch with \(label): entity compares only with entity descriptions.")
            }
            entity = described
        case .string(let name): entity = mapping.schema.orderedEntities.first { $0.name == name }
        default: throw Self.error("Cannot fetch with \(label): entity compares only with entity descriptions.")
        }
        guard let entity else { return [] }
        return entity.selfAndDescendants.compactMap { mapping.schema.entityNumber(for: $0) }.sorted()
    }

    private func entityComparison(
        _ key: SQLOperand, _ op: ComparisonNode.Operator, _ other: SQLOperand, label: ComparisonLabel
    ) throws -> SQLFragment {
        let column = key.fragment
        if case .entityNumber = other.kind, op == .equalTo || op == .notEqualTo {
            return SQLFragment(
                sql: "\(column.sql) \(op == .equalTo ? "IS" : "IS NOT") \(other.fragment.sql)",
                arguments: column.arguments + other.fragment.arguments, nullable: false)
        }
        let values: [PredicateValue]
        switch op {
        case .equalTo, .notEqualTo:
            guard let value = Self.constantValue(other) else {
                throw Self.error("Cannot fetch with \(label): entity compares only with entity descriptions.")
            }
            values = [value]
        case .in:
            guard let elements = Self.items(other) else {
                throw Self.error("Cannot fetch with \(label): IN needs a collection of entities.")
            }
            values = try elements.map { element in
                guard let value = Self.constantValue(element) else {
                    throw Self.error("Cannot fetch with \(label): IN needs a collection of entities.")
                }
                return value
            }
        default:
            throw Self.error("Cannot fetch with \(label): entity compares only with ==, != and IN.")
        }
        let numbers = Array(Set(try values.flatMap { try entityNumbers($0, label: label) })).sorted()
        let negated = op == .notEqualTo
        guard !numbers.isEmpty else { return negated ? .yes : .no }
        return SQLFragment(
            sql: "\(column.sql) \(negated ? "NOT IN" : "IN") (\(numbers.map { _ in "?" }.joined(separator: ", ")))",
            arguments: column.arguments + numbers.map(\.databaseValue), nullable: false)
    }
}
