import Foundation
import StrataSyncProtocol

/// A client's hybrid logical clock: each reading it gives is greater than every reading it gave
/// before and every reading it had seen when the change was made, and close to the wall time
/// of the change, so that "last writer wins" means what a user expects across devices whose
/// clocks differ a little.
///
/// Readings are given when local history is exported, which may be long after the edit (a
/// device offline for a day). They are given *as of the edit*: a transaction's reading comes
/// from its history timestamp (`eventTime`), and readings seen on the server count only if
/// they were seen before that time. Otherwise an edit made offline would win over every edit
/// the device learned of when it came back, however much later those were made.
struct SyncClock: Sendable, Equatable {
    /// A reading seen on the server, with the wall time (milliseconds since 1970) it was seen.
    struct Sighting: Codable, Sendable, Equatable {
        var at: Int64
        var reading: HybridLogicalClock
    }

    /// The most sightings kept apart from `last`; past this the oldest are folded into it.
    static let maximumSightings = 256

    /// The latest reading given, and every sighting folded in (with this client as its node).
    private(set) var last: HybridLogicalClock
    /// Readings seen and not yet folded into `last`, oldest first; both their times and their
    /// readings increase (a sighting no greater than an earlier one adds nothing).
    private(set) var sightings: [Sighting]
    /// The wall time of the change being exported (its history transaction's timestamp); nil
    /// gives readings at the present time.
    var eventTime: Int64?

    init(node: String, last: HybridLogicalClock? = nil, sightings: [Sighting] = []) {
        self.last = HybridLogicalClock(
            wallMilliseconds: last?.wallMilliseconds ?? 0, counter: last?.counter ?? 0, node: node)
        self.sightings = sightings
    }

    /// The wall time now in milliseconds since 1970.
    static func wallMilliseconds(_ date: Date = Date()) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }

    /// A new reading for a local change made at `now` (by default the change being exported,
    /// else the present): the wall time when it is ahead of every reading given and seen by
    /// then, else one count past the latest of them.
    mutating func tick(now: Int64? = nil) -> HybridLogicalClock {
        let now = now ?? eventTime ?? Self.wallMilliseconds()
        fold(upTo: now)
        if now > last.wallMilliseconds {
            last = HybridLogicalClock(wallMilliseconds: now, counter: 0, node: last.node)
        } else {
            last = HybridLogicalClock(wallMilliseconds: last.wallMilliseconds, counter: last.counter &+ 1, node: last.node)
        }
        return last
    }

    /// Records a reading seen on the server at `at` (by default now), so that a local change
    /// made after that compares greater than it.
    mutating func observe(_ reading: HybridLogicalClock, at: Int64 = SyncClock.wallMilliseconds()) {
        let newest = sightings.last.map { Self.order($0.reading) } ?? Self.order(last)
        guard Self.order(reading) > newest else { return }
        if let previous = sightings.last, previous.at >= at {
            // Seen in the same instant as the previous sighting (or the wall clock went back).
            sightings[sightings.count - 1].reading = reading
        } else {
            sightings.append(Sighting(at: at, reading: reading))
        }
        if sightings.count > Self.maximumSightings { fold(upTo: sightings[sightings.count - Self.maximumSightings - 1].at) }
    }

    /// Folds the sightings made at or before `time` into `last`: no change made after `time`
    /// can be older than them.
    mutating func fold(upTo time: Int64) {
        var folded = 0
        for sighting in sightings {
            guard sighting.at <= time else { break }
            if Self.order(sighting.reading) > Self.order(last) {
                last = HybridLogicalClock(
                    wallMilliseconds: sighting.reading.wallMilliseconds, counter: sighting.reading.counter, node: last.node)
            }
            folded += 1
        }
        if folded > 0 { sightings.removeFirst(folded) }
    }

    /// Readings compare by time and counter; the node only breaks ties between devices.
    private static func order(_ reading: HybridLogicalClock) -> (Int64, UInt32) {
        (reading.wallMilliseconds, reading.counter)
    }

    /// The sightings as stored in the sync metadata (JSON); nil when there are none.
    var encodedSightings: String? {
        guard !sightings.isEmpty, let data = try? JSONEncoder().encode(sightings) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// Sightings read back from `encodedSightings`; none for anything unreadable (a sighting
    /// lost can only let a later local change lose to a reading seen before it).
    static func sightings(from text: String?) -> [Sighting] {
        guard let text, let sightings = try? JSONDecoder().decode([Sighting].self, from: Data(text.utf8)) else { return [] }
        return sightings
    }
}
