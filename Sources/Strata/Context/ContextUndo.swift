import Foundation

/// Undo and redo of a context's changes through its `undoManager`.
///
/// With an undo manager set, the context records each event's changes (`UndoRecorder`):
/// attribute values, both sides of relationship changes, insertions and deletions, including
/// what delete rules cascaded and nullified. When the event ends (`processPendingChanges()`,
/// which every `perform` block, `save()` and `undo()` run) it registers one operation that puts
/// all of it back, in one undo group. Undoing is itself recorded, as the redo.
///
/// ```swift
/// context.undoManager = UndoManager()
/// book.title = "Dune Messiah"
/// context.processPendingChanges()
/// context.undo()    // book.title is what it was; context.redo() sets it again
/// ```
///
/// Undo puts values back as changes: after a save, an undone object is updated again and the
/// next save writes the old values, as Apple's Core Data does.
extension NSManagedObjectContext {
    /// Reverses the last undo group of the context's undo manager: ends the current event (so
    /// that its changes are the group undone), then calls the manager's `undo()`. Does nothing
    /// without an undo manager.
    public func undo() {
        guard let undoManager else { return }
        performAndWait {
            processPendingChanges()
            undoManager.undo()
        }
    }

    /// Performs the last group of the undo manager's redo stack again.
    public func redo() {
        guard let undoManager else { return }
        performAndWait {
            processPendingChanges()
            undoManager.redo()
        }
    }

    /// Starts or stops recording when `undoManager` changes: each registered object learns
    /// whether its changes are recorded, so that without a manager a change costs one flag test.
    /// The operations the context registered with the previous manager leave it.
    func undoManagerDidChange(from old: UndoManager?) {
        guard undoManager !== old else { return }
        old?.removeAllActions(withTarget: self)
        undoRecorder = undoManager.map { UndoRecorder(context: self, manager: $0) }
        let records = undoRecorder != nil
        for object in registeredObjects { object.recordsUndo = records }
    }

    /// Where an object stands in this context, for undo.
    func undoMembership(of object: NSManagedObject) -> UndoMembership {
        guard object.managedObjectContext === self else { return .absent }
        if inserted.contains(object) { return .inserted }
        if deleted.contains(object) { return unsavedDeletes.contains(object) ? .inserted : .deleted }
        return .registered
    }

    // MARK: Applying an undo operation

    /// Puts back what an event changed: objects it took out come back, changed properties get
    /// their values from before the event, objects it brought in go out. Each side of every
    /// relationship was recorded, so values are put back as they were, without inverse upkeep,
    /// and objects go out without delete rules: the event's own cascades and nullifications are
    /// among what is put back. What this changes is recorded in turn, as the operation that
    /// reverses it (the redo of an undo, the undo of a redo).
    func applyUndo(_ event: UndoEvent) {
        performAndWait {
            guard let recorder = undoRecorder else { return }
            var returned: [NSManagedObject] = []
            var restored: [NSManagedObject] = []
            var removed: [NSManagedObject] = []
            for entry in event.entries where entry.membership == .inserted || entry.membership == .registered {
                if bringBack(entry.object) { returned.append(entry.object) }
            }
            for entry in event.entries where !entry.values.isEmpty {
                if restore(entry.values, of: entry.object, recorder: recorder) { restored.append(entry.object) }
            }
            for entry in event.entries where entry.membership == .absent || entry.membership == .deleted {
                if takeOut(entry.object) { removed.append(entry.object) }
            }
            if !removed.isEmpty {
                let withoutRules = Set(removed.map(ObjectIdentifier.init))
                pendingDeletes.removeAll { withoutRules.contains(ObjectIdentifier($0)) }
            }
            processPendingChanges()
            for object in returned { object.awakeFromSnapshotEvents(.undoDeletion) }
            for object in restored { object.awakeFromSnapshotEvents(.undoUpdate) }
            for object in removed { object.awakeFromSnapshotEvents(.undoInsertion) }
        }
    }

    /// An object the event deleted comes back: one deleted and not saved yet stops being
    /// deleted; one whose deletion was saved (or that was inserted and deleted unsaved) is
    /// inserted again, as a new object with its values.
    private func bringBack(_ object: NSManagedObject) -> Bool {
        switch undoMembership(of: object) {
        case .deleted:
            insert(object)
            eventInserted.insert(object)
            return true
        case .absent:
            guard object.managedObjectContext == nil, !object.isInaccessible else { return false }
            // Its row is gone (or never was): it is saved as a new row.
            object.snapshot = nil
            insert(object)
            return true
        case .inserted, .registered:
            return false
        }
    }

    /// Puts back property values; an object no longer in the context is left as it is.
    private func restore(
        _ values: [(index: Int, value: Any?)], of object: NSManagedObject, recorder: UndoRecorder
    ) -> Bool {
        guard object.managedObjectContext === self, !object.isInaccessible else { return false }
        object.fireFault()
        for (index, value) in values {
            let key = object.layout.name(at: index)
            object.willChangeValue(forKey: key)
            recorder.willChange(object, at: index)
            object.values[index] = value
            object.keyHint = Int32(truncatingIfNeeded: index)
            object.didChangeValue(forKey: key)
        }
        object.keepLiveViewsCurrent()
        return true
    }

    /// An object the event inserted (or brought back) goes out: unsaved, it leaves the context as
    /// if never inserted (observers hear of it among the deleted objects); saved since, it is
    /// deleted. Its delete rules do not run (the caller drops it from `pendingDeletes`).
    private func takeOut(_ object: NSManagedObject) -> Bool {
        switch undoMembership(of: object) {
        case .inserted:
            undoRecorder?.willChangeMembership(of: object)
            inserted.remove(object)
            eventInserted.remove(object)
            // Its values were put back just before (the event's changes to it): it leaves, and
            // is announced as deleted only.
            eventUpdated.remove(object)
            assignments[object.objectID] = nil
            unregister(object)
            object.managedObjectContext = nil
            eventDeleted.insert(object)
            return true
        case .registered:
            delete(object)
            return true
        case .deleted, .absent:
            return false
        }
    }
}

extension NSManagedObject {
    /// Records the value at `index` with the context's undo recorder before a change; objects
    /// call it only while `recordsUndo` is set, and it costs nothing to those that do not.
    @inline(never)
    func noteUndoableChange(at index: Int) {
        managedObjectContext?.undoRecorder?.willChange(self, at: index)
    }
}
