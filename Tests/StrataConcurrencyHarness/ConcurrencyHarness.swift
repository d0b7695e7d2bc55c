import Foundation
import Strata

/// The concurrency harness (issue 33, RELIABILITY.md): writers in several contexts, coordinators
/// and processes save into one store at once, each save recorded with what it knew, so that a
/// test can tell what every merge policy must have kept.
///
/// A `Slot` has three string fields. Each save of a writer fetches one slot, notes the slot's
/// snapshot (`committedValues(forKeys:)`: the version the context's save is checked against),
/// sets one or two fields to values no other write uses, inserts a `Mark` naming the save (so
/// that every save that goes through is a transaction of the store's history, even when the
/// policy discards the slot's change), and saves with the save's name as transaction author.
public enum ConcurrencyHarness {
    public static let slotNames = ["s0", "s1", "s2", "s3"]
    public static let fields = ["a", "b", "c"]
    /// The author of the transaction that makes the slots.
    public static let setUpAuthor = "set-up"

    public static func model() -> NSManagedObjectModel {
        NSManagedObjectModel {
            Entity("Slot") {
                Attribute("name", .stringAttributeType)
                Attribute("a", .stringAttributeType)
                Attribute("b", .stringAttributeType)
                Attribute("c", .stringAttributeType)
            }
            Entity("Mark") {
                Attribute("writer", .stringAttributeType)
                Attribute("seq", .integer64AttributeType, optional: false, defaultValue: Int64(0))
            }
        }
    }

    /// The store's options: persistent history on, as the test reads the order of the saves
    /// from it.
    public static var storeOptions: [String: Any] { [NSPersistentHistoryTrackingKey: true as NSNumber] }

    /// The value a field of a fresh slot has.
    public static func initialValue(slot: String, field: String) -> String { "\(slot).\(field).0" }

    /// Makes the store's slots.
    public static func makeSlots(in context: NSManagedObjectContext) throws {
        try context.performAndWait {
            for name in slotNames {
                let slot = NSEntityDescription.insertNewObject(forEntityName: "Slot", into: context)
                slot.setValue(name, forKey: "name")
                for field in fields { slot.setValue(initialValue(slot: name, field: field), forKey: field) }
            }
            context.transactionAuthor = setUpAuthor
            defer { context.transactionAuthor = nil }
            try context.save()
        }
    }

    /// A field's value as the harness writes it down (`nil` for none).
    public static func text(_ value: Any?) -> String {
        switch value {
        case let string as String: string
        case nil, is NSNull: "nil"
        case let other?: "\(other)"
        }
    }
}

/// One save a writer tried.
public struct SaveRecord: Codable, Sendable, Equatable {
    public enum Outcome: String, Codable, Sendable {
        /// The save returned.
        case saved
        /// The save failed with `NSManagedObjectMergeError` naming the slot (the error policy).
        case conflict
    }

    public var writer: String
    public var seq: Int
    public var slot: String
    /// The slot's fields as the context's snapshot had them before the save.
    public var snapshot: [String: String]
    /// The fields the save set, with their values.
    public var written: [String: String]
    public var outcome: Outcome

    public init(
        writer: String, seq: Int, slot: String, snapshot: [String: String], written: [String: String], outcome: Outcome
    ) {
        self.writer = writer
        self.seq = seq
        self.slot = slot
        self.snapshot = snapshot
        self.written = written
        self.outcome = outcome
    }

    /// The save's transaction author.
    public var author: String { "\(writer)#\(seq)" }
}

/// What one writer did: its saves, and anything that went wrong that no policy allows.
public struct WriterReport: Codable, Sendable {
    public var writer: String
    public var records: [SaveRecord] = []
    public var problems: [String] = []

    public init(writer: String) { self.writer = writer }
}

/// A writer: one context saving `saves` times, its choices drawn from its seed.
public final class ConcurrencyWriter: @unchecked Sendable {
    public let name: String
    public let context: NSManagedObjectContext
    private var random: SplitMix
    private(set) public var report: WriterReport
    private var seq = 0

    public init(name: String, context: NSManagedObjectContext, seed: UInt64) {
        self.name = name
        self.context = context
        random = SplitMix(seed: seed)
        report = WriterReport(writer: name)
    }

    /// One save, run inside the context's queue (`perform` or `performAndWait`).
    public func saveOnce() {
        defer { seq += 1 }
        do {
            try attemptSave()
        } catch {
            report.problems.append("\(name)#\(seq): \(error)")
        }
    }

    private func attemptSave() throws {
        // A context that refreshes sees the store as it is now; one that does not keeps the
        // snapshot it read, and its save meets what the others saved since.
        if random.next() % 4 == 0 { context.refreshAllObjects() }
        let slotName = ConcurrencyHarness.slotNames[Int(random.next() % UInt64(ConcurrencyHarness.slotNames.count))]
        let request = NSFetchRequest<NSManagedObject>(entityName: "Slot")
        request.predicate = NSPredicate(format: "name == %@", slotName)
        guard let slot = try context.fetch(request).first else {
            report.problems.append("\(name)#\(seq): slot \(slotName) not found")
            return
        }
        var chosen = ConcurrencyHarness.fields
        chosen.remove(at: Int(random.next() % 3))
        if random.next() % 2 == 0 { chosen.remove(at: Int(random.next() % 2)) }
        let committed = slot.committedValues(forKeys: ConcurrencyHarness.fields)
        var record = SaveRecord(
            writer: name, seq: seq, slot: slotName,
            snapshot: Dictionary(
                uniqueKeysWithValues: ConcurrencyHarness.fields.map { ($0, ConcurrencyHarness.text(committed[$0])) }),
            written: Dictionary(uniqueKeysWithValues: chosen.map { ($0, "\(name).\(seq).\($0)") }),
            outcome: .saved)
        for (field, value) in record.written { slot.setValue(value, forKey: field) }
        let mark = NSEntityDescription.insertNewObject(forEntityName: "Mark", into: context)
        mark.setValue(name, forKey: "writer")
        mark.setValue(Int64(seq), forKey: "seq")
        context.transactionAuthor = record.author
        defer { context.transactionAuthor = nil }
        do {
            try context.save()
        } catch let error as NSError
            where error.domain == NSCocoaErrorDomain && error.code == NSManagedObjectMergeError
        {
            let conflicts = error.userInfo["conflictList"] as? [NSMergeConflict] ?? []
            if !conflicts.contains(where: { $0.sourceObject.objectID == slot.objectID }) {
                report.problems.append("\(record.author): a merge error without the slot among its conflicts: \(error)")
            }
            record.outcome = .conflict
            // Give up this save; read the slot afresh for the next.
            context.rollback()
            context.refresh(slot, mergeChanges: false)
        }
        report.records.append(record)
    }
}

/// A small seeded generator (SplitMix64): a writer's choices, reproducible from its seed.
public struct SplitMix: Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
