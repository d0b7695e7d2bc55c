import Foundation
import PostgresNIO
import Strata
import StrataSyncProtocol

/// A `CKQuery` predicate compiled to a PostgreSQL condition over the `records` table, for one
/// zone whose schema gives each field's kind.
///
/// The condition is a *necessary* condition of the predicate: every record the predicate
/// matches satisfies it. Where it is also sufficient it is `exact`. The query checks each row
/// the condition lets through with Strata's own evaluator (`SyncStore.query`), so what SQL
/// cannot say exactly (`MATCHES`, `LIKE`'s characters, `[c]` alone, key paths through
/// relationships, functions of fields) costs rows examined, never a wrong answer. What SQL
/// says exactly follows the evaluator's rules (`PredicateValues`):
///
/// - a field's value compares only with a constant of its kind: strings with strings (by
///   Unicode scalars: `COLLATE "C"` on UTF-8 orders and compares the same), numbers with
///   numbers (`Bool` is 0 or 1; an integer field against a fractional constant is rounded
///   exactly), dates with dates, UUIDs with UUIDs (equality only); any other pair is unequal
///   and unordered;
/// - nil equals only nil; an order comparison with nil is false;
/// - `[cd]` compares the folded values the server stores beside the fields (`folded`, made
///   with the evaluator's own folding); `[c]` or `[d]` alone narrow by the same column (a
///   string equal under `[c]` is equal under `[cd]`) and are checked in Swift.
///
/// Negations are pushed down to the comparisons (De Morgan), so that a comparison in a
/// positive place stays a plain indexable condition; a negated one reads `(…) IS NOT TRUE`,
/// which is exact with PostgreSQL's nulls; a negated comparison that is not exact filters
/// nothing.
struct QueryCompiler {
    /// The kinds of the record type's fields in the zone (`ZoneInfo.schema`).
    let kinds: [String: FieldValue.Kind]
    private(set) var bindings = PostgresBindings()

    init(kinds: [String: FieldValue.Kind]) {
        self.kinds = kinds
    }

    /// A condition on a record, or one of the two constants.
    enum Condition: Equatable {
        /// Every record; `exact` when the predicate part really holds for all (`TRUEPREDICATE`),
        /// false when SQL only could not narrow it.
        case all(exact: Bool)
        /// No record (always exact).
        case none
        case sql(String, exact: Bool)

        var isExact: Bool {
            switch self {
            case .all(let exact), .sql(_, let exact): exact
            case .none: true
            }
        }

        /// The condition as SQL text (`true`/`false` for the constants).
        var text: String {
            switch self {
            case .all: "true"
            case .none: "false"
            case .sql(let text, _): text
            }
        }
    }

    // MARK: Predicates

    mutating func compile(_ node: PredicateNode, negated: Bool = false) -> Condition {
        switch node {
        case .constant(let value):
            return value != negated ? .all(exact: true) : .none
        case .and(let nodes):
            let parts = nodes.map { compile($0, negated: negated) }
            return negated ? Self.or(parts) : Self.and(parts)
        case .or(let nodes):
            let parts = nodes.map { compile($0, negated: negated) }
            return negated ? Self.and(parts) : Self.or(parts)
        case .not(let inner):
            return compile(inner, negated: !negated)
        case .comparison(let comparison):
            let condition = compile(comparison)
            return negated ? Self.not(condition) : condition
        }
    }

    static func and(_ parts: [Condition]) -> Condition {
        var texts: [String] = []
        var exact = true
        for part in parts {
            switch part {
            case .none: return .none
            case .all(let isExact): exact = exact && isExact
            case .sql(let text, let isExact):
                texts.append(text)
                exact = exact && isExact
            }
        }
        if texts.isEmpty { return .all(exact: exact) }
        return .sql(texts.count == 1 ? texts[0] : texts.map { "(\($0))" }.joined(separator: " AND "), exact: exact)
    }

    static func or(_ parts: [Condition]) -> Condition {
        var texts: [String] = []
        var exact = true
        for part in parts {
            switch part {
            case .none: continue
            case .all(let isExact):
                // Every record may match: no narrowing, exact only if it is a real TRUE.
                if isExact { return .all(exact: true) }
                return .all(exact: false)
            case .sql(let text, let isExact):
                texts.append(text)
                exact = exact && isExact
            }
        }
        if texts.isEmpty { return .none }
        return .sql(texts.count == 1 ? texts[0] : texts.map { "(\($0))" }.joined(separator: " OR "), exact: exact)
    }

    static func not(_ condition: Condition) -> Condition {
        switch condition {
        case .all(exact: true): .none
        case .all(exact: false): .all(exact: false)
        case .none: .all(exact: true)
        case .sql(let text, exact: true): .sql("(\(text)) IS NOT TRUE", exact: true)
        case .sql(_, exact: false): .all(exact: false)
        }
    }

    // MARK: Bounds an index can walk

    /// A field whose plain typed value (`expression(field:kind:)`, the value its index holds)
    /// every match of the predicate has within a bound: an equality, or a range (`<`, `<=`,
    /// `>`, `>=`, `BETWEEN`, `BEGINSWITH`).
    struct Bound: Equatable {
        var field: String
        var isEquality: Bool
    }

    /// The bounds of the predicate's top-level conjuncts (comparisons of a field with a
    /// constant, not negated, without `[c]`/`[d]`, which compare the folded column), in the
    /// predicate's order. An unsorted query walks the index of such a field (`SyncStore.plan`).
    func bounds(of node: PredicateNode) -> [Bound] {
        switch node {
        case .and(let nodes): return nodes.flatMap { bounds(of: $0) }
        case .comparison(let comparison): return bound(of: comparison).map { [$0] } ?? []
        default: return []
        }
    }

    private func bound(of comparison: ComparisonNode) -> Bound? {
        guard let (operand, op, constant, modifier) = Self.seenFromOperand(comparison), case .field(let field) = operand,
            modifier != .all, Self.folding(comparison.options) == .none
        else { return nil }
        guard let kind = kinds[field], Self.expression(field: field, kind: kind) != nil else { return nil }
        switch (op, constant) {
        case (_, .null): return nil
        case (.equalTo, _): return Bound(field: field, isEquality: true)
        case (.lessThan, _), (.lessThanOrEqualTo, _), (.greaterThan, _), (.greaterThanOrEqualTo, _), (.between, _):
            return Bound(field: field, isEquality: false)
        case (.beginsWith, .string(let prefix)):
            guard !prefix.isEmpty, kind == .string || kind == .reference else { return nil }
            return Bound(field: field, isEquality: false)
        default: return nil
        }
    }

    // MARK: Comparisons

    /// A field or the record name, as a comparison reads it.
    private enum Operand {
        case field(String)
        case recordName
    }

    private mutating func compile(_ comparison: ComparisonNode) -> Condition {
        let left = PredicateTreeAccess.constant(comparison.left)
        let right = PredicateTreeAccess.constant(comparison.right)
        if left != nil, right != nil {
            // Both sides constant: the evaluator answers once for every record.
            return PredicateTreeAccess.evaluate(.comparison(comparison), with: nil) ? .all(exact: true) : .none
        }
        if let (operand, op, constant, modifier) = Self.seenFromOperand(comparison) {
            return compile(operand, op, constant, comparison.options, modifier)
        }
        return .all(exact: false)
    }

    /// A comparison of a field (or the record name) with a constant, seen from the field:
    /// `constant OP field` is turned round where the operator has a mirror (`<` and `>`…;
    /// `'text' IN field` is the field's string containing the text, `isMember`); nil for any
    /// other comparison (`'abc' BEGINSWITH field` has no form from the field).
    private static func seenFromOperand(
        _ comparison: ComparisonNode
    ) -> (Operand, ComparisonNode.Operator, PredicateConstant, ComparisonNode.Modifier)? {
        if let right = PredicateTreeAccess.constant(comparison.right), let operand = operand(comparison.left) {
            return (operand, comparison.op, right, comparison.modifier)
        }
        guard comparison.modifier == .direct, let left = PredicateTreeAccess.constant(comparison.left),
            let operand = operand(comparison.right)
        else { return nil }
        let mirrored: ComparisonNode.Operator
        switch comparison.op {
        case .equalTo, .notEqualTo: mirrored = comparison.op
        case .lessThan: mirrored = .greaterThan
        case .lessThanOrEqualTo: mirrored = .greaterThanOrEqualTo
        case .greaterThan: mirrored = .lessThan
        case .greaterThanOrEqualTo: mirrored = .lessThanOrEqualTo
        case .in: mirrored = .contains
        default: return nil
        }
        return (operand, mirrored, left, .direct)
    }

    private static func operand(_ expression: ExpressionNode) -> Operand? {
        guard case .keyPath(let path) = expression else { return nil }
        if path == "recordName" { return .recordName }
        return RequestValidation.isIdentifier(path) ? .field(path) : nil
    }

    /// `ANY`: the value is not nil and matches; `ALL`: it is nil or matches (a scalar is its
    /// own only element, nil has none).
    private mutating func compile(
        _ operand: Operand, _ op: ComparisonNode.Operator, _ constant: PredicateConstant,
        _ options: ComparisonNode.Options, _ modifier: ComparisonNode.Modifier
    ) -> Condition {
        // PostgreSQL's text holds no NUL (nor do stored fields): such a constant is left to Swift.
        if Self.holdsNUL(constant) { return .all(exact: false) }
        let direct = compile(operand, op, constant, options)
        switch modifier {
        case .direct: return direct
        case .any: return Self.and([notNil(operand), direct])
        case .all: return Self.or([isNil(operand), direct])
        }
    }

    private static func holdsNUL(_ constant: PredicateConstant) -> Bool {
        switch constant {
        case .string(let text): text.utf8.contains(0)
        case .collection(let elements): elements.contains(where: holdsNUL)
        default: false
        }
    }

    private func kind(of operand: Operand) -> FieldValue.Kind? {
        switch operand {
        case .recordName: .string
        case .field(let name): kinds[name]
        }
    }

    private func isNil(_ operand: Operand) -> Condition {
        switch operand {
        case .recordName: .none
        case .field(let name):
            kinds[name] == nil ? .all(exact: true) : .sql("coalesce(fields->'\(name)'->>'type', 'null') = 'null'", exact: true)
        }
    }

    private func notNil(_ operand: Operand) -> Condition { Self.not(isNil(operand)) }

    private mutating func compile(
        _ operand: Operand, _ op: ComparisonNode.Operator, _ constant: PredicateConstant, _ options: ComparisonNode.Options
    ) -> Condition {
        switch op {
        case .equalTo: return equal(operand, constant, options)
        case .notEqualTo: return Self.not(equal(operand, constant, options))
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            return order(operand, op, constant, options)
        case .between:
            guard case .collection(let bounds) = constant, bounds.count == 2 else { return .none }
            return Self.and([
                order(operand, .greaterThanOrEqualTo, bounds[0], options),
                order(operand, .lessThanOrEqualTo, bounds[1], options),
            ])
        case .in:
            switch constant {
            case .collection(let elements): return Self.or(elements.map { equal(operand, $0, options) })
            // `field IN 'text'`: the field is a substring of the text; rare, left to Swift.
            case .string: return .all(exact: false)
            default: return .none
            }
        case .beginsWith, .endsWith, .contains, .like, .matches:
            return text(operand, op, constant, options)
        }
    }

    // MARK: Values of a kind

    /// The SQL of a field's value typed by its kind, as the indexes are made
    /// (`FieldIndexes.expression`); nil for kinds compared only in Swift.
    static func expression(field name: String, kind: FieldValue.Kind) -> String? {
        let json = "fields->'\(name)'"
        func typed(_ type: String, _ cast: String) -> String {
            "(CASE WHEN \(json)->>'type' = '\(type)' THEN (\(json)->>'value')::\(cast) END)"
        }
        switch kind {
        case .string, .reference: return "((\(json)->>'value') COLLATE \"C\")"
        case .int: return typed("int", "bigint")
        case .bool: return "(CASE WHEN \(json)->>'type' = 'bool' THEN ((\(json)->>'value')::boolean)::int END)"
        case .double: return typed("double", "float8")
        case .date: return typed("date", "float8")
        case .uuid: return typed("uuid", "uuid")
        case .decimal, .url, .bytes, .asset, .null: return nil
        }
    }

    /// The folded value of a string field (`[cd]`), as stored in `folded` when it differs.
    static func foldedExpression(field name: String) -> String {
        "(coalesce(folded->>'\(name)', fields->'\(name)'->>'value') COLLATE \"C\")"
    }

    /// What a comparison of this operand with a constant compares, in SQL: the operand's
    /// expression and the constant bound with its type, or nil when the kinds never compare.
    private enum Domain {
        case text
        case integer
        case float
        case date
        case uuid
    }

    private func domain(of kind: FieldValue.Kind) -> Domain? {
        switch kind {
        case .string, .reference: .text
        case .int, .bool: .integer
        case .double: .float
        case .date: .date
        case .uuid: .uuid
        case .decimal, .url, .bytes, .asset, .null: nil
        }
    }

    private func expression(_ operand: Operand, folded: Bool = false) -> String? {
        switch operand {
        case .recordName: return folded ? nil : QueryOrder.recordName
        case .field(let name):
            guard let kind = kinds[name] else { return nil }
            if folded { return kind == .string ? Self.foldedExpression(field: name) : nil }
            return Self.expression(field: name, kind: kind)
        }
    }

    private mutating func bind<Value: PostgresNonThrowingEncodable & Sendable>(_ value: Value) -> String {
        bindings.append(value)
        return "$\(bindings.count)"
    }

    /// How the options fold strings: none, `[cd]` exactly, or only partly (`[c]`, `[d]`),
    /// which the `[cd]` folding narrows without deciding.
    private enum Folding {
        case none
        case full
        case partial
    }

    private static func folding(_ options: ComparisonNode.Options) -> Folding {
        if options.contains(.normalized) { return .none }
        switch (options.contains(.caseInsensitive), options.contains(.diacriticInsensitive)) {
        case (false, false): return .none
        case (true, true): return .full
        default: return .partial
        }
    }

    private static func fold(_ text: String) -> String { StoredRecord.queryFold(text) }

    /// `==` (and `!=` as its negation, `IN` as a disjunction).
    private mutating func equal(
        _ operand: Operand, _ constant: PredicateConstant, _ options: ComparisonNode.Options
    )
        -> Condition
    {
        if case .null = constant { return isNil(operand) }
        guard let kind = kind(of: operand) else {
            // A field this zone never held a value in: nil everywhere, equal to no constant.
            return .none
        }
        guard let domain = domain(of: kind) else { return .all(exact: false) }
        switch (domain, constant) {
        case (.text, .string(let text)):
            switch Self.folding(options) {
            case .none:
                guard let expression = expression(operand) else { return .all(exact: false) }
                return .sql("\(expression) = \(bind(text))", exact: true)
            case .full, .partial:
                guard let expression = expression(operand, folded: true) else { return .all(exact: false) }
                return .sql("\(expression) = \(bind(Self.fold(text)))", exact: Self.folding(options) == .full)
            }
        case (.integer, .integer(let value)):
            return .sql("\(expression(operand) ?? "NULL") = \(bind(value))", exact: true)
        case (.integer, .double(let value)):
            guard value.isFinite, value == value.rounded(), let whole = Int64(exactly: value) else { return .none }
            return .sql("\(expression(operand) ?? "NULL") = \(bind(whole))", exact: true)
        case (.float, .integer(let value)):
            guard let double = Self.exactDouble(value) else { return .all(exact: false) }
            return .sql("\(expression(operand) ?? "NULL") = \(bind(double))", exact: true)
        case (.float, .double(let value)):
            guard !value.isNaN else { return .none }
            return .sql("\(expression(operand) ?? "NULL") = \(bind(value))", exact: true)
        case (.date, .date(let date)):
            return .sql("\(expression(operand) ?? "NULL") = \(bind(date.timeIntervalSinceReferenceDate))", exact: true)
        case (.uuid, .uuid(let uuid)):
            return .sql("\(expression(operand) ?? "NULL") = \(bind(uuid))", exact: true)
        case (.integer, .decimal), (.float, .decimal):
            return .all(exact: false)
        case (_, .other):
            return .all(exact: false)
        default:
            // Values of different kinds are never equal.
            return .none
        }
    }

    /// An integer as a `Double` when the conversion is exact (as the evaluator compares them).
    private static func exactDouble(_ value: Int64) -> Double? {
        let double = Double(value)
        guard double.magnitude < 9_223_372_036_854_775_808.0, Int64(double) == value else { return nil }
        return double
    }

    /// `<`, `<=`, `>`, `>=` (and `BETWEEN`'s two bounds).
    private mutating func order(
        _ operand: Operand, _ op: ComparisonNode.Operator, _ constant: PredicateConstant, _ options: ComparisonNode.Options
    ) -> Condition {
        guard let kind = kind(of: operand) else { return .none }
        guard let domain = domain(of: kind) else { return .all(exact: false) }
        let symbol: String
        switch op {
        case .lessThan: symbol = "<"
        case .lessThanOrEqualTo: symbol = "<="
        case .greaterThan: symbol = ">"
        default: symbol = ">="
        }
        switch (domain, constant) {
        case (.text, .string(let text)):
            switch Self.folding(options) {
            case .none:
                guard let expression = expression(operand) else { return .all(exact: false) }
                return .sql("\(expression) \(symbol) \(bind(text))", exact: true)
            case .full:
                guard let expression = expression(operand, folded: true) else { return .all(exact: false) }
                return .sql("\(expression) \(symbol) \(bind(Self.fold(text)))", exact: true)
            case .partial:
                return .all(exact: false)
            }
        case (.integer, .integer(let value)):
            return .sql("\(expression(operand) ?? "NULL") \(symbol) \(bind(value))", exact: true)
        case (.integer, .double(let value)):
            // Exactly as the evaluator: an integer field against a fractional bound.
            guard !value.isNaN else { return .none }
            if value >= 9_223_372_036_854_775_808.0 {
                return op == .lessThan || op == .lessThanOrEqualTo ? notNil(operand) : .none
            }
            if value < -9_223_372_036_854_775_808.0 {
                return op == .greaterThan || op == .greaterThanOrEqualTo ? notNil(operand) : .none
            }
            let expression = expression(operand) ?? "NULL"
            if value == value.rounded(), let whole = Int64(exactly: value) {
                return .sql("\(expression) \(symbol) \(bind(whole))", exact: true)
            }
            // v < 2.5 and v <= 2.5 are v <= 2; v > 2.5 and v >= 2.5 are v >= 3.
            let below = Int64(value.rounded(.down))
            switch op {
            case .lessThan, .lessThanOrEqualTo: return .sql("\(expression) <= \(bind(below))", exact: true)
            default: return .sql("\(expression) > \(bind(below))", exact: true)
            }
        case (.float, .integer(let value)):
            guard let double = Self.exactDouble(value) else { return .all(exact: false) }
            return .sql("\(expression(operand) ?? "NULL") \(symbol) \(bind(double))", exact: true)
        case (.float, .double(let value)):
            guard !value.isNaN else { return .none }
            return .sql("\(expression(operand) ?? "NULL") \(symbol) \(bind(value))", exact: true)
        case (.date, .date(let date)):
            return .sql(
                "\(expression(operand) ?? "NULL") \(symbol) \(bind(date.timeIntervalSinceReferenceDate))", exact: true)
        case (.integer, .decimal), (.float, .decimal), (_, .other):
            return .all(exact: false)
        default:
            // Kinds without an order between them (UUIDs, a string against a number): false.
            return .none
        }
    }

    /// `BEGINSWITH`, `ENDSWITH`, `CONTAINS`, `LIKE`, `MATCHES`: strings only.
    private mutating func text(
        _ operand: Operand, _ op: ComparisonNode.Operator, _ constant: PredicateConstant, _ options: ComparisonNode.Options
    ) -> Condition {
        guard let kind = kind(of: operand) else { return .none }
        guard case .string(let pattern) = constant else {
            // `CONTAINS` of a non-string is collection membership, false on a scalar field;
            // the other operators need two strings.
            return kind == .url || kind == .decimal ? .all(exact: false) : .none
        }
        guard domain(of: kind) == .text else {
            return kind == .url || kind == .decimal ? .all(exact: false) : .none
        }
        let folding = Self.folding(options)
        guard let expression = expression(operand, folded: folding != .none) else { return .all(exact: false) }
        let subject = folding == .none ? pattern : Self.fold(pattern)
        let exact = folding != .partial
        switch op {
        case .beginsWith:
            return prefix(expression, subject, exact: exact)
        case .endsWith:
            if subject.isEmpty { return .sql("\(expression) IS NOT NULL", exact: exact) }
            return .sql(
                "right(\(expression), \(bind(Int64(subject.unicodeScalars.count)))::int) = \(bind(subject))", exact: exact)
        case .contains:
            if subject.isEmpty { return .sql("\(expression) IS NOT NULL", exact: exact) }
            // Foundation's literal search finds what `strpos` finds; the rows are checked in
            // Swift all the same.
            return .sql("strpos(\(expression), \(bind(subject))) > 0", exact: false)
        case .like:
            return .sql("\(expression) LIKE \(bind(Self.likePattern(subject))) ESCAPE '\\'", exact: false)
        default:
            // `MATCHES`: the literal start of the expression, when it has one, narrows it (not
            // under `[c]` or `[d]`, which the evaluator applies to the expression itself even
            // with `[n]`).
            guard !options.contains(.caseInsensitive), !options.contains(.diacriticInsensitive),
                let start = Self.literalPrefix(ofRegex: pattern), !start.isEmpty
            else {
                return .all(exact: false)
            }
            return prefix(expression, start, exact: false)
        }
    }

    /// Strings that begin with the prefix: a range of the index's order (the prefix up to the
    /// prefix with its last scalar moved one up), so that an index serves it.
    private mutating func prefix(_ expression: String, _ prefix: String, exact: Bool) -> Condition {
        if prefix.isEmpty { return .sql("\(expression) IS NOT NULL", exact: exact) }
        var scalars = Array(prefix.unicodeScalars)
        let lower = bind(prefix)
        if let last = scalars.popLast(), let next = Self.nextScalar(after: last) {
            scalars.append(next)
            var upper = String.UnicodeScalarView()
            upper.append(contentsOf: scalars)
            return .sql("\(expression) >= \(lower) AND \(expression) < \(bind(String(upper)))", exact: exact)
        }
        return .sql("\(expression) >= \(lower) AND starts_with(\(expression), \(lower))", exact: exact)
    }

    private static func nextScalar(after scalar: Unicode.Scalar) -> Unicode.Scalar? {
        var value = scalar.value + 1
        if value == 0xD800 { value = 0xE000 }
        return Unicode.Scalar(value)
    }

    /// `LIKE`'s `*` and `?` in SQL's terms, wider than the predicate's. The predicate matches
    /// characters (grapheme clusters, compared by canonical equivalence), SQL code points: `?`
    /// and every character that another spelling could equal (anything not ASCII, and the
    /// three ASCII characters with a canonical twin: `K`, `;`, the grave accent) become "one
    /// or more code points" (`_%`).
    static func likePattern(_ pattern: String) -> String {
        var result = ""
        var escaped = false
        for character in pattern {
            let literal = escaped || (character != "\\" && character != "*" && character != "?")
            escaped = !escaped && character == "\\"
            if literal {
                let plain = character.isASCII && !"K;`".contains(character)
                result += plain ? escapeLike(String(character)) : "_%"
            } else if character == "*" {
                result += "%"
            } else if character == "?" {
                result += "_%"
            }
        }
        if escaped { result += "\\\\" }
        return result
    }

    private static func escapeLike(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            if scalar == "%" || scalar == "_" || scalar == "\\" { result.unicodeScalars.append("\\") }
            result.unicodeScalars.append(scalar)
        }
        return result
    }

    /// The characters a regular expression must match literally at its start, when it has no
    /// alternation at its top level: `Buy .*` starts with "Buy ". Nil when unsure.
    static func literalPrefix(ofRegex pattern: String) -> String? {
        var depth = 0
        var previous: Character?
        for character in pattern {
            if previous == "\\" {
                previous = nil
                continue
            }
            if character == "(" || character == "[" { depth += 1 }
            if character == ")" || character == "]" { depth -= 1 }
            if character == "|" && depth == 0 { return nil }
            previous = character
        }
        var literal = ""
        var iterator = Array(pattern)[...]
        while let character = iterator.first {
            if "\\.[](){}*+?^$|".contains(character) { break }
            literal.append(character)
            iterator = iterator.dropFirst()
        }
        // A quantifier after the last literal character makes that character optional.
        if let next = iterator.first, "*?{".contains(next), !literal.isEmpty { literal.removeLast() }
        return literal
    }
}
