import Foundation

/// The keys a history fetch request's predicate may name: the attributes of Apple's history
/// entities (a transaction's `author`, `bundleID`, `contextName`, `processID`, `storeID`,
/// `timestamp`, `transactionNumber`; a change's `changeID`, `changeType`, `changedEntity`,
/// `changedObjectID`), a change's `transaction` followed by a transaction's key, and
/// Strata's additions (a transaction's `changes`; a change's `tombstone` and
/// `updatedProperties`). Any other key (`token`, a misspelling) makes the request fail with
/// `NSCoreDataError` (134060), where Apple raises "keypath … not found in entity", instead of
/// silently matching nothing.
enum HistoryFetchPredicates {
    static let transactionKeys: Set<String> = [
        "author", "bundleID", "contextName", "processID", "storeID", "timestamp", "transactionNumber", "changes",
    ]
    static let changeKeys: Set<String> = [
        "changeID", "changeType", "changedEntity", "changedObjectID", "transaction", "tombstone", "updatedProperties",
    ]

    /// Throws for the first key path of the predicate that names no key of the entity.
    static func check(_ predicate: NSPredicate, changes: Bool) throws {
        guard let node = try? PredicateConversion.node(of: predicate) else { return }
        let entity = changes ? HistoryEntities.changeName : HistoryEntities.transactionName
        var paths: [String] = []
        collect(node, into: &paths)
        for path in paths {
            var components = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            if components.first == "SELF" || components.first == "self" { components.removeFirst() }
            guard let first = components.first, !first.hasPrefix("@") else { continue }
            var known = changes ? changeKeys.contains(first) : transactionKeys.contains(first)
            // A change's transaction is read on: the next key must be a transaction's.
            if known, changes, first == "transaction", components.count > 1, !components[1].hasPrefix("@") {
                known = transactionKeys.contains(components[1]) && components[1] != "changes"
            }
            guard known else {
                throw CoreDataError.make(
                    NSCoreDataError,
                    "keypath \(path) not found in entity \(entity): a history fetch request's predicate can name "
                        + (changes ? changeKeys : transactionKeys).sorted().joined(separator: ", "))
            }
        }
    }

    /// The predicate as the history's objects are tested with it: an entity description given
    /// as an argument (`changedEntity == %@` with `Item.entity()`, as Apple's samples write it,
    /// or a list of them after `IN`) stands for its name, which `changedEntity` reads as.
    static func prepared(_ predicate: NSPredicate) -> NSPredicate {
        guard let node = try? PredicateConversion.node(of: predicate) else { return predicate }
        let named = naming(node)
        return named == node ? predicate : PredicateObjects.predicate(for: named)
    }

    private static func naming(_ node: PredicateNode) -> PredicateNode {
        switch node {
        case .constant: return node
        case .comparison(var comparison):
            comparison.left = naming(comparison.left)
            comparison.right = naming(comparison.right)
            return .comparison(comparison)
        case .and(let nodes): return .and(nodes.map(naming))
        case .or(let nodes): return .or(nodes.map(naming))
        case .not(let inner): return .not(naming(inner))
        }
    }

    private static func naming(_ expression: ExpressionNode) -> ExpressionNode {
        switch expression {
        case .constant(let value): return .constant(naming(value))
        case .aggregate(let parts): return .aggregate(parts.map(naming))
        default: return expression
        }
    }

    private static func naming(_ value: PredicateValue) -> PredicateValue {
        switch value {
        case .object(let object):
            guard let entity = object.object as? NSEntityDescription, let name = entity.name else { return value }
            return .string(name)
        case .array(let values): return .array(values.map(naming))
        case .set(let values): return .set(values.map(naming))
        default: return value
        }
    }

    /// The key paths the predicate reads from the evaluated object (not those read from a
    /// subquery's variable).
    private static func collect(_ node: PredicateNode, into paths: inout [String]) {
        switch node {
        case .constant: break
        case .comparison(let comparison):
            collect(comparison.left, into: &paths)
            collect(comparison.right, into: &paths)
        case .and(let nodes), .or(let nodes): for node in nodes { collect(node, into: &paths) }
        case .not(let inner): collect(inner, into: &paths)
        }
    }

    private static func collect(_ expression: ExpressionNode, into paths: inout [String]) {
        switch expression {
        case .constant, .evaluatedObject, .variable, .anyKey: break
        case .keyPath(let path): paths.append(path)
        case .member(let base, _): collect(base, into: &paths)
        case .function(_, let arguments), .aggregate(let arguments):
            for argument in arguments { collect(argument, into: &paths) }
        case .index(let base, let kind):
            collect(base, into: &paths)
            if case .expression(let index) = kind { collect(index, into: &paths) }
        case .subquery(let collection, _, _):
            // Inside, the evaluated object is each element, not the transaction or change.
            collect(collection, into: &paths)
        case .conditional(let condition, let whenTrue, let whenFalse):
            collect(condition, into: &paths)
            collect(whenTrue, into: &paths)
            collect(whenFalse, into: &paths)
        case .assignment(_, let value): collect(value, into: &paths)
        case .setOperation(_, let left, let right):
            collect(left, into: &paths)
            collect(right, into: &paths)
        }
    }
}
