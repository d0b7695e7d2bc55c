import Foundation
import Observation
import SwiftData
import Synchronization
import Testing

/// A model makes its observation registrar only when a tracking reads it; these check that
/// whatever was read before, outside or inside a tracking, on which thread, observers hear
/// exactly the changes of what they read.
@Suite("Observation of models (registrars made when tracked)")
struct ObservationProbeTests {
    @Test("this toolchain's Observation keeps the tracking in a thread-local variable the probe reads")
    func probeReadsThreadLocal() {
        #expect(_ObservationTrackingProbe.isAvailable, "without the probe every read makes a registrar")
        #expect(_ObservationTrackingProbe.readsThreadLocal)
        #expect(_ObservationTrackingProbe.works(by: .threadLocal) && _ObservationTrackingProbe.works(by: .registrar))
    }

    @Test(
        "each way of the probe sees every tracked read, nested and per thread, and tells untracked reads apart",
        arguments: _ObservationTrackingProbe.Way.allCases)
    func probe(way: _ObservationTrackingProbe.Way) throws {
        try #require(_ObservationTrackingProbe.works(by: way))
        let isTracking = { _ObservationTrackingProbe.isTracking(by: way) }
        // Reading the thread's own variable, no read on another thread counts.
        let exact = way == .threadLocal
        var inside = false
        var nested = false
        var afterNested = false
        withObservationTracking {
            inside = isTracking()
            withObservationTracking {
                nested = isTracking()
            } onChange: {
            }
            afterNested = isTracking()
        } onChange: {
        }
        #expect(inside && nested && afterNested)
        // Untracked reads: through the registrar, a tracking on another thread at the same
        // moment (other tests run beside this one) may count as tracked, which only costs a
        // registrar; the probe must not count every read.
        let untracked = (0..<1000).filter { _ in isTracking() }.count
        #expect(untracked < 500)
        if exact { #expect(untracked == 0) }
        let otherThread = Mutex(0)
        let done = DispatchSemaphore(value: 0)
        withObservationTracking {
            Thread {
                let count = (0..<1000).filter { _ in _ObservationTrackingProbe.isTracking(by: way) }.count
                otherThread.withLock { $0 = count }
                done.signal()
            }.start()
            done.wait()
        } onChange: {
        }
        #expect(otherThread.withLock { $0 } < 500, "a tracking on one thread does not track another's reads")
        if exact { #expect(otherThread.withLock { $0 } == 0) }
        // A tracking on a thread whose first question came under a tracking: then untracked.
        let first = Mutex<[Bool]>([])
        let finished = DispatchSemaphore(value: 0)
        Thread {
            var answers: [Bool] = []
            withObservationTracking {
                answers.append(_ObservationTrackingProbe.isTracking(by: way))
            } onChange: {
            }
            answers.append((0..<100).contains { _ in _ObservationTrackingProbe.isTracking(by: way) })
            first.withLock { $0 = answers }
            finished.signal()
        }.start()
        finished.wait()
        #expect(first.withLock { $0 }.first == true)
        if exact { #expect(first.withLock { $0 } == [true, false]) }
        // And back on this thread: tracked again, then not.
        var again = false
        withObservationTracking {
            again = isTracking()
        } onChange: {
        }
        #expect(again)
        if exact { #expect(!isTracking()) }
    }

    @Test("fetched models read outside a tracking first are observed once a tracking reads them")
    func readBeforeTracking() throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        for name in ["Oslo", "Bergen", "Tromsø"] { context.insert(Trip(name: name, destination: "Norway")) }
        try context.save()
        let reader = ModelContext(container)
        let trips = try reader.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(trips.map(\.name) == ["Bergen", "Oslo", "Tromsø"], "read, untracked")
        // Changed before any tracking: no observer can exist, and the value is kept.
        trips[0].destination = "Vestland"

        let changed = Atomic(0)
        withObservationTracking {
            _ = trips[0].destination
            _ = trips[1].name
        } onChange: {
            changed.add(1, ordering: .relaxed)
        }
        trips[2].name = "Alta"
        trips[1].destination = "Viken"
        #expect(changed.load(ordering: .relaxed) == 0, "properties and models not read under the tracking")
        trips[0].destination = "Hordaland"
        #expect(changed.load(ordering: .relaxed) == 1)
        trips[1].name = "Drammen"
        #expect(changed.load(ordering: .relaxed) == 1, "an observation fires once")
        #expect(trips.map(\.destination) == ["Hordaland", "Viken", "Norway"])
        try reader.save()
        let check = try ModelContext(container).fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(check.map(\.name) == ["Alta", "Bergen", "Drammen"])
    }

    @Test("a model first read under a tracking on another thread notifies that tracking's observer")
    func trackingOnAnotherThread() throws {
        let trip = Trip(name: "Rome", destination: "Italy")
        _ = trip.name
        let changed = Atomic(0)
        let tracked = DispatchSemaphore(value: 0)
        let box = UncheckedBox(trip)
        Thread {
            withObservationTracking {
                _ = box.value.destination
            } onChange: {
                changed.add(1, ordering: .relaxed)
            }
            tracked.signal()
        }.start()
        tracked.wait()
        trip.name = "Milan"
        #expect(changed.load(ordering: .relaxed) == 0)
        trip.destination = "Lombardy"
        #expect(changed.load(ordering: .relaxed) == 1)
    }

    @Test("the Observations sequence sees a model's changes")
    func observationsSequence() async throws {
        let trip = Trip(name: "Lyon", destination: "France")
        _ = trip.destination
        let box = UncheckedBox(trip)
        let values = Observations { box.value.destination }
        var iterator = values.makeAsyncIterator()
        #expect(await iterator.next() == "France")
        trip.destination = "Rhône"
        #expect(await iterator.next() == "Rhône")
    }
}

/// A model handed to another thread by a test that orders the accesses itself.
private struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
