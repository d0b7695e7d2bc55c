import Foundation
internal import GRDB

/// Fetch SQL reused across queries that differ only in their values (issue 34): an app that
/// runs `category == %d AND price >= %f` with new numbers gets the SQL compiled for the first
/// one, and GRDB's statement cache then gives it the statement prepared for it too, as Core
/// Data caches its statements.
///
/// A plan's *shape* is the plan with the constants of its comparisons between a key path and
/// a number, a string or a date replaced by placeholders of their kind; those constants are the
/// query's parameters, in the order they appear. A shape's first query is compiled twice: with
/// its own values and with sentinel values, distinct for each parameter. The shape is kept
/// only when both compilations give the same SQL, every argument of the second is either a
/// parameter's sentinel or equal in both (a value the shape fixes), every parameter is used,
/// and the arguments made from the first query's values are the compiler's own. A shape whose
/// SQL depends on a value in any other way (`CAST` of a string, an entity compared with a
/// name, `now()`) fails one of these and is compiled every time, as before.
final class SQLiteQueryTemplates: @unchecked Sendable {
    struct Key: Hashable {
        var columns: String
        var entity: ObjectIdentifier
        var includesSubentities: Bool
        var sortKeys: [SortShape]
        var paged: Bool
        var predicate: Shape?

        /// The column list is hashed by its length: it is the same few long strings for every
        /// query of an entity, and hashing its text was a tenth of a template's lookup; equal
        /// keys still compare it whole.
        func hash(into hasher: inout Hasher) {
            hasher.combine(columns.utf8.count)
            hasher.combine(entity)
            hasher.combine(includesSubentities)
            hasher.combine(sortKeys)
            hasher.combine(paged)
            hasher.combine(predicate)
        }
    }

    /// A predicate standing for its shape: hashed and compared with each parameter taken for
    /// its kind only, which is what comparing the shapes `parameterized` makes gives, without
    /// making that copy of the tree at every query. Made by `shape(of:values:)` in the walk
    /// that finds the parameters; the table keeps the first query's tree.
    struct Shape: Hashable {
        let node: PredicateNode
        /// For each comparison, in the order of the walk: which side is a parameter (the high
        /// four bits: 1 the right, 2 the left, 0 neither) and of what kind (`kindCode`).
        let sides: [UInt8]
        /// The shape's hash, taken in that walk.
        let digest: Int

        func hash(into hasher: inout Hasher) { hasher.combine(digest) }

        static func == (a: Shape, b: Shape) -> Bool {
            guard a.digest == b.digest, a.sides == b.sides else { return false }
            var next = 0
            return same(a.node, b.node, sides: a.sides, next: &next)
        }

        /// Whether two trees whose comparisons have the same parameter sides (`sides`) are
        /// equal but for the parameters' values.
        private static func same(_ a: PredicateNode, _ b: PredicateNode, sides: [UInt8], next: inout Int) -> Bool {
            switch (a, b) {
            case (.constant(let x), .constant(let y)): return x == y
            case (.and(let x), .and(let y)), (.or(let x), .or(let y)):
                guard x.count == y.count else { return false }
                for (p, q) in zip(x, y) where !same(p, q, sides: sides, next: &next) { return false }
                return true
            case (.not(let x), .not(let y)): return same(x, y, sides: sides, next: &next)
            case (.comparison(let x), .comparison(let y)):
                let side = sides[next]
                next += 1
                guard x.op == y.op, x.modifier == y.modifier, x.options == y.options else { return false }
                switch side >> 4 {
                case 1: return x.left == y.left
                case 2: return x.right == y.right
                default: return x.left == y.left && x.right == y.right
                }
            default: return false
            }
        }
    }

    /// The predicate's shape, with its parameters appended to `values` in the order
    /// `parameterized` finds them; `nil` when a constant that is no parameter is neither `nil`
    /// nor a Boolean (`holdsOnlyPlaceholders` of the shape). One walk, making no tree.
    static func shape(of node: PredicateNode, values: inout [PredicateValue]) -> Shape? {
        var hasher = Hasher()
        var sides: [UInt8] = []
        guard walk(node, values: &values, sides: &sides, hasher: &hasher) else { return nil }
        hasher.combine(sides)
        return Shape(node: node, sides: sides, digest: hasher.finalize())
    }

    private static func walk(
        _ node: PredicateNode, values: inout [PredicateValue], sides: inout [UInt8], hasher: inout Hasher
    ) -> Bool {
        switch node {
        case .constant(let flag):
            hasher.combine(flag ? 1 as UInt8 : 0)
            return true
        case .and(let parts), .or(let parts):
            if case .and = node { hasher.combine(2 as UInt8) } else { hasher.combine(3 as UInt8) }
            hasher.combine(parts.count)
            var holds = true
            for part in parts where !walk(part, values: &values, sides: &sides, hasher: &hasher) { holds = false }
            return holds
        case .not(let inner):
            hasher.combine(4 as UInt8)
            return walk(inner, values: &values, sides: &sides, hasher: &hasher)
        case .comparison(let comparison):
            hasher.combine(5 as UInt8)
            hasher.combine(comparison.op)
            hasher.combine(comparison.modifier)
            hasher.combine(comparison.options)
            switch parameterSide(of: comparison) {
            case .right(let value):
                values.append(value)
                sides.append(1 << 4 | kindCode(value))
                hasher.combine(comparison.left)
                return holdsOnlyPlaceholders(comparison.left)
            case .left(let value):
                values.append(value)
                sides.append(2 << 4 | kindCode(value))
                hasher.combine(comparison.right)
                return holdsOnlyPlaceholders(comparison.right)
            case nil:
                sides.append(0)
                hasher.combine(comparison.left)
                hasher.combine(comparison.right)
                return holdsOnlyPlaceholders(comparison.left) && holdsOnlyPlaceholders(comparison.right)
            }
        }
    }

    /// A parameter's kind, as its placeholder stands for it.
    private static func kindCode(_ value: PredicateValue) -> UInt8 {
        switch value {
        case .integer: 1
        case .double: 2
        case .string: 3
        case .date: 4
        default: 0
        }
    }

    /// The side of a comparison that is a parameter, with its value: the right one when both
    /// could be (as `rewritingParameters` looks at the right first).
    private enum ParameterSide {
        case left(PredicateValue)
        case right(PredicateValue)
    }

    private static func parameterSide(of comparison: ComparisonNode) -> ParameterSide? {
        if isParameterSide(comparison.right, beside: comparison.left), case .constant(let value) = comparison.right {
            return .right(value)
        }
        if isParameterSide(comparison.left, beside: comparison.right), case .constant(let value) = comparison.left {
            return .left(value)
        }
        return nil
    }

    struct SortShape: Hashable {
        var key: String
        var ascending: Bool
        var comparison: String
    }

    /// Where an argument of a kept shape comes from.
    enum Argument: Equatable {
        case parameter(Int)
        case fixed(DatabaseValue)
    }

    enum Entry {
        case template(entity: NSEntityDescription, sql: String, arguments: [Argument])
        /// A shape whose SQL depends on more than its parameters' kinds.
        case compiledEachTime
    }

    /// Shapes past this many are dropped all at once: an app's queries have a few dozen.
    static let capacity = 256

    private let entries = Protected([Key: Entry]())

    /// How many shapes are kept as templates (for tests).
    var templateCount: Int {
        entries.withLock { $0.values.count { if case .template = $0 { true } else { false } } }
    }

    /// The SQL and arguments of the plan, from its shape's template when there is one; else
    /// `compile(plan)`, which also decides whether the shape gets one.
    func sql(
        columns: String, plan: FetchPlan, compile: (FetchPlan) throws -> (String, [DatabaseValue])
    ) throws -> (String, [DatabaseValue]) {
        var values: [PredicateValue] = []
        var shapeKey: Shape?
        if let predicate = plan.predicate {
            // A constant that is no parameter and no `nil` or Boolean (an object, a collection,
            // a value inside a function, an entity's name) would make every query a shape of its
            // own, kept with its value and compiled twice: such plans compile once, as before.
            guard let shape = Self.shape(of: predicate, values: &values) else { return try compile(plan) }
            shapeKey = shape
        }
        let key = Key(
            columns: columns, entity: ObjectIdentifier(plan.entity), includesSubentities: plan.includesSubentities,
            sortKeys: plan.sortKeys.map { SortShape(key: $0.key, ascending: $0.ascending, comparison: $0.comparison.rawValue) },
            paged: plan.limit > 0 || plan.offset > 0, predicate: shapeKey)
        switch entries.withLock({ $0[key] }) {
        case .template(let entity, let sql, let recipe) where entity === plan.entity:
            return (sql, Self.arguments(recipe, values: values))
        case .compiledEachTime:
            return try compile(plan)
        default:
            break
        }
        let compiled = try compile(plan)
        var ordered: [PredicateValue] = []
        let shape = plan.predicate.map { Self.parameterized($0, values: &ordered) }
        assert(ordered == values, "the shape's parameters are those its key collected, in order")
        let entry = Self.entry(for: plan, shape: shape, values: values, compiled: compiled, compile: compile)
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll() }
            entries[key] = entry
        }
        return compiled
    }

    // MARK: Shapes

    /// The predicate with each parameter replaced by a placeholder of its kind; the
    /// parameters' values are appended to `values` in order.
    static func parameterized(_ node: PredicateNode, values: inout [PredicateValue]) -> PredicateNode {
        rewritingParameters(of: node) { value in
            values.append(value)
            return placeholder(value)
        }
    }

    /// The predicate with each parameter, in order, replaced by what `replace` makes of it:
    /// the one walk that finds parameters, so that a shape and its sentinel plan agree.
    private static func rewritingParameters(
        of node: PredicateNode, _ replace: (PredicateValue) -> PredicateValue
    ) -> PredicateNode {
        switch node {
        case .constant: return node
        case .and(let parts): return .and(parts.map { rewritingParameters(of: $0, replace) })
        case .or(let parts): return .or(parts.map { rewritingParameters(of: $0, replace) })
        case .not(let inner): return .not(rewritingParameters(of: inner, replace))
        case .comparison(var comparison):
            if isParameterSide(comparison.right, beside: comparison.left), case .constant(let value) = comparison.right {
                comparison.right = .constant(replace(value))
            } else if isParameterSide(comparison.left, beside: comparison.right),
                case .constant(let value) = comparison.left
            {
                comparison.left = .constant(replace(value))
            }
            return .comparison(comparison)
        }
    }

    /// Whether `side` is a constant of a parameter's kind compared with a key path that is
    /// not an object's entity (which compares with entity names, changing the SQL).
    private static func isParameterSide(_ side: ExpressionNode, beside other: ExpressionNode) -> Bool {
        guard case .constant(let value) = side, isParameterKind(value), case .keyPath(let path) = other else {
            return false
        }
        return !endsInEntityOrNothing(path)
    }

    /// Whether the key path's last component (empty ones left out) is `entity`, or it has none.
    /// Read in place: splitting the path made an array at every comparison of every query (a
    /// fifth of a template's lookup).
    static func endsInEntityOrNothing(_ path: String) -> Bool {
        let utf8 = path.utf8
        let dot = UInt8(ascii: ".")
        var end = utf8.endIndex
        while end > utf8.startIndex, utf8[utf8.index(before: end)] == dot { end = utf8.index(before: end) }
        if end == utf8.startIndex { return true }
        var start = end
        while start > utf8.startIndex, utf8[utf8.index(before: start)] != dot { start = utf8.index(before: start) }
        return utf8[start..<end].elementsEqual("entity".utf8)
    }

    /// Whether every constant of a shape is a parameter's placeholder, `nil` or a Boolean.
    static func holdsOnlyPlaceholders(_ node: PredicateNode) -> Bool {
        switch node {
        case .constant: return true
        case .and(let parts), .or(let parts): return parts.allSatisfy(holdsOnlyPlaceholders)
        case .not(let inner): return holdsOnlyPlaceholders(inner)
        case .comparison(let comparison):
            let leftIsParameter = isParameterSide(comparison.left, beside: comparison.right)
            let rightIsParameter = !leftIsParameter && isParameterSide(comparison.right, beside: comparison.left)
            return (leftIsParameter || holdsOnlyPlaceholders(comparison.left))
                && (rightIsParameter || holdsOnlyPlaceholders(comparison.right))
        }
    }

    private static func holdsOnlyPlaceholders(_ expression: ExpressionNode) -> Bool {
        switch expression {
        case .constant(let value):
            switch value {
            case .null, .bool: return true
            default: return false
            }
        case .evaluatedObject, .variable, .keyPath, .anyKey: return true
        case .member(let base, _): return holdsOnlyPlaceholders(base)
        case .function(_, let arguments), .aggregate(let arguments): return arguments.allSatisfy(holdsOnlyPlaceholders)
        case .index(let base, .expression(let index)): return holdsOnlyPlaceholders(base) && holdsOnlyPlaceholders(index)
        case .index(let base, _): return holdsOnlyPlaceholders(base)
        case .subquery(let collection, _, let predicate):
            return holdsOnlyPlaceholders(collection) && holdsOnlyPlaceholders(predicate)
        case .conditional(let predicate, let a, let b):
            return holdsOnlyPlaceholders(predicate) && holdsOnlyPlaceholders(a) && holdsOnlyPlaceholders(b)
        case .assignment(_, let value): return holdsOnlyPlaceholders(value)
        case .setOperation(_, let a, let b): return holdsOnlyPlaceholders(a) && holdsOnlyPlaceholders(b)
        }
    }

    private static func isParameterKind(_ value: PredicateValue) -> Bool {
        switch value {
        case .integer, .double, .string, .date: true
        default: false
        }
    }

    private static func placeholder(_ value: PredicateValue) -> PredicateValue {
        switch value {
        case .integer: .integer(0)
        case .double: .double(0)
        case .string: .string("")
        case .date: .date(Date(timeIntervalSinceReferenceDate: 0))
        default: value
        }
    }

    /// The shape with its parameters, in the order `parameterized` finds them, replaced by
    /// `values` (of the same kinds, so that they are found in the same places).
    static func replacingParameters(of node: PredicateNode, with values: [PredicateValue]) -> PredicateNode {
        var next = 0
        return rewritingParameters(of: node) { placeholder in
            defer { next += 1 }
            return next < values.count ? values[next] : placeholder
        }
    }

    /// A value of the parameter's kind that no app passes, distinct for each position.
    static func sentinel(for value: PredicateValue, at position: Int) -> PredicateValue {
        switch value {
        case .integer: .integer(-7_213_912_345_678_901 - Int64(position))
        case .double: .double(-0.000_721_391_234_567_89 * Double(position + 1))
        case .string: .string("\u{1}strata-parameter-\(position)\u{1}")
        case .date: .date(Date(timeIntervalSinceReferenceDate: -1_234_567_890.25 - Double(position)))
        default: value
        }
    }

    /// A parameter's value as the compiler binds it (`SQLiteComparisonSQL.encode` for these
    /// kinds, which needs no column).
    static func encoded(_ value: PredicateValue) -> DatabaseValue {
        switch value {
        case .integer(let number): number.databaseValue
        case .double(let number): number.databaseValue
        case .string(let text): text.databaseValue
        case .date(let date): date.timeIntervalSinceReferenceDate.databaseValue
        default: .null
        }
    }

    private static func arguments(_ recipe: [Argument], values: [PredicateValue]) -> [DatabaseValue] {
        recipe.map { argument in
            switch argument {
            case .parameter(let index): encoded(values[index])
            case .fixed(let value): value
            }
        }
    }

    // MARK: Deciding

    private static func entry(
        for plan: FetchPlan, shape: PredicateNode?, values: [PredicateValue], compiled: (String, [DatabaseValue]),
        compile: (FetchPlan) throws -> (String, [DatabaseValue])
    ) -> Entry {
        var sentinelPlan = plan
        let sentinels = values.enumerated().map { sentinel(for: $0.element, at: $0.offset) }
        if let shape { sentinelPlan.predicate = replacingParameters(of: shape, with: sentinels) }
        guard let (sql, arguments) = try? compile(sentinelPlan), sql == compiled.0,
            arguments.count == compiled.1.count
        else { return .compiledEachTime }
        var positions: [ExactValue: Int] = [:]
        for (position, sentinel) in sentinels.enumerated() { positions[ExactValue(encoded(sentinel))] = position }
        var recipe: [Argument] = []
        var used = Set<Int>()
        for (made, own) in zip(arguments, compiled.1) {
            if let position = positions[ExactValue(made)] {
                recipe.append(.parameter(position))
                used.insert(position)
            } else if ExactValue(made) == ExactValue(own) {
                recipe.append(.fixed(own))
            } else {
                return .compiledEachTime
            }
        }
        guard used.count == values.count,
            self.arguments(recipe, values: values).map(ExactValue.init) == compiled.1.map(ExactValue.init)
        else { return .compiledEachTime }
        return .template(entity: plan.entity, sql: sql, arguments: recipe)
    }

    /// A bound value compared exactly: its storage class and its bits (GRDB's `==` compares
    /// integers with doubles by value).
    private enum ExactValue: Hashable {
        case null
        case integer(Int64)
        case double(UInt64)
        case text(String)
        case blob(Data)

        init(_ value: DatabaseValue) {
            switch value.storage {
            case .null: self = .null
            case .int64(let number): self = .integer(number)
            case .double(let number): self = .double(number.bitPattern)
            case .string(let text): self = .text(text)
            case .blob(let data): self = .blob(data)
            }
        }
    }
}
