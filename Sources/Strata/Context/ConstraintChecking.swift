import Foundation

/// Uniqueness constraints, checked at save before anything is written: among the context's
/// objects, and against the rows already in the store. The unique indexes of the SQLite
/// store remain the last line of defence.
extension NSManagedObjectContext {
    /// The constraint conflicts of the objects this save inserts or changes.
    func constraintConflicts() throws -> [NSConstraintConflict] {
        // A model without constraints (most) costs no pass over the changed objects.
        if let model, model.entities.allSatisfy({ $0.uniquenessConstraints.isEmpty }) { return [] }
        let candidates = inserted.objects + updated.objects.filter { !$0.changedIndexes.isEmpty }
        guard !candidates.isEmpty, let store = objectStore else { return [] }
        var conflicts: [NSConstraintConflict] = []
        var reported = Set<String>()
        for group in Dictionary(grouping: candidates, by: { ObjectIdentifier($0.entity) }).values {
            guard let entity = group.first?.entity else { continue }
            for constraint in entity.uniquenessConstraintNames where !constraint.isEmpty {
                // A constraint applies to the whole hierarchy of the entity that declares it.
                let owner = entity.selfAndAncestors.last { $0.uniquenessConstraintNames.contains(constraint) } ?? entity
                let key = "\(owner.name ?? "").\(constraint.joined(separator: ","))"
                guard reported.insert(key).inserted else { continue }
                let members = candidates.filter { $0.entity.isKindOf(entity: owner) }
                conflicts += try conflictsOf(members, constraint: constraint, owner: owner, store: store)
            }
        }
        return conflicts
    }

    private func conflictsOf(
        _ objects: [NSManagedObject], constraint: [String], owner: NSEntityDescription, store: any ObjectStore
    ) throws -> [NSConstraintConflict] {
        var byValues: [[AnyHashable]: [NSManagedObject]] = [:]
        var order: [[AnyHashable]] = []
        for object in objects {
            guard let values = Self.constraintValues(of: object, constraint) else { continue }
            if byValues[values] == nil { order.append(values) }
            byValues[values, default: []].append(object)
        }
        var conflicts: [NSConstraintConflict] = []
        var stored: [[AnyHashable]: Snapshot] = [:]
        for chunk in stride(from: 0, to: order.count, by: 200).map({ Array(order[$0..<min(order.count, $0 + 200)]) }) {
            let alternatives = chunk.map { values -> PredicateNode in
                .and(
                    zip(constraint, values).map { name, value in
                        .comparison(
                            ComparisonNode(
                                left: .keyPath(name), op: .equalTo, right: .constant(PredicateArguments.value(value.base))))
                    })
            }
            let plan = FetchPlan(
                entity: owner, includesSubentities: true, sortKeys: [], limit: 0, offset: 0, predicate: .or(alternatives))
            for snapshot in try store.fetchSnapshots(plan, affectedStores: nil) {
                let values = constraint.map { name -> AnyHashable in
                    let index = snapshot.objectID.entity.layout.indexByName[name]
                    return Self.hashable(index.flatMap { snapshot.values[$0] })
                }
                stored[values] = snapshot
            }
        }
        for values in order {
            guard let members = byValues[values] else { continue }
            var databaseRow = stored[values]
            if let row = databaseRow, let registered = registeredObject(for: row.objectID) {
                // A row this save deletes, one of the conflicting objects itself, or a row the
                // context changes to other values does not conflict with the store.
                if deleted.contains(registered) || members.contains(where: { $0 === registered })
                    || Self.constraintValues(of: registered, constraint) != values
                {
                    databaseRow = nil
                }
            }
            if let row = databaseRow {
                let database = object(with: row.objectID)
                conflicts.append(
                    NSConstraintConflict(
                        constraint: constraint, database: database,
                        databaseSnapshot: Self.namedValues(row.values, layout: row.objectID.entity.layout),
                        conflicting: members, conflictingSnapshots: members.map(Self.committedSnapshot)))
            } else if members.count > 1 {
                conflicts.append(
                    NSConstraintConflict(
                        constraint: constraint, database: nil, databaseSnapshot: nil, conflicting: members,
                        conflictingSnapshots: members.map(Self.committedSnapshot)))
            }
        }
        return conflicts
    }

    /// The object's values of the constraint's attributes; nil when one is nil (nil values
    /// never conflict, as in SQLite's unique indexes).
    static func constraintValues(of object: NSManagedObject, _ constraint: [String]) -> [AnyHashable]? {
        var values: [AnyHashable] = []
        for name in constraint {
            guard let index = object.layout.indexByName[name], let value = object.persistentValue(at: index) else {
                return nil
            }
            values.append(hashable(value))
        }
        return values
    }

    static func hashable(_ value: Any?) -> AnyHashable {
        switch value {
        case nil: return AnyHashable(NSNull())
        case let number as NSNumber: return AnyHashable(number.doubleValue)
        case let value?:
            if let double = NumberValue.double(value), !(value is String) { return AnyHashable(double) }
            return (value as? AnyHashable) ?? AnyHashable(String(describing: value))
        }
    }

    private static func committedSnapshot(of object: NSManagedObject) -> Any {
        guard let snapshot = object.snapshot else { return NSNull() }
        return namedValues(snapshot.values, layout: object.layout)
    }

    static func namedValues(_ values: ValueRow, layout: EntityLayout) -> [String: Any] {
        var named: [String: Any] = [:]
        for index in layout.persistentIndexes where !layout.isToMany(index) && index < values.count {
            named[layout.properties[index].name] = values[index] ?? NSNull()
        }
        return named
    }
}
