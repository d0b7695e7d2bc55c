import Foundation

/// Runs async work to its end from synchronous code that must block until then, as Apple's
/// blocking calls do (`initializeCloudKitSchema`). The work runs on a thread of its own (a
/// task executor backed by a serial dispatch queue), not on Swift's cooperative pool, so
/// blocking a pool thread while waiting cannot starve the work itself, however few cores
/// the machine has.
enum BlockingWait {
    static func run<Value: Sendable>(_ work: @escaping @Sendable () async throws -> Value) throws -> Value {
        let executor = QueueTaskExecutor()
        let outcome = Protected<Result<Value, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task(executorPreference: executor) {
            do {
                let value = try await work()
                outcome.withLock { $0 = .success(value) }
            } catch {
                outcome.withLock { $0 = .failure(error) }
            }
            done.signal()
        }
        done.wait()
        guard let result = outcome.withLock({ $0 }) else {
            throw CocoaError(.featureUnsupported)
        }
        return try result.get()
    }
}

/// A task executor that runs its jobs one after another on a dispatch queue.
private final class QueueTaskExecutor: TaskExecutor, @unchecked Sendable {
    private let queue = DispatchQueue(label: "org.strata.blocking-wait")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
