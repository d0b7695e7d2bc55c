import Foundation
import Testing

@testable import Strata

/// Many random changes (inserts, deletes, changes of sort keys, of the section, of what the
/// predicate reads, of other attributes; saved or not; some made in another context and
/// merged), after each of which the delegate's callbacks, applied to a copy of the old results
/// as a table view applies them, must give what a new fetch gives.
@Suite struct FetchedResultsRandomTests {
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        /// SplitMix64: every bit of the result varies (`Int.random(in:using:)` reads the high ones).
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// The state of one run: the store, the contexts, the notes and the next serial.
    final class Run {
        var random: Generator
        let context: NSManagedObjectContext
        let other: NSManagedObjectContext
        var topics: [NSManagedObject] = []
        var serial: Int64 = 0

        init(seed: UInt64, store: ScratchStore) {
            random = Generator(state: seed)
            context = store.newContext()
            other = store.newContext()
            // Both change topics (the inverse of a note's topic): the newest values win.
            context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
            other.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        }

        func int(_ range: Range<Int>) -> Int { Int.random(in: range, using: &random) }
        func chance(_ percent: Int) -> Bool { int(0..<100) < percent }

        var notes: [NSManagedObject] {
            context.registeredObjects.filter { $0.entity.name == "Note" && !$0.isDeleted && !$0.objectID.isTemporaryID }
                + context.insertedObjects.filter { $0.entity.name == "Note" }
        }

        func setUp() throws {
            for index in 0..<6 { topics.append(FetchedNotes.topic("t\(index)", in: context)) }
            for _ in 0..<40 { insert() }
            try context.save()
        }

        func insert() {
            serial += 1
            FetchedNotes.note(
                "n\(serial)", topic: topics[int(0..<topics.count)], rank: Int64(int(0..<5)), serial: serial,
                shown: chance(75), in: context)
        }

        /// One random change of a random note.
        func change() {
            let notes = self.notes.sorted {
                ($0.value(forKey: "serial") as? Int64 ?? 0) < ($1.value(forKey: "serial") as? Int64 ?? 0)
            }
            guard !notes.isEmpty, int(0..<8) != 0 else { return insert() }
            let note = notes[int(0..<notes.count)]
            switch int(0..<6) {
            case 0: context.delete(note)
            case 1: note.setValue(Int64(int(0..<5)), forKey: "rank")
            case 2: note.setValue(!(note.value(forKey: "shown") as? Bool ?? true), forKey: "shown")
            case 3: note.setValue(topics[int(0..<topics.count)], forKey: "topic")
            case 4: note.setValue("body \(int(0..<1000))", forKey: "body")
            default:
                note.setValue(Int64(int(0..<5)), forKey: "rank")
                note.setValue(topics[int(0..<topics.count)], forKey: "topic")
            }
        }

        /// Sections as text: each note's title, for failure messages.
        func describe(_ sections: [TableMirror.Section]) -> String {
            var titles: [ObjectIdentifier: String] = [:]
            for object in context.registeredObjects {
                titles[ObjectIdentifier(object)] = object.value(forKey: "title") as? String
            }
            return sections.map { "\($0.name): " + $0.rows.map { titles[$0] ?? "?" }.joined(separator: " ") }
                .joined(separator: " | ")
        }

        /// Changes made and saved in the other context, merged by its did-save notification.
        func mergeFromOther() throws {
            let saved = LockedNotifications()
            let observer = NotificationCenter.default.addObserver(
                forName: .NSManagedObjectContextDidSave, object: other, queue: nil
            ) { saved.append($0) }
            defer { NotificationCenter.default.removeObserver(observer) }
            let ids = notes.filter { !$0.objectID.isTemporaryID && !$0.hasChanges }.map(\.objectID)
            let topicIDs = topics.map(\.objectID)
            let count = int(1..<4)
            let choices = (0..<count).map { _ in (int(0..<max(ids.count, 1)), int(0..<4), int(0..<5), int(0..<topicIDs.count)) }
            serial += 1
            let newSerial = serial
            try other.performAndWait {
                for (index, kind, value, topic) in choices where !ids.isEmpty {
                    let note = other.object(with: ids[index])
                    guard !note.isDeleted else { continue }
                    switch kind {
                    case 0: note.setValue(Int64(value), forKey: "rank")
                    case 1: note.setValue(value % 2 == 0, forKey: "shown")
                    case 2: note.setValue(other.object(with: topicIDs[topic]), forKey: "topic")
                    default: other.delete(note)
                    }
                }
                FetchedNotes.note(
                    "m\(newSerial)", topic: other.object(with: topicIDs[Int(newSerial) % topicIDs.count]), rank: 2,
                    serial: newSerial, shown: true, in: other)
                try other.save()
                other.reset()
            }
            if let notification = saved.first { context.mergeChanges(fromContextDidSave: notification) }
        }
    }

    /// What a new fetch gives, as a table's sections.
    private func refetched(_ controller: NSFetchedResultsController<NSManagedObject>) throws -> [TableMirror.Section] {
        let context = controller.managedObjectContext
        let objects = try context.fetch(controller.fetchRequest)
        var sections: [TableMirror.Section] = []
        let keyPath = controller.sectionNameKeyPath
        for object in objects {
            let name = keyPath.map { FetchedResults.sectionName(of: object.value(forKeyPath: $0)) } ?? ""
            if keyPath != nil, let last = sections.last, last.name == name {
                sections[sections.count - 1].rows.append(ObjectIdentifier(object))
            } else if keyPath == nil, !sections.isEmpty {
                sections[0].rows.append(ObjectIdentifier(object))
            } else {
                sections.append(TableMirror.Section(name: name, rows: [ObjectIdentifier(object)]))
            }
        }
        if keyPath == nil && sections.isEmpty { sections = [TableMirror.Section(name: "", rows: [])] }
        return sections
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func callbacksAppliedToTheOldResultsGiveANewFetch(seed: UInt64) throws {
        let store = try ScratchStore(model: FetchedNotes.model())
        defer { store.remove() }
        let run = Run(seed: seed, store: store)
        try run.context.performAndWait {
            try run.setUp()
            let controller = NSFetchedResultsController(
                fetchRequest: FetchedNotes.request(predicate: NSPredicate(format: "shown == YES")),
                managedObjectContext: run.context, sectionNameKeyPath: "topic.name", cacheName: nil)
            try controller.performFetch()
            let mirror = TableMirror(controller)
            controller.delegate = mirror
            var reported = 0
            for round in 0..<150 {
                if run.chance(15) {
                    try run.mergeFromOther()
                } else {
                    for _ in 0..<run.int(1..<8) { run.change() }
                    if run.chance(30) { try run.context.save() } else { run.context.processPendingChanges() }
                }
                if mirror.batches > reported { reported = mirror.batches }
                #expect(mirror.problems == [], "round \(round)")
                let expected = try refetched(controller)
                let actual = TableMirror.sections(of: controller)
                #expect(
                    mirror.sections == expected, "round \(round): \(run.describe(mirror.sections)) ≠ \(run.describe(expected))")
                #expect(actual == expected, "round \(round): \(run.describe(actual)) ≠ \(run.describe(expected))")
                #expect(controller.results.entries.isConsistent(ordered: controller.results.isBefore), "round \(round)")
                if !mirror.problems.isEmpty || mirror.sections != expected { break }
            }
            #expect(reported > 100)
        }
    }

    /// The same without sections, through the whole-change difference.
    @Test(arguments: [4, 5] as [UInt64])
    func differencesAppliedToTheOldIDsGiveANewFetch(seed: UInt64) throws {
        /// Applies each difference to its list of objects: removals at their old offsets (each
        /// naming the object there, when it is still registered), then insertions at their new ones.
        final class Differences: NSFetchedResultsControllerDelegate {
            var rows: [ObjectIdentifier]
            var failures: [String] = []
            var count = 0
            init(_ rows: [ObjectIdentifier]) { self.rows = rows }
            func controller(
                _ controller: NSFetchedResultsController<NSFetchRequestResult>,
                didChangeContentWith diff: CollectionDifference<NSManagedObjectID>
            ) {
                count += 1
                let context = controller.managedObjectContext
                let removals = diff.removals.compactMap { change -> (Int, NSManagedObjectID)? in
                    if case .remove(let offset, let id, _) = change { (offset, id) } else { nil }
                }
                let insertions = diff.insertions.compactMap { change -> (Int, NSManagedObjectID)? in
                    if case .insert(let offset, let id, _) = change { (offset, id) } else { nil }
                }
                for (offset, id) in removals.sorted(by: { $0.0 > $1.0 }) {
                    guard offset < rows.count else { return failures.append("removal past the end") }
                    if let object = context.registeredObject(for: id), ObjectIdentifier(object) != rows[offset] {
                        failures.append("removal at \(offset) names another object")
                    }
                    rows.remove(at: offset)
                }
                for (offset, id) in insertions.sorted(by: { $0.0 < $1.0 }) {
                    guard offset <= rows.count, let object = context.registeredObject(for: id) else {
                        return failures.append("insertion at \(offset) out of place or of no object")
                    }
                    rows.insert(ObjectIdentifier(object), at: offset)
                }
            }
        }
        let store = try ScratchStore(model: FetchedNotes.model())
        defer { store.remove() }
        let run = Run(seed: seed, store: store)
        try run.context.performAndWait {
            try run.setUp()
            let controller = NSFetchedResultsController(
                fetchRequest: FetchedNotes.request(predicate: NSPredicate(format: "shown == YES")),
                managedObjectContext: run.context, sectionNameKeyPath: nil, cacheName: nil)
            try controller.performFetch()
            let delegate = Differences(controller.fetchedObjects?.map(ObjectIdentifier.init) ?? [])
            controller.delegate = delegate
            for round in 0..<120 {
                if run.chance(15) {
                    try run.mergeFromOther()
                } else {
                    for _ in 0..<run.int(1..<8) { run.change() }
                    if run.chance(30) { try run.context.save() } else { run.context.processPendingChanges() }
                }
                let expected = try refetched(controller)
                let actual = TableMirror.sections(of: controller)
                #expect(actual == expected, "round \(round): \(run.describe(actual)) ≠ \(run.describe(expected))")
                #expect(delegate.rows == expected.first?.rows, "round \(round)")
                #expect(delegate.failures == [], "round \(round)")
                if !delegate.failures.isEmpty || delegate.rows != expected.first?.rows { break }
            }
            #expect(delegate.count > 80)
        }
    }
}
