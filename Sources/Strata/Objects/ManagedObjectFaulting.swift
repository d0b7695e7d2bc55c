import Foundation

/// Faulting: an object fetched or looked up by ID is a fault (an ID without values) until
/// one of its values is read; then its row is loaded. `refresh(_:mergeChanges:)` turns it
/// back into a fault.
extension NSManagedObject {
    /// Loads the object's values if it is a fault.
    func fireFault() {
        guard faulted else { return }
        if let context = managedObjectContext {
            context.fulfillFault(of: self)
        }
        if faulted {
            // No context, or a row the store no longer has: the object reads as empty.
            values = layout.initialValues
            faulted = false
        }
        // A live view kept across the object's refresh copies the relationship loaded now.
        keepLiveViewsCurrent()
    }

    /// Fills the object with a row's values. To-one destinations become objects (faults
    /// unless already registered); to-many ones stay unloaded unless the snapshot has them.
    ///
    /// The object starts with the snapshot's own array of values, which Swift copies only
    /// when a position differs (a relationship, a transient attribute): objects of entities
    /// without either keep their values once in memory, shared with the row cache.
    func fill(from snapshot: Snapshot, in context: NSManagedObjectContext, awake: Bool = true) {
        var filled = snapshot.values
        if filled.count != layout.properties.count {
            filled = ValueRow(
                (0..<layout.properties.count).map { $0 < snapshot.values.count ? snapshot.values[$0] : nil },
                shape: layout.valueShape)
        }
        makeObjectValues(of: &filled, in: context)
        values = filled
        self.snapshot = snapshot
        pendingSnapshot = nil
        faulted = false
        isInaccessible = false
        if awake { awakeFromFetch() }
    }

    /// Fires a fault that a fetch left its row (`hasPendingRow`): the row, which is already the
    /// saved values, becomes the values too, sharing its storage until one of them changes.
    /// What `fill(from: pendingSnapshot)` does, without making the snapshot.
    func fillFromPendingRow(in context: NSManagedObjectContext) {
        guard hasPendingRow, var filled = savedValues, filled.count == layout.properties.count else {
            if let snapshot = pendingSnapshot { fill(from: snapshot, in: context) }
            return
        }
        makeObjectValues(of: &filled, in: context)
        values = filled
        hasPendingRow = false
        faulted = false
        isInaccessible = false
        awakeFromFetch()
    }

    /// Turns a row's values into an object's at the positions where they differ
    /// (`objectOnlyIndexes`): to-one IDs become objects, to-many ones arrays of objects or a
    /// fault, transient attributes take their defaults.
    private func makeObjectValues(of filled: inout ValueRow, in context: NSManagedObjectContext) {
        for index in layout.objectOnlyIndexes {
            switch layout.kinds[index] {
            case .attribute:
                filled[index] = layout.initialValues[index]
            case .toOne:
                if let reference = filled.objectReference(at: index) {
                    // Read in place: most rows' to-one positions hold an ID or nothing.
                    guard let reference else { continue }
                    if let id = reference as? NSManagedObjectID {
                        filled.setObject(context.object(with: id), at: index)
                    } else {
                        filled[index] = nil
                    }
                } else if let id = filled[index] as? NSManagedObjectID {
                    filled.setObject(context.object(with: id), at: index)
                } else if filled[index] != nil {
                    filled[index] = nil
                }
            case .toMany:
                if layout.properties[index].isTransient {
                    filled[index] = [NSManagedObject]()
                } else if let ids = filled[index] as? [NSManagedObjectID] {
                    filled[index] = ids.map { context.object(with: $0) }
                } else {
                    filled[index] = RelationshipFault.marker
                }
            case .other:
                if filled[index] != nil { filled[index] = nil }
            }
        }
    }

    /// Replaces the saved state after a save or a refresh, keeping unsaved changes of the
    /// given properties.
    func merge<Indexes: Sequence<Int>>(snapshot: Snapshot, keeping indexes: Indexes, in context: NSManagedObjectContext) {
        let kept = indexes.map { ($0, values[$0]) }
        fill(from: snapshot, in: context, awake: false)
        for (index, value) in kept { values[index] = value }
        changedIndexes = PropertyIndexSet(kept.map(\.0))
    }

    /// Discards the values: the object becomes a fault again.
    func turnIntoFault() {
        guard !faulted else { return }
        willTurnIntoFault()
        values = .empty
        faulted = true
        changedIndexes.removeAll()
        eventChangedIndexes.removeAll()
        didTurnIntoFault()
    }
}

/// Equality of stored values (`Any?`), as saved-value comparisons need it.
enum ValueEquality {
    static func same(_ a: Any?, _ b: Any?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case (nil, _), (_, nil): return false
        case let (x as [NSManagedObjectID], y as [NSManagedObjectID]): return x == y
        case let (x as AnyHashable, y as AnyHashable): return x == y
        // Composite attributes' values, element by element.
        case let (x as [String: Any], y as [String: Any]):
            return x.count == y.count && x.allSatisfy { key, value in y[key].map { same(value, $0) } ?? false }
        case let (x as AnyObject, y as AnyObject): return x === y
        }
    }
}
