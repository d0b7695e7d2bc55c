import Foundation

/// What each merge policy does to an object whose row changed in the store since the context
/// read it (STORE-FORMAT §6.1). Afterwards the object's snapshot is the store's version, so
/// the save can be tried again.
enum OptimisticLockingResolution {
    static func resolve(_ conflict: NSMergeConflict, policy: NSMergePolicyType) {
        let object = conflict.sourceObject
        guard let context = object.managedObjectContext else { return }
        guard let stored = conflict.storedSnapshot else {
            // The row was deleted in the store: the object's changes have nowhere to go.
            context.forgetDeletedInStore(object)
            return
        }
        let layout = object.layout
        let cached = object.snapshot
        let changed = Set(object.changedIndexes).intersection(layout.persistentIndexes)
        var kept: Set<Int>
        switch policy {
        case .errorMergePolicyType:
            return
        case .rollbackMergePolicyType:
            kept = []
        case .overwriteMergePolicyType:
            kept = Set(layout.persistentIndexes)
        case .mergeByPropertyObjectTrumpMergePolicyType:
            kept = changed
        case .mergeByPropertyStoreTrumpMergePolicyType:
            // A property the store changed too takes the store's value.
            kept = changed.filter { index in
                guard let cached, !layout.isToMany(index) else { return true }
                return ValueEquality.same(cached.values[index], stored.values[index])
            }
        }
        let unions = policy == .mergeByPropertyObjectTrumpMergePolicyType || policy == .mergeByPropertyStoreTrumpMergePolicyType
        var toManyUnions: [Int: [NSManagedObject]] = [:]
        if unions {
            for index in changed where layout.isToMany(index) {
                let mine = object.toManyObjects(at: index)
                let theirs = context.storedRelationship(of: object, at: index)
                var seen = Set(mine.map(ObjectIdentifier.init))
                toManyUnions[index] = mine + theirs.filter { seen.insert(ObjectIdentifier($0)).inserted }
            }
        }
        let discarded = changed.subtracting(kept).subtracting(toManyUnions.keys)
        restoreInverses(of: object, at: discarded, stored: stored, in: context)
        object.merge(snapshot: stored, keeping: kept, in: context)
        for (index, objects) in toManyUnions { object.values[index] = objects }
        if kept.isEmpty && toManyUnions.isEmpty { context.forgetChanges(of: object) }
        object.keepLiveViewsCurrent()
    }
}

/// A relationship change has two sides: when a policy discards an object's change, the
/// destinations it added or removed get their inverse back as the store has it, or they would
/// save the link the object gave up (a many-to-many link is a row both sides write).
extension OptimisticLockingResolution {
    static func restoreInverses(
        of object: NSManagedObject, at indexes: Set<Int>, stored: Snapshot, in context: NSManagedObjectContext
    ) {
        for index in indexes.sorted() {
            guard let relationship = object.layout.properties[index] as? NSRelationshipDescription,
                let inverse = relationship.inverseRelationship
            else { continue }
            let mine: [NSManagedObject]
            let theirs: [NSManagedObject]
            if relationship.isToMany {
                mine = object.toManyObjects(at: index)
                theirs = context.storedRelationship(of: object, at: index)
            } else {
                mine = (object.values[index] as? NSManagedObject).map { [$0] } ?? []
                theirs = (stored.values[index] as? NSManagedObjectID).map { [context.object(with: $0)] } ?? []
            }
            let mineSet = Set(mine.map(ObjectIdentifier.init))
            let theirSet = Set(theirs.map(ObjectIdentifier.init))
            for added in mine where !theirSet.contains(ObjectIdentifier(added)) { added.inverseRemove(object, via: inverse) }
            for removed in theirs where !mineSet.contains(ObjectIdentifier(removed)) {
                removed.inverseAdd(object, via: inverse)
            }
        }
    }
}

extension NSManagedObjectContext {
    /// The destinations a to-many relationship of an object has in the store now.
    func storedRelationship(of object: NSManagedObject, at index: Int) -> [NSManagedObject] {
        guard let store = objectStore, !object.objectID.isTemporaryID,
            let relationship = object.layout.properties[index] as? NSRelationshipDescription,
            let ids = try? store.relatedObjectIDs(of: object.objectID, relationship: relationship)
        else { return [] }
        return ids.map { self.object(with: $0) }
    }

    /// An object whose changes were all discarded is no longer updated.
    func forgetChanges(of object: NSManagedObject) {
        object.changedIndexes.removeAll()
        updated.remove(object)
    }

    /// An object whose row another context or process deleted leaves the context's changes.
    func forgetDeletedInStore(_ object: NSManagedObject) {
        object.changedIndexes.removeAll()
        updated.remove(object)
        deleted.remove(object)
        unregister(object)
        object.isInaccessible = true
    }
}
