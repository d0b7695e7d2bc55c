import Foundation

/// Following the context: each `NSManagedObjectContextObjectsDidChange` (the context's own
/// changes at `processPendingChanges()`, and merges of other contexts' saves and of batch
/// requests) becomes one change of the results, which the delegate hears of.
///
/// Only the objects the notification names are looked at: each is checked against the
/// predicate in memory and given its new sort values, and takes or leaves its place by binary
/// search over the stored ones, O(log n) each.
extension FetchedResults {
    /// Starts listening to the context, once.
    func installObservers() {
        guard observers.isEmpty else { return }
        let box = WeakFetchedResults(self)
        let center = NotificationCenter.default
        observers = [
            center.addObserver(forName: .NSManagedObjectContextObjectsDidChange, object: context, queue: nil) {
                box.results?.receive($0)
            },
            center.addObserver(forName: NSManagedObjectContext.didMergeChangesObjectIDsNotification, object: context, queue: nil)
            { box.results?.receive($0) },
            center.addObserver(forName: .NSManagedObjectContextDidSave, object: context, queue: nil) {
                box.results?.receive($0)
            },
        ]
    }

    /// Handles a notification, or keeps it for later when it arrives while the delegate is
    /// being told of a change (a delegate that saves, for one).
    func receive(_ notification: Notification) {
        // Without a delegate the controller does not track changes, as Apple documents.
        guard hasFetched, delegate != nil else { return }
        queued.append(notification)
        guard !isReporting else { return }
        while !queued.isEmpty {
            let next = queued.removeFirst()
            switch next.name {
            case .NSManagedObjectContextObjectsDidChange: objectsDidChange(next.userInfo ?? [:])
            case .NSManagedObjectContextDidSave: contextDidSave(next.userInfo ?? [:])
            default: changesMerged(next.userInfo ?? [:])
            }
        }
    }

    /// One `ObjectsDidChange`: every object it names, once, becomes a change of the results or
    /// nothing; `reset()` (every object invalidated) reloads them.
    private func objectsDidChange(_ info: [AnyHashable: Any]) {
        if info[NSInvalidatedAllObjectsKey] != nil {
            reloadAfterReset()
            return
        }
        var seen = Set<ObjectIdentifier>()
        var changes: [FetchedChange] = []
        for key in [
            NSDeletedObjectsKey, NSInvalidatedObjectsKey, NSInsertedObjectsKey, NSUpdatedObjectsKey, NSRefreshedObjectsKey,
        ] {
            for object in Self.objects(in: info[key]) where seen.insert(ObjectIdentifier(object)).inserted {
                if let change = change(of: object) { changes.append(change) }
            }
        }
        apply(changes)
    }

    /// A merge announces the objects it refreshed or brought in, but not those that are faults
    /// or that this context did not hold: their IDs come in the merge's ID notification, and
    /// are looked at here (an object updated elsewhere may have come to match the predicate, as
    /// Apple's controller sees since iOS 10). Objects held with their values were announced.
    private func changesMerged(_ info: [AnyHashable: Any]) {
        var changes: [FetchedChange] = []
        var seen = Set<ObjectIdentifier>()
        for key in [NSManagedObjectContext.NotificationKey.insertedObjectIDs, .updatedObjectIDs] {
            for id in Self.objectIDs(in: info[key.rawValue]) {
                guard !id.isTemporaryID, entities.contains(ObjectIdentifier(id.entity)) else { continue }
                let object: NSManagedObject
                if let registered = context.registeredObject(for: id) {
                    guard registered.faulted else { continue }
                    object = registered
                } else {
                    object = context.object(with: id)
                }
                guard seen.insert(ObjectIdentifier(object)).inserted else { continue }
                if let change = change(of: object) { changes.append(change) }
            }
        }
        apply(changes)
    }

    /// Objects saved for the first time have permanent IDs now, which order ties: each takes
    /// its new tie in place when that keeps the order (the usual case: new rows get the highest
    /// keys, in the order the objects were made), otherwise it moves. They are taken in the
    /// order of the results, so that each one's predecessor already has its new tie.
    private func contextDidSave(_ info: [AnyHashable: Any]) {
        let saved = Self.objects(in: info[NSInsertedObjectsKey]).compactMap { object -> (Int, FetchedEntry)? in
            guard let entry = entriesByObject[ObjectIdentifier(object)], entry.tie != FetchedTie(object),
                let offset = offset(of: entry)
            else { return nil }
            return (offset, entry)
        }
        var changes: [FetchedChange] = []
        for (_, entry) in saved.sorted(by: { $0.0 < $1.0 }) {
            let tie = FetchedTie(entry.object)
            guard !retie(entry, to: tie) else { continue }
            let moved = FetchedEntry(object: entry.object, keys: entry.keys, tie: tie, sectionName: entry.sectionName)
            changes.append(FetchedChange(kind: .move, old: entry, new: moved))
        }
        apply(changes)
    }

    /// What happens to an object's place in the results, if anything.
    func change(of object: NSManagedObject) -> FetchedChange? {
        let old = entriesByObject[ObjectIdentifier(object)]
        guard old != nil || entities.contains(ObjectIdentifier(object.entity)) else { return nil }
        let new = wantedEntry(for: object)
        switch (old, new) {
        case (nil, nil): return nil
        case (nil, let new?): return FetchedChange(kind: .insert, old: nil, new: new)
        case (let old?, nil): return FetchedChange(kind: .delete, old: old, new: nil)
        case (let old?, let new?):
            if old.sectionName == new.sectionName && sameSortValues(old, new)
                && (old.tie == new.tie || retie(old, to: new.tie))
            {
                old.keys = new.keys
                return FetchedChange(kind: .update, old: old, new: old)
            }
            return FetchedChange(kind: .move, old: old, new: new)
        }
    }

    /// The entry an object should have: nil when it is not (or no longer) one of the results.
    private func wantedEntry(for object: NSManagedObject) -> FetchedEntry? {
        guard object.managedObjectContext === context, !object.isInaccessible, !context.isDeleted(object),
            !object.objectID.isTemporaryID || context.isInserted(object), accepts(object)
        else { return nil }
        if let predicate = plan?.predicate, !PredicateEvaluator.evaluate(predicate, with: object) { return nil }
        // Reading it may have found its row gone.
        guard !object.isInaccessible else { return nil }
        return makeEntry(object)
    }

    /// Gives an entry a new tie without moving it, when its neighbours stay on either side.
    private func retie(_ entry: FetchedEntry, to tie: FetchedTie) -> Bool {
        guard let offset = offset(of: entry) else { return false }
        let moved = FetchedEntry(object: entry.object, keys: entry.keys, tie: tie, sectionName: entry.sectionName)
        if offset > 0, !isBefore(entries.element(at: offset - 1), moved) { return false }
        if offset + 1 < entries.count, !isBefore(moved, entries.element(at: offset + 1)) { return false }
        entry.tie = tie
        return true
    }

    /// After `reset()` every object the controller held is forgotten: the results are fetched
    /// again, and the delegate told that everything left and came back.
    private func reloadAfterReset() {
        let oldSections = sections.all
        let oldEntries = entries.all
        var list: [FetchedEntry] = []
        if let objects = try? request.fetchObjects(in: context) {
            list = objects.map(makeEntry).sorted(by: isBefore)
        }
        rebuild(from: list)
        report(reloadFrom: oldEntries, sections: oldSections)
    }

    // MARK: Reading notifications

    /// The objects under a notification's key, whichever collection holds them.
    static func objects(in value: Any?) -> [NSManagedObject] {
        switch value {
        case let set as Set<NSManagedObject>: Array(set)
        case let array as [NSManagedObject]: array
        case let set as NSSet: set.allObjects.compactMap { $0 as? NSManagedObject }
        case let array as [Any]: array.compactMap { $0 as? NSManagedObject }
        default: []
        }
    }

    /// The object IDs under a notification's key, whichever collection holds them.
    static func objectIDs(in value: Any?) -> [NSManagedObjectID] {
        switch value {
        case let set as Set<NSManagedObjectID>: Array(set)
        case let array as [NSManagedObjectID]: array
        case let set as NSSet: set.allObjects.compactMap { $0 as? NSManagedObjectID }
        case let array as [Any]: array.compactMap { $0 as? NSManagedObjectID }
        default: []
        }
    }
}

/// The results, held weakly by the context's notification observers (which outlive nothing).
private final class WeakFetchedResults: @unchecked Sendable {
    weak var results: FetchedResults?
    init(_ results: FetchedResults) { self.results = results }
}
