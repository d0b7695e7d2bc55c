import Foundation

/// A value guarded by a lock, shareable across threads. (Synchronization's `Mutex` needs
/// newer Apple OS versions than Strata supports.)
final class Protected<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
