import Foundation
import Strata

/// B13: lightweight migration of the `large` store (1M items at full size): version 2 of the
/// model adds an attribute to Item (`rating`, with a default), renames one (`name` →
/// `title`, renaming identifier `name`) and adds an entity (`Tag`). Strata's time is the
/// whole open: finding the source model among the bundle's versions, inferring the mapping,
/// migrating in one transaction, and counting the items. Raw SQLite copies the table once
/// (`INSERT INTO … SELECT`) in a transaction, the least a migration that rewrites the table
/// can do. Each trial works on a fresh copy of the store, made before the clock.
enum MigrationCases {
    static func timed(_ sizes: Sizes) -> [TimedCase] {
        [
            TimedCase(
                id: "B13", work: "migrate \(Report.count(sizes.large)) rows: +1 attr, 1 renamed, +1 entity",
                goal: .ratio(2), runs: [.raw: raw, .strata: strata])
        ]
    }

    static func memory(_ sizes: Sizes) -> [MemoryCase] {
        [
            MemoryCase(
                id: "B13", work: "peak, migrating \(Report.count(sizes.large)) rows", goal: .megabytes(10),
                runs: [.raw: { try raw($0).checksum }, .strata: { try strata($0).checksum }])
        ]
    }

    /// The raw baseline: the Item table copied once.
    static func raw(_ fixtures: Fixtures) throws -> Sample {
        let url = try copyOfLargeStore(fixtures)
        defer { removeStore(url) }
        let database = try RawDatabase(path: url.path)
        return try measure {
            try database.execute("BEGIN")
            try database.execute("CREATE TABLE ZCOPY AS SELECT * FROM ZITEM WHERE 0")
            try database.execute("INSERT INTO ZCOPY SELECT * FROM ZITEM")
            try database.execute("COMMIT")
            return Int(try database.integer("SELECT count(*) FROM ZCOPY"))
        }
    }

    /// Strata: the store added with version 2 and the migration options.
    static func strata(_ fixtures: Fixtures) throws -> Sample {
        let url = try copyOfLargeStore(fixtures)
        defer { removeStore(url) }
        let model = try Versions.destination(in: fixtures.directory)
        return try measure {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            let store = try coordinator.addPersistentStore(
                ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            let count = try context.performAndWait {
                try context.count(for: NSFetchRequest<NSFetchRequestResult>(entityName: "Item"))
            }
            try coordinator.remove(store)
            return count
        }
    }

    private static func copyOfLargeStore(_ fixtures: Fixtures) throws -> URL {
        let url = fixtures.directory.appendingPathComponent("b13-\(UUID().uuidString).sqlite")
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: fixtures.large + suffix) {
            try FileManager.default.copyItem(atPath: fixtures.large + suffix, toPath: url.path + suffix)
            // On the disk before the clock: the first sync of the store's file inside the clock
            // (a migration's checkpoint) would otherwise write the copy's pages too.
            let handle = try FileHandle(forUpdating: URL(fileURLWithPath: url.path + suffix))
            try handle.synchronize()
            try handle.close()
        }
        return url
    }

    private static func removeStore(_ url: URL) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
    }

    /// The two model versions, written once per process as a bundle the migration finds
    /// version 1 in, beside version 2.
    enum Versions {
        private static let made = ProtectedValue<NSManagedObjectModel>()

        static func destination(in directory: URL) throws -> NSManagedObjectModel {
            if let model = made.value { return model }
            let bundle = directory.appendingPathComponent(
                "B13-\(ProcessInfo.processInfo.processIdentifier).xcdatamodeld", isDirectory: true)
            let first = bundle.appendingPathComponent("V1.xcdatamodel")
            try BenchModel.shared.write(toXcodeModelAt: first)
            guard let second = NSManagedObjectModel(contentsOf: first),
                let item = second.entitiesByName["Item"], let name = item.attributesByName["name"]
            else { throw BenchError("B13: cannot read the model written to \(first.path)") }
            name.name = "title"
            name.renamingIdentifier = "name"
            let rating = NSAttributeDescription()
            rating.name = "rating"
            rating.attributeType = .doubleAttributeType
            rating.isOptional = false
            rating.defaultValue = 1.0
            item.properties.append(rating)
            let tag = NSEntityDescription()
            tag.name = "Tag"
            let label = NSAttributeDescription()
            label.name = "label"
            label.attributeType = .stringAttributeType
            tag.properties = [label]
            second.entities.append(tag)
            let secondURL = bundle.appendingPathComponent("V2.xcdatamodel")
            try second.write(toXcodeModelAt: secondURL)
            guard let model = NSManagedObjectModel(contentsOf: secondURL) else {
                throw BenchError("B13: cannot read the model written to \(secondURL.path)")
            }
            made.value = model
            return model
        }
    }
}

/// A value set once and read from any thread.
final class ProtectedValue<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value?

    init() {}

    var value: Value? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
