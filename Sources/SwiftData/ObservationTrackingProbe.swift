import Observation
import Synchronization

/// Whether an observation tracking (`withObservationTracking`, `Observations`) records the reads
/// made on the current thread: what a model asks before it makes its registrar.
///
/// Observation keeps the tracking under way in a thread-local value it does not export, but
/// what it does with a read is public behaviour: `ObservationRegistrar.access` adds the key path
/// to the tracking's set of reads, which hashes it, and hashing a key path with a subscript
/// hashes the subscript's argument. The probe reads a subscript of its own through a registrar
/// of its own, and the argument's `hash(into:)` counts (atomically): a count that moved during
/// the read means a tracking took it. Outside any tracking `access` hashes nothing. A tracking
/// on another thread at the same moment can move the count too, which only makes a registrar
/// nobody needs; a tracked read always moves it, so no observer is lost. The probe's registrar
/// never changes, so the observers a tracking installs on it never fire.
///
/// The probe is checked once, under a tracking of its own. Were a toolchain's Observation to
/// take reads without hashing them, the check fails and every read counts as tracked: models
/// then make their registrars at their first read, as before, and observation stays whole.
public enum _ObservationTrackingProbe {
    /// Whether the reads on this thread are being tracked now (always true if the probe does
    /// not work with this toolchain's Observation).
    public static func isTracking() -> Bool { Probe.shared.isTracking() }

    /// Whether the probe tells tracked reads from others on this toolchain (checked once).
    public static var isAvailable: Bool { Probe.shared.works }

    /// The probe, for a model's registrar to keep: asking it needs no global to be reached.
    public static var handle: Handle { Handle(probe: .passUnretained(Probe.shared)) }

    /// The shared probe, unretained (it lives as long as the process).
    public struct Handle: Sendable {
        fileprivate let probe: Unmanaged<Probe>

        /// Whether the reads on this thread are being tracked now (see `isTracking()`).
        public func isTracking() -> Bool { probe._withUnsafeGuaranteedRef { $0.isTracking() } }
    }

    /// The probe's parts, made together (one lazy global to reach at each read). The
    /// registrar, of a type whose layout is only known at run time, is kept in a box of its
    /// own, so that this class's layout is fixed and each part is one load away.
    fileprivate final class Probe: Sendable {
        static let shared = Probe()

        /// Whether a read under a tracking moves the count. (A probe that counted untracked
        /// reads too would only make registrars nobody needs; one that missed a tracked read
        /// would lose observers, so that is what is checked. The check may itself run under an
        /// app's tracking, so it does not ask for an uncounted read.)
        let works: Bool
        let counter: Counter
        let subject: Subject
        nonisolated(unsafe) let keyPath: KeyPath<Subject, Int>
        let box: RegistrarBox

        init() {
            let counter = Counter()
            let subject = Subject()
            let box = RegistrarBox()
            let keyPath = \Subject.[Mark(counter: counter)]
            var counted = false
            withObservationTracking {
                counted = Self.read(box, subject, keyPath, counter)
            } onChange: {
            }
            self.counter = counter
            self.subject = subject
            self.keyPath = keyPath
            self.box = box
            works = counted
        }

        @inline(__always)
        func isTracking() -> Bool { works ? Self.read(box, subject, keyPath, counter) : true }

        @inline(__always)
        private static func read(
            _ box: RegistrarBox, _ subject: Subject, _ keyPath: KeyPath<Subject, Int>, _ counter: Counter
        ) -> Bool {
            let before = counter.count.load(ordering: .relaxed)
            box.registrar.access(subject, keyPath: keyPath)
            return counter.count.load(ordering: .relaxed) != before
        }
    }

    fileprivate final class RegistrarBox: Sendable {
        let registrar = ObservationRegistrar()
    }

    fileprivate final class Subject: Observable, Sendable {
        subscript(mark: Mark) -> Int { 0 }
    }

    fileprivate final class Counter: Sendable {
        let count = Atomic<Int>(0)
    }

    /// The subscript argument whose hashing counts.
    fileprivate struct Mark: Hashable, Sendable {
        let counter: Counter

        static func == (lhs: Mark, rhs: Mark) -> Bool { lhs.counter === rhs.counter }

        func hash(into hasher: inout Hasher) {
            counter.count.add(1, ordering: .relaxed)
            hasher.combine(ObjectIdentifier(counter))
        }
    }
}
