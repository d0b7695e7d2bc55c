import Foundation

/// Saving, as one pipeline that reads top to bottom: pending changes → `willSave` →
/// validation → the store's transaction (permanent IDs, optimistic locking) → new IDs and
/// snapshots → `didSave` → `NSManagedObjectContextDidSave`.
extension NSManagedObjectContext {
    /// Writes the context's changes to its store, all or nothing.
    ///
    /// Throws validation errors (1570, 1580, 1590, 1600, or 1560 with several), a merge
    /// error (133020) when another context or process changed a saved object meanwhile, or
    /// the store's error; the context keeps its changes then.
    public func save() throws {
        processPendingChanges()
        let metadataNeedsSaving =
            parent == nil && (persistentStoreCoordinator?.persistentStores.contains { $0.metadataNeedsSaving } ?? false)
        guard hasChanges || metadataNeedsSaving
        else { return }
        guard let store = objectStore else { throw noStoreError }

        NotificationCenter.default.post(name: .NSManagedObjectContextWillSave, object: self)
        // Each list is taken before its objects run: `willSave` may change the context's sets.
        for objects in [inserted.objects, updated.objects, deleted.objects] {
            for object in objects { object.willSave() }
        }
        processPendingChanges()
        // Delete rules the events left for the save (propagatesDeletesAtEndOfEvent false).
        if !pendingDeletes.isEmpty {
            propagateDeletes()
            processPendingChanges()
        }

        try checkEntities()
        try validateChanges()
        try resolveConstraintConflicts()

        var attempts = 0
        var saved: (inserted: [NSManagedObject], updated: [NSManagedObject], deleted: [NSManagedObject])
        var result: StoreSaveResult
        // The updated objects the request writes rows of, in the order of its updates.
        var written: [NSManagedObject]
        while true {
            saved = (inserted.objects, updated.objects, deleted.objects)
            let request: StoreSaveRequest
            (request, written) = saveRequest(inserted: saved.inserted, updated: saved.updated, deleted: saved.deleted)
            do {
                result = try store.save(request, assignments: assignments)
                break
            } catch let conflicts as VersionConflictError {
                // Optimistic locking failed: the merge policy brings the objects up to the
                // store's versions (or throws 133020), and the save is tried again. Another
                // save may commit between the policy's reading and the retry: each retry lost
                // to a save that went through, so the store moves on, and the save tries again
                // while its policy resolves, after a short random pause once it lost twice (so
                // that writers meeting each other do not meet again). Apple's resolves under
                // the store's lock (DEVIATIONS.md).
                let list = mergeConflicts(conflicts)
                attempts += 1
                guard attempts < Self.saveAttempts else { throw NSMergePolicy.mergeError(list) }
                try resolvedMergePolicy.resolve(mergeConflicts: list)
                processPendingChanges()
                if attempts >= 2 { usleep(UInt32.random(in: 0...UInt32(min(attempts, 20) * 250))) }
            }
        }

        // The store's rows come back in the request's order (the coordinator checks their
        // counts): the inserts' in the order of `saved.inserted`, the updates' in the order of
        // `written`.
        for (object, row) in zip(saved.inserted, result.inserted) {
            if row.objectID !== object.objectID { reassign(object, to: row.objectID) }
            object.snapshot = row
            object.changedIndexes.removeAll()
        }
        for (object, row) in zip(written, result.updated) { object.snapshot = row }
        for object in saved.updated { object.changedIndexes.removeAll() }
        if !result.refreshed.isEmpty {
            for object in saved.inserted + saved.updated {
                if let row = result.refreshed[object.objectID] { object.snapshot = row }
            }
        }
        for object in saved.deleted {
            unregister(object)
            object.managedObjectContext = nil
        }
        let sets = (
            inserted: notifiedSets.set(of: saved.inserted, in: \.inserted),
            updated: notifiedSets.set(of: saved.updated, in: \.updated),
            deleted: notifiedSets.set(of: saved.deleted, in: \.deleted)
        )
        clearChanges()
        advanceQueryGeneration()
        for objects in [saved.inserted, saved.updated, saved.deleted] {
            for object in objects { object.didSave() }
        }
        NotificationCenter.default.post(
            name: .NSManagedObjectContextDidSave, object: self,
            userInfo: savedUserInfo(sets))
        postObjectIDs(
            Self.didSaveObjectIDsNotification, inserted: saved.inserted.map(\.objectID),
            updated: saved.updated.map(\.objectID), deleted: saved.deleted.map(\.objectID))
    }

    /// How many times a save meets rows that changed before it gives up with 133020 under a
    /// policy that resolves conflicts: far more than writers racing for the same rows need.
    static let saveAttempts = 100

    /// The user info of `NSManagedObjectContextDidSave`: the saved objects, and the context's
    /// new query generation when it is pinned.
    private func savedUserInfo(
        _ sets: (inserted: Set<NSManagedObject>, updated: Set<NSManagedObject>, deleted: Set<NSManagedObject>)
    ) -> [AnyHashable: Any] {
        var info: [AnyHashable: Any] = [
            NSInsertedObjectsKey: sets.inserted, NSUpdatedObjectsKey: sets.updated, NSDeletedObjectsKey: sets.deleted,
        ]
        if let generationToken { info[NotificationKey.queryGeneration.rawValue] = generationToken }
        return info
    }

    /// Objects whose entity is not in the model cannot be saved (a class that no model
    /// entity names, or `insertNewObject` with an unknown name).
    private func checkEntities() throws {
        guard let model else { return }
        let known = Set(model.entities.map(ObjectIdentifier.init))
        for object in inserted.objects where !known.contains(ObjectIdentifier(object.entity)) {
            throw CoreDataError.make(
                NSCoreDataError,
                "\(type(of: object)) has no entity in the model (looked for \"\(object.entity.name ?? "?")\"); "
                    + "name the class in the entity's class name.",
                userInfo: [NSAffectedObjectsErrorKey: [object]])
        }
    }

    /// The store's part of the save: full rows for inserts, changed columns for updates.
    /// The store's request for the changes, with the updated objects whose rows it writes (in
    /// the order of its updates; an object with only transient changes writes none).
    private func saveRequest(
        inserted: [NSManagedObject], updated: [NSManagedObject], deleted: [NSManagedObject]
    ) -> (StoreSaveRequest, written: [NSManagedObject]) {
        var request = StoreSaveRequest()
        request.author = transactionAuthor
        request.contextName = name
        request.attachedWrite = attachedStoreWrite
        attachedStoreWrite = nil
        var written: [NSManagedObject] = []
        // A child's save passes transient attributes to its parent too, as Apple's does; a
        // store keeps none of them.
        let toParent = parentStore != nil
        request.inserts.reserveCapacity(inserted.count)
        for object in inserted {
            let layout = object.layout
            request.inserts.append(
                RowChange(
                    objectID: object.objectID, values: storeValues(of: object, keepingTransients: toParent),
                    changed: toParent ? layout.childSaveIndexes : layout.persistentIndexes, expectedVersion: 0))
        }
        for object in updated {
            let saved = toParent ? object.layout.childSaveIndexes : object.layout.persistentIndexes
            let persistent = saved.filter(object.changedIndexes.contains)
            guard !persistent.isEmpty, !object.objectID.isTemporaryID else { continue }
            request.updates.append(
                RowChange(
                    objectID: object.objectID, values: storeValues(of: object, keepingTransients: toParent),
                    changed: persistent, expectedVersion: object.expectedVersion))
            written.append(object)
        }
        for object in deleted where !object.objectID.isTemporaryID && !object.isInaccessible {
            request.deletes.append(
                RowChange(objectID: object.objectID, values: .empty, changed: [], expectedVersion: object.expectedVersion))
        }
        return (request, written)
    }

    /// An object's values in store form; to-many relationships not loaded stay `nil`.
    ///
    /// The object's own array is the start: its stored attributes are already in store form,
    /// so that an entity without relationships or transient attributes shares the array
    /// instead of copying it value by value.
    /// With `keepingTransients`, transient attributes keep their values (a child's save to its
    /// parent).
    func storeValues(of object: NSManagedObject, keepingTransients: Bool = false) -> ValueRow {
        let layout = object.layout
        guard object.values.count == layout.properties.count else {
            var values = ValueRow(shape: layout.valueShape)
            for index in keepingTransients ? layout.childSaveIndexes : layout.persistentIndexes
            where index < object.values.count {
                values[index] = Self.storeValue(object.values[index], kind: layout.kinds[index])
            }
            return values
        }
        var values = object.values
        for index in layout.objectOnlyIndexes {
            if keepingTransients && layout.kinds[index] == .attribute { continue }
            // Relationships become IDs; transient attributes and fetched properties are not stored.
            let persistent =
                (layout.kinds[index] == .toOne || layout.isToMany(index)) && !layout.properties[index].isTransient
            let stored = persistent ? Self.storeValue(values[index], kind: layout.kinds[index]) : nil
            // Writing nil over nil would still copy the array the object shares.
            if stored == nil && values[index] == nil { continue }
            values[index] = stored
        }
        return values
    }

    /// A persistent property's value in store form: destinations as IDs (`nil` for a to-many
    /// relationship not loaded).
    private static func storeValue(_ value: Any?, kind: EntityLayout.Kind) -> Any? {
        switch kind {
        case .toOne: (value as? NSManagedObject)?.objectID
        case .toMany: ToManyMembers.loadedObjects(in: value)?.map(\.objectID)
        default: value
        }
    }

    /// Uniqueness conflicts among the context's objects and with the store, resolved by the
    /// merge policy (the error policy throws 133021 listing them all).
    private func resolveConstraintConflicts() throws {
        for _ in 0..<3 {
            let conflicts = try constraintConflicts()
            guard !conflicts.isEmpty else { return }
            try resolvedMergePolicy.resolve(mergeConflicts: conflicts)
            processPendingChanges()
        }
        let remaining = try constraintConflicts()
        if !remaining.isEmpty { throw NSMergePolicy.constraintError(remaining) }
    }

    /// An `NSMergeConflict` for each object whose row changed in the store.
    private func mergeConflicts(_ error: VersionConflictError) -> [NSMergeConflict] {
        error.conflicts.compactMap { conflict -> NSMergeConflict? in
            guard let object = registeredObject(for: conflict.objectID) else { return nil }
            let merge = NSMergeConflict(
                source: object, newVersion: Int(conflict.storedVersion), oldVersion: Int(conflict.expectedVersion),
                cachedSnapshot: object.snapshot.map { Self.namedValues($0.values, layout: object.layout) },
                persistedSnapshot: conflict.storedSnapshot.map { Self.namedValues($0.values, layout: object.layout) })
            merge.setObjectSnapshot(Self.namedValues(storeValues(of: object), layout: object.layout))
            merge.storedSnapshot = conflict.storedSnapshot
            return merge
        }
    }
}
