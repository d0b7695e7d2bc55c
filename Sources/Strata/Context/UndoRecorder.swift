import Foundation

/// Where an object stands in its context, as far as undo is concerned: what an undo puts back.
enum UndoMembership: Equatable {
    /// Not in the context: never inserted, removed by undoing its insertion, inserted and deleted
    /// before any save, or deleted by a save.
    case absent
    /// Inserted and not saved yet.
    case inserted
    /// Saved (fetched or saved by this context) and not deleted.
    case registered
    /// Saved, and deleted at the next save.
    case deleted
}

/// What one event changed, as the undo operation that reverses it needs it: for each object
/// touched, where it stood before the event (when the event moved it) and the values its
/// changed properties had before their first change in the event.
struct UndoEvent {
    struct Entry {
        let object: NSManagedObject
        /// Where the object stood before the event, when the event moved it; `nil` when it did not.
        let membership: UndoMembership?
        /// The properties' values before the event, by position (to-many relationships as arrays).
        let values: [(index: Int, value: Any?)]
    }

    var entries: [Entry] = []
}

/// Records a context's changes for its undo manager, as Apple's Core Data does: the value of each
/// property of each object at its first change in an event (and where the object stood, at its
/// first insert or delete), then, when the event ends (`processPendingChanges()`), one undo
/// operation that restores them all.
///
/// Objects call in only while their context has one (`NSManagedObject.recordsUndo`), so a
/// context without an undo manager pays one flag test per change. Everything here runs on the
/// context's queue.
final class UndoRecorder: @unchecked Sendable {
    /// What an object looked like when the event first touched it.
    private struct Touched {
        let object: NSManagedObject
        let membership: UndoMembership
        var recorded = PropertyIndexSet()
        var values: [(index: Int, value: Any?)] = []
    }

    /// The context owns the recorder, so it outlives it.
    unowned let context: NSManagedObjectContext
    let manager: UndoManager
    private var touched: [Touched] = []
    /// Each touched object's place in `touched` (`touched` keeps the objects, and their
    /// addresses, alive).
    private var positions = IdentityPositions()
    /// The object touched last and its place: setting several properties of one object in a row
    /// looks it up once.
    private var last: (object: ObjectIdentifier, position: Int)?
    private var checkpointObserver: (any NSObjectProtocol)?
    /// Set while the context processes its pending changes for a checkpoint of the manager, and
    /// while it closes the manager's automatic group: a checkpoint then is the recorder's own.
    private var isHandlingCheckpoint = false
    private var isClosingGroup = false

    init(context: NSManagedObjectContext, manager: UndoManager) {
        self.context = context
        self.manager = manager
        // The manager asks its clients to register what they hold back before it opens or closes
        // a group and before it undoes or redoes: the context ends its event then.
        checkpointObserver = NotificationCenter.default.addObserver(
            forName: .NSUndoManagerCheckpoint, object: manager, queue: nil
        ) { [weak self] _ in
            self?.checkpoint()
        }
    }

    deinit {
        if let checkpointObserver { NotificationCenter.default.removeObserver(checkpointObserver) }
    }

    // MARK: Recording

    /// Notes the value at `index` before its first change in this event.
    func willChange(_ object: NSManagedObject, at index: Int) {
        guard manager.isUndoRegistrationEnabled else { return }
        let position = position(of: object)
        // An object new to the context in this event is recorded too: undoing the event takes it
        // out, and its own side of the relationships the event set goes back with it (a note
        // inserted and given a habit no longer points at the habit after the undo).
        guard !touched[position].recorded.contains(index) else { return }
        touched[position].recorded.insert(index)
        touched[position].values.append((index, Self.value(of: object, at: index)))
    }

    /// Notes where an object stands before the event inserts or deletes it.
    func willChangeMembership(of object: NSManagedObject) {
        guard manager.isUndoRegistrationEnabled else { return }
        _ = position(of: object)
    }

    private func position(of object: NSManagedObject) -> Int {
        let id = ObjectIdentifier(object)
        if let last, last.object == id { return last.position }
        let position: Int
        if let known = positions[id] {
            position = known
        } else {
            // The event's first change: its group opens now (see `beginAutomaticGroupIfNeeded`).
            if touched.isEmpty { manager.beginAutomaticGroupIfNeeded() }
            position = touched.count
            touched.append(Touched(object: object, membership: context.undoMembership(of: object)))
            positions.insert(id, position)
        }
        last = (id, position)
        return position
    }

    /// A property's current value as an undo restores it: to-many relationships as the array of
    /// their objects (loaded if need be, as the change about to happen would load them).
    private static func value(of object: NSManagedObject, at index: Int) -> Any? {
        guard object.layout.isToMany(index) else { return object.values[index] }
        return ToManyMembers.loadedObjects(in: object.values[index]) ?? object.toManyObjects(at: index)
    }

    // MARK: Ending the event

    /// The end of an event (`processPendingChanges()`): registers one undo operation for what
    /// the event changed, then closes the manager's automatic group, unless the event ends for
    /// the manager's own checkpoint (the manager closes its group itself then).
    func endEvent() {
        let event = takeEvent()
        if !event.entries.isEmpty {
            manager.registerUndo(withTarget: context) { context in context.applyUndo(event) }
        }
        guard !isHandlingCheckpoint else { return }
        isClosingGroup = true
        defer { isClosingGroup = false }
        manager.endAutomaticGroup()
    }

    /// The event recorded so far, and a fresh start. Objects that stand where they stood and have
    /// no earlier values (a new object inserted and deleted within the event) are left out.
    private func takeEvent() -> UndoEvent {
        var event = UndoEvent()
        event.entries.reserveCapacity(touched.count)
        for change in touched {
            let now = context.undoMembership(of: change.object)
            let membership = now == change.membership ? nil : change.membership
            guard membership != nil || !change.values.isEmpty else { continue }
            event.entries.append(UndoEvent.Entry(object: change.object, membership: membership, values: change.values))
        }
        discardEvent()
        return event
    }

    /// Forgets what the current event recorded (a rollback or reset discards those changes).
    func discardEvent() {
        touched.removeAll()
        positions.removeAll()
        last = nil
    }

    /// Forgets the current event and every operation of the manager (`rollback()`, `reset()`).
    func discardHistory() {
        discardEvent()
        manager.removeAllActions()
    }

    /// The manager opens or closes a group, or is about to undo or redo: the context processes
    /// its pending changes, so that they are registered in the group in effect.
    private func checkpoint() {
        guard !isHandlingCheckpoint, !isClosingGroup else { return }
        isHandlingCheckpoint = true
        defer { isHandlingCheckpoint = false }
        context.performAndWait { context.processPendingChanges() }
    }
}

#if canImport(Darwin)
    extension UndoManager {
        /// Apple's manager opens its groups by run-loop pass itself.
        func beginAutomaticGroupIfNeeded() {}
        /// Apple's manager closes its groups by run-loop pass itself.
        func endAutomaticGroup() {}
    }
#endif
