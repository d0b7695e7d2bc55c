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
    /// Other processes writing the same file are not seen. The stream buffers without limit,
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
        let token = ObserverToken(observer)
        continuation.onTermination = { _ in
            NotificationCenter.default.removeObserver(token.observer)
        }
        return stream
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
