import Foundation

// How each `PredicateExpressions` type of a typed predicate translates into Strata's tree
// (see `FoundationPredicateTranslation`). The types are conformed without conditions and
// their children are cast when translated, so that an unsupported expression anywhere in a
// predicate is reported by its own type.

private typealias Translation = FoundationPredicateTranslation

// MARK: Values, variables, key paths

extension PredicateExpressions.Value: _StrataTranslatableExpression {
    func translate(_ context: inout FoundationPredicateContext) throws -> FoundationPredicateTerm {
        if let result = value as? ComparisonResult { return .comparisonResult(result) }
        if let range = value as? any _StrataPredicateRangeConstant {
            let bounds = range._predicateBounds
            return .range(
                lower: .constant(try Translation.constant(bounds.lower)),
                upper: .constant(try Translation.constant(bounds.upper)), closed: bounds.closed)
        }
        return .expression(.constant(try Translation.constant(value)))
    }
}

extension PredicateExpressions.NilLiteral: _StrataTranslatableExpression {
    func translate(_ context: inout FoundationPredicateContext) throws -> FoundationPredicateTerm {
        .expression(.constant(.null))
    }
}

extension PredicateExpressions.Variable: _StrataTranslatableExpression {
    func translate(_ context: inout FoundationPredicateContext) throws -> FoundationPredicateTerm {
        .expression(try context.value(of: key))
    }
}

extension PredicateExpressions.KeyPath: _StrataTranslatableExpression {
    func translate(_ context: inout FoundationPredicateContext) throws -> FoundationPredicateTerm {
        let base = try context.expression(root)
        // A property of a captured value is read now (`author.name` of a captured author).
        if case .constant = base, let value = try? evaluate(PredicateBindings()) {
            return .expression(.constant(try Translation.constant(value)))
        }
        switch FoundationPredicateKeyPaths.member(keyPath, of: Root.Output.self) {
        case .count:
            return .expression(FoundationPredicateKeyPaths.appending("@count", to: base))
        case .isEmpty:
            let count = FoundationPredicateKeyPaths.appending("@count", to: base)
            return .predicate(.comparison(ComparisonNode(left: count, op: .equalTo, right: .constant(.integer(0)))))
        case .length:
            return .expression(.function("length:", [base]))
        case .isEmptyString:
            return .predicate(.comparison(ComparisonNode(left: base, op: .equalTo, right: .constant(.string("")))))
        case .same:
            return .expression(base)
        case nil:
            let name = try FoundationPredicateKeyPaths.name(of: keyPath, rootType: Root.Output.self)
            return .expression(FoundationPredicateKeyPaths.appending(name, to: base))
        }
    }
}

extension FoundationPredicateKeyPaths {
    /// The key path read from `base`: `SELF` + `title` is `title`, `author` + `name` is
    /// `author.name`, `$x` + `name` is `$x.name`.
    static func appending(_ path: String, to base: ExpressionNode) -> ExpressionNode {
        switch base {
        case .evaluatedObject: .keyPath(path)
        case .keyPath(let prefix): .keyPath("\(prefix).\(path)")
        case .member(let inner, let prefix): .member(inner, "\(prefix).\(path)")
        default: .member(base, path)
        }
    }
}

// MARK: Optionals

extension PredicateExpressions.OptionalFlatMap: _StrataTranslatableExpression {
    /// `$0.author?.name` is `author.name`: a key path through a nil relationship reads nil.
    ///
    /// `($0 as? Tutorial)?.level` reads `level` of the object itself: the other entities'
    /// objects have no value for it (nil), as the cast would give; a test through the cast
    /// also tests the object's class.
    func translate(_ context: inout FoundationPredicateContext) throws -> FoundationPredicateTerm {
        if let cast = wrapped as? any _StrataConditionalCast {
            let (value, isOfClass) = try cast.castParts(&context)
            let result = try context.binding(variable.key, to: value) { try $0.translate(transform) }
            if case .predicate(let test) = result { return .optionalTest(test, present: isOfClass) }
            return result
        }
        let base = try context.expression(wrapped)
        if case .constant = base, let value = try? evaluate(PredicateBindings()) {
            return .expression(.constant(try Translation.constant(value)))
        }
        let result = try context.binding(variable.key, to: base) { try $0.translate(transform) }
        // A test of the chained value is nil, not false, when the chain breaks.
        if case .predicate(let test) = result { return .optionalTest(test, present: Translation.isNotNil(base)) }
        return result
    }
}

extension PredicateExpressions.NilCoalesce: _StrataTranslatableExpression {
    /// `value ?? fallback`, expanded by the comparison it is in (see
    /// `FoundationPredicateTranslation.compare`).
    func translate(_ context: inout FoundationPredicateContext) throws -> FoundationPredicateTerm {
        let optional = try context.translate(lhs)
        let fallback = try context.translate(rhs)
        if case .optionalTest(let test, let present) = optional {
            return .predicate(Translation.whether(present: present, then: test, else: try Translation.predicate(fallback)))
        }
        let value = try Translation.expression(optional)
        switch value {
        case .constant(.null): return fallback
        case .constant: return .expression(value)
        default: return .coalesced(value, fallback: fallback)
        }
    }
}

// MARK: Classes

extension PredicateExpressions.TypeCheck: _StrataTranslatableExpression {
    /// `$0 is Tutorial`: the object's entity is the class's entity or one of its subentities.
    func translate(_ context: inout FoundationPredicateContext) throws -> FoundationPredicateTerm {
        let value = try context.expression(input)
        if case .constant = value, let result = try? evaluate(PredicateBindings()) { return .predicate(.constant(result)) }
        return .predicate(try context.isOfClass(value, Desired.self, self))
    }
}

/// `value as? Class`, which a typed predicate reads through (`($0 as? Tutorial)?.level`).
protocol _StrataConditionalCast {
    /// The value cast, and the test that it is of the class.
    func castParts(_ context: inout FoundationPredicateContext) throws -> (ExpressionNode, PredicateNode)
}

extension PredicateExpressions.ConditionalCast: _StrataConditionalCast {
    func castParts(_ context: inout FoundationPredicateContext) throws -> (ExpressionNode, PredicateNode) {
        let value = try context.expression(input)
        return (value, try context.isOfClass(value, Desired.self, self))
    }
}

extension FoundationPredicateContext {
    /// `value is type`: the entity of the object is the class's entity or one of its subentities.
    func isOfClass(_ value: ExpressionNode, _ type: Any.Type, _ expression: Any) throws -> PredicateNode {
        guard let entities = entities(of: type) else {
            throw FoundationPredicateTranslation.unsupported(
                expression, "\(type) is not the class of an entity of the fetch's model")
        }
        let entity = FoundationPredicateKeyPaths.appending("entity", to: value)
        let constants = entities.map { PredicateValue.object(PredicateObject($0)) }
        return .comparison(ComparisonNode(left: entity, op: .in, right: .constant(.array(constants))))
    }
}

extension PredicateExpressions.ForcedUnwrap: _StrataTranslatableExpression {
    func translate(_ context: inout FoundationPredicateContext) throws -> FoundationPredicateTerm { try context.translate(inner) }
}

// MARK: Comparisons and logic

extension PredicateExpressions.Equal: _StrataTranslatableExpression {
    func translate(_ context: inout FoundationPredicateContext) throws -> FoundationPredicateTerm {
        let left = try context.translate(lhs)
        let right = try context.translate(rhs)
        return .predicate(try Translation.compare(left, .equalTo, right))
    }
}

extension PredicateExpressions.NotEqual: _StrataTranslatableExpression {
    func translate(_ context: inout FoundationPredicateContext) throws -> FoundationPredicateTerm {
        let left = try context.translate(lhs)
        let right = try context.translate(rhs)
        return .predicate(try Translation.compare(left, .notEqualTo, right))
    }
}

extension PredicateExpressions.Comparison: _StrataTranslatableExpression {
    func translate(_ context: inout FoundationPredicateContext) throws -> FoundationPredicateTerm {
        let left = try context.translate(lhs)
        let right = try context.translate(rhs)
        let mapped: ComparisonNode.Operator =
            switch op {
            case .lessThan: .lessThan
            case .lessThanOrEqual: .lessThanOrEqualTo
            case .greaterThan: .greaterThan
            case .greaterThanOrEqual: .greaterThanOrEqualTo
            }
        return .predicate(try Translation.compare(left, mapped, right))
    }
}

extension PredicateExpressions.Conjunction: _StrataTranslatableExpression {
    func translate(_ context: inout FoundationPredicateContext) throws -> FoundationPredicateTerm {
        let left = try context.predicate(lhs)
        let right = try context.predicate(rhs)
        return .predicate(Translation.and([left, right]))
    }
}

extension PredicateExpressions.Disjunction: _StrataTranslatableExpression {
    func translate(_ context: inout FoundationPredicateContext) throws -> FoundationPredicateTerm {
        let left = try context.predicate(lhs)
        let right = try context.predicate(rhs)
        return .predicate(Translation.or([left, right]))
    }
}

extension PredicateExpressions.Negation: _StrataTranslatableExpression {
    func translate(_ context: inout FoundationPredicateContext) throws -> FoundationPredicateTerm {
        .predicate(Translation.not(try context.predicate(wrapped)))
    }
}

extension PredicateExpressions.Conditional: _StrataTranslatableExpression {
    /// `TERNARY(test, a, b)`; a test of tests is `(test AND a) OR (NOT test AND b)`.
    func translate(_ context: inout FoundationPredicateContext) throws -> FoundationPredicateTerm {
        let condition = try context.predicate(test)
        let whenTrue = try context.translate(trueBranch)
        let whenFalse = try context.translate(falseBranch)
        if If.Output.self == Bool.self {
            let onTrue = Translation.and([condition, try Translation.predicate(whenTrue)])
            let onFalse = Translation.and([Translation.not(condition), try Translation.predicate(whenFalse)])
            return .predicate(Translation.or([onTrue, onFalse]))
        }
        return .expression(
            .conditional(condition, try Translation.expression(whenTrue), try Translation.expression(whenFalse)))
    }
}

// MARK: Collections

extension PredicateExpressions.SequenceContains: _StrataTranslatableExpression {
    /// `[1, 2].contains($0.n)` is `n IN {1, 2}`; `$0.tags.contains(tag)` is
    /// `tags CONTAINS tag`.
    func translate(_ context: inout FoundationPredicateContext) throws -> FoundationPredicateTerm {
        let collection = try context.translate(sequence)
        let member = try context.translate(element)
        if case .expression(.constant(let value)) = collection {
            switch value {
            case .array, .set, .string: return .predicate(try Translation.compare(member, .in, collection))
            default: break
            }
        }
        return .predicate(try Translation.compare(collection, .contains, member))
    }
}

extension PredicateExpressions.SequenceContainsWhere: _StrataTranslatableExpression {
    /// `SUBQUERY(collection, $x, test).@count > 0`: the closure's conditions all apply to
    /// the same element.
    func translate(_ context: inout FoundationPredicateContext) throws -> FoundationPredicateTerm {
        let matches = try context.subquery(sequence, variable.key, test, negated: false)
        let count = ExpressionNode.member(matches, "@count")
        return .predicate(.comparison(ComparisonNode(left: count, op: .greaterThan, right: .constant(.integer(0)))))
    }
}

extension PredicateExpressions.SequenceAllSatisfy: _StrataTranslatableExpression {
    /// `SUBQUERY(collection, $x, NOT test).@count == 0`: true for an empty collection, as
    /// `allSatisfy` is.
    func translate(_ context: inout FoundationPredicateContext) throws -> FoundationPredicateTerm {
        let failures = try context.subquery(sequence, variable.key, test, negated: true)
        let count = ExpressionNode.member(failures, "@count")
        return .predicate(.comparison(ComparisonNode(left: count, op: .equalTo, right: .constant(.integer(0)))))
    }
}

extension PredicateExpressions.Filter: _StrataTranslatableExpression {
    /// `SUBQUERY(collection, $x, test)`.
    func translate(_ context: inout FoundationPredicateContext) throws -> FoundationPredicateTerm {
        .expression(try context.subquery(sequence, variable.key, filter, negated: false))
    }
}

extension FoundationPredicateContext {
    /// `SUBQUERY(sequence, $x, test)` with the closure's variable as `$x`.
    fileprivate mutating func subquery(
        _ sequence: Any, _ variable: PredicateExpressions.VariableID, _ test: Any, negated: Bool
    ) throws -> ExpressionNode {
        let collection = try expression(sequence)
        let name = newSubqueryVariable()
        let condition = try insideSubquery { context in
            try context.binding(variable, to: .variable(name)) { try $0.predicate(test) }
        }
        return .subquery(
            collection: collection, variable: name, predicate: negated ? Translation.not(condition) : condition)
    }
}

// MARK: Strings

extension PredicateExpressions.CollectionContainsCollection: _StrataTranslatableExpression {
    /// `$0.name.contains("a")` is `name CONTAINS "a"`.
    func translate(_ context: inout FoundationPredicateContext) throws -> FoundationPredicateTerm {
        guard Base.Output.self is any StringProtocol.Type else {
            throw Translation.unsupported(self, "only strings can be searched for a part")
        }
        let text = try context.translate(base)
        let part = try context.translate(other)
        return .predicate(try Translation.compare(text, .contains, part))
    }
}

extension PredicateExpressions.SequenceStartsWith: _StrataTranslatableExpression {
    /// `$0.name.starts(with: "a")` is `name BEGINSWITH "a"`.
    func translate(_ context: inout FoundationPredicateContext) throws -> FoundationPredicateTerm {
        guard Base.Output.self is any StringProtocol.Type else {
            throw Translation.unsupported(self, "only strings can be tested for a prefix")
        }
        let text = try context.translate(base)
        let start = try context.translate(prefix)
        return .predicate(try Translation.compare(text, .beginsWith, start))
    }
}

#if canImport(Darwin)
    // Foundation on Apple platforms only.

    extension PredicateExpressions.StringLocalizedStandardContains: _StrataTranslatableExpression {
        /// `CONTAINS[cd]`.
        func translate(_ context: inout FoundationPredicateContext) throws -> FoundationPredicateTerm {
            let text = try context.translate(root)
            let part = try context.translate(other)
            return .predicate(
                try Translation.compare(text, .contains, part, options: [.caseInsensitive, .diacriticInsensitive]))
        }
    }

    extension PredicateExpressions.StringCaseInsensitiveCompare: _StrataTranslatableExpression {
        func translate(_ context: inout FoundationPredicateContext) throws -> FoundationPredicateTerm {
            let text = try context.expression(root)
            let otherText = try context.expression(other)
            return .ordering(text, otherText, .caseInsensitive)
        }
    }

    extension PredicateExpressions.StringLocalizedCompare: _StrataTranslatableExpression {
        func translate(_ context: inout FoundationPredicateContext) throws -> FoundationPredicateTerm {
            let text = try context.expression(root)
            let otherText = try context.expression(other)
            return .ordering(text, otherText, .localeSensitive)
        }
    }
#endif

// MARK: Arithmetic

extension PredicateExpressions.Arithmetic: _StrataTranslatableExpression {
    func translate(_ context: inout FoundationPredicateContext) throws -> FoundationPredicateTerm {
        let left = try context.expression(lhs)
        let right = try context.expression(rhs)
        let function =
            switch op {
            case .add: "add:to:"
            case .subtract: "from:subtract:"
            case .multiply: "multiply:by:"
            }
        return .expression(.function(function, [left, right]))
    }
}

extension PredicateExpressions.FloatDivision: _StrataTranslatableExpression {
    func translate(_ context: inout FoundationPredicateContext) throws -> FoundationPredicateTerm {
        let left = try context.expression(lhs)
        let right = try context.expression(rhs)
        return .expression(.function("divide:by:", [left, right]))
    }
}

extension PredicateExpressions.IntDivision: _StrataTranslatableExpression {
    /// `trunc:(divide:by:(a, b))`: `divide:by:` divides exactly, Swift's `/` of integers
    /// truncates.
    func translate(_ context: inout FoundationPredicateContext) throws -> FoundationPredicateTerm {
        let left = try context.expression(lhs)
        let right = try context.expression(rhs)
        return .expression(.function("trunc:", [.function("divide:by:", [left, right])]))
    }
}

extension PredicateExpressions.IntRemainder: _StrataTranslatableExpression {
    func translate(_ context: inout FoundationPredicateContext) throws -> FoundationPredicateTerm {
        let left = try context.expression(lhs)
        let right = try context.expression(rhs)
        return .expression(.function("modulus:by:", [left, right]))
    }
}

extension PredicateExpressions.UnaryMinus: _StrataTranslatableExpression {
    /// A negated constant, or `from:subtract:(0, x)`.
    func translate(_ context: inout FoundationPredicateContext) throws -> FoundationPredicateTerm {
        let value = try context.expression(wrapped)
        switch value {
        case .constant(.integer(let number)) where number != .min: return .expression(.constant(.integer(-number)))
        case .constant(.double(let number)): return .expression(.constant(.double(-number)))
        case .constant(.decimal(let number)): return .expression(.constant(.decimal(-number)))
        default: return .expression(.function("from:subtract:", [.constant(.integer(0)), value]))
        }
    }
}

// MARK: Ranges

extension PredicateExpressions.ClosedRange: _StrataTranslatableExpression {
    func translate(_ context: inout FoundationPredicateContext) throws -> FoundationPredicateTerm {
        let from = try context.expression(lower)
        let to = try context.expression(upper)
        return .range(lower: from, upper: to, closed: true)
    }
}

extension PredicateExpressions.Range: _StrataTranslatableExpression {
    func translate(_ context: inout FoundationPredicateContext) throws -> FoundationPredicateTerm {
        let from = try context.expression(lower)
        let to = try context.expression(upper)
        return .range(lower: from, upper: to, closed: false)
    }
}

extension PredicateExpressions.RangeExpressionContains: _StrataTranslatableExpression {
    /// `(a...b).contains(x)` is `x BETWEEN {a, b}`; `(a..<b).contains(x)` is
    /// `x >= a AND x < b`.
    func translate(_ context: inout FoundationPredicateContext) throws -> FoundationPredicateTerm {
        guard case .range(let lower, let upper, let closed) = try context.translate(range) else {
            throw Translation.unsupported(range, "a range is needed")
        }
        let value = try context.translate(element)
        if closed {
            return .predicate(try Translation.compare(value, .between, .expression(.aggregate([lower, upper]))))
        }
        return .predicate(
            Translation.and([
                try Translation.compare(value, .greaterThanOrEqualTo, .expression(lower)),
                try Translation.compare(value, .lessThan, .expression(upper)),
            ]))
    }
}
