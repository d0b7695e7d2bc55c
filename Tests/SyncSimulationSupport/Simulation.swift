import Foundation
import StrataSyncProtocol

@testable import Strata

/// One seeded random schedule of devices editing, going offline, syncing in random order
/// and meeting a server that fails mid-push, checked against an oracle of what must
/// survive (issue 33). The server is the in-memory zone (`MemoryZone`) or `strata-sync`
/// processes on PostgreSQL (StrataSyncServerTests): the same seed makes the same schedule of
/// writes for both, and the same oracle judges them.
///
/// The oracle knows every write: a title, rank, completion or list set to a value other
/// than the one the device had, a tag added or removed, an item made or deleted. Each write
/// is a save of its own, in a millisecond of its own, so that the order of the protocol's
/// clocks (readings as of the save) is the order the writes were made in. After quiescence
/// every device must hold exactly what per-field last-writer-wins says, deletes winning:
/// an item deleted keeps only the fields written after its newest delete (and exists only
/// if there is one); a link exists when its newest write is an add made after both items'
/// newest deletes. Nothing else may be lost, and nothing may come back.
final class Simulation {
    let seed: UInt64
    private var random: SeededRandom
    private let scratch = Scratch()
    private let server: any SimulatedServer
    private var devices: [Device] = []
    /// Every write, in the order made (which is the order of their clocks).
    private var writes: [Write] = []
    private var tick = 0
    private(set) var log: [String] = []
    /// The writes the oracle checked.
    var writeCount: Int { writes.count }

    /// A write the oracle knows of.
    struct Write {
        enum Kind {
            case field(record: String, name: String, value: String)
            case delete(record: String)
            case link(item: String, tag: String, added: Bool)
        }
        var kind: Kind
        var order: Int
    }

    static let model = NSManagedObjectModel {
        Entity("SimItem") {
            Attribute("title", .stringAttributeType)
            Attribute("rank", .integer64AttributeType, optional: false, defaultValue: Int64(0))
            Attribute("done", .booleanAttributeType, optional: false, defaultValue: false)
            Relationship("tags", to: "SimTag", inverse: "items", toMany: true)
            Relationship("list", to: "SimList", inverse: "items")
        }
        Entity("SimTag") {
            Attribute("name", .stringAttributeType)
            Relationship("items", to: "SimItem", inverse: "tags", toMany: true)
        }
        Entity("SimList") {
            Attribute("name", .stringAttributeType)
            Relationship("items", to: "SimItem", inverse: "list", toMany: true)
        }
    }

    /// The fields the oracle follows, with the value a record without them shows.
    static let fields: [(name: String, absent: String)] = [
        ("title", "nil"), ("rank", "0"), ("done", "false"), ("list", "nil"),
    ]

    init(seed: UInt64, server: any SimulatedServer) {
        self.seed = seed
        self.server = server
        random = SeededRandom(seed: seed &* 0x2545_F491_4F6C_DD1D &+ 1)
    }

    /// Runs the schedule; returns the differences from the oracle (empty when none).
    func run(steps: Int = 36) throws -> [String] {
        let count = 2 + Int(random.next() % 4)
        devices = try (0..<count).map { try server.makeDevice(at: scratch.file("sim-\($0).sqlite"), model: Self.model) }
        try setUp()
        for step in 0..<steps { try randomStep(step) }
        // Quiescence: everyone online, the server healthy, three rounds.
        try server.heal()
        for device in devices { device.online = true }
        for round in 0..<3 {
            for (index, device) in devices.enumerated() {
                try device.export()
                let outbox = try device.metadata.read { db in try SyncMetadata.outbox(limit: 1000, in: db) }
                for change in outbox.flatMap(\.changes) where change.recordType == SyncRecordMapping.linkRecordType {
                    let ends = SyncRecordMapping.linkEnds(of: change.fields).map {
                        "\($0.0.recordName.suffix(6))-\($0.1.recordName.suffix(6))"
                    }
                    log.append(
                        "quiescence \(round): device \(index) pushes link \(ends ?? change.recordName.suffix(8).description) \(change.operation) \(change.clocks.values.max().map { "\($0)" } ?? "") \(change.deleteClock.map { "\($0)" } ?? "")"
                    )
                }
                try settle(device, index: index)
            }
        }
        var problems: [String] = []
        let expected = oracle()
        for (index, device) in devices.enumerated() {
            let held = try state(of: device)
            for key in Set(expected.keys).union(held.keys).sorted() where expected[key] != held[key] {
                problems.append(
                    "device \(index), \(key): expected \(expected[key] ?? "absent"), holds \(held[key] ?? "absent")")
            }
        }
        if !problems.isEmpty {
            for (index, device) in devices.enumerated() { log.append("device \(index) is \(device.clientID)") }
            // The server's link records, for the failure's message.
            for record in try server.storedRecords().sorted(by: { $0.recordName < $1.recordName })
            where record.recordType == SyncRecordMapping.linkRecordType {
                let ends = SyncRecordMapping.linkEnds(of: record.fields).map {
                    "\($0.0.recordName.suffix(6))-\($0.1.recordName.suffix(6))"
                }
                log.append(
                    "server link \(ends ?? record.recordName): deleted \(record.deleted), clocks \(record.clocks.values.max().map { "\($0)" } ?? "-"), delete \(record.deleteClock.map { "\($0)" } ?? "-")"
                )
            }
            log += server.log.map { "server: \($0)" }
        }
        return problems
    }

    /// A quiescence round's sync, again after a failure a restarted server leaves (a
    /// connection it dropped), at most a few times.
    private func settle(_ device: Device, index: Int) throws {
        var attempt = 0
        while true {
            do {
                return try server.sync(device)
            } catch  where attempt < 4 && server.absorbs(error) {
                attempt += 1
                log.append("quiescence: device \(index)'s sync failed (\(error)); again")
            }
        }
    }

    // MARK: Schedule

    private static let listNames = ["home", "work"]
    private static let tagNames = ["errand", "food", "later"]

    /// Lists and tags made on the first device and synced everywhere before the schedule.
    private func setUp() throws {
        let first = devices[0]
        let context = first.context()
        try context.performAndWait {
            for name in Self.listNames {
                NSEntityDescription.insertNewObject(forEntityName: "SimList", into: context).setValue(name, forKey: "name")
            }
            for name in Self.tagNames {
                NSEntityDescription.insertNewObject(forEntityName: "SimTag", into: context).setValue(name, forKey: "name")
            }
            try context.save()
        }
        for device in devices { try server.sync(device) }
        try server.sync(first)
        for device in devices { try server.sync(device) }
    }

    private func pick(_ count: Int) -> Int { Int(random.next() % UInt64(count)) }

    private var step = 0

    private func randomStep(_ step: Int) throws {
        self.step = step
        let device = devices[pick(devices.count)]
        let index = devices.firstIndex { $0 === device } ?? 0
        switch pick(20) {
        case 0..<11:
            try randomWrite(on: device, step: step, index: index)
        case 11:
            device.online.toggle()
            log.append("\(step): device \(index) \(device.online ? "online" : "offline")")
        case 12:
            // The server fails during the device's next sync, as `choice` picks: the memory
            // zone before applying a push or after (the answer lost, and the client pushes
            // the same batches again); `strata-sync` stopped or killed mid-push and started
            // again on the same database.
            let choice = random.next()
            let what = try server.fail(duringSyncOf: device, index: index, choice: choice)
            log.append("\(step): \(what)")
        case 13:
            try device.export()
            log.append("\(step): device \(index) exports")
        case 14:
            guard device.online else { return }
            let failed = try ignoringServerFailure { try server.push(device) }
            log.append("\(step): device \(index) pushes\(failed)")
        case 15:
            guard device.online else { return }
            let failed = try ignoringServerFailure { try server.pull(device) }
            log.append("\(step): device \(index) pulls\(failed)")
        default:
            let failed = try ignoringServerFailure { try server.sync(device) }
            log.append("\(step): device \(index) syncs\(device.online ? "" : " (offline: nothing)")\(failed)")
        }
    }

    /// Runs `body`, taking the failures the schedule's server failures cause (the device
    /// tries again later); what failed, for the log.
    private func ignoringServerFailure(_ body: () throws -> Void) throws -> String {
        do {
            try body()
            return ""
        } catch  where server.absorbs(error) {
            return " (failed: \(error))"
        }
    }

    /// One random write on a device, saved in a millisecond of its own.
    private func randomWrite(on device: Device, step: Int, index: Int) throws {
        let context = device.context()
        let choice = pick(10)
        let value = random.next()
        try context.performAndWait {
            let items = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "SimItem"))
                .sorted { $0.objectID.primaryKey < $1.objectID.primaryKey }
            let tags = try named("SimTag", in: context)
            let lists = try named("SimList", in: context)
            let item = items.isEmpty ? nil : items[Int(value % UInt64(items.count))]
            switch (choice, item) {
            case (0, _), (_, nil):
                try create(on: device, index: index, step: step, value: value, lists: lists, tags: tags, in: context)
            case (1, let item?):
                try save(on: device, index: index, "sets a title", context) {
                    self.set(item, "title", to: "t\(step)", on: device)
                }
            case (2, let item?):
                try save(on: device, index: index, "sets the rank", context) {
                    self.set(item, "rank", to: Int64(value % 3), on: device)
                }
            case (3, let item?):
                try save(on: device, index: index, "sets done", context) {
                    self.set(item, "done", to: value % 2 == 0, on: device)
                }
            case (4, let item?):
                let list = value % 3 == 2 ? nil : lists[Self.listNames[Int(value % 2)]]
                try save(on: device, index: index, "sets the list", context) {
                    self.set(item, "list", to: list, on: device)
                }
            case (5, let item?), (6, let item?):
                guard let tag = tags[Self.tagNames[Int(value % 3)]] else { return }
                try save(on: device, index: index, "toggles a tag", context) {
                    self.toggle(tag, of: item, on: device)
                }
            case (7, let item?):
                // A form saved whole: every field written with the value it has, one changed.
                try save(on: device, index: index, "saves a form", context) {
                    for key in ["rank", "done", "list", "tags"] { item.setValue(item.value(forKey: key), forKey: key) }
                    self.set(item, "title", to: "f\(step)", on: device)
                }
            case (8, let item?):
                // Changed, saved, changed back and saved: two writes, the second the latest.
                let old = item.value(forKey: "title") as? String
                try save(on: device, index: index, "renames", context) {
                    self.set(item, "title", to: "r\(step)", on: device)
                }
                try save(on: device, index: index, "renames back", context) {
                    self.set(item, "title", to: old, on: device)
                }
            case (_, let item?):
                guard let record = try device.recordName(of: item.objectID) else { return }
                try save(on: device, index: index, "deletes \(record.suffix(6))", context) {
                    context.delete(item)
                    self.pendingWrites.append(.delete(record: record))
                }
            }
        }
    }

    /// Objects of an entity by their name.
    private func named(_ entity: String, in context: NSManagedObjectContext) throws -> [String: NSManagedObject] {
        var result: [String: NSManagedObject] = [:]
        for object in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: entity)) {
            if let name = object.value(forKey: "name") as? String { result[name] = object }
        }
        return result
    }

    /// A new item with every field written, exported at once so that its record name is
    /// known (an export only enqueues: the device may be offline).
    private func create(
        on device: Device, index: Int, step: Int, value: UInt64, lists: [String: NSManagedObject],
        tags: [String: NSManagedObject], in context: NSManagedObjectContext
    ) throws {
        let item = NSEntityDescription.insertNewObject(forEntityName: "SimItem", into: context)
        item.setValue("c\(step)", forKey: "title")
        item.setValue(Int64(value % 3), forKey: "rank")
        let list = value % 3 == 0 ? nil : lists[Self.listNames[Int(value % 2)]]
        item.setValue(list, forKey: "list")
        let tag = value % 4 == 0 ? tags[Self.tagNames[Int((value / 4) % 3)]] : nil
        if let tag { item.mutableSetValue(forKey: "tags").add(tag) }
        try context.save()
        try device.export()
        guard let record = try device.recordName(of: item.objectID) else { return }
        note(.field(record: record, name: "title", value: Self.text(item.value(forKey: "title"))))
        note(.field(record: record, name: "rank", value: Self.text(item.value(forKey: "rank"))))
        note(.field(record: record, name: "done", value: "false"))
        note(.field(record: record, name: "list", value: Self.text(list?.value(forKey: "name"))))
        if let tag { note(.link(item: record, tag: Self.text(tag.value(forKey: "name")), added: true)) }
        log.append("\(step): device \(index) creates \(record.suffix(6))")
        waitForTheNextMillisecond()
    }

    /// Saves the changes `body` makes (and records), if any, then lets a millisecond pass.
    private func save(
        on device: Device, index: Int, _ what: String, _ context: NSManagedObjectContext, _ body: () throws -> Void
    ) throws {
        pendingWrites = []
        try body()
        guard context.hasChanges else { return }
        try context.save()
        for write in pendingWrites { note(write) }
        log.append("\(step): device \(index) \(what): \(pendingWrites.map { "\($0)" }.joined(separator: ", "))")
        waitForTheNextMillisecond()
    }

    private var pendingWrites: [Write.Kind] = []

    /// Sets a field; a write when the value differs from the device's.
    private func set(_ item: NSManagedObject, _ name: String, to value: Any?, on device: Device) {
        let old = Self.text(
            name == "list" ? (item.value(forKey: name) as? NSManagedObject)?.value(forKey: "name") : item.value(forKey: name))
        item.setValue(value, forKey: name)
        let new = Self.text(name == "list" ? (value as? NSManagedObject)?.value(forKey: "name") : value)
        guard new != old, let record = try? device.recordName(of: item.objectID) else { return }
        pendingWrites.append(.field(record: record, name: name, value: new))
    }

    private func toggle(_ tag: NSManagedObject, of item: NSManagedObject, on device: Device) {
        let set = item.mutableSetValue(forKey: "tags")
        let adding = !set.contains(tag)
        if adding { set.add(tag) } else { set.remove(tag) }
        guard let record = try? device.recordName(of: item.objectID) else { return }
        pendingWrites.append(.link(item: record, tag: Self.text(tag.value(forKey: "name")), added: adding))
    }

    private func note(_ kind: Write.Kind) {
        tick += 1
        writes.append(Write(kind: kind, order: tick))
    }

    /// Each write's save gets a millisecond of its own: clocks are readings of the wall
    /// clock as of the save, so that distinct milliseconds make their order the writes'.
    private func waitForTheNextMillisecond() {
        let now = SyncClock.wallMilliseconds()
        while SyncClock.wallMilliseconds() <= now { usleep(100) }
    }

    static func text(_ value: Any?) -> String {
        switch value {
        case nil, is NSNull: "nil"
        case let flag as Bool: "\(flag)"
        case let number as NSNumber: "\(number.int64Value)"
        case let value?: "\(value)"
        }
    }

    // MARK: Oracle

    /// What every device must hold: by item record name, its fields and tags as text.
    private func oracle() -> [String: String] {
        var lastDelete: [String: Int] = [:]
        var fields: [String: [String: (value: String, order: Int)]] = [:]
        var links: [String: [String: (added: Bool, order: Int)]] = [:]
        for write in writes {
            switch write.kind {
            case .delete(let record): lastDelete[record] = write.order
            case .field(let record, let name, let value): fields[record, default: [:]][name] = (value, write.order)
            case .link(let item, let tag, let added): links[item, default: [:]][tag] = (added, write.order)
            }
        }
        var expected: [String: String] = [:]
        for (record, written) in fields {
            let deletedAt = lastDelete[record] ?? 0
            let alive = written.values.filter { $0.order > deletedAt }
            guard !alive.isEmpty || lastDelete[record] == nil else { continue }
            var parts: [String] = []
            for (name, absent) in Self.fields {
                if let write = written[name], write.order > deletedAt {
                    parts.append("\(name)=\(write.value)")
                } else {
                    parts.append("\(name)=\(absent)")
                }
            }
            let tags = (links[record] ?? [:]).filter { $0.value.added && $0.value.order > deletedAt }.keys.sorted()
            parts.append("tags=\(tags)")
            expected[record] = parts.joined(separator: " ")
        }
        return expected
    }

    /// What a device holds, in the oracle's terms.
    private func state(of device: Device) throws -> [String: String] {
        let context = device.context()
        return try context.performAndWait {
            var result: [String: String] = [:]
            for item in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "SimItem")) {
                let record = try device.recordName(of: item.objectID) ?? "unnamed \(item.objectID)"
                var parts: [String] = []
                for (name, _) in Self.fields {
                    let value = item.value(forKey: name)
                    parts.append(
                        "\(name)=\(Self.text(name == "list" ? (value as? NSManagedObject)?.value(forKey: "name") : value))")
                }
                let tags = SyncExporter.relatedObjects(item.value(forKey: "tags")).map { Self.text($0.value(forKey: "name")) }
                parts.append("tags=\(tags.sorted())")
                result[record] = parts.joined(separator: " ")
            }
            return result
        }
    }
}

/// What a simulation's devices sync with: the in-memory zone, or `strata-sync` processes on
/// PostgreSQL. Its devices push and pull only through it, so that the schedule and the oracle
/// are the same whatever it is.
protocol SimulatedServer: AnyObject {
    /// A device with its store at `url`, ready to sync with this server.
    func makeDevice(at url: URL, model: NSManagedObjectModel) throws -> Device
    /// Pushes the device's outbox (batches not acknowledged are pushed again).
    func push(_ device: Device) throws
    /// Pulls and applies every change the device has not seen.
    func pull(_ device: Device) throws
    /// Export, push, pull; nothing while the device is offline.
    func sync(_ device: Device) throws
    /// The schedule's server failure, during the device's next sync (`choice` picks how and
    /// when); what happened, for the log.
    func fail(duringSyncOf device: Device, index: Int, choice: UInt64) throws -> String
    /// Whether `error` is one the server's failures cause, which the device gets over by
    /// syncing again later (a failure still armed is cleared).
    func absorbs(_ error: any Error) -> Bool
    /// The server healthy, for quiescence.
    func heal() throws
    /// Every record the server holds, for a failing schedule's log.
    func storedRecords() throws -> [RecordState]
    /// What the server logged, for a failing schedule's log.
    var log: [String] { get }
}

/// A small deterministic generator (SplitMix64), so that a failing seed can be replayed.
struct SeededRandom {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
