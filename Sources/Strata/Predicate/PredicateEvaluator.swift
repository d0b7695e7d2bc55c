import Foundation

/// Evaluates predicates in memory with the semantics of Foundation's `NSPredicate`: on
/// managed objects (through `PredicateKeyValueReading`), dictionaries, arrays and plain
/// values. Where Apple raises an exception (a key path that cannot be read, `ANY` over a
/// value that is not a collection, comparing a string with a date) this answers false or
/// nil instead, so that no input can crash the evaluation.
enum PredicateEvaluator {
    static func evaluate(_ node: PredicateNode, with object: Any?, variables: [String: Any] = [:]) -> Bool {
        var evaluation = PredicateEvaluation(object: object, variables: variables)
        return evaluation.evaluate(node)
    }

    static func value(of expression: ExpressionNode, with object: Any?, variables: [String: Any] = [:]) -> Any? {
        var evaluation = PredicateEvaluation(object: object, variables: variables)
        return evaluation.value(of: expression)
    }
}

/// One evaluation. The variables are the caller's copy: `$x := e` assigns for the rest of
/// this evaluation, and `SUBQUERY` binds its variable while it tests each element.
private struct PredicateEvaluation {
    var object: Any?
    var variables: [String: Any]

    mutating func evaluate(_ node: PredicateNode) -> Bool {
        switch node {
        case .constant(let value):
            return value
        case .comparison(let comparison):
            return evaluate(comparison)
        case .and(let nodes):
            for node in nodes where !evaluate(node) { return false }
            return true
        case .or(let nodes):
            for node in nodes where evaluate(node) { return true }
            return false
        case .not(let node):
            return !evaluate(node)
        }
    }

    /// `ANY` holds when some element of the left side matches, `ALL` when every one does (so
    /// for none); a nil left side has no elements and a single value is its only element.
    private mutating func evaluate(_ comparison: ComparisonNode) -> Bool {
        let left = value(of: comparison.left)
        let right = value(of: comparison.right)
        let (op, options) = (comparison.op, comparison.options)
        switch comparison.modifier {
        case .direct: return PredicateValues.compare(left, op, right, options)
        case .any: return Self.elements(of: left).contains { PredicateValues.compare($0, op, right, options) }
        case .all: return Self.elements(of: left).allSatisfy { PredicateValues.compare($0, op, right, options) }
        }
    }

    /// The elements `ANY`, `ALL` and `SUBQUERY` range over: a collection's elements, a
    /// dictionary's values, nothing for nil, the value itself otherwise.
    private static func elements(of value: Any?) -> [Any] {
        guard let value = PredicateValues.normalize(value) else { return [] }
        if let elements = PredicateValues.elements(value) { return elements.compactMap { $0 } }
        if let dictionary = PredicateValues.dictionary(value) {
            return dictionary.values.compactMap { PredicateValues.normalize($0) }
        }
        return [value]
    }

    mutating func value(of expression: ExpressionNode) -> Any? {
        switch expression {
        case .constant(let value):
            return value.runtimeValue
        case .evaluatedObject:
            return PredicateValues.normalize(object)
        case .variable(let name):
            return PredicateValues.normalize(variables[name])
        case .keyPath(let path):
            return PredicateKeyPaths.value(atPath: path, of: object)
        case .member(let base, let path):
            return PredicateKeyPaths.value(atPath: path, of: value(of: base))
        case .function(let name, let arguments):
            return PredicateFunctions.call(name, values(of: arguments))
        case .aggregate(let expressions):
            return values(of: expressions)
        case .index(let base, let kind):
            let container = value(of: base)
            switch kind {
            case .first: return PredicateIndexing.first(of: container)
            case .last: return PredicateIndexing.last(of: container)
            case .size: return PredicateIndexing.size(of: container)
            case .expression(let index): return PredicateIndexing.element(of: container, at: value(of: index))
            }
        case .subquery(let collection, let variable, let predicate):
            return subquery(value(of: collection), variable, predicate)
        case .conditional(let predicate, let whenTrue, let whenFalse):
            return evaluate(predicate) ? value(of: whenTrue) : value(of: whenFalse)
        case .assignment(let name, let expression):
            let result = value(of: expression)
            variables[name] = result
            return result
        case .setOperation(let operation, let left, let right):
            let (a, b) = (value(of: left), value(of: right))
            return Self.combine(operation, a, b)
        case .anyKey:
            return nil
        }
    }

    private mutating func values(of expressions: [ExpressionNode]) -> [Any?] {
        var result: [Any?] = []
        for expression in expressions { result.append(value(of: expression)) }
        return result
    }

    /// The elements for which the predicate holds, each tested as the evaluated object with
    /// the variable bound to it; the variable's outer value is restored afterwards.
    private mutating func subquery(_ collection: Any?, _ variable: String, _ predicate: PredicateNode) -> [Any] {
        let (outerObject, outerValue) = (object, variables[variable])
        defer {
            object = outerObject
            variables[variable] = outerValue
        }
        var matches: [Any] = []
        for element in Self.elements(of: collection) {
            object = element
            variables[variable] = element
            if evaluate(predicate) { matches.append(element) }
        }
        return matches
    }

    /// `UNION`, `INTERSECT`, `MINUS` of two collections: a set (of distinct elements), nil when
    /// a side is not a collection.
    private static func combine(_ operation: ExpressionNode.SetOperation, _ left: Any?, _ right: Any?) -> Any? {
        guard let a = PredicateValues.elements(left)?.compactMap({ $0 }),
            let b = PredicateValues.elements(right)?.compactMap({ $0 })
        else { return nil }
        let inRight = { (value: Any) in b.contains { PredicateValues.equal(value, $0) } }
        let result: [Any]
        switch operation {
        case .union: result = PredicateAggregates.distinct(a + b)
        case .intersect: result = PredicateAggregates.distinct(a.filter(inRight))
        case .minus: result = PredicateAggregates.distinct(a.filter { !inRight($0) })
        }
        let hashable = result.compactMap(PredicateValues.hashable)
        return hashable.count == result.count ? Set(hashable) : result
    }
}

/// `array[index]`, `array[FIRST]`, `array[LAST]`, `array[SIZE]`, `dictionary['key']` (and
/// the `objectFrom:withIndex:` function they stand for).
enum PredicateIndexing {
    static func first(of container: Any?) -> Any? { PredicateValues.elements(container)?.first ?? nil }

    static func last(of container: Any?) -> Any? { PredicateValues.elements(container)?.last ?? nil }

    static func size(of container: Any?) -> Any? {
        if let elements = PredicateValues.elements(container) { return Int64(elements.count) }
        return PredicateValues.dictionary(container).map { Int64($0.count) }
    }

    /// A position in an ordered collection (nil when out of range or not a whole number), a
    /// key of a dictionary or of an object; on a collection the keys `FIRST`, `LAST` and
    /// `SIZE` are the symbolic indexes `objectFrom:withIndex:` receives.
    static func element(of container: Any?, at index: Any?) -> Any? {
        let elements = PredicateValues.elements(container)
        if let key = PredicateValues.string(index) {
            if let dictionary = PredicateValues.dictionary(container) {
                return PredicateValues.normalize(dictionary[key])
            }
            guard elements != nil else { return PredicateKeyPaths.value(forKey: key, of: container) }
            switch key {
            case "FIRST": return first(of: container)
            case "LAST": return last(of: container)
            case "SIZE": return size(of: container)
            default: return nil
            }
        }
        guard let elements, let number = PredicateValues.number(index),
            let position = PredicateArithmetic.integer(index),
            PredicateNumber.compare(number, .integer(position)) == .orderedSame,
            position >= 0, position < Int64(elements.count)
        else { return nil }
        return elements[Int(position)]
    }
}

extension PredicateValue {
    /// The constant as the evaluator compares it: `.null` is nil, integers `Int64`, arrays
    /// `[Any?]`, sets `Set<AnyHashable>` (an array when an element is not hashable),
    /// dictionaries `[String: Any]` with `NSNull` for nil, objects themselves.
    var runtimeValue: Any? {
        switch self {
        case .null: return nil
        case .bool(let value): return value
        case .integer(let value): return value
        case .double(let value): return value
        case .decimal(let value): return value
        case .string(let value): return value
        case .date(let value): return value
        case .data(let value): return value
        case .uuid(let value): return value
        case .url(let value): return value
        case .array(let values): return values.map(\.runtimeValue)
        case .set(let values):
            let elements = values.map(\.runtimeValue)
            let hashable = elements.compactMap(PredicateValues.hashable)
            return hashable.count == elements.count ? Set(hashable) : elements
        case .dictionary(let values): return values.mapValues { $0.runtimeValue ?? NSNull() }
        case .object(let object): return object.object
        }
    }
}

/// `withSubstitutionVariables`: `$NAME` replaced by the constant of its value, converted as a
/// `%@` argument is. Variables bound by an enclosing `SUBQUERY` stay variables, and so do
/// variables the dictionary does not name.
enum PredicateSubstitution {
    static func substituting(_ variables: [String: Any], in node: PredicateNode) -> PredicateNode {
        substitute(node, variables, bound: [])
    }

    private static func substitute(
        _ node: PredicateNode, _ variables: [String: Any], bound: Set<String>
    )
        -> PredicateNode
    {
        switch node {
        case .constant: return node
        case .comparison(var comparison):
            comparison.left = substitute(comparison.left, variables, bound: bound)
            comparison.right = substitute(comparison.right, variables, bound: bound)
            return .comparison(comparison)
        case .and(let nodes): return .and(nodes.map { substitute($0, variables, bound: bound) })
        case .or(let nodes): return .or(nodes.map { substitute($0, variables, bound: bound) })
        case .not(let node): return .not(substitute(node, variables, bound: bound))
        }
    }

    private static func substitute(
        _ expression: ExpressionNode, _ variables: [String: Any], bound: Set<String>
    )
        -> ExpressionNode
    {
        let recurse = { (expression: ExpressionNode) in substitute(expression, variables, bound: bound) }
        switch expression {
        case .constant, .evaluatedObject, .keyPath, .anyKey:
            return expression
        case .variable(let name):
            guard !bound.contains(name), let value = variables[name] else { return expression }
            return .constant(PredicateArguments.value(value))
        case .member(let base, let path):
            return .member(recurse(base), path)
        case .function(let name, let arguments):
            return .function(name, arguments.map(recurse))
        case .aggregate(let expressions):
            return .aggregate(expressions.map(recurse))
        case .index(let base, .expression(let index)):
            return .index(recurse(base), .expression(recurse(index)))
        case .index(let base, let kind):
            return .index(recurse(base), kind)
        case .subquery(let collection, let variable, let predicate):
            let inner = substitute(predicate, variables, bound: bound.union([variable]))
            return .subquery(collection: recurse(collection), variable: variable, predicate: inner)
        case .conditional(let predicate, let whenTrue, let whenFalse):
            return .conditional(substitute(predicate, variables, bound: bound), recurse(whenTrue), recurse(whenFalse))
        case .assignment(let name, let value):
            return .assignment(name, recurse(value))
        case .setOperation(let operation, let left, let right):
            return .setOperation(operation, recurse(left), recurse(right))
        }
    }
}
