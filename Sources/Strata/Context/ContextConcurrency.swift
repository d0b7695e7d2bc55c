import Foundation

/// The doors into a context: `perform`, `performAndWait` and `async perform`. Blocks of
/// one context never run at the same time; `perform` blocks run in order on the context's
/// queue (the main queue for a main-queue context), and pending changes are processed at
/// the end of each.
extension NSManagedObjectContext {
    /// Runs the block on the context's queue, later.
    public func perform(_ block: @escaping () -> Void) {
        let work = UncheckedSendable(block)
        targetQueue.async { [self] in
            runLocked {
                work.value()
                processPendingChanges()
            }
        }
    }

    /// Runs the block on the calling thread, serialised with the context's other work, and
    /// waits for it.
    public func performAndWait(_ block: () -> Void) {
        runLocked(block)
    }

    /// Runs the block serialised with the context's other work and returns its result.
    public func performAndWait<T>(_ block: () throws -> T) rethrows -> T {
        try runLocked(block)
    }

    /// Runs the block on the context's queue and returns its result, or throws its error.
    ///
    /// ```swift
    /// let count = try await context.perform { try context.count(for: request) }
    /// ```
    public func perform<T, E: Error>(
        schedule: ScheduledTaskType = .immediate, _ block: @escaping () throws(E) -> T
    ) async throws(E) -> T {
        if schedule == .immediate, isOnContextQueue {
            return try runLocked { () throws(E) -> T in
                defer { processPendingChanges() }
                return try block()
            }
        }
        let work = UncheckedSendable(block)
        let outcome = await withCheckedContinuation {
            (continuation: CheckedContinuation<UncheckedSendable<Result<T, E>>, Never>) in
            targetQueue.async { [self] in
                let result = runLocked { () -> Result<T, E> in
                    defer { processPendingChanges() }
                    return Result { () throws(E) -> T in try work.value() }
                }
                continuation.resume(returning: UncheckedSendable(result))
            }
        }
        return try outcome.value.get()
    }

    private var targetQueue: DispatchQueue {
        concurrencyType == .mainQueueConcurrencyType ? .main : queue
    }

    private var isOnContextQueue: Bool {
        if concurrencyType == .mainQueueConcurrencyType { return MainQueue.isCurrent }
        return DispatchQueue.getSpecific(key: Self.queueKey) == ObjectIdentifier(self)
    }

    func runLocked<T, E: Error>(_ block: () throws(E) -> T) throws(E) -> T {
        lock.lock()
        let outer = CurrentContext.enter(self)
        defer {
            CurrentContext.leave(restoring: outer)
            lock.unlock()
        }
        // Saves merged automatically come first, as the merge Apple's context queues does
        // (not inside a block of this context already running).
        if automaticallyMergesChangesFromParent, outer != Unmanaged.passUnretained(self).toOpaque() {
            mergeWaitingSaves()
        }
        return try block()
    }

    /// The context whose `perform` or `performAndWait` block runs on this thread, for
    /// `NSFetchRequest.execute()`.
    static var current: NSManagedObjectContext? { CurrentContext.context }
}

/// Whether the caller runs on the main queue: on the main thread, or in a block or main-actor
/// job the main queue runs on another thread (once the main thread has called `dispatchMain()`,
/// as a test runner may, a worker thread drains the main queue).
enum MainQueue {
    private static let key: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    static var isCurrent: Bool { Thread.isMainThread || DispatchQueue.getSpecific(key: key) == true }
}

/// The context of the block running on each thread (a thread-specific slot, saved and
/// restored around nested blocks).
enum CurrentContext {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    static var context: NSManagedObjectContext? {
        pthread_getspecific(key).map { Unmanaged<NSManagedObjectContext>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Makes the context current; returns the one it replaces.
    static func enter(_ context: NSManagedObjectContext) -> UnsafeMutableRawPointer? {
        let outer = pthread_getspecific(key)
        pthread_setspecific(key, Unmanaged.passUnretained(context).toOpaque())
        return outer
    }

    static func leave(restoring outer: UnsafeMutableRawPointer?) {
        pthread_setspecific(key, outer)
    }
}
