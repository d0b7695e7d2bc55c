import Foundation

/// What each merge policy does with objects that share a unique value (STORE-FORMAT §6.1):
/// which object survives, with which values, and what becomes of the others.
enum ConstraintResolution {
    static func resolve(_ conflict: NSConstraintConflict, policy: NSMergePolicyType) {
        let members = conflict.conflictingObjects
        guard let context = members.first?.managedObjectContext else { return }
        switch policy {
        case .errorMergePolicyType:
            return
        case .mergeByPropertyObjectTrumpMergePolicyType, .mergeByPropertyStoreTrumpMergePolicyType:
            // The existing row (or the first saved, or first made, object) keeps its identity;
            // the others' values move onto it and they are dropped.
            let survivor = conflict.databaseObject ?? members.first { !$0.objectID.isTemporaryID } ?? members[0]
            survivor.fireFault()
            for newcomer in members where newcomer !== survivor {
                copyValues(from: newcomer, onto: survivor, onlyMissing: policy == .mergeByPropertyStoreTrumpMergePolicyType)
                context.discard(newcomer)
            }
        case .overwriteMergePolicyType:
            // The newest object wins: the existing row is deleted, the other objects dropped.
            guard let winner = members.last(where: { $0.objectID.isTemporaryID }) ?? members.last else { return }
            if let database = conflict.databaseObject, database !== winner { context.delete(database) }
            for other in members where other !== winner { context.discard(other) }
        case .rollbackMergePolicyType:
            // The existing row (or the first object) stays as it is; the others' changes go.
            let keeper = conflict.databaseObject ?? members.first { !$0.objectID.isTemporaryID } ?? members[0]
            for other in members where other !== keeper { context.discard(other) }
        }
    }

    /// Copies the persistent values the newcomer set onto the survivor: all of them, or with
    /// `onlyMissing` only those the survivor lacks. To-many relationships are united.
    private static func copyValues(from newcomer: NSManagedObject, onto survivor: NSManagedObject, onlyMissing: Bool) {
        let constraintKeys = Set(newcomer.entity.uniquenessConstraintNames.flatMap { $0 })
        for index in newcomer.layout.persistentIndexes.sorted() where newcomer.changedIndexes.contains(index) {
            let property = newcomer.layout.properties[index]
            guard !property.isReadOnly, !constraintKeys.contains(property.name),
                let target = survivor.layout.indexByName[property.name]
            else { continue }
            switch newcomer.layout.kinds[index] {
            case .toMany:
                let destinations = newcomer.toManyObjects(at: index)
                let set = survivor.mutableSetValue(forKey: property.name)
                for destination in destinations where !set.contains(destination) { set.add(destination) }
            default:
                if onlyMissing && survivor.primitiveValue(at: target) != nil { continue }
                survivor.setValue(newcomer.primitiveValue(at: index), forKey: property.name)
            }
        }
    }
}

extension NSManagedObjectContext {
    /// Drops an object a constraint resolution decided against: a new object leaves the
    /// context (its relationships let go of it, without delete rules); a saved one loses its
    /// unsaved changes.
    func discard(_ object: NSManagedObject) {
        guard inserted.contains(object) else {
            refresh(object, mergeChanges: false)
            return
        }
        for (index, kind) in object.layout.kinds.enumerated() {
            guard let relationship = object.layout.properties[index] as? NSRelationshipDescription,
                let inverse = relationship.inverseRelationship
            else { continue }
            let destinations: [NSManagedObject]
            switch kind {
            case .toOne: destinations = (object.values[index] as? NSManagedObject).map { [$0] } ?? []
            case .toMany: destinations = object.toManyObjects(at: index)
            default: continue
            }
            for destination in destinations { destination.inverseRemove(object, via: inverse) }
        }
        inserted.remove(object)
        eventInserted.remove(object)
        unregister(object)
        object.managedObjectContext = nil
    }
}
