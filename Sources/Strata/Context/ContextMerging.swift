import Foundation

/// Bringing the changes other contexts saved into this one: objects they inserted come in as
/// faults, objects they updated are refreshed (keeping this context's unsaved changes),
/// objects they deleted leave this context, and observers hear of all three through
/// `NSManagedObjectContextObjectsDidChange`.
extension NSManagedObjectContext {
    /// Merges the changes a `NSManagedObjectContextDidSave` notification of another context
    /// describes. Call it on this context's queue.
    public func mergeChanges(fromContextDidSave notification: Notification) {
        advanceQueryGeneration()
        let changes = SavedObjectIDs(notification.userInfo ?? [:])
        merge(changes)
    }

    /// Merges changes saved elsewhere (another coordinator, a batch request, another process)
    /// into the contexts. `changeNotificationData` holds object IDs or their URIs under
    /// `NSInsertedObjectsKey`, `NSUpdatedObjectsKey` and `NSDeletedObjectsKey`.
    public static func mergeChanges(
        fromRemoteContextSave changeNotificationData: [AnyHashable: Any], into contexts: [NSManagedObjectContext]
    ) {
        for context in contexts {
            context.performAndWait {
                context.persistentStoreCoordinator.map { coordinator in
                    let changes = SavedObjectIDs(changeNotificationData, coordinator: coordinator)
                    coordinator.rowCache.remove(changes.updated + changes.deleted)
                    context.merge(changes)
                }
            }
        }
    }

    func merge(_ changes: SavedObjectIDs) {
        // Objects another context inserted come in as faults, as Apple's merge brings them,
        // so that observers of ObjectsDidChange and fetched results see them.
        for id in changes.inserted where registeredObject(for: id) == nil && !id.isTemporaryID {
            eventInserted.insert(object(with: id))
        }
        for id in changes.updated {
            guard let object = registeredObject(for: id) else { continue }
            if object.faulted {
                object.pendingSnapshot = nil
                continue
            }
            guard let snapshot = try? objectStore?.snapshot(for: id) else { continue }
            object.merge(snapshot: snapshot, keeping: object.changedIndexes, in: self)
            object.keepLiveViewsCurrent()
            eventRefreshed.insert(object)
        }
        for id in changes.deleted {
            guard let object = registeredObject(for: id) else { continue }
            forgetDeletedElsewhere(object)
            eventDeleted.insert(object)
        }
        processPendingChanges()
        postObjectIDs(
            Self.didMergeChangesObjectIDsNotification, inserted: changes.inserted, updated: changes.updated,
            deleted: changes.deleted)
    }

    /// An object deleted by another context: its relationships let go of it in memory (the
    /// store already holds the result), and it leaves this context.
    private func forgetDeletedElsewhere(_ object: NSManagedObject) {
        if !object.faulted {
            for (index, kind) in object.layout.kinds.enumerated() {
                guard let relationship = object.layout.properties[index] as? NSRelationshipDescription,
                    let inverse = relationship.inverseRelationship
                else { continue }
                let destinations: [NSManagedObject]
                switch kind {
                case .toOne: destinations = (object.values[index] as? NSManagedObject).map { [$0] } ?? []
                case .toMany: destinations = ToManyMembers.loadedObjects(in: object.values[index]) ?? []
                default: continue
                }
                for destination in destinations where !destination.faulted {
                    guard let back = destination.layout.indexByName[inverse.name] else { continue }
                    if inverse.isToMany {
                        // A relationship not loaded yet has nothing to let go of.
                        if !(destination.values[back] is RelationshipFault) {
                            destination.toManyMembers(at: back).remove(object)
                        }
                    } else if destination.values[back] as? NSManagedObject === object {
                        destination.values[back] = nil
                    }
                }
            }
        }
        inserted.remove(object)
        updated.remove(object)
        deleted.remove(object)
        unregister(object)
        object.isInaccessible = true
        object.managedObjectContext = nil
        // Its row is gone: without values and without a context, the object reads as empty,
        // as Apple's does after a batch delete is merged.
        object.turnIntoFault()
        object.keepLiveViewsCurrent()
    }

    /// Starts or stops merging the saves that reach this context's parent: for a context on
    /// a coordinator, the saves of the coordinator's other contexts (not of child contexts,
    /// whose saves stay in their parents); for a child context, its parent's saves and those
    /// of its siblings (which push their changes into the parent).
    func updateAutomaticMerging() {
        if let mergeObserver {
            NotificationCenter.default.removeObserver(mergeObserver)
            self.mergeObserver = nil
        }
        guard automaticallyMergesChangesFromParent else { return }
        mergeObserver = NotificationCenter.default.addObserver(
            forName: .NSManagedObjectContextDidSave, object: nil, queue: nil
        ) { [weak self] notification in
            guard let self, let saver = notification.object as? NSManagedObjectContext, saver !== self,
                self.followsSaves(of: saver)
            else { return }
            // Read the IDs now, on the saving context's queue; merge on this context's queue,
            // before its next block runs: a `perform` block queued now, or a `performAndWait`
            // that comes first (it merges what is waiting when it starts, as Apple's, which
            // runs on the context's queue, would find the merge queued ahead of it).
            let changes = SavedObjectIDs(notification.userInfo ?? [:])
            self.waitingMerges.withLock { $0.append(changes) }
            if !self._automaticMergesWaitForBlocks { self.perform { self.mergeWaitingSaves() } }
        }
    }

    /// Merges the saves that reached this context since its last block, in their order.
    func mergeWaitingSaves() {
        let waiting = waitingMerges.withLock { waiting -> [SavedObjectIDs] in
            defer { waiting.removeAll() }
            return waiting
        }
        for changes in waiting {
            advanceQueryGeneration()
            merge(changes)
        }
    }
}

extension NSManagedObjectContext {
    /// Whether a save of `saver` changed what this context reads: the saver wrote to the same
    /// parent (context or coordinator), or is this context's parent.
    fileprivate func followsSaves(of saver: NSManagedObjectContext) -> Bool {
        if let parent { return saver === parent || saver.parent === parent }
        return saver.parent == nil && saver.persistentStoreCoordinator != nil
            && saver.persistentStoreCoordinator === persistentStoreCoordinator
    }
}

/// The object IDs of a save's inserted, updated and deleted objects.
struct SavedObjectIDs: @unchecked Sendable {
    var inserted: [NSManagedObjectID] = []
    var updated: [NSManagedObjectID] = []
    var deleted: [NSManagedObjectID] = []

    init(_ info: [AnyHashable: Any], coordinator: NSPersistentStoreCoordinator? = nil) {
        func ids(_ key: String) -> [NSManagedObjectID] {
            let values: [Any]
            switch info[key] {
            case let set as Set<NSManagedObject>: values = Array(set)
            case let set as Set<NSManagedObjectID>: values = Array(set)
            case let set as NSSet: values = set.allObjects
            case let array as [Any]: values = array
            default: values = []
            }
            return values.compactMap { value in
                switch value {
                case let object as NSManagedObject: object.objectID
                case let id as NSManagedObjectID: id
                case let url as URL: coordinator?.managedObjectID(forURIRepresentation: url)
                default: nil
                }
            }
        }
        inserted = ids(NSInsertedObjectsKey)
        updated = ids(NSUpdatedObjectsKey)
        deleted = ids(NSDeletedObjectsKey)
    }
}
