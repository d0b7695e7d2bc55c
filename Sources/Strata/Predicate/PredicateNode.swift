import Foundation

/// A predicate as Strata holds it: the tree a format string parses to, that the SQL compiler,
/// the in-memory evaluator and the format printer all read. `NSPredicate`,
/// `NSComparisonPredicate`, `NSCompoundPredicate` and `NSExpression` are views of it.
package indirect enum PredicateNode: Hashable, Sendable {
    /// `TRUEPREDICATE` / `FALSEPREDICATE`.
    case constant(Bool)
    case comparison(ComparisonNode)
    /// `AND`, `&&`; two or more subpredicates (an empty `and` is true).
    case and([PredicateNode])
    /// `OR`, `||`; two or more subpredicates (an empty `or` is false).
    case or([PredicateNode])
    /// `NOT`, `!`.
    case not(PredicateNode)
}

/// A comparison: `left OPERATOR[options] right`, possibly under `ANY`/`ALL` (and `NONE`,
/// which parses to `NOT ANY`).
package struct ComparisonNode: Hashable, Sendable {
    /// The operators, with the raw values of `NSComparisonPredicate.Operator`.
    package enum Operator: UInt, Hashable, Sendable, CaseIterable {
        case lessThan = 0
        case lessThanOrEqualTo = 1
        case greaterThan = 2
        case greaterThanOrEqualTo = 3
        case equalTo = 4
        case notEqualTo = 5
        case matches = 6
        case like = 7
        case beginsWith = 8
        case endsWith = 9
        case `in` = 10
        case contains = 99
        case between = 100
    }

    /// `ANY`/`SOME` and `ALL`, with the raw values of `NSComparisonPredicate.Modifier`.
    package enum Modifier: UInt, Hashable, Sendable {
        case direct = 0
        case all = 1
        case any = 2
    }

    /// `[c]`, `[d]`, `[n]`, `[l]`, with the raw values of `NSComparisonPredicate.Options`.
    package struct Options: OptionSet, Hashable, Sendable {
        package let rawValue: UInt
        package init(rawValue: UInt) { self.rawValue = rawValue }
        package static let caseInsensitive = Options(rawValue: 1)
        package static let diacriticInsensitive = Options(rawValue: 2)
        package static let normalized = Options(rawValue: 4)
        package static let localeSensitive = Options(rawValue: 8)
    }

    package var left: ExpressionNode
    package var op: Operator
    package var right: ExpressionNode
    package var modifier: Modifier = .direct
    package var options: Options = []
}

/// An expression: the operand of a comparison (`NSExpression`).
package indirect enum ExpressionNode: Hashable, Sendable {
    /// A literal or an argument: `"text"`, `42`, `nil`, `%@`.
    case constant(PredicateValue)
    /// `SELF`: the object being evaluated.
    case evaluatedObject
    /// `$NAME`: a variable, replaced by `withSubstitutionVariables` or bound by `SUBQUERY`.
    case variable(String)
    /// A key path read from the evaluated object: `title`, `author.name`, `tags.@count`,
    /// `@sum.items.price`. Collection operators stay in the path.
    case keyPath(String)
    /// A key path read from another expression's value: `$t.name`, `SELF.title` is
    /// `.keyPath("title")`, but `FUNCTION(x, 'y').z` and `$t.name` need this.
    case member(ExpressionNode, String)
    /// A function: `name` is the selector with its colons (`uppercase:`, `add:to:`, `now`,
    /// `castObject:toType:` for `CAST`, `random`), with its arguments in order.
    case function(String, [ExpressionNode])
    /// `{a, b, c}`: an aggregate of expressions.
    case aggregate([ExpressionNode])
    /// `array[index]`, `array[FIRST]`, `array[LAST]`, `array[SIZE]`, `dict['key']`.
    case index(ExpressionNode, IndexKind)
    /// `SUBQUERY(collection, $variable, predicate)`: the elements of the collection that
    /// match the predicate, with `$variable` bound to each.
    case subquery(collection: ExpressionNode, variable: String, predicate: PredicateNode)
    /// `TERNARY(predicate, whenTrue, whenFalse)`.
    case conditional(PredicateNode, ExpressionNode, ExpressionNode)
    /// `$name := expression` (assignment expressions, as in `SUBQUERY`s of some apps).
    case assignment(String, ExpressionNode)
    /// `a UNION b`, `a INTERSECT b`, `a MINUS b`.
    case setOperation(SetOperation, ExpressionNode, ExpressionNode)
    /// `ANYKEY`.
    case anyKey

    package enum IndexKind: Hashable, Sendable {
        case first
        case last
        case size
        case expression(ExpressionNode)
    }

    package enum SetOperation: String, Hashable, Sendable {
        case union = "UNION"
        case intersect = "INTERSECT"
        case minus = "MINUS"
    }
}

/// A constant value of a predicate: literals of the format string and the values of its
/// arguments.
package indirect enum PredicateValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case decimal(Decimal)
    case string(String)
    case date(Date)
    case data(Data)
    case uuid(UUID)
    case url(URL)
    /// An ordered collection (an array argument, `IN %@`).
    case array([PredicateValue])
    /// An unordered collection (a set argument).
    case set([PredicateValue])
    /// A dictionary argument, by key.
    case dictionary([String: PredicateValue])
    /// An object compared by identity: a managed object, an object ID, or another object
    /// argument (`%@` with a class instance).
    case object(PredicateObject)
}

/// An object inside a predicate, compared by `isEqual` and hashed by `hash` when it is an
/// `NSObject`, by identity otherwise. Objects are only read on the thread of the predicate's
/// evaluation, as Core Data requires of managed objects.
package final class PredicateObject: Hashable, @unchecked Sendable {
    package let object: AnyObject

    init(_ object: AnyObject) { self.object = object }

    package static func == (lhs: PredicateObject, rhs: PredicateObject) -> Bool {
        if let left = lhs.object as? NSObject, let right = rhs.object as? NSObject { return left.isEqual(right) }
        return lhs.object === rhs.object
    }

    package func hash(into hasher: inout Hasher) {
        if let object = object as? NSObject {
            hasher.combine(object.hash)
        } else {
            hasher.combine(ObjectIdentifier(object))
        }
    }
}

/// Objects whose values predicates read by key (managed objects, and rows of the stores
/// that evaluate predicates in memory). Dictionaries are read by the evaluator directly.
protocol PredicateKeyValueReading {
    /// The value of the key: a property's value, `nil` when it is nil or unknown. To-many
    /// relationships give a collection (`NSSet`, `NSOrderedSet`, `Set` or `Array`).
    func predicateValue(forKey key: String) -> Any?
}
