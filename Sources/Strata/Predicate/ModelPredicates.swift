import Foundation

// The predicate and expression strings of model files as Strata's predicate types.

extension NSDerivedAttributeDescription {
    /// The derivation as an expression (`uppercase:(title)`, `pages.@count`, `now()`).
    public var derivationExpression: NSExpression? {
        get { derivationExpressionFormat.map { NSExpression(format: $0) } }
        set { derivationExpressionFormat = newValue?.expressionFormat }
    }
}

extension NSFetchIndexDescription {
    /// The predicate of a partial index: only rows for which it holds are indexed.
    public var partialIndexPredicate: NSPredicate? {
        get { partialIndexPredicateFormat.map { NSPredicate(format: $0) } }
        set { partialIndexPredicateFormat = newValue?.predicateFormat }
    }
}

extension NSManagedObjectModel {
    /// A copy of the named fetch request template with its `$VARIABLES` replaced by the
    /// given values; `nil` when the model has no such template.
    public func fetchRequestFromTemplate(
        withName name: String, substitutionVariables variables: [String: Any]
    ) -> NSFetchRequest<NSFetchRequestResult>? {
        guard let template = fetchRequestTemplate(forName: name),
            let copy = template.copy() as? NSFetchRequest<NSFetchRequestResult>
        else { return nil }
        let predicate = template.predicate ?? template.predicateFormat.map { NSPredicate(format: $0) }
        copy.predicate = predicate?.withSubstitutionVariables(variables)
        copy.predicateFormat = nil
        return copy
    }
}

extension PredicateNode {
    /// The names of the `$VARIABLES` not bound by an enclosing `SUBQUERY`.
    var freeVariables: Set<String> {
        switch self {
        case .constant: []
        case .comparison(let comparison): comparison.left.freeVariables.union(comparison.right.freeVariables)
        case .and(let parts), .or(let parts): parts.reduce(into: Set<String>()) { $0.formUnion($1.freeVariables) }
        case .not(let part): part.freeVariables
        }
    }
}

extension ExpressionNode {
    var freeVariables: Set<String> {
        switch self {
        case .constant, .evaluatedObject, .keyPath, .anyKey: []
        case .variable(let name): [name]
        case .member(let base, _), .index(let base, .first), .index(let base, .last), .index(let base, .size):
            base.freeVariables
        case .index(let base, .expression(let index)): base.freeVariables.union(index.freeVariables)
        case .function(_, let arguments), .aggregate(let arguments):
            arguments.reduce(into: Set<String>()) { $0.formUnion($1.freeVariables) }
        case .subquery(let collection, let variable, let predicate):
            collection.freeVariables.union(predicate.freeVariables.subtracting([variable]))
        case .conditional(let predicate, let whenTrue, let whenFalse):
            predicate.freeVariables.union(whenTrue.freeVariables).union(whenFalse.freeVariables)
        case .assignment(_, let value): value.freeVariables
        case .setOperation(_, let left, let right): left.freeVariables.union(right.freeVariables)
        }
    }
}
