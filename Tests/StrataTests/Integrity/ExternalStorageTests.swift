import Foundation
import GRDB
import Testing

@testable import Strata

/// External binary storage (STORE-FORMAT §3.7): large values of attributes that allow it live
/// in files beside a SQLite store, named by Apple's 38-byte marker in the column, and the
/// files follow the rows through saves, failed saves, deletes, migrate, replace and destroy.
@Suite struct ExternalStorageTests {
    private let scratch = ObjectGraphTests.ScratchDirectory()
    private let model = Self.model()
    private var url: URL { scratch.file("media.sqlite") }

    /// `payload` allows external storage, `plain` does not.
    static func model() -> NSManagedObjectModel {
        NSManagedObjectModel {
            Entity("Attachment") {
                Attribute("name", .stringAttributeType)
                Attribute("payload", .binaryDataAttributeType) { $0.allowsExternalBinaryDataStorage = true }
                Attribute("plain", .binaryDataAttributeType)
            }
        }
    }

    static let large = bytes(ExternalStorageFiles.threshold + 1, seed: 1)
    static let otherLarge = bytes(300 * 1024, seed: 2)

    /// Bytes that differ from one position to the next, so that a file of the wrong part of a
    /// value would not compare equal.
    static func bytes(_ count: Int, seed: UInt8) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 / 251 &+ Int(seed)) })
    }

    // MARK: Where values go

    @Test func largeValuesGoToFilesWithAppleMarkerAndSmallOnesStayInline() throws {
        let stack = try ObjectGraphTests.Stack(model, at: url)
        let small = Data([7, 8, 9])
        let edge = Self.bytes(ExternalStorageFiles.threshold, seed: 3)
        let big = try insert(["name": "big", "payload": Self.large, "plain": Self.large], in: stack)
        let tiny = try insert(["name": "tiny", "payload": small], in: stack)
        let atThreshold = try insert(["name": "edge", "payload": edge], in: stack)

        let files = ExternalStorageFiles.names(of: url)
        #expect(files.count == 1)
        let name = try #require(files.first)
        #expect(try ExternalStorageFiles.contents(name, of: url) == Self.large)

        let marker = try #require(try ExternalStorageFiles.column("ZPAYLOAD", of: big, at: url))
        #expect(marker.count == 38)
        #expect(marker.first == 0x02)
        #expect(String(decoding: marker.dropFirst().prefix(36), as: UTF8.self) == name)
        #expect(marker.last == 0x00)
        #expect(UUID(uuidString: name) != nil)

        #expect(try ExternalStorageFiles.column("ZPAYLOAD", of: tiny, at: url) == Data([0x01]) + small)
        #expect(try ExternalStorageFiles.column("ZPAYLOAD", of: atThreshold, at: url) == Data([0x01]) + edge)
        // Without external storage a value is stored as it is, however large.
        #expect(try ExternalStorageFiles.column("ZPLAIN", of: big, at: url) == Self.large)

        try stack.close()
        let reopened = try ObjectGraphTests.Stack(model, at: url)
        #expect(try values("payload", in: reopened) == ["big": Self.large, "edge": edge, "tiny": small])
    }

    @Test func inMemoryAndBinaryStoresKeepTheBytesInline() throws {
        for type in [NSInMemoryStoreType, NSBinaryStoreType] {
            let storeURL = scratch.file("media-\(type).store")
            let stack = try ObjectGraphTests.Stack(model, type: type, at: type == NSInMemoryStoreType ? nil : storeURL)
            _ = try insert(["name": "big", "payload": Self.large], in: stack)
            #expect(try values("payload", in: stack) == ["big": Self.large])
            #expect(!FileManager.default.fileExists(atPath: SQLiteExternalStorage.supportFolder(of: storeURL).path))
            if type == NSBinaryStoreType {
                try stack.close()
                let reopened = try ObjectGraphTests.Stack(model, type: type, at: storeURL)
                #expect(try values("payload", in: reopened) == ["big": Self.large])
            }
        }
    }

    // MARK: Lifetime of the files

    @Test func deletingARowDeletesItsFile() throws {
        let stack = try ObjectGraphTests.Stack(model, at: url)
        let id = try insert(["name": "big", "payload": Self.large], in: stack)
        #expect(ExternalStorageFiles.names(of: url).count == 1)

        let context = stack.newContext()
        try context.performAndWait {
            context.delete(try context.existingObject(with: id))
            try context.save()
        }
        #expect(ExternalStorageFiles.names(of: url).isEmpty)
    }

    @Test func replacingAValueReplacesItsFile() throws {
        let stack = try ObjectGraphTests.Stack(model, at: url)
        let id = try insert(["name": "big", "payload": Self.large], in: stack)
        let first = ExternalStorageFiles.names(of: url)

        // A change to another attribute leaves the file alone.
        try update(id, ["name": "renamed"], in: stack)
        #expect(ExternalStorageFiles.names(of: url) == first)

        try update(id, ["payload": Self.otherLarge], in: stack)
        let second = ExternalStorageFiles.names(of: url)
        #expect(second.count == 1 && second != first)
        #expect(try ExternalStorageFiles.contents(second[0], of: url) == Self.otherLarge)

        try update(id, ["payload": Data([1, 2])], in: stack)
        #expect(ExternalStorageFiles.names(of: url).isEmpty)
        #expect(try ExternalStorageFiles.column("ZPAYLOAD", of: id, at: url) == Data([0x01, 1, 2]))

        try update(id, ["payload": Self.large], in: stack)
        #expect(ExternalStorageFiles.names(of: url).count == 1)
        try update(id, ["payload": NSNull()], in: stack)
        #expect(ExternalStorageFiles.names(of: url).isEmpty)
        #expect(try ExternalStorageFiles.column("ZPAYLOAD", of: id, at: url) == nil)
    }

    /// A save that fails after writing its files (here at an optimistic-locking conflict)
    /// removes them, and keeps the file the stored row still names.
    @Test func aFailedSaveLeavesNoOrphanAndKeepsTheOldFile() throws {
        let stack = try ObjectGraphTests.Stack(model, at: url)
        let id = try insert(["name": "big", "payload": Self.large], in: stack)
        let before = ExternalStorageFiles.names(of: url)
        let first = stack.newContext()
        let second = stack.newContext()
        let stale = try second.performAndWait {
            let object = try second.existingObject(with: id)
            _ = object.value(forKey: "name")
            return object
        }
        try update(id, ["name": "changed elsewhere"], in: stack, context: first)

        try second.performAndWait {
            stale.setValue(Self.otherLarge, forKey: "payload")
            let added = NSEntityDescription.insertNewObject(forEntityName: "Attachment", into: second)
            added.setValue("added", forKey: "name")
            added.setValue(Self.bytes(200 * 1024, seed: 9), forKey: "payload")
            let error = try #require(throws: (any Error).self) { try second.save() } as NSError
            #expect(error.domain == NSCocoaErrorDomain && error.code == NSManagedObjectMergeError)
        }
        #expect(ExternalStorageFiles.names(of: url) == before)
        #expect(try ExternalStorageFiles.entries(of: url) == before, "no temporary files left")
        #expect(try values("payload", in: stack) == ["changed elsewhere": Self.large])
    }

    // MARK: Whole stores

    @Test func migratingWritesTheFilesOfTheNewStore() throws {
        let stack = try ObjectGraphTests.Stack(model, at: url)
        _ = try insert(["name": "big", "payload": Self.large], in: stack)
        let binaryURL = scratch.file("media.store")
        let copyURL = scratch.file("copy.sqlite")

        let binary = try stack.coordinator.migratePersistentStore(stack.store, to: binaryURL, withType: NSBinaryStoreType)
        #expect(!FileManager.default.fileExists(atPath: SQLiteExternalStorage.supportFolder(of: binaryURL).path))
        #expect(try values("payload", in: stack) == ["big": Self.large])

        try stack.coordinator.migratePersistentStore(binary, to: copyURL, withType: NSSQLiteStoreType)
        let files = ExternalStorageFiles.names(of: copyURL)
        #expect(files.count == 1)
        #expect(try ExternalStorageFiles.contents(try #require(files.first), of: copyURL) == Self.large)
        #expect(try values("payload", in: stack) == ["big": Self.large])
        // The migrated-from store keeps its own files.
        #expect(ExternalStorageFiles.names(of: url).count == 1)
    }

    @Test func replacingCopiesTheFilesAndDropsTheReplacedOnes() throws {
        let seedURL = scratch.file("seed.sqlite")
        do {
            let seed = try ObjectGraphTests.Stack(model, at: seedURL)
            _ = try insert(["name": "seed", "payload": Self.large], in: seed)
            try seed.close()
        }
        let stack = try ObjectGraphTests.Stack(model, at: url)
        _ = try insert(["name": "old", "payload": Self.otherLarge], in: stack)
        let seedFiles = ExternalStorageFiles.names(of: seedURL)

        try stack.coordinator.replacePersistentStore(at: url, withPersistentStoreFrom: seedURL, ofType: NSSQLiteStoreType)
        #expect(ExternalStorageFiles.names(of: url) == seedFiles)
        #expect(ExternalStorageFiles.names(of: seedURL) == seedFiles)
        #expect(try values("payload", in: stack) == ["seed": Self.large])
        let staged = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).filter { $0.contains("_SUPPORT-") }
        #expect(staged.isEmpty, "staging folders left: \(staged)")

        // A source without external files leaves none behind in the destination.
        let emptyURL = scratch.file("empty.sqlite")
        try ObjectGraphTests.Stack(model, at: emptyURL).close()
        try stack.coordinator.replacePersistentStore(at: url, withPersistentStoreFrom: emptyURL, ofType: NSSQLiteStoreType)
        #expect(!FileManager.default.fileExists(atPath: SQLiteExternalStorage.supportFolder(of: url).path))
    }

    @Test func destroyingRemovesTheExternalFiles() throws {
        let stack = try ObjectGraphTests.Stack(model, at: url)
        _ = try insert(["name": "big", "payload": Self.large], in: stack)
        try stack.coordinator.destroyPersistentStore(at: url, ofType: NSSQLiteStoreType)
        // The store file stays as an empty database (as Apple's); its external data is gone.
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path) == [url.lastPathComponent])
    }

    // MARK: Helpers

    private func insert(_ values: [String: Any], in stack: ObjectGraphTests.Stack) throws -> NSManagedObjectID {
        let context = stack.newContext()
        return try context.performAndWait {
            let object = NSEntityDescription.insertNewObject(forEntityName: "Attachment", into: context)
            for (key, value) in values { object.setValue(value, forKey: key) }
            try context.save()
            return object.objectID
        }
    }

    private func update(
        _ id: NSManagedObjectID, _ values: [String: Any], in stack: ObjectGraphTests.Stack,
        context: NSManagedObjectContext? = nil
    ) throws {
        let context = context ?? stack.newContext()
        try context.performAndWait {
            let object = try context.existingObject(with: id)
            for (key, value) in values { object.setValue(value is NSNull ? nil : value, forKey: key) }
            try context.save()
        }
    }

    /// Each object's value of a key, by name, read in a new context.
    private func values(_ key: String, in stack: ObjectGraphTests.Stack) throws -> [String: Data] {
        let context = stack.newContext()
        return try context.performAndWait {
            var result: [String: Data] = [:]
            for object in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Attachment")) {
                result[object.value(forKey: "name") as? String ?? "?"] = object.value(forKey: key) as? Data
            }
            return result
        }
    }
}

/// The external data folder of a store and the raw columns that name its files.
enum ExternalStorageFiles {
    static let threshold = SQLiteExternalStorage.threshold

    static func folder(of store: URL) -> URL {
        SQLiteExternalStorage.supportFolder(of: store).appendingPathComponent("_EXTERNAL_DATA")
    }

    /// The names of the files in the folder that are UUIDs (external values).
    static func names(of store: URL) -> [String] {
        ((try? entries(of: store)) ?? []).filter { UUID(uuidString: $0) != nil }
    }

    /// Everything in the folder (none when it does not exist).
    static func entries(of store: URL) throws -> [String] {
        let path = folder(of: store).path
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        return try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }

    static func contents(_ name: String, of store: URL) throws -> Data {
        try Data(contentsOf: folder(of: store).appendingPathComponent(name))
    }

    /// A column of an object's row, read with SQLite directly.
    static func column(
        _ column: String, of id: NSManagedObjectID, at store: URL, table: String = "ZATTACHMENT"
    ) throws
        -> Data?
    {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: store.path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in
            try Data.fetchOne(db, sql: "SELECT \(column) FROM \(table) WHERE Z_PK = ?", arguments: [id.primaryKey])
        }
    }
}
