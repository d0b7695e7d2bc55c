import Foundation

/// Keeps both sides of a relationship in step: setting one side updates the inverse on the
/// objects it gains and loses, at once and in memory, as Core Data's accessors do.
///
/// Upkeep of a to-many inverse adds or removes one object in place (`ToManyMembers`), so
/// that linking an object costs the same however many the other side already holds.
extension NSManagedObject {
    func setRelationship(_ value: Any?, at index: Int) {
        guard let relationship = layout.properties[index] as? NSRelationshipDescription else { return }
        let inverse = relationship.inverseRelationship
        if relationship.isToMany {
            let old = toManyObjects(at: index)
            setPrimitive(value, at: index)
            guard let inverse else { return }
            let new = toManyObjects(at: index)
            // A relationship set for the first time (an import's) had nothing to compare with.
            guard !old.isEmpty else {
                for object in new { object.inverseAdd(self, via: inverse) }
                return
            }
            let oldSet = Set(old.map(ObjectIdentifier.init))
            let newSet = Set(new.map(ObjectIdentifier.init))
            for object in old where !newSet.contains(ObjectIdentifier(object)) {
                object.inverseRemove(self, via: inverse)
            }
            for object in new where !oldSet.contains(ObjectIdentifier(object)) {
                object.inverseAdd(self, via: inverse)
            }
        } else {
            fireFault()
            let old = values[index] as? NSManagedObject
            let new = value as? NSManagedObject
            setPrimitive(new, at: index)
            guard let inverse, old !== new else { return }
            old?.inverseRemove(self, via: inverse)
            new?.inverseAdd(self, via: inverse)
        }
    }

    /// `other` no longer points here through the inverse of `relationship`.
    func inverseRemove(_ other: NSManagedObject, via relationship: NSRelationshipDescription) {
        guard let index = layout.index(of: relationship.name) else { return }
        if relationship.isToMany {
            let members = toManyMembers(at: index)
            guard members.contains(other) else { return }
            willChangeValue(forKey: relationship.name)
            if recordsUndo { noteUndoableChange(at: index) }
            members.remove(other)
            changedIndexes.insert(index)
            eventChangedIndexes.insert(index)
            didChangeValue(forKey: relationship.name)
        } else {
            fireFault()
            guard values[index] as? NSManagedObject === other else { return }
            willChangeValue(forKey: relationship.name)
            setPrimitive(nil, at: index)
            didChangeValue(forKey: relationship.name)
        }
    }

    /// `other` now points here through the inverse of `relationship`.
    func inverseAdd(_ other: NSManagedObject, via relationship: NSRelationshipDescription) {
        guard let index = layout.index(of: relationship.name) else { return }
        if relationship.isToMany {
            let members = toManyMembers(at: index)
            guard !members.contains(other) else { return }
            willChangeValue(forKey: relationship.name)
            if recordsUndo { noteUndoableChange(at: index) }
            members.appendAbsent(other)
            changedIndexes.insert(index)
            eventChangedIndexes.insert(index)
            didChangeValue(forKey: relationship.name)
        } else {
            fireFault()
            let previous = values[index] as? NSManagedObject
            guard previous !== other else { return }
            willChangeValue(forKey: relationship.name)
            setPrimitive(other, at: index)
            didChangeValue(forKey: relationship.name)
            // This object leaves its previous destination's side of the relationship.
            if let previous, let back = relationship.inverseRelationship {
                previous.inverseRemove(self, via: back)
            }
        }
    }
}
