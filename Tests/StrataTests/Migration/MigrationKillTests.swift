import Foundation
import Testing

@testable import Strata

#if canImport(Glibc)
    import Glibc
#endif

/// A migration killed with SIGKILL at random moments: after each kill the store is either
/// byte for byte the original (and opens with the old model) or fully migrated (and opens
/// with the new one, every row and external file there).
///
/// The test binary runs itself as the child, filtered to `MigrationKillHelper`, which only
/// runs when `STRATA_KILL_STORE` names a store; it writes a marker file when the migration
/// starts, so that the kill lands within the migration rather than the process start.
@Suite(.serialized) struct MigrationKillTests {
    static let notes = 3000

    /// Version 1 of `ExplicitMigrationTests`, filled with many notes, every 100th with an
    /// attachment in an external file.
    static func template(in folder: URL) throws -> (url: URL, bundle: URL) {
        let bundle = folder.appendingPathComponent("Model.xcdatamodeld")
        let versions = ["V1": ExplicitMigrationTests.v1, "V2": ExplicitMigrationTests.v2]
        for (name, entities) in versions {
            let version = bundle.appendingPathComponent(name + ".xcdatamodel")
            try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
            try Data(MigrationFixtures.xml(entities).utf8).write(to: version.appendingPathComponent("contents"))
        }
        let url = folder.appendingPathComponent("Template.sqlite")
        let (coordinator, context) = try MigrationFixtures.open(try MigrationFixtures.model(bundle, "V1"), url, options: nil)
        try context.performAndWait {
            let folder = MigrationFixtures.insert("Folder", ["name": "all"], into: context)
            for index in 0..<notes {
                let note = MigrationFixtures.insert(
                    "Note", ["title": "note \(index)", "body": "a b c \(index)"], into: context)
                if index % 100 == 0 { note.setValue(Data(repeating: UInt8(index % 251), count: 150_000), forKey: "attachment") }
                note.setValue(folder, forKey: "folder")
            }
            try context.save()
        }
        try MigrationFixtures.close(coordinator)
        try ExplicitStoreMigration.checkpoint(url)
        return (url, bundle)
    }

    /// Copies the store file and its support folder.
    static func copyStore(_ template: URL, to url: URL) throws {
        let manager = FileManager.default
        for path in [url.path, url.path + "-wal", url.path + "-shm", SQLiteExternalStorage.supportFolder(of: url).path]
        where manager.fileExists(atPath: path) {
            try manager.removeItem(atPath: path)
        }
        try manager.copyItem(at: template, to: url)
        let support = SQLiteExternalStorage.supportFolder(of: template)
        if manager.fileExists(atPath: support.path) {
            try manager.copyItem(at: support, to: SQLiteExternalStorage.supportFolder(of: url))
        }
    }

    /// Starts the child migrating the store; returns it and the marker file it writes.
    static func startChild(store: URL, bundle: URL, mode: String = "explicit") throws -> (Process, URL) {
        let marker = store.deletingLastPathComponent().appendingPathComponent("started-\(UUID().uuidString)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["--testing-library", "swift-testing", "--filter", "MigrationKillHelper"]
        var environment = ProcessInfo.processInfo.environment
        environment["STRATA_KILL_STORE"] = store.path
        environment["STRATA_KILL_BUNDLE"] = bundle.path
        environment["STRATA_KILL_MARKER"] = marker.path
        environment["STRATA_KILL_MODE"] = mode
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return (process, marker)
    }

    static func waitFor(_ marker: URL, _ process: Process) -> Bool {
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline {
            if FileManager.default.fileExists(atPath: marker.path) { return true }
            if !process.isRunning { return false }
            usleep(2_000)
        }
        return false
    }

    /// Waits for the child to start migrating and to finish; whether it started, and how long
    /// the migration took.
    static func runToTheEnd(_ child: Process, _ marker: URL) -> (Bool, TimeInterval) {
        let started = waitFor(marker, child)
        let start = Date()
        child.waitUntilExit()
        return (started, Date().timeIntervalSince(start))
    }

    /// Waits for the child to start migrating, kills it `seconds` later and waits for it to
    /// end; whether it started.
    static func kill(_ child: Process, _ marker: URL, after seconds: TimeInterval) -> Bool {
        let started = waitFor(marker, child)
        usleep(UInt32(seconds * 1_000_000))
        Glibc.kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        return started
    }

    /// Runs the timing-critical, blocking part of a kill on a thread of its own: the test then
    /// holds none of the few threads of Swift's cooperative pool while it waits (other tests'
    /// async work runs there), and the kill lands when it should however busy that pool is.
    static func onOwnThread<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: work()) }.start()
        }
    }

    @Test func killedMigrationLeavesTheOriginalOrTheMigratedStore() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-kill-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (template, bundle) = try Self.template(in: folder)
        let original = try Data(contentsOf: template)
        let v1 = try MigrationFixtures.model(bundle, "V1")
        let v2 = try MigrationFixtures.model(bundle, "V2")
        let store = folder.appendingPathComponent("Store.sqlite")

        // One run to the end: how long the migration takes in the child.
        try Self.copyStore(template, to: store)
        let (first, firstMarker) = try Self.startChild(store: store, bundle: bundle)
        let (started, duration) = await Self.onOwnThread { Self.runToTheEnd(first, firstMarker) }
        #expect(started)
        #expect(first.terminationStatus == 0)
        try Self.checkMigrated(store, v2)

        var outcomes = (original: 0, migrated: 0)
        let kills = 12
        for index in 0..<kills {
            try Self.copyStore(template, to: store)
            let (child, marker) = try Self.startChild(store: store, bundle: bundle)
            // Kill points spread over the whole migration, the last ones near or after its end.
            let fraction = 1.2 * (Double(index) + Double.random(in: 0..<1)) / Double(kills)
            #expect(await Self.onOwnThread { Self.kill(child, marker, after: duration * fraction) })
            let bytes = try Data(contentsOf: store)
            let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: store)
            if MigrationSourceModels.matches(v1, metadata[NSStoreModelVersionHashesKey] as? [String: Any] ?? [:]) {
                #expect(bytes == original, "kill \(index) at \(fraction): the original store changed")
                let (coordinator, context) = try MigrationFixtures.open(v1, store, options: nil)
                let count = try context.performAndWait {
                    try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Note"))
                }
                try MigrationFixtures.close(coordinator)
                #expect(count == Self.notes)
                #expect(Self.externalFiles(of: store) == Self.notes / 100, "kill \(index): files copied for the new store stayed")
                outcomes.original += 1
            } else {
                try Self.checkMigrated(store, v2)
                outcomes.migrated += 1
            }
        }
        print(
            "migration kill test: \(kills) kills over \(duration) s: \(outcomes.original) original, \(outcomes.migrated) migrated"
        )
        #expect(outcomes.original + outcomes.migrated == kills)
        #expect(outcomes.original > 0)
    }

    static let lightweightV1 = """
        <entity name="Item">
            <attribute name="title" attributeType="String"/>
            <attribute name="count" optional="YES" attributeType="Integer 16" defaultValueString="0"/>
            <attribute name="payload" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>
        </entity>
        """
    /// The count widens (the table is made anew and filled by one `INSERT … SELECT`), a
    /// required attribute with a default and an entity are added.
    static let lightweightV2 = """
        <entity name="Item">
            <attribute name="title" attributeType="String"/>
            <attribute name="count" optional="YES" attributeType="Integer 64" defaultValueString="0"/>
            <attribute name="payload" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>
            <attribute name="rating" attributeType="Integer 32" defaultValueString="3"/>
        </entity>
        <entity name="Tag">
            <attribute name="label" optional="YES" attributeType="String"/>
        </entity>
        """
    static let items = 40_000

    /// The same for automatic lightweight migration, which runs in one SQLite transaction.
    @Test func killedLightweightMigrationLeavesTheOriginalOrTheMigratedStore() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-kill-\(UUID().uuidString)")
        let bundle = folder.appendingPathComponent("Model.xcdatamodeld")
        for (name, entities) in ["V1": Self.lightweightV1, "V2": Self.lightweightV2] {
            let version = bundle.appendingPathComponent(name + ".xcdatamodel")
            try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
            try Data(MigrationFixtures.xml(entities).utf8).write(to: version.appendingPathComponent("contents"))
        }
        defer { try? FileManager.default.removeItem(at: folder) }
        let v1 = try MigrationFixtures.model(bundle, "V1")
        let v2 = try MigrationFixtures.model(bundle, "V2")
        let template = folder.appendingPathComponent("Template.sqlite")
        let (coordinator, context) = try MigrationFixtures.open(v1, template, options: nil)
        try context.performAndWait {
            for index in 0..<Self.items {
                let item = MigrationFixtures.insert(
                    "Item", ["title": "item \(index)", "count": Int16(index % 1000)], into: context)
                if index % 1000 == 0 { item.setValue(Data(repeating: 1, count: 120_000), forKey: "payload") }
            }
            try context.save()
        }
        try MigrationFixtures.close(coordinator)
        try ExplicitStoreMigration.checkpoint(template)
        let original = try Data(contentsOf: template)
        let store = folder.appendingPathComponent("Store.sqlite")

        try Self.copyStore(template, to: store)
        let (first, firstMarker) = try Self.startChild(store: store, bundle: bundle, mode: "lightweight")
        let (started, duration) = await Self.onOwnThread { Self.runToTheEnd(first, firstMarker) }
        #expect(started)
        #expect(first.terminationStatus == 0)

        var outcomes = (original: 0, migrated: 0)
        let kills = 10
        for index in 0..<kills {
            try Self.copyStore(template, to: store)
            let (child, marker) = try Self.startChild(store: store, bundle: bundle, mode: "lightweight")
            let fraction = 1.2 * (Double(index) + Double.random(in: 0..<1)) / Double(kills)
            #expect(await Self.onOwnThread { Self.kill(child, marker, after: duration * fraction) })
            // WAL mode: an interrupted transaction never reaches the main file.
            let bytes = try Data(contentsOf: store)
            let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: store)
            let hashes = metadata[NSStoreModelVersionHashesKey] as? [String: Any] ?? [:]
            let migrated = MigrationSourceModels.matches(v2, hashes)
            #expect(migrated || bytes == original, "kill \(index) at \(fraction): the original store changed")
            let (opened, context) = try MigrationFixtures.open(migrated ? v2 : v1, store, options: nil)
            try context.performAndWait {
                let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
                request.predicate = NSPredicate(format: "count == 0")
                let zero = try context.fetch(request)
                #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item")) == Self.items)
                #expect(zero.count == Self.items / 1000)
                #expect(zero.allSatisfy { ($0.value(forKey: "payload") as? Data)?.count == 120_000 })
                if migrated { #expect(zero.allSatisfy { ($0.value(forKey: "rating") as? NSNumber)?.intValue == 3 }) }
            }
            try MigrationFixtures.close(opened)
            if migrated { outcomes.migrated += 1 } else { outcomes.original += 1 }
        }
        print(
            "lightweight migration kill test: \(kills) kills over \(duration) s: \(outcomes.original) original, \(outcomes.migrated) migrated"
        )
        #expect(outcomes.original + outcomes.migrated == kills)
    }

    /// The store opens with version 2 (with no migration option), every note migrated and
    /// every attachment readable from its external file.
    static func checkMigrated(_ store: URL, _ v2: NSManagedObjectModel) throws {
        let (coordinator, context) = try MigrationFixtures.open(v2, store, options: nil)
        defer { try? MigrationFixtures.close(coordinator) }
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Note")
            let notes = try context.fetch(request)
            #expect(notes.count == Self.notes)
            var attachments = 0
            for note in notes {
                guard let heading = note.value(forKey: "heading") as? String, heading.hasPrefix("NOTE "),
                    let index = Int(heading.dropFirst(5))
                else {
                    Issue.record("a note without its heading")
                    continue
                }
                if index % 100 == 0 {
                    #expect(note.value(forKey: "attachment") as? Data == Data(repeating: UInt8(index % 251), count: 150_000))
                    attachments += 1
                }
            }
            #expect(attachments == Self.notes / 100)
        }
        #expect(!FileManager.default.fileExists(atPath: ExplicitStoreMigration.stagingFolder(of: store).path))
        // One file per attachment: the original's, which the migrated rows no longer name, are gone.
        #expect(externalFiles(of: store) == Self.notes / 100)
    }

    /// How many files the store's external data folder holds.
    static func externalFiles(of store: URL) -> Int {
        let folder = SQLiteExternalStorage.supportFolder(of: store).appendingPathComponent("_EXTERNAL_DATA")
        return (try? FileManager.default.contentsOfDirectory(atPath: folder.path))?.count ?? 0
    }
}

/// The child of `MigrationKillTests`: migrates the store named by `STRATA_KILL_STORE` in
/// place with the code-built mapping model (or, with `STRATA_KILL_MODE=lightweight`, by adding
/// it with version 2 and the automatic options); skipped in every other run.
@Suite struct MigrationKillHelper {
    static var store: String? { ProcessInfo.processInfo.environment["STRATA_KILL_STORE"] }

    @Test(.enabled(if: store != nil)) func migrateForTheKillTest() throws {
        let env = ProcessInfo.processInfo.environment
        let store = URL(fileURLWithPath: try #require(env["STRATA_KILL_STORE"]))
        let bundle = URL(fileURLWithPath: try #require(env["STRATA_KILL_BUNDLE"]))
        let v1 = try MigrationFixtures.model(bundle, "V1")
        let v2 = try MigrationFixtures.model(bundle, "V2")
        // A leftover of an earlier child is cleared as an open would.
        ExplicitStoreMigration.discardLeftovers(of: store)
        FileManager.default.createFile(atPath: try #require(env["STRATA_KILL_MARKER"]), contents: Data())
        if env["STRATA_KILL_MODE"] == "lightweight" {
            // Automatic lightweight migration when the store is added: one SQLite transaction.
            let (coordinator, _) = try MigrationFixtures.open(v2, store)
            try MigrationFixtures.close(coordinator)
            return
        }
        try ExplicitStoreMigration.migrateInPlace(
            store, sourceModel: v1, destinationModel: v2, mapping: ExplicitMigrationTests.mapping(), options: nil)
        #expect(!FileManager.default.fileExists(atPath: ExplicitStoreMigration.stagingFolder(of: store).path))
    }
}
