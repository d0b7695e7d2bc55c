import Foundation
internal import GRDB
import Synchronization

/// A read-only connection a store keeps for reads of one statement: a fetch, a fault's row,
/// a relationship fault, a batch of a batched fetch (issue 34). GRDB's pool hands out a reader
/// for each of those at a cost of its own (33k instructions a read: a key path made at every
/// call, a queue's `sync` within another's), as much as a small fetch's whole SQL; this
/// connection is taken with one atomic exchange. When another thread holds it, the read goes
/// through the pool as before, so concurrent readers still read at once.
///
/// Each read here is one statement in SQLite's own transaction, as through the pool's readers
/// (`unsafeRead`): it sees what was committed when it began. Reads pinned to a query generation
/// never come here (their connection holds the generation's snapshot).
final class SQLiteOwnReader: @unchecked Sendable {
    private let queue: DatabaseQueue
    private let busy = Atomic<Bool>(false)

    init(path: String, configuration: Configuration) throws {
        var configuration = configuration
        configuration.readonly = true
        queue = try DatabaseQueue(path: path, configuration: configuration)
    }

    /// Runs `body` on this connection when it is free, else on `fallback`.
    func read<T>(orThrough fallback: any DatabaseReader, _ body: (Database) throws -> T) throws -> T {
        guard busy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else {
            return try fallback.unsafeRead(body)
        }
        defer { busy.store(false, ordering: .releasing) }
        return try queue.unsafeRead(body)
    }

    func close() { try? queue.close() }
}

extension SQLiteStore {
    /// Runs a read of one statement on the store's own reader when `database` is the store's
    /// pool and the reader is free; otherwise on `database` (a query generation's snapshot, a
    /// store of one connection, or the pool while another thread reads).
    func readOneStatement<T>(_ database: any DatabaseReader, _ body: (Database) throws -> T) throws -> T {
        guard database is DatabasePool, let reader = ownReader() else { return try database.unsafeRead(body) }
        return try reader.read(orThrough: database, body)
    }
}
