import Foundation
import StrataSyncProtocol

/// A client's hybrid logical clock: each reading it gives is greater than every reading it gave
/// or saw before, and close to the wall time, so that "last writer wins" means what a user
/// expects across devices whose clocks differ a little.
struct SyncClock: Sendable, Equatable {
    /// The latest reading given or seen (with this client as its node).
    private(set) var last: HybridLogicalClock

    init(node: String, last: HybridLogicalClock? = nil) {
        self.last = HybridLogicalClock(
            wallMilliseconds: last?.wallMilliseconds ?? 0, counter: last?.counter ?? 0, node: node)
    }

    /// The wall time now in milliseconds since 1970.
    static func wallMilliseconds(_ date: Date = Date()) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }

    /// A new reading for a local change: the wall time when it is ahead, else one count past the
    /// last reading.
    mutating func tick(now: Int64 = SyncClock.wallMilliseconds()) -> HybridLogicalClock {
        if now > last.wallMilliseconds {
            last = HybridLogicalClock(wallMilliseconds: now, counter: 0, node: last.node)
        } else {
            last = HybridLogicalClock(wallMilliseconds: last.wallMilliseconds, counter: last.counter &+ 1, node: last.node)
        }
        return last
    }

    /// Moves the clock past a reading seen on the server, so that the next local change
    /// compares greater than it.
    mutating func observe(_ reading: HybridLogicalClock) {
        if (reading.wallMilliseconds, reading.counter) > (last.wallMilliseconds, last.counter) {
            last = HybridLogicalClock(wallMilliseconds: reading.wallMilliseconds, counter: reading.counter, node: last.node)
        }
    }
}
