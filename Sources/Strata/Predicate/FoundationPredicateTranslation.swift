import Foundation

/// Translates Foundation's typed predicates (`#Predicate`, `Predicate<Input>`) and sort
/// descriptors (`SortDescriptor<Compared>`) into Strata's predicate tree and sort keys, so
/// that a fetch written with them compiles to the same SQL, and evaluates the same way in
/// memory, as one written with a format string.
///
/// The `#Predicate` macro builds a tree of `PredicateExpressions` values; each supported
/// expression type translates itself (`_StrataTranslatableExpression`, in
/// `FoundationPredicateOperators.swift`):
///
/// | Swift                                   | Format string                                  |
/// |-----------------------------------------|------------------------------------------------|
/// | `$0`                                    | `SELF`                                         |
/// | `$0.author.name`, `$0.author?.name`     | `author.name`                                  |
/// | `$0.title!`                             | `title`                                        |
/// | `$0.tags.count`, `$0.tags.isEmpty`      | `tags.@count`, `tags.@count == 0`              |
/// | `$0.name.count`, `$0.name.isEmpty`      | `length:(name)`, `name == ""`                  |
/// | `$0.done` (a `Bool` used as a test)     | `done == YES`                                  |
/// | `==`, `!=`, `<`, `<=`, `>`, `>=`        | the same operators                             |
/// | `&&`, `\|\|`, `!`                       | `AND`, `OR`, `NOT`                             |
/// | `[1, 2].contains($0.n)`                 | `n IN {1, 2}` (an array constant)              |
/// | `$0.tags.contains(tag)`                 | `tags CONTAINS tag`                            |
/// | `$0.tags.contains { … }`                | `SUBQUERY(tags, $x, …).@count > 0`             |
/// | `$0.tags.allSatisfy { … }`              | `SUBQUERY(tags, $x, NOT …).@count == 0`        |
/// | `$0.tags.filter { … }`                  | `SUBQUERY(tags, $x, …)`                        |
/// | `$0.name.contains("a")`                 | `name CONTAINS "a"`                            |
/// | `$0.name.starts(with: "a")`             | `name BEGINSWITH "a"`                          |
/// | `$0.name.localizedStandardContains("a")`| `name CONTAINS[cd] "a"` (Apple platforms)      |
/// | `$0.name.caseInsensitiveCompare(x) == .orderedSame` | `name ==[c] x` (Apple platforms)   |
/// | `(1...5).contains($0.n)`, `(1..<5)…`    | `n BETWEEN {1, 5}`, `n >= 1 AND n < 5`         |
/// | `+`, `-`, `*`                           | `add:to:`, `from:subtract:`, `multiply:by:`    |
/// | `/`, `%`, unary `-`                     | `divide:by:` (in `trunc:` for integers), `modulus:by:`, `from:subtract:(0, x)` |
/// | `c ? a : b`                             | `TERNARY(c, a, b)`, or `(c AND a) OR (NOT c AND b)` for tests |
/// | `$0 is Tutorial`                        | `entity IN {Tutorial and its subentities}`     |
/// | `($0 as? Tutorial)?.level == 2`         | `entity IN {…} AND level == 2` (tests); `level` (values: nil on other objects) |
/// | `($0.title ?? "") == "x"`               | see `compare(_:_:_:options:)`                  |
///
/// Captured values become constants (`.object` for managed objects, object IDs and other
/// class instances), and expressions over captured values only (`author.name` of a captured
/// `author`) are evaluated once, at translation. Anything else throws an `NSCoreDataError`
/// that names the expression type.
///
/// Where the two languages differ, the translation follows the predicate language: a key
/// path through a nil to-one reads nil (`$0.author?.name != "x"` matches books without an
/// author, as in Swift; a test through the chain is nil there, see `optionalTest`);
/// `length:` counts UTF-16 units, where Swift's `String.count` counts characters; strings
/// compare as the store compares them. A closure of `contains(where:)`, `allSatisfy` or `filter` can only read its
/// own element: inside a `SUBQUERY`, key paths are read from the element.
enum FoundationPredicateTranslation {
    typealias Term = FoundationPredicateTerm

    /// The tree of a typed predicate, with its input as the evaluated object (`SELF`).
    /// `entities` answers the entities whose objects a class's instances are (the class's
    /// entity and its subentities), for `is` and `as?`; without it they throw.
    static func node<Input>(
        from predicate: Predicate<Input>, entities: ((Any.Type) -> [NSEntityDescription]?)? = nil
    ) throws -> PredicateNode {
        let input: PredicateExpressions.Variable<Input> = predicate.variable
        var context = FoundationPredicateContext(input: input.key, entities: entities)
        return try context.predicate(predicate.expression)
    }

    /// The sort keys of sort descriptors: the key from the descriptor's key path, the
    /// direction from its order, and the comparison from its string comparator
    /// (`.localizedStandard` → `localizedStandardCompare:`, `.localized` →
    /// `localizedCompare:`, `.lexical` and non-string descriptors → `compare:`).
    static func sortKeys<Compared>(from descriptors: [SortDescriptor<Compared>]) throws -> [FetchPlan.SortKey] {
        try descriptors.map { descriptor in
            guard let keyPath = descriptor.keyPath else {
                throw CoreDataError.make(
                    NSCoreDataError, "A sort descriptor of a fetch request needs a key path; this one has none.")
            }
            let key = try FoundationPredicateKeyPaths.name(of: keyPath, rootType: Compared.self)
            return FetchPlan.SortKey(
                key: key, ascending: descriptor.order == .forward, comparison: sortComparison(of: descriptor))
        }
    }

    private static func sortComparison<Compared>(of descriptor: SortDescriptor<Compared>) -> FetchPlan.SortComparison {
        #if canImport(Darwin)
            // `stringComparator` comes with its order reset to `.forward`, as the constants.
            if descriptor.stringComparator == .localizedStandard { return .localizedStandardCompare }
            if descriptor.stringComparator == .localized { return .localizedCompare }
        #endif
        // `.lexical` is the only string comparator of Foundation on Linux.
        return .compare
    }

    // MARK: Conversions

    /// A translation used as a test. A Boolean value is compared with `YES` (`done == YES`),
    /// as a format string tests a Boolean attribute.
    static func predicate(_ translated: Term) throws -> PredicateNode {
        switch translated {
        case .predicate(let node):
            return node
        case .expression(.constant(.bool(let flag))):
            return .constant(flag)
        case .expression, .coalesced, .optionalTest:
            return try compare(translated, .equalTo, .expression(.constant(.bool(true))))
        case .ordering, .comparisonResult, .range:
            throw CoreDataError.make(NSCoreDataError, "A typed predicate uses \(translated.kind) where a test is needed.")
        }
    }

    /// A translation used as a value. A test becomes `TERNARY(test, YES, NO)`, and
    /// `value ?? fallback` becomes `TERNARY(value != nil, value, fallback)`.
    static func expression(_ translated: Term) throws -> ExpressionNode {
        switch translated {
        case .expression(let node):
            return node
        case .predicate(.constant(let flag)):
            return .constant(.bool(flag))
        case .predicate(let node):
            return .conditional(node, .constant(.bool(true)), .constant(.bool(false)))
        case .coalesced(let value, let fallback):
            return .conditional(isNotNil(value), value, try expression(fallback))
        case .optionalTest(let test, let present):
            return .conditional(present, try expression(.predicate(test)), .constant(.null))
        case .ordering, .comparisonResult, .range:
            throw CoreDataError.make(NSCoreDataError, "A typed predicate uses \(translated.kind) where a value is needed.")
        }
    }

    // MARK: Comparisons

    /// `left op right`.
    ///
    /// `value ?? fallback` on either side is expanded, since the predicate language has no
    /// coalescing: `(v ?? d) op r` is `(v != nil AND v op r) OR (v == nil AND d op r)`. When
    /// `d op r` is known at translation (both constants, `==`/`!=`), this shortens to
    /// `v == nil OR v op r` when it holds, and to `v != nil AND v op r` when it does not, and
    /// further to `v op r` for `==` with a non-nil constant, which nil never equals:
    /// `($0.title ?? "") == "x"` is `title == "x"`, `($0.title ?? "") == ""` is
    /// `title == nil OR title == ""`.
    ///
    /// A `caseInsensitiveCompare` result compared with an ordering constant becomes the
    /// comparison with the options (`.orderedSame` → `==[c]`, `.orderedAscending` → `<[c]`,
    /// `!= .orderedAscending` → `>=[c]`, …).
    static func compare(
        _ left: Term, _ op: ComparisonNode.Operator, _ right: Term, options: ComparisonNode.Options = []
    ) throws -> PredicateNode {
        if case .coalesced(let value, let fallback) = left {
            return try coalescing(value, fallback, nilNeverMatches: op == .equalTo && isNonNullConstant(right)) {
                try compare($0, op, right, options: options)
            }
        }
        if case .coalesced(let value, let fallback) = right {
            return try coalescing(value, fallback, nilNeverMatches: op == .equalTo && isNonNullConstant(left)) {
                try compare(left, op, $0, options: options)
            }
        }
        if let ordering = try orderingComparison(left, op, right) { return ordering }
        if let test = booleanTest(left, op, right) ?? booleanTest(right, op, left) { return test }
        let leftNode = try expression(left)
        let rightNode = try expression(right)
        if options.isEmpty, case .constant(let a) = leftNode, case .constant(let b) = rightNode {
            switch (op, b) {
            case (.equalTo, _): return .constant(a == b)
            case (.notEqualTo, _): return .constant(a != b)
            case (.in, .array(let elements)), (.in, .set(let elements)): return .constant(elements.contains(a))
            default: break
            }
        }
        return .comparison(ComparisonNode(left: leftNode, op: op, right: rightNode, options: options))
    }

    private static func coalescing(
        _ value: ExpressionNode, _ fallback: Term, nilNeverMatches: Bool,
        _ comparing: (Term) throws -> PredicateNode
    ) throws -> PredicateNode {
        let present = try comparing(.expression(value))
        let absent = try comparing(fallback)
        if absent == .constant(false), nilNeverMatches { return present }
        return whether(value, isNil: absent, else: present)
    }

    /// `(value == nil AND whenNil) OR (value != nil AND otherwise)`, shortened when
    /// `whenNil` is a constant.
    static func whether(_ value: ExpressionNode, isNil whenNil: PredicateNode, else otherwise: PredicateNode) -> PredicateNode {
        whether(present: isNotNil(value), then: otherwise, else: whenNil)
    }

    /// `(present AND whenPresent) OR (NOT present AND whenAbsent)`, shortened when
    /// `whenAbsent` is a constant.
    static func whether(present: PredicateNode, then whenPresent: PredicateNode, else whenAbsent: PredicateNode) -> PredicateNode
    {
        switch whenAbsent {
        case .constant(true): return or([absent(present), whenPresent])
        case .constant(false): return and([present, whenPresent])
        default: return or([and([present, whenPresent]), and([absent(present), whenAbsent])])
        }
    }

    /// The negation of a presence test: `value == nil` for `value != nil`.
    static func absent(_ present: PredicateNode) -> PredicateNode {
        if case .comparison(let comparison) = present, comparison.op == .notEqualTo, comparison.options.isEmpty,
            comparison.right == .constant(.null)
        {
            return isNil(comparison.left)
        }
        return not(present)
    }

    static func isNil(_ value: ExpressionNode) -> PredicateNode {
        .comparison(ComparisonNode(left: value, op: .equalTo, right: .constant(.null)))
    }

    static func isNotNil(_ value: ExpressionNode) -> PredicateNode {
        .comparison(ComparisonNode(left: value, op: .notEqualTo, right: .constant(.null)))
    }

    private static func isNonNullConstant(_ translated: Term) -> Bool {
        guard case .expression(.constant(let value)) = translated else { return false }
        return value != .null
    }

    /// A test compared with a Boolean constant: `test == true` is the test itself. A test
    /// through optional chaining is also compared with nil: `$0.author?.books.isEmpty == false`
    /// is `author != nil AND NOT author.books.@count == 0`.
    private static func booleanTest(_ test: Term, _ op: ComparisonNode.Operator, _ other: Term) -> PredicateNode? {
        guard op == .equalTo || op == .notEqualTo, case .expression(.constant(let constant)) = other else { return nil }
        let equal = op == .equalTo
        switch (test, constant) {
        case (.predicate(let node), .bool(let flag)):
            return flag == equal ? node : not(node)
        case (.optionalTest(let node, let present), .bool(let flag)):
            let matching = flag ? node : not(node)
            return equal ? and([present, matching]) : or([absent(present), not(matching)])
        case (.optionalTest(_, let present), .null):
            return equal ? absent(present) : present
        default:
            return nil
        }
    }

    private static func orderingComparison(
        _ left: Term, _ op: ComparisonNode.Operator, _ right: Term
    ) throws -> PredicateNode? {
        let parts: (ExpressionNode, ExpressionNode, ComparisonNode.Options, ComparisonResult)
        switch (left, right) {
        case (.ordering(let a, let b, let options), .comparisonResult(let result)),
            (.comparisonResult(let result), .ordering(let a, let b, let options)):
            parts = (a, b, options, result)
        case (.comparisonResult(let a), .comparisonResult(let b)) where op == .equalTo || op == .notEqualTo:
            return .constant((a == b) == (op == .equalTo))
        default:
            return nil
        }
        let (a, b, options, result) = parts
        let mapped: ComparisonNode.Operator
        switch (op, result) {
        case (.equalTo, .orderedSame): mapped = .equalTo
        case (.equalTo, .orderedAscending): mapped = .lessThan
        case (.equalTo, .orderedDescending): mapped = .greaterThan
        case (.notEqualTo, .orderedSame): mapped = .notEqualTo
        case (.notEqualTo, .orderedAscending): mapped = .greaterThanOrEqualTo
        case (.notEqualTo, .orderedDescending): mapped = .lessThanOrEqualTo
        default:
            throw CoreDataError.make(NSCoreDataError, "A string comparison result can only be tested with == and !=.")
        }
        return .comparison(ComparisonNode(left: a, op: mapped, right: b, options: options))
    }

    // MARK: Compound predicates

    /// `AND` of the parts, nested `AND`s merged and constants folded.
    static func and(_ parts: [PredicateNode]) -> PredicateNode {
        var flat: [PredicateNode] = []
        for part in parts {
            switch part {
            case .constant(true): continue
            case .constant(false): return .constant(false)
            case .and(let inner): flat.append(contentsOf: inner)
            default: flat.append(part)
            }
        }
        if flat.isEmpty { return .constant(true) }
        return flat.count == 1 ? flat[0] : .and(flat)
    }

    /// `OR` of the parts, nested `OR`s merged and constants folded.
    static func or(_ parts: [PredicateNode]) -> PredicateNode {
        var flat: [PredicateNode] = []
        for part in parts {
            switch part {
            case .constant(false): continue
            case .constant(true): return .constant(true)
            case .or(let inner): flat.append(contentsOf: inner)
            default: flat.append(part)
            }
        }
        if flat.isEmpty { return .constant(false) }
        return flat.count == 1 ? flat[0] : .or(flat)
    }

    /// `NOT` of the part, constants folded and double negations removed.
    static func not(_ part: PredicateNode) -> PredicateNode {
        switch part {
        case .constant(let flag): .constant(!flag)
        case .not(let inner): inner
        default: .not(part)
        }
    }

    // MARK: Errors

    /// The error for an expression type the predicate language has no equivalent for.
    static func unsupported(_ expression: Any, _ detail: String = "") -> NSError {
        let full = String(describing: type(of: expression))
        let name = full.split(separator: "<", maxSplits: 1).first.map(String.init) ?? full
        let reason = detail.isEmpty ? "" : " (\(detail))"
        return CoreDataError.make(
            NSCoreDataError,
            "The typed predicate expression \(name) cannot be used in a fetch request\(reason): \(full)")
    }
}

/// What a part of a typed predicate stands for.
indirect enum FoundationPredicateTerm {
    /// A test (a comparison, `AND`, …).
    case predicate(PredicateNode)
    /// A value (a key path, a constant, a function, …).
    case expression(ExpressionNode)
    /// `value ?? fallback`: there is no expression for it, so comparisons of it are
    /// expanded into one comparison of the value and one of the fallback.
    case coalesced(ExpressionNode, fallback: FoundationPredicateTerm)
    /// The `ComparisonResult` of comparing two strings with options
    /// (`caseInsensitiveCompare`), waiting to be compared with an ordering constant.
    case ordering(ExpressionNode, ExpressionNode, ComparisonNode.Options)
    /// A `ComparisonResult` constant.
    case comparisonResult(ComparisonResult)
    /// A range (`a...b`, `a..<b`), waiting to be asked whether it contains a value.
    case range(lower: ExpressionNode, upper: ExpressionNode, closed: Bool)
    /// A test through optional chaining (`$0.author?.books.isEmpty`, a `Bool?`): the test
    /// when `present` holds (`author != nil`; the object's class, through `as?`), nil otherwise.
    case optionalTest(PredicateNode, present: PredicateNode)

    /// What the term is, for error messages.
    var kind: String {
        switch self {
        case .predicate: "a test"
        case .expression: "a value"
        case .coalesced: "a ?? expression"
        case .ordering: "the result of a string comparison"
        case .comparisonResult: "a ComparisonResult"
        case .range: "a range"
        case .optionalTest: "an optional test"
        }
    }
}

/// The variables in scope: the predicate's input is `SELF`, the variable of an optional
/// chain (`$0.author?.name`) stands for the chained value, the variable of a
/// `contains(where:)`/`allSatisfy`/`filter` closure is the `SUBQUERY` variable.
struct FoundationPredicateContext {
    /// What each variable in scope stands for, and the `SUBQUERY` depth it was bound at.
    private var bindings: [PredicateExpressions.VariableID: (node: ExpressionNode, depth: Int)]
    private var subqueryDepth = 0
    private var subqueryVariables = 0
    /// The entities of a class's instances, when the fetch's model is known.
    private let entityResolver: ((Any.Type) -> [NSEntityDescription]?)?

    init(input: PredicateExpressions.VariableID, entities: ((Any.Type) -> [NSEntityDescription]?)? = nil) {
        bindings = [input: (.evaluatedObject, 0)]
        entityResolver = entities
    }

    /// The entities whose objects are instances of the class: its entity and its subentities.
    func entities(of type: Any.Type) -> [NSEntityDescription]? { entityResolver?(type) }

    /// What the variable stands for. Inside a `SUBQUERY` predicate, key paths are read from
    /// the collection's element, so a value of an enclosing object (the closure of
    /// `$0.tags.contains { $0.rank > note.rank }` reading `note`) cannot be written there.
    func value(of variable: PredicateExpressions.VariableID) throws -> ExpressionNode {
        guard let (node, depth) = bindings[variable] else {
            throw CoreDataError.make(NSCoreDataError, "A typed predicate uses a variable that is not in scope.")
        }
        if depth < subqueryDepth, Self.readsEvaluatedObject(node) {
            throw CoreDataError.make(
                NSCoreDataError,
                "A typed predicate reads its input inside the closure of contains(where:), allSatisfy or filter, "
                    + "which a SUBQUERY cannot express; only the closure's own element can be read there.")
        }
        return node
    }

    /// Whether the expression reads the evaluated object (`SELF`, key paths).
    private static func readsEvaluatedObject(_ node: ExpressionNode) -> Bool {
        switch node {
        case .constant, .variable, .anyKey: false
        case .member(let base, _): readsEvaluatedObject(base)
        case .function(_, let arguments), .aggregate(let arguments): arguments.contains(where: readsEvaluatedObject)
        default: true
        }
    }

    /// Runs `body` with the variable standing for `node`.
    mutating func binding<T>(
        _ variable: PredicateExpressions.VariableID, to node: ExpressionNode,
        _ body: (inout FoundationPredicateContext) throws -> T
    ) rethrows -> T {
        let previous = bindings[variable]
        bindings[variable] = (node, subqueryDepth)
        defer { bindings[variable] = previous }
        return try body(&self)
    }

    /// Runs `body` inside a `SUBQUERY` predicate.
    mutating func insideSubquery<T>(_ body: (inout FoundationPredicateContext) throws -> T) rethrows -> T {
        subqueryDepth += 1
        defer { subqueryDepth -= 1 }
        return try body(&self)
    }

    /// A new `SUBQUERY` variable name: `x`, then `x2`, `x3`, …
    mutating func newSubqueryVariable() -> String {
        subqueryVariables += 1
        return subqueryVariables == 1 ? "x" : "x\(subqueryVariables)"
    }

    mutating func translate(_ expression: Any) throws -> FoundationPredicateTerm {
        guard let translatable = expression as? any _StrataTranslatableExpression else {
            throw FoundationPredicateTranslation.unsupported(expression)
        }
        return try translatable.translate(&self)
    }

    mutating func predicate(_ expression: Any) throws -> PredicateNode {
        try FoundationPredicateTranslation.predicate(translate(expression))
    }

    mutating func expression(_ expression: Any) throws -> ExpressionNode {
        try FoundationPredicateTranslation.expression(translate(expression))
    }
}

/// A `PredicateExpressions` type that Strata can translate.
protocol _StrataTranslatableExpression {
    func translate(
        _ context: inout FoundationPredicateContext
    ) throws
        -> FoundationPredicateTerm
}
