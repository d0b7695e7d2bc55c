import Foundation

/// Delete rules over the rows of the in-memory and binary stores, as a batch delete applies
/// them: cascades are followed until no new row joins, a deny rule with a related row left
/// refuses the whole delete, nullify takes the deleted rows out of their related rows'
/// relationships, and no-action leaves those as they are.
enum InMemoryDeleteRules {
    /// Removes the rows and those their cascades reach from `rows`; returns every removed ID,
    /// the requested ones first. Throws (changing nothing) when a deny rule refuses.
    static func apply(
        deleting requested: [NSManagedObjectID], in rows: inout [NSManagedObjectID: Snapshot]
    ) throws -> [NSManagedObjectID] {
        var doomed: [NSManagedObjectID] = []
        var seen = Set<NSManagedObjectID>()
        var pending: [NSManagedObjectID] = []
        for id in requested where rows[id] != nil && seen.insert(id).inserted {
            doomed.append(id)
            pending.append(id)
        }
        while let id = pending.popLast() {
            guard let row = rows[id] else { continue }
            forEachRelationship(of: row) { relationship, _, targets in
                guard relationship.deleteRule == .cascadeDeleteRule else { return }
                for target in targets where rows[target] != nil && seen.insert(target).inserted {
                    doomed.append(target)
                    pending.append(target)
                }
            }
        }
        var denial: NSError?
        for id in doomed where denial == nil {
            guard let row = rows[id] else { continue }
            forEachRelationship(of: row) { relationship, _, targets in
                guard denial == nil, relationship.deleteRule == .denyDeleteRule else { return }
                if targets.contains(where: { rows[$0] != nil && !seen.contains($0) }) {
                    denial = BatchError.denied(relationship, of: id)
                }
            }
        }
        if let denial { throw denial }
        for id in doomed {
            guard let row = rows[id] else { continue }
            forEachRelationship(of: row) { relationship, _, targets in
                guard relationship.deleteRule != .noActionDeleteRule, let inverse = relationship.inverseRelationship else {
                    return
                }
                for target in targets where !seen.contains(target) {
                    guard let stored = rows[target], let back = target.entity.layout.indexByName[inverse.name] else { continue }
                    var values = stored.values
                    if inverse.isToMany {
                        values[back] = ((values[back] as? [NSManagedObjectID]) ?? []).filter { $0 != id }
                    } else if values[back] as? NSManagedObjectID == id {
                        values[back] = nil
                    }
                    rows[target] = Snapshot(objectID: target, version: stored.version, values: values)
                }
            }
        }
        for id in doomed { rows[id] = nil }
        return doomed
    }

    /// Calls `body` with each relationship of a row, its position, and the IDs it holds.
    private static func forEachRelationship(
        of row: Snapshot, _ body: (NSRelationshipDescription, Int, [NSManagedObjectID]) -> Void
    ) {
        let layout = row.objectID.entity.layout
        for index in layout.persistentIndexes {
            guard let relationship = layout.properties[index] as? NSRelationshipDescription else { continue }
            switch row.values[index] {
            case let target as NSManagedObjectID: body(relationship, index, [target])
            case let targets as [NSManagedObjectID]: body(relationship, index, targets)
            default: body(relationship, index, [])
            }
        }
    }
}
