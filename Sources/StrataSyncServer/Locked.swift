import Foundation

/// A value behind a lock, shared between tasks and threads. The standard library's `Mutex`
/// needs macOS 15 and the package supports macOS 14, so the server and its test support use
/// this instead.
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, the lock held; keep it short and never suspend in it.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
