import CStrataRuntime
import Glibc
import Observation
import Synchronization

/// Whether an observation tracking (`withObservationTracking`, `Observations`) records the reads
/// made on the current thread: what a model asks before it makes its registrar.
///
/// Observation keeps the tracking under way in a thread-local variable: a pointer, set while a
/// tracking runs, which `ObservationRegistrar.access` reads (and records the read when it is
/// set). Observation exports no function to read it, but the variable is the one of its
/// library's thread-local block (`libswiftObservation.so`'s): the probe finds it the way that
/// library's own code does (`__tls_get_addr` with the library's module number, from the
/// dynamic linker), once a thread, and a getter then reads it for about 10 instructions (a read
/// through a registrar took 75). It does so only once it has seen, on a thread of its own
/// (which no tracking is under), the variable unset, then set under a tracking and a nested
/// one, then unset again; on a toolchain where that does not hold (Observation linked
/// statically, its state kept otherwise) it asks a registrar instead, as follows.
///
/// What Observation does with a read is public behaviour: `ObservationRegistrar.access` adds
/// the key path to the tracking's set of reads, which hashes it, and hashing a key path with a
/// subscript hashes the subscript's argument. The probe reads a subscript of its own through a
/// registrar of its own, and the argument's `hash(into:)` counts (atomically): a count that
/// moved during the read means a tracking took it. Outside any tracking `access` hashes
/// nothing. A tracking on another thread at the same moment can move the count too, which only
/// makes a registrar nobody needs; a tracked read always moves it, so no observer is lost. The
/// probe's registrar never changes, so the observers a tracking installs on it never fire.
///
/// The probe is checked once, under a tracking of its own. Were a toolchain's Observation to
/// take reads without hashing them, the check fails and every read counts as tracked: models
/// then make their registrars at their first read, as before, and observation stays whole.
public enum _ObservationTrackingProbe {
    /// Whether the reads on this thread are being tracked now (always true if the probe does
    /// not work with this toolchain's Observation).
    public static func isTracking() -> Bool { handle.isTracking() }

    /// Whether the probe tells tracked reads from others on this toolchain (checked once).
    public static var isAvailable: Bool { Probe.shared.observationModule != 0 || Probe.shared.works }

    /// Whether the probe reads Observation's thread-local variable itself (checked once), rather
    /// than asking a registrar of its own.
    public static var readsThreadLocal: Bool { Probe.shared.observationModule != 0 }

    /// The two ways the probe tells whether reads are tracked, each of which it can be asked
    /// through (to test them both): Observation's thread-local variable, read directly, or a
    /// read through a registrar of its own.
    public enum Way: Sendable, CaseIterable {
        case threadLocal, registrar
    }

    /// Whether this way tells tracked reads from others on this toolchain (checked once).
    public static func works(by way: Way) -> Bool {
        switch way {
        case .threadLocal: Probe.shared.observationModule != 0
        case .registrar: Probe.shared.works
        }
    }

    /// Whether the reads on this thread are being tracked now, asked this way (true when the
    /// way does not work here).
    public static func isTracking(by way: Way) -> Bool {
        switch way {
        case .threadLocal:
            return Probe.shared.observationModule == 0 || handle.isTracking()
        case .registrar:
            return Probe.shared.isTrackedRead()
        }
    }

    /// The probe, for a model's registrar to keep: asking it needs no global to be reached.
    public static var handle: Handle { Handle(probe: .passUnretained(Probe.shared)) }

    /// The shared probe, unretained (it lives as long as the process).
    public struct Handle: Sendable {
        fileprivate let probe: Unmanaged<Probe>

        /// Whether the reads on this thread are being tracked now (see `isTracking()`): once
        /// this thread has asked, and where the probe reads Observation's variable, a read of it
        /// through the address this thread keeps (inlined into each property's getter).
        @inlinable
        public func isTracking() -> Bool {
            if let variable = strata_tls_kept_first_pointer() { return variable.pointee != nil }
            return _isTrackingFirst()
        }

        /// `isTracking()` of a thread's first question, or of every one where the probe does
        /// not read Observation's variable.
        @usableFromInline
        func _isTrackingFirst() -> Bool { probe._withUnsafeGuaranteedRef { $0.isTracking() } }
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
        /// The module number of Observation's library, whose thread-local block starts with the
        /// tracking's pointer; 0 when the probe does not read it (see `threadLocalModule()`).
        let observationModule: UInt
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
            observationModule = Self.threadLocalModule()
        }

        func isTracking() -> Bool {
            if observationModule != 0 { return strata_tls_find_first_pointer(observationModule).pointee != nil }
            return isTrackedRead()
        }

        /// Whether a read through the probe's registrar is tracked (always true if that does
        /// not work either).
        @inline(never)
        func isTrackedRead() -> Bool { works ? Self.read(box, subject, keyPath, counter) : true }

        /// The module number of Observation's library when the first pointer of its
        /// thread-local block is the tracking's: unset on a new thread, set within a tracking,
        /// unset after it (checked on a thread of its own: the probe may be made under an app's
        /// tracking); else 0.
        private static func threadLocalModule() -> UInt {
            let module = strata_tls_module("libswiftObservation.so", UInt(MemoryLayout<UnsafeRawPointer>.size))
            guard module != 0 else { return 0 }
            let check = ThreadLocalCheck(module: module)
            let context = Unmanaged.passRetained(check).toOpaque()
            var thread = pthread_t()
            let started = pthread_create(
                &thread, nil,
                { context in
                    guard let context else { return nil }
                    Unmanaged<ThreadLocalCheck>.fromOpaque(context).takeRetainedValue().run()
                    return nil
                }, context)
            guard started == 0 else {
                Unmanaged<ThreadLocalCheck>.fromOpaque(context).release()
                return 0
            }
            pthread_join(thread, nil)
            return check.passed ? module : 0
        }

        @inline(__always)
        private static func read(
            _ box: RegistrarBox, _ subject: Subject, _ keyPath: KeyPath<Subject, Int>, _ counter: Counter
        ) -> Bool {
            let before = counter.count.load(ordering: .relaxed)
            box.registrar.access(subject, keyPath: keyPath)
            return counter.count.load(ordering: .relaxed) != before
        }
    }

    /// The check of Observation's thread-local variable, run on a thread of its own (which the
    /// thread that made it joins before reading the result).
    fileprivate final class ThreadLocalCheck: @unchecked Sendable {
        let module: UInt
        var passed = false

        init(module: UInt) { self.module = module }

        func run() {
            let before = strata_tls_pointer_is_set(module, 0)
            var within = false
            var nested = false
            var withinAfterNested = false
            withObservationTracking {
                within = strata_tls_pointer_is_set(module, 0)
                withObservationTracking {
                    nested = strata_tls_pointer_is_set(module, 0)
                } onChange: {
                }
                withinAfterNested = strata_tls_pointer_is_set(module, 0)
            } onChange: {
            }
            let after = strata_tls_pointer_is_set(module, 0)
            passed = !before && within && nested && withinAfterNested && !after
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
