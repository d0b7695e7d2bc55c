import CoreData
import Foundation

extension PersistenceController {
    /// Every save that reaches the store from now on, as a `TodoChange`, in the order the saves
    /// finished: those of the DAOs' task contexts (every change the command line or the web
    /// API makes), and those of any other context on the container's coordinator.
    ///
    /// ```swift
    /// for await change in persistence.todoChanges() {
    ///     print("\(change.inserted.count) new, \(change.deleted.count) gone")
    /// }
    /// ```
    ///
    /// It follows the contexts' `NSManagedObjectContextDidSave`, which each posts on its own
    /// queue right after its save: the objects are read there, and only values cross over.
    /// A child context's save is not a change of the store (it lands in its parent), so it
    /// is told when the parent saves. Saves that touch no to-do, tag or place are skipped.
    /// Saves of other processes (and other coordinators) on the same file come through the
    /// store's remote change notifications, read from its persistent history: the to-dos they
    /// added or changed (a deleted to-do's id is not in history, so those come as an empty
    /// change, on which a page refetches). The stream buffers without limit,
    /// so its consumer must keep reading; ending the iteration (or cancelling its task) removes
    /// the observer.
    public func todoChanges() -> AsyncStream<TodoChange> {
        let (stream, continuation) = AsyncStream<TodoChange>.makeStream()
        let coordinator = container.persistentStoreCoordinator
        let observer = NotificationCenter.default.addObserver(
            forName: .NSManagedObjectContextDidSave, object: nil, queue: nil
        ) { notification in
            guard let context = notification.object as? NSManagedObjectContext, context.parent == nil,
                context.persistentStoreCoordinator === coordinator
            else { return }
            let change = TodoChange(savedObjects: notification.userInfo ?? [:])
            if !change.isEmpty {
                continuation.yield(change)
            }
        }
        let seen = HistoryBookmark(coordinator.currentPersistentHistoryToken(fromStores: nil))
        let remote = NotificationCenter.default.addObserver(
            forName: .NSPersistentStoreRemoteChange, object: coordinator, queue: nil
        ) { [weak self] _ in
            guard let self else { return }
            let context = newTaskContext()
            context.performAndWait {
                continuation.yield(remoteChange(after: seen, in: context))
            }
        }
        let token = ObserverToken(observer)
        let remoteToken = ObserverToken(remote)
        continuation.onTermination = { _ in
            NotificationCenter.default.removeObserver(token.observer)
            NotificationCenter.default.removeObserver(remoteToken.observer)
        }
        return stream
    }

    /// What the history after the bookmark did to the to-dos (read in `context`, on its
    /// queue); moves the bookmark to the last transaction read.
    private func remoteChange(after bookmark: HistoryBookmark, in context: NSManagedObjectContext) -> TodoChange {
        let request = NSPersistentHistoryChangeRequest.fetchHistory(after: bookmark.token)
        let transactions =
            (try? context.execute(request) as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction] ?? []
        if let last = transactions.last { bookmark.token = last.token }
        var inserted = Set<NSManagedObject>()
        var updated = Set<NSManagedObject>()
        for transaction in transactions {
            for change in transaction.changes ?? [] where change.changeType != .delete {
                guard let object = try? context.existingObject(with: change.changedObjectID) else { continue }
                if change.changeType == .insert { inserted.insert(object) } else { updated.insert(object) }
            }
        }
        return TodoChange(savedObjects: [NSInsertedObjectsKey: inserted, NSUpdatedObjectsKey: updated.subtracting(inserted)])
    }
}

/// The last history transaction a stream has told of; read and moved on the queue of the
/// context each remote change is read in (one at a time: notifications come from one thread).
private final class HistoryBookmark: @unchecked Sendable {
    var token: NSPersistentHistoryToken?

    init(_ token: NSPersistentHistoryToken?) {
        self.token = token
    }
}

/// A notification observer, handed to the stream's termination handler (which may run on any
/// thread). NotificationCenter's removal is thread-safe; the token itself is only passed back.
private final class ObserverToken: @unchecked Sendable {
    let observer: any NSObjectProtocol

    init(_ observer: any NSObjectProtocol) {
        self.observer = observer
    }
}
