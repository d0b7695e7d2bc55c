import Foundation

/// A stored row seen through key-value access, so that predicates and key-path sorts can
/// be evaluated on rows (the in-memory stores, dictionary fetches) as they are on objects:
/// to-one relationships lead to the destination's row, to-many ones to the rows of the
/// destinations.
final class RowReader: NSObject, PredicateKeyValueReading, @unchecked Sendable {
    let snapshot: Snapshot
    let rows: RowSource

    init(snapshot: Snapshot, rows: RowSource) {
        self.snapshot = snapshot
        self.rows = rows
        super.init()
    }

    /// A row equals its object, its object's ID, and another reader of the same row.
    override func isEqual(_ object: Any?) -> Bool {
        switch object {
        case let reader as RowReader: reader.snapshot.objectID == snapshot.objectID
        case let id as NSManagedObjectID: id == snapshot.objectID
        case let managed as NSManagedObject: managed.objectID == snapshot.objectID
        default: false
        }
    }

    override var hash: Int { snapshot.objectID.hash }

    func predicateValue(forKey key: String) -> Any? {
        let layout = snapshot.objectID.entity.layout
        guard let index = layout.indexByName[key] else {
            switch key {
            case "objectID": return snapshot.objectID
            case "entity": return snapshot.objectID.entity
            default: return nil
            }
        }
        switch layout.kinds[index] {
        case .toOne:
            guard let id = snapshot.values[index] as? NSManagedObjectID else { return nil }
            return rows.row(id).map { RowReader(snapshot: $0, rows: rows) } ?? id
        case .toMany:
            guard let relationship = layout.properties[index] as? NSRelationshipDescription else { return nil }
            let ids = (snapshot.values[index] as? [NSManagedObjectID]) ?? rows.related(snapshot.objectID, relationship)
            return ids.compactMap { rows.row($0).map { RowReader(snapshot: $0, rows: rows) } }
        default:
            return snapshot.values[index]
        }
    }

    /// The value at a key path, for sorting: rows become their object IDs.
    func value(atKeyPath keyPath: String) -> Any? {
        var current: Any? = self
        for component in keyPath.split(separator: ".") {
            if let reader = current as? RowReader {
                current = reader.predicateValue(forKey: String(component))
            } else if let composite = current as? [String: Any] {
                // An element of a composite attribute.
                current = CompositeValues.value(at: [String(component)], in: composite)
            } else {
                return nil
            }
        }
        return (current as? RowReader)?.snapshot.objectID ?? current
    }
}

/// Where a `RowReader` finds the rows it leads to.
struct RowSource {
    var row: (NSManagedObjectID) -> Snapshot?
    var related: (NSManagedObjectID, NSRelationshipDescription) -> [NSManagedObjectID]
}

extension PredicateNode {
    /// The predicate with managed objects among its constants replaced by their IDs, for
    /// evaluation on stored rows (which are compared with objects by ID).
    var comparingObjectsByID: PredicateNode {
        switch self {
        case .constant: return self
        case .comparison(var comparison):
            comparison.left = comparison.left.comparingObjectsByID
            comparison.right = comparison.right.comparingObjectsByID
            return .comparison(comparison)
        case .and(let parts): return .and(parts.map(\.comparingObjectsByID))
        case .or(let parts): return .or(parts.map(\.comparingObjectsByID))
        case .not(let part): return .not(part.comparingObjectsByID)
        }
    }
}

extension ExpressionNode {
    var comparingObjectsByID: ExpressionNode {
        switch self {
        case .constant(let value): .constant(value.comparingObjectsByID)
        case .aggregate(let parts): .aggregate(parts.map(\.comparingObjectsByID))
        case .function(let name, let arguments): .function(name, arguments.map(\.comparingObjectsByID))
        default: self
        }
    }
}

extension PredicateValue {
    var comparingObjectsByID: PredicateValue {
        switch self {
        case .object(let box):
            if let object = box.object as? NSManagedObject { return .object(PredicateObject(object.objectID)) }
            return self
        case .array(let values): return .array(values.map(\.comparingObjectsByID))
        case .set(let values): return .set(values.map(\.comparingObjectsByID))
        default: return self
        }
    }
}
