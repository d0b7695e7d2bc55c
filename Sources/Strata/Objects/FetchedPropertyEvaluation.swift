import Foundation

/// Fetched properties: the value of an `NSFetchedPropertyDescription` is the result of its
/// fetch request, run in the object's context on the first read and kept until the object is
/// refreshed (`refresh(_:mergeChanges:)` turns it into a fault or refills it, which drops the
/// kept array), as Apple's fetched properties are. The request's predicate reads
/// `$FETCH_SOURCE` (the object) and `$FETCHED_PROPERTY` (the description, whose `userInfo`
/// is reachable as `$FETCHED_PROPERTY.userInfo.key`).
extension NSManagedObject {
    /// The fetched property's results (an array, of the request's result type in its order),
    /// computed once; nil without a context or a request, or when the fetch fails.
    func fetchedPropertyValue(at index: Int, _ property: NSFetchedPropertyDescription) -> Any? {
        if let kept = values[index] { return kept }
        guard let context = managedObjectContext, let template = property.fetchRequest,
            let request = FetchedPropertyEvaluation.request(for: template, source: self, property: property),
            let results = try? context.fetch(request)
        else { return nil }
        values[index] = results
        return results
    }
}

enum FetchedPropertyEvaluation {
    /// The variables a fetched property's predicate may name.
    static let sourceVariable = "FETCH_SOURCE"
    static let propertyVariable = "FETCHED_PROPERTY"

    /// A copy of the template whose predicate has the object and the description in place of
    /// the variables: each part of an expression that reads only them (`$FETCH_SOURCE`,
    /// `$FETCH_SOURCE.name`, `$FETCHED_PROPERTY.userInfo.key`) becomes its value, so that the
    /// stores see constants. Nil when the predicate cannot be read.
    static func request(
        for template: NSFetchRequest<NSFetchRequestResult>, source: NSManagedObject, property: NSFetchedPropertyDescription
    ) -> NSFetchRequest<NSFetchRequestResult>? {
        guard let request = template.copy() as? NSFetchRequest<NSFetchRequestResult> else { return nil }
        if request.entity == nil, let name = request.entityName,
            let entity = source.entity.managedObjectModel?.entitiesByName[name]
        {
            request.entity = entity
        }
        guard let predicate = template.predicate else { return request }
        guard let node = try? PredicateConversion.node(of: predicate) else { return nil }
        let variables: [String: Any] = [sourceVariable: source, propertyVariable: property]
        request.predicate = PredicateObjects.predicate(for: resolving(node, variables))
        return request
    }

    static func resolving(_ node: PredicateNode, _ variables: [String: Any]) -> PredicateNode {
        switch node {
        case .constant: return node
        case .comparison(var comparison):
            comparison.left = resolving(comparison.left, variables)
            comparison.right = resolving(comparison.right, variables)
            return .comparison(comparison)
        case .and(let nodes): return .and(nodes.map { resolving($0, variables) })
        case .or(let nodes): return .or(nodes.map { resolving($0, variables) })
        case .not(let inner): return .not(resolving(inner, variables))
        }
    }

    /// The expression with its parts that read only the variables (and constants) evaluated.
    static func resolving(_ expression: ExpressionNode, _ variables: [String: Any]) -> ExpressionNode {
        if readsOnly(expression, variables) == true {
            let value = PredicateEvaluator.value(of: expression, with: nil, variables: variables)
            return .constant(PredicateArguments.value(value))
        }
        let recurse = { (part: ExpressionNode) in resolving(part, variables) }
        switch expression {
        case .constant, .evaluatedObject, .variable, .keyPath, .anyKey: return expression
        case .member(let base, let path): return .member(recurse(base), path)
        case .function(let name, let arguments): return .function(name, arguments.map(recurse))
        case .aggregate(let parts): return .aggregate(parts.map(recurse))
        case .index(let base, .expression(let index)): return .index(recurse(base), .expression(recurse(index)))
        case .index(let base, let kind): return .index(recurse(base), kind)
        case .subquery(let collection, let variable, let predicate):
            // The subquery's own variable shadows one of the same name.
            var inner = variables
            inner[variable] = nil
            return .subquery(collection: recurse(collection), variable: variable, predicate: resolving(predicate, inner))
        case .conditional(let predicate, let whenTrue, let whenFalse):
            return .conditional(resolving(predicate, variables), recurse(whenTrue), recurse(whenFalse))
        case .assignment(let name, let value): return .assignment(name, recurse(value))
        case .setOperation(let operation, let left, let right): return .setOperation(operation, recurse(left), recurse(right))
        }
    }

    /// Whether the expression reads one of the variables and nothing of the evaluated object
    /// (true), reads only constants (false), or reads something else (nil).
    private static func readsOnly(_ expression: ExpressionNode, _ variables: [String: Any]) -> Bool? {
        switch expression {
        case .constant: return false
        case .variable(let name): return variables[name] != nil ? true : nil
        case .member(let base, _): return readsOnly(base, variables)
        case .index(let base, .expression(let index)): return combined([base, index], variables)
        case .index(let base, _): return readsOnly(base, variables)
        case .function(let name, let arguments):
            return name == "random" || name == "now" ? nil : combined(arguments, variables)
        case .aggregate(let parts): return combined(parts, variables)
        default: return nil
        }
    }

    private static func combined(_ parts: [ExpressionNode], _ variables: [String: Any]) -> Bool? {
        var readsVariable = false
        for part in parts {
            guard let reads = readsOnly(part, variables) else { return nil }
            readsVariable = readsVariable || reads
        }
        return readsVariable
    }
}

/// Predicates read a property description's fields by key, as key-value coding reads them
/// on Apple's systems (`$FETCHED_PROPERTY.userInfo.key`).
extension NSPropertyDescription: PredicateKeyValueReading {
    func predicateValue(forKey key: String) -> Any? {
        switch key {
        case "name": name
        case "userInfo": userInfo
        case "entity": entity
        case "isOptional", "optional": isOptional
        case "isTransient", "transient": isTransient
        case "isIndexed", "indexed": isIndexed
        case "renamingIdentifier": renamingIdentifier
        case "versionHashModifier": versionHashModifier
        case "fetchRequest": (self as? NSFetchedPropertyDescription)?.fetchRequest
        default: nil
        }
    }
}
