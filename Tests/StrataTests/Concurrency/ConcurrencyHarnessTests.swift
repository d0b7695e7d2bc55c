import Foundation
import GRDB
import StrataConcurrencyHarness
import Testing

@testable import Strata

/// Concurrency without lost updates (issue 33, RELIABILITY.md): writers in the view context,
/// private-queue contexts, a second coordinator on the same file and a second process save
/// into one store at once, under each of the five merge policies. Every save is either in the
/// store's history or reported as a merge conflict (the error policy only), and the store ends
/// exactly as replaying the saves in the order they committed, by the policy's rules, says:
/// no update vanishes that the policy did not discard.
@Suite struct ConcurrencyHarnessTests {
    private let scratch = ScratchFolder()

    static let policies: [NSMergePolicyType] = [
        .errorMergePolicyType, .mergeByPropertyStoreTrumpMergePolicyType,
        .mergeByPropertyObjectTrumpMergePolicyType, .overwriteMergePolicyType, .rollbackMergePolicyType,
    ]

    /// Saves per writer (`STRATA_CONCURRENCY_SAVES`) and runs per policy
    /// (`STRATA_CONCURRENCY_ROUNDS`): `scripts/concurrency-harness` runs many.
    static let saves = ProcessInfo.processInfo.environment["STRATA_CONCURRENCY_SAVES"].flatMap(Int.init) ?? 25
    static let rounds = ProcessInfo.processInfo.environment["STRATA_CONCURRENCY_ROUNDS"].flatMap(Int.init) ?? 1

    @Test(arguments: policies)
    func everyUpdateIsSavedOrReported(policy: NSMergePolicyType) async throws {
        let executable = try #require(
            BuiltExecutable.named("strata-concurrency-writer"), "the built strata-concurrency-writer was not found")
        var total = ConcurrencyOracle.Tally()
        for round in 0..<Self.rounds {
            let seed = UInt64(round) &* 1000 &+ UInt64(policy.rawValue)
            let folder = scratch.file("round-\(round)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let run = try await ConcurrencyRun.run(
                policy: policy, saves: Self.saves, seed: seed, store: folder.appendingPathComponent("Store.sqlite"),
                child: executable)
            let check = ConcurrencyOracle.check(run)
            for problem in check.problems { print("concurrency problem (policy \(policy.rawValue), seed \(seed)): \(problem)") }
            #expect(
                check.problems.isEmpty,
                "policy \(policy.rawValue), seed \(seed): \(check.problems.count) problems, the first: \(check.problems.prefix(5))"
            )
            total.add(check.tally)
        }
        print("concurrency \(ConcurrencyOracle.name(of: policy)): \(total)")
        #expect(total.tried == Self.rounds * Self.saves * ConcurrencyRun.writerCount)
        // The run met conflicts, so the policy had work to do: with stale snapshots in
        // several coordinators, dozens per run.
        #expect(total.conflicts > 0)
        if policy == .errorMergePolicyType {
            #expect(total.reported == total.conflicts)
        } else {
            #expect(total.reported == 0)
        }
    }

    /// The oracle finds a write that vanished, a save missing from the history, one that went
    /// through though it was reported, and a context that shows another state: the harness
    /// can fail.
    @Test func theOracleFindsWhatVanished() async throws {
        let executable = try #require(BuiltExecutable.named("strata-concurrency-writer"))
        let run = try await ConcurrencyRun.run(
            policy: .errorMergePolicyType, saves: 10, seed: 7, store: scratch.file("Store.sqlite"), child: executable)
        #expect(ConcurrencyOracle.check(run).problems == [])

        let lastSaved = try #require(run.records.last { $0.outcome == .saved && run.authors.contains($0.author) })
        let field = try #require(lastSaved.written.keys.sorted().first)
        let expected = ConcurrencyOracle.replay(run).state
        var vanished = run
        vanished.store[lastSaved.slot]?[field] = "lost"
        #expect(
            ConcurrencyOracle.check(vanished).problems.contains {
                $0.hasPrefix(
                    "the store: slot \(lastSaved.slot) field \(field): expected \(expected[lastSaved.slot]?[field] ?? "")")
            })

        var missing = run
        missing.authors.removeAll { $0 == lastSaved.author }
        #expect(
            ConcurrencyOracle.check(missing).problems.contains(
                "\(lastSaved.author) returned from save() but is not in the history"))

        if let refused = run.records.first(where: { $0.outcome == .conflict }) {
            var through = run
            through.authors.append(refused.author)
            #expect(
                ConcurrencyOracle.check(through).problems.contains(
                    "\(refused.author) was reported as a conflict but is in the history"))
        }

        var stale = run
        let someContext = try #require(stale.contexts.keys.sorted().first)
        stale.contexts[someContext]?[lastSaved.slot]?[field] = "stale"
        #expect(
            ConcurrencyOracle.check(stale).problems.contains {
                $0.hasPrefix("\(someContext): slot \(lastSaved.slot) field \(field)")
            })
    }

    /// The rules by which the oracle replays a save that met a change it had not seen (what
    /// each policy keeps, STORE-FORMAT §6.1), on one hand-made history.
    @Test(arguments: policies)
    func theOracleReplaysEachPolicysRule(policy: NSMergePolicyType) {
        let initial = ["a": "s0.a.0", "b": "s0.b.0", "c": "s0.c.0"]
        // w1 saves a and b; w2, from the same snapshot, saves b and c after it.
        let first = SaveRecord(
            writer: "w1", seq: 0, slot: "s0", snapshot: initial, written: ["a": "w1.0.a", "b": "w1.0.b"], outcome: .saved)
        let second = SaveRecord(
            writer: "w2", seq: 0, slot: "s0", snapshot: initial, written: ["b": "w2.0.b", "c": "w2.0.c"], outcome: .saved)
        let run = ConcurrencyRun(
            policy: policy, records: [first, second], authors: [first.author, second.author], store: [:], contexts: [:],
            marks: [], problems: [])
        let replay = ConcurrencyOracle.replay(run)
        let expected: [String: String] =
            switch policy {
            case .mergeByPropertyStoreTrumpMergePolicyType: ["a": "w1.0.a", "b": "w1.0.b", "c": "w2.0.c"]
            case .mergeByPropertyObjectTrumpMergePolicyType: ["a": "w1.0.a", "b": "w2.0.b", "c": "w2.0.c"]
            case .overwriteMergePolicyType: ["a": "s0.a.0", "b": "w2.0.b", "c": "w2.0.c"]
            // The error policy would have refused the second save; replayed, it is applied and
            // reported as a problem.
            case .errorMergePolicyType: ["a": "w1.0.a", "b": "w2.0.b", "c": "w2.0.c"]
            default: ["a": "w1.0.a", "b": "w1.0.b", "c": "s0.c.0"]
            }
        #expect(replay.state["s0"] == expected)
        #expect(replay.tally.conflicts == 1)
        #expect(replay.problems.isEmpty == (policy != .errorMergePolicyType))
    }
}

/// One run: the writers, what each recorded, and what the store and every context hold after.
struct ConcurrencyRun: Sendable {
    var policy: NSMergePolicyType
    var records: [SaveRecord]
    /// The transaction authors of the store's history, in the order they committed.
    var authors: [String]
    /// Each slot's fields as the file has them (read with SQL, not with Strata).
    var store: [String: [String: String]]
    /// Each slot's fields as each context shows them after `refreshAllObjects()`.
    var contexts: [String: [String: [String: String]]]
    /// The `Mark` rows: the saves the file holds.
    var marks: [String]
    var problems: [String]

    /// The writers: the view context, three private-queue contexts of the container (one of
    /// them merging the others' saves), two contexts of a second coordinator on the same
    /// file, and two in a second process.
    static let writerCount = 8

    static func run(
        policy: NSMergePolicyType, saves: Int, seed: UInt64, store url: URL, child executable: URL
    ) async throws -> ConcurrencyRun {
        let model = ConcurrencyHarness.model()
        let container = NSPersistentContainer(name: "Concurrency", managedObjectModel: model)
        let description = NSPersistentStoreDescription(url: url)
        for (key, value) in ConcurrencyHarness.storeOptions { description.setOption(value as? NSObject, forKey: key) }
        container.persistentStoreDescriptions = [description]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        try ConcurrencyHarness.makeSlots(in: container.newBackgroundContext())

        let second = NSPersistentStoreCoordinator(managedObjectModel: model)
        _ = try second.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: ConcurrencyHarness.storeOptions)

        func writer(_ name: String, _ context: NSManagedObjectContext, _ index: UInt64) -> ConcurrencyWriter {
            context.mergePolicy = NSMergePolicy(merge: policy)
            return ConcurrencyWriter(name: name, context: context, seed: seed &* 31 &+ index)
        }
        let view = container.viewContext
        view.automaticallyMergesChangesFromParent = true
        let merging = container.newBackgroundContext()
        merging.automaticallyMergesChangesFromParent = true
        let asynchronous = [
            writer("view", view, 0), writer("background-1", container.newBackgroundContext(), 1),
            writer("background-2", container.newBackgroundContext(), 2), writer("merging", merging, 3),
        ]
        let blocking = (1...2).map { index in
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = second
            return writer("second-\(index)", context, 3 + UInt64(index))
        }

        // The second process starts first: it saves while this one does.
        let process = Process()
        process.executableURL = executable
        process.arguments = [url.path, "\(policy.rawValue)", "\(saves)", "\(seed &* 31 &+ 100)", "process-1", "process-2"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let childOutput = Task.detached { output.fileHandleForReading.readDataToEndOfFile() }

        await withTaskGroup(of: Void.self) { group in
            for writer in asynchronous {
                group.addTask {
                    for _ in 0..<saves { await writer.context.perform { writer.saveOnce() } }
                }
            }
            for writer in blocking {
                group.addTask {
                    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                        Thread.detachNewThread {
                            for _ in 0..<saves { writer.context.performAndWait { writer.saveOnce() } }
                            done.resume()
                        }
                    }
                }
            }
        }
        let data = await childOutput.value
        process.waitUntilExit()
        var problems: [String] = []
        var reports = (asynchronous + blocking).map(\.report)
        if process.terminationStatus != 0 {
            problems.append("strata-concurrency-writer exited with status \(process.terminationStatus)")
        } else {
            reports += try JSONDecoder().decode([WriterReport].self, from: data)
        }
        problems += reports.flatMap(\.problems)

        // What every context shows once it forgets what it read.
        var contexts: [String: [String: [String: String]]] = [:]
        for writer in asynchronous + blocking {
            contexts[writer.name] = try await writer.context.perform {
                writer.context.refreshAllObjects()
                return try Self.slots(in: writer.context)
            }
        }
        let history = container.newBackgroundContext()
        let authors = try await history.perform {
            let result = try history.execute(
                NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?))
            let transactions = (result as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction] ?? []
            return transactions.map { $0.author ?? "" }.filter { $0 != ConcurrencyHarness.setUpAuthor }
        }
        for store in container.persistentStoreCoordinator.persistentStores {
            try container.persistentStoreCoordinator.remove(store)
        }
        for store in second.persistentStores { try second.remove(store) }

        // The file, read with SQL.
        let database = try DatabaseQueue(path: url.path)
        let (store, marks) = try await database.read { db in
            var slots: [String: [String: String]] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT ZNAME, ZA, ZB, ZC FROM ZSLOT") {
                let name: String = row["ZNAME"]
                slots[name] = ["a": row["ZA"] ?? "nil", "b": row["ZB"] ?? "nil", "c": row["ZC"] ?? "nil"]
            }
            let marks = try Row.fetchAll(db, sql: "SELECT ZWRITER, ZSEQ FROM ZMARK").map { row -> String in
                let writer: String = row["ZWRITER"]
                let seq: Int = row["ZSEQ"]
                return "\(writer)#\(seq)"
            }
            return (slots, marks)
        }
        try database.close()
        return ConcurrencyRun(
            policy: policy, records: reports.flatMap(\.records), authors: authors, store: store, contexts: contexts,
            marks: marks, problems: problems)
    }

    private static func slots(in context: NSManagedObjectContext) throws -> [String: [String: String]] {
        var slots: [String: [String: String]] = [:]
        for slot in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Slot")) {
            let name = ConcurrencyHarness.text(slot.value(forKey: "name"))
            slots[name] = Dictionary(
                uniqueKeysWithValues: ConcurrencyHarness.fields.map { ($0, ConcurrencyHarness.text(slot.value(forKey: $0))) })
        }
        return slots
    }
}

/// What must hold after a run.
enum ConcurrencyOracle {
    struct Tally: CustomStringConvertible {
        /// Saves tried, and saves that returned.
        var tried = 0
        var saved = 0
        /// Saves that met a change to their slot they had not seen (replayed), and those the
        /// error policy reported.
        var conflicts = 0
        var reported = 0
        /// Field writes of saves that returned: in the store at the end, replaced by a later
        /// save, or discarded by the policy (a conflicting field under the property-store-trump
        /// policy, every field of a conflicting save under the rollback policy).
        var written = 0
        var kept = 0
        var replaced = 0
        var discarded = 0

        mutating func add(_ other: Tally) {
            tried += other.tried
            saved += other.saved
            conflicts += other.conflicts
            reported += other.reported
            written += other.written
            kept += other.kept
            replaced += other.replaced
            discarded += other.discarded
        }

        var description: String {
            "\(tried) saves tried, \(saved) saved, \(conflicts) met a conflict, \(reported) reported as conflicts; "
                + "\(written) field writes: \(kept) kept, \(replaced) replaced by a later save, \(discarded) discarded by the policy, "
                + "\(written - kept - replaced - discarded) lost"
        }
    }

    static func name(of policy: NSMergePolicyType) -> String {
        switch policy {
        case .errorMergePolicyType: "error"
        case .mergeByPropertyStoreTrumpMergePolicyType: "mergeByPropertyStoreTrump"
        case .mergeByPropertyObjectTrumpMergePolicyType: "mergeByPropertyObjectTrump"
        case .overwriteMergePolicyType: "overwrite"
        case .rollbackMergePolicyType: "rollback"
        }
    }

    struct Replay {
        var state: [String: [String: String]]
        /// The save whose value each field holds.
        var setter: [String: [String: String]]
        var tally: Tally
        var problems: [String]
    }

    /// The saves in the order they committed, each applied as its policy says to the state
    /// the saves before it left. A save met a conflict when its slot's fields differ from
    /// its snapshot: every save that changes a slot writes a value no other write uses, so a
    /// slot never comes back to a state it left.
    static func replay(_ run: ConcurrencyRun) -> Replay {
        var state: [String: [String: String]] = [:]
        var setter: [String: [String: String]] = [:]
        for slot in ConcurrencyHarness.slotNames {
            state[slot] = Dictionary(
                uniqueKeysWithValues: ConcurrencyHarness.fields.map {
                    ($0, ConcurrencyHarness.initialValue(slot: slot, field: $0))
                })
            setter[slot] = [:]
        }
        var tally = Tally()
        var problems: [String] = []
        let byAuthor = Dictionary(run.records.map { ($0.author, $0) }, uniquingKeysWith: { first, _ in first })
        var applied: [(author: String, slot: String, field: String)] = []
        for author in run.authors {
            guard let record = byAuthor[author], record.outcome == .saved else { continue }
            let before = state[record.slot] ?? [:]
            var after = before
            var kept: [String] = []
            if before == record.snapshot {
                kept = Array(record.written.keys)
            } else {
                tally.conflicts += 1
                switch run.policy {
                case .errorMergePolicyType:
                    problems.append("\(author) committed over a change it had not seen (the error policy refuses it)")
                    kept = Array(record.written.keys)
                case .mergeByPropertyStoreTrumpMergePolicyType:
                    kept = record.written.keys.filter { before[$0] == record.snapshot[$0] }
                case .mergeByPropertyObjectTrumpMergePolicyType:
                    kept = Array(record.written.keys)
                case .overwriteMergePolicyType:
                    // The whole object as the context had it: its snapshot and its changes.
                    kept = Array(record.written.keys)
                    for field in ConcurrencyHarness.fields where record.written[field] == nil {
                        after[field] = record.snapshot[field]
                        setter[record.slot]?[field] = author
                    }
                default:
                    kept = []
                }
            }
            tally.discarded += record.written.count - kept.count
            for field in kept {
                after[field] = record.written[field]
                setter[record.slot]?[field] = author
                applied.append((author, record.slot, field))
            }
            state[record.slot] = after
        }
        for write in applied {
            if setter[write.slot]?[write.field] == write.author { tally.kept += 1 } else { tally.replaced += 1 }
        }
        tally.tried = run.records.count
        tally.saved = run.records.filter { $0.outcome == .saved }.count
        tally.reported = run.records.filter { $0.outcome == .conflict }.count
        tally.written = run.records.filter { $0.outcome == .saved }.reduce(0) { $0 + $1.written.count }
        tally.conflicts += tally.reported
        return Replay(state: state, setter: setter, tally: tally, problems: problems)
    }

    static func check(_ run: ConcurrencyRun) -> (problems: [String], tally: Tally) {
        var problems = run.problems
        // Every save that returned is in the history once; none reported as failed is.
        var seen: [String: Int] = [:]
        for author in run.authors { seen[author, default: 0] += 1 }
        for (author, count) in seen.sorted(by: { $0.key < $1.key }) where count > 1 {
            problems.append("\(author) is in the history \(count) times")
        }
        let known = Set(run.records.map(\.author))
        for author in seen.keys.sorted() where !known.contains(author) {
            problems.append("\(author) is in the history but no writer made it")
        }
        for record in run.records {
            switch record.outcome {
            case .saved:
                if seen[record.author] == nil {
                    problems.append("\(record.author) returned from save() but is not in the history")
                }
            case .conflict:
                if run.policy != .errorMergePolicyType {
                    problems.append("\(record.author) failed with a merge conflict under a policy that resolves them")
                }
                if seen[record.author] != nil {
                    problems.append("\(record.author) was reported as a conflict but is in the history")
                }
            }
        }
        // The file holds the marks of the saves that returned, and no others.
        let saved = Set(run.records.filter { $0.outcome == .saved }.map(\.author))
        if run.marks.sorted() != saved.sorted() {
            let marks = Set(run.marks)
            problems.append(
                "the marks in the file differ from the saves that returned: missing \(saved.subtracting(marks).sorted()), "
                    + "unexpected \(marks.subtracting(saved).sorted())")
        }
        let replay = replay(run)
        problems += replay.problems
        // A conflict reported was real: the slot moved on from the snapshot.
        for record in run.records where record.outcome == .conflict && replay.state[record.slot] == record.snapshot {
            problems.append("\(record.author) was reported as a conflict, but its slot never changed from its snapshot")
        }
        problems += differences(of: run.store, from: replay, in: "the store")
        for name in run.contexts.keys.sorted() {
            problems += differences(of: run.contexts[name] ?? [:], from: replay, in: name)
        }
        return (problems, replay.tally)
    }

    private static func differences(of held: [String: [String: String]], from replay: Replay, in place: String) -> [String] {
        var problems: [String] = []
        for slot in ConcurrencyHarness.slotNames {
            for field in ConcurrencyHarness.fields {
                let expected = replay.state[slot]?[field] ?? "absent"
                let actual = held[slot]?[field] ?? "absent"
                if expected != actual {
                    problems.append(
                        "\(place): slot \(slot) field \(field): expected \(expected) (by \(replay.setter[slot]?[field] ?? "the set-up")), holds \(actual)"
                    )
                }
            }
        }
        return problems
    }
}
