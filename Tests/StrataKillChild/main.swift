import Foundation
import Strata
import StrataSyncProtocol

#if canImport(Glibc)
    import Glibc
#endif

// The child of the kill -9 harness (`scripts/kill-harness`, RELIABILITY.md): makes a store,
// runs one operation on it for the harness to kill at a random moment, and checks what a kill
// left against the two states the operation may leave, computed from the seed alone.
//
//   strata-kill-child prepare <op> <dir> <seed>   makes <dir>/Store.sqlite with its earlier saves
//   strata-kill-child run <op> <dir> <seed>       prints "ready", runs the operation, prints "done"
//   strata-kill-child verify <op> <dir> <seed>    prints "before" or "after", or FAILED and the
//                                                 difference (exit 1)
//   strata-kill-child snapshot <op> <dir> <seed>  prints the sync tables' counts and cursors
//
// STRATA_KILL_SCALE multiplies the sizes (default 1); store-import runs `strata` from STRATA_BIN.
// <dir>/before.extras and <dir>/after.extras, when present, hold the sync tables' expected
// snapshots (the harness takes them from an unkilled run).

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("strata-kill-child: \(message)\n".utf8))
    exit(2)
}

let arguments = CommandLine.arguments
guard arguments.count == 5, let operation = Operation(rawValue: arguments[2]), let seed = UInt64(arguments[4]) else {
    fail(
        "usage: strata-kill-child prepare|run|verify|snapshot <op> <dir> <seed>; ops: "
            + Operation.allCases.map(\.rawValue).joined(separator: ", "))
}
let scale = ProcessInfo.processInfo.environment["STRATA_KILL_SCALE"].flatMap(Double.init) ?? 1
let scenario = Scenario(
    operation: operation, folder: URL(fileURLWithPath: arguments[3]), seed: seed, sizes: Sizes(scale: scale))

do {
    switch arguments[1] {
    case "prepare": try prepare(scenario)
    case "run": try run(scenario)
    case "verify": exit(try verify(scenario) ? 0 : 1)
    case "snapshot": say(try extras(of: scenario))
    default: fail("unknown mode \(arguments[1])")
    }
} catch {
    fail("\(arguments[1]) \(operation.rawValue): \(error)")
}

// MARK: Prepare

func prepare(_ scenario: Scenario) throws {
    try FileManager.default.createDirectory(at: scenario.folder, withIntermediateDirectories: true)
    if scenario.operation.isMigration {
        let items = scenario.migrationItems()
        let opened = try OpenStore(scenario.store, model: Models.v1, history: false)
        // Three earlier committed saves.
        let third = items.count / 3
        for range in [0..<third, third..<(2 * third), (2 * third)..<items.count] { try opened.saveMigrationItems(items[range]) }
        try opened.close()
        return
    }
    let opened = try OpenStore(scenario.store, model: Models.graph, history: scenario.operation.history)
    var base = Graph()
    for save in scenario.earlierSaves() {
        try opened.save(save)
        base.add(save)
    }
    switch scenario.operation {
    case .batchUpdate, .batchDelete:
        for save in scenario.preparedSaves(after: base) { try opened.batchInsert(save) }
    case .history:
        for save in scenario.preparedSaves(after: base) { try opened.save(save) }
    case .syncExport:
        try SyncStoreSteps.register(opened.store)
        try SyncStoreSteps.export(opened.store, coordinator: opened.coordinator)
        try opened.save(scenario.additions(to: base))
    case .syncImport:
        try SyncStoreSteps.register(opened.store)
        try SyncStoreSteps.export(opened.store, coordinator: opened.coordinator)
    case .storeImport:
        try makeExport(scenario, after: base)
    default: break
    }
    try opened.close()
}

/// Writes the export `strata store import` reads: the new objects saved in a store of their
/// own and exported by `strata store export`.
func makeExport(_ scenario: Scenario, after base: Graph) throws {
    guard let strata = ProcessInfo.processInfo.environment["STRATA_BIN"] else { throw ChildFailure("STRATA_BIN is not set") }
    let folder = scenario.folder.appendingPathComponent("export-source")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let source = folder.appendingPathComponent("Source.sqlite")
    let opened = try OpenStore(source, model: Models.graph, history: false)
    try opened.save(scenario.additions(to: base))
    try opened.close()
    let process = Process()
    process.executableURL = URL(fileURLWithPath: strata)
    process.arguments = ["store", "export", source.path, "--output", scenario.exportFile.path]
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw ChildFailure("strata store export exited \(process.terminationStatus)") }
}

// MARK: Run

func run(_ scenario: Scenario) throws {
    let store = scenario.store
    switch scenario.operation {
    case .graphSave, .history:
        let opened = try OpenStore(store, model: Models.graph, history: scenario.operation.history)
        let context = opened.context()
        try context.performAndWait {
            let before = scenario.before()
            if scenario.operation == .graphSave {
                try OpenStore.insert(scenario.additions(to: before), into: context)
            } else {
                let change = scenario.historyChange(of: before)
                try OpenStore.insert(change.inserted, into: context)
                let items = try OpenStore.byKey("KItem", in: context)
                for key in change.updated { items[key]?.setValue("changed\(key)", forKey: "title") }
                for key in change.deleted { if let item = items[key] { context.delete(item) } }
            }
            say("ready")
            try context.save()
        }
        say("done")
        try opened.close()
    case .batchInsert:
        let opened = try OpenStore(store, model: Models.graph, history: false)
        let added = scenario.additions(to: scenario.before())
        say("ready")
        try opened.batchInsert(added)
        say("done")
        try opened.close()
    case .batchUpdate, .batchDelete:
        let opened = try OpenStore(store, model: Models.graph, history: false)
        let context = opened.context()
        let request: NSPersistentStoreRequest
        if scenario.operation == .batchUpdate {
            let update = NSBatchUpdateRequest(entityName: "KItem")
            update.predicate = NSPredicate(format: "rank < 50")
            update.propertiesToUpdate = [
                "note": NSExpression(forConstantValue: "batch-updated"), "rank": NSExpression(format: "rank + 1000"),
            ]
            request = update
        } else {
            let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: "KItem")
            fetch.predicate = NSPredicate(format: "rank < 50")
            request = NSBatchDeleteRequest(fetchRequest: fetch)
        }
        say("ready")
        try context.performAndWait { _ = try context.execute(request) }
        say("done")
        try opened.close()
    case .lightweightMigration:
        say("ready")
        let opened = try OpenStore(store, model: Models.v2, history: false, migrate: true)
        say("done")
        try opened.close()
    case .explicitMigration:
        let migrated = scenario.folder.appendingPathComponent("Migrated.sqlite")
        say("ready")
        let manager = NSMigrationManager(sourceModel: Models.v1, destinationModel: Models.v3)
        try manager.migrateStore(
            from: store, type: NSSQLiteStoreType, options: nil, with: Models.mapping(), toDestinationURL: migrated,
            destinationType: NSSQLiteStoreType, destinationOptions: nil)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Models.v3)
        try coordinator.replacePersistentStore(
            at: store, destinationOptions: nil, withPersistentStoreFrom: migrated, sourceOptions: nil, ofType: NSSQLiteStoreType)
        try coordinator.destroyPersistentStore(at: migrated, ofType: NSSQLiteStoreType, options: nil)
        say("done")
    case .syncExport:
        let opened = try OpenStore(store, model: Models.graph, history: true)
        say("ready")
        try SyncStoreSteps.export(opened.store, coordinator: opened.coordinator)
        say("done")
        try opened.close()
    case .syncImport:
        let opened = try OpenStore(store, model: Models.graph, history: true)
        let records = importRecords(scenario)
        say("ready")
        try SyncStoreSteps.importPage(records, nextToken: "kill-page-1", store: opened.store, coordinator: opened.coordinator)
        say("done")
        try opened.close()
    case .storeImport:
        guard let strata = ProcessInfo.processInfo.environment["STRATA_BIN"] else { throw ChildFailure("STRATA_BIN is not set") }
        say("ready")
        // The import runs in this process (the one the harness kills), as `strata` itself.
        let argv = [strata, "store", "import", scenario.exportFile.path, store.path]
        var cArguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) }
        cArguments.append(nil)
        execv(strata, cArguments)
        throw ChildFailure("cannot run \(strata): errno \(errno)")
    }
}

/// The page the sync importer applies: one record per new list and item, as the server
/// answers a pull, every field with a clock of another device.
func importRecords(_ scenario: Scenario) -> [RecordState] {
    let added = scenario.additions(to: scenario.before())
    var records: [RecordState] = []
    var sequence: Int64 = 0
    func record(_ type: String, _ name: String, _ fields: [String: FieldValue]) -> RecordState {
        sequence += 1
        let clock = HybridLogicalClock(wallMilliseconds: 1_750_000_000_000 + sequence, counter: 0, node: "remote-device")
        return RecordState(
            recordType: "CD_" + type, recordName: "CD_\(type)_remote-\(name)", fields: fields,
            clocks: fields.mapValues { _ in clock }, deleted: false, deleteClock: nil, serverSequence: sequence,
            changedBy: "remote-device")
    }
    for (key, name) in added.lists.sorted(by: { $0.key < $1.key }) {
        records.append(record("KList", "\(key)", ["CD_key": .int(key), "CD_name": .string(name)]))
    }
    for (key, item) in added.items.sorted(by: { $0.key < $1.key }) {
        var fields: [String: FieldValue] = [
            "CD_key": .int(key), "CD_title": .string(item.title), "CD_rank": .int(item.rank), "CD_note": .string(item.note),
        ]
        if let list = item.list { fields["CD_list"] = .reference("CD_KList_remote-\(list)") }
        records.append(record("KItem", "\(key)", fields))
    }
    return records
}

// MARK: Verify

/// Opens the store as the operation's before or after state says, and compares its content
/// (and, for history and sync, what the operation records beside it) with both states.
func verify(_ scenario: Scenario) throws -> Bool {
    let expected = scenario.expectedLines()
    let lines: [String]
    let extrasNow: String
    do {
        (lines, extrasNow) = try contentAndExtras(scenario)
    } catch {
        say("FAILED: the store does not open: \(error)")
        return false
    }
    let expectedExtras = try expectedExtras(scenario)
    let isBefore = lines == expected.before && (expectedExtras.before.map { $0 == extrasNow } ?? true)
    let isAfter = lines == expected.after && (expectedExtras.after.map { $0 == extrasNow } ?? true)
    // Sync export leaves the objects as they were: only its tables tell the states apart.
    if isBefore {
        say("before")
        return true
    }
    if isAfter {
        say("after")
        return true
    }
    say("FAILED: the store is neither before nor after the \(scenario.operation.rawValue)")
    say("  objects: \(lines.count), before \(expected.before.count), after \(expected.after.count)")
    for (name, wanted) in [("before", expected.before), ("after", expected.after)] {
        let missing = Set(wanted).subtracting(lines).sorted()
        let extra = Set(lines).subtracting(wanted).sorted()
        say("  against \(name): \(missing.count) missing, \(extra.count) unexpected")
        for line in missing.prefix(3) { say("    missing:    \(line)") }
        for line in extra.prefix(3) { say("    unexpected: \(line)") }
    }
    say("  extras now:    \(extrasNow)")
    say("  extras before: \(expectedExtras.before ?? "-")")
    say("  extras after:  \(expectedExtras.after ?? "-")")
    return false
}

/// The canonical dump and the extras (history summary, sync tables) of the store as it is.
func contentAndExtras(_ scenario: Scenario) throws -> ([String], String) {
    let store = scenario.store
    if scenario.operation.isMigration {
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: store)
        let migratedModel = scenario.operation == .lightweightMigration ? Models.v2 : Models.v3
        let model: NSManagedObjectModel
        if Models.v1.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) {
            model = Models.v1
        } else if migratedModel.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) {
            model = migratedModel
        } else {
            throw ChildFailure("the store's metadata matches neither version of the model")
        }
        let opened = try OpenStore(store, model: model, history: false)
        defer { try? opened.close() }
        return (try opened.migrationLines(), model === Models.v1 ? "version 1" : "migrated")
    }
    let opened = try OpenStore(store, model: Models.graph, history: scenario.operation.history)
    defer { try? opened.close() }
    let lines = try opened.graphLines()
    switch scenario.operation {
    case .history: return (lines, try opened.historySummary())
    case .syncExport, .syncImport: return (lines, try SyncStoreSteps.state(of: opened.store)?.description ?? "no sync tables")
    default: return (lines, "")
    }
}

/// The extras of the two states: computed for history and the migrations, read from the
/// harness's snapshots for sync; nil where nothing beside the objects is checked.
func expectedExtras(_ scenario: Scenario) throws -> (before: String?, after: String?) {
    switch scenario.operation {
    case .history:
        let before = scenario.before()
        let change = scenario.historyChange(of: before)
        let prepared = before.items.count
        let transactions = scenario.earlierSaves().count + scenario.preparedSaves(after: Graph()).count
        let deleted = change.deleted.filter { before.items[$0] != nil }.count
        return (
            "history: \(transactions) transactions, \(prepared) item inserts, 0 item deletes",
            "history: \(transactions + 1) transactions, \(prepared + change.inserted.items.count) item inserts, \(deleted) item deletes"
        )
    case .lightweightMigration, .explicitMigration: return ("version 1", "migrated")
    case .syncExport, .syncImport:
        func read(_ name: String) -> String? {
            (try? String(contentsOf: scenario.folder.appendingPathComponent(name), encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return (read("before.extras"), read("after.extras"))
    default: return (nil, nil)
    }
}

/// The extras alone (`snapshot`).
func extras(of scenario: Scenario) throws -> String { try contentAndExtras(scenario).1 }
