import Foundation
import Strata

/// The store files the cases start from, made once per run in a scratch folder: an empty
/// store, stores of `fetched` and `large` items, one of owners with their items, and an
/// empty store of B11's to-dos, tags and places. Strata
/// creates each schema (Core Data's layout); the rows are written with SQLite's C API, which
/// is the quickest way to make a million of them.
struct Fixtures {
    let directory: URL
    private(set) var sizes: Sizes
    /// Entity numbers (`Z_ENT`) of the two entities in these stores.
    private(set) var itemEntity: Int64 = 1
    private(set) var ownerEntity: Int64 = 2
    /// Where B11's rows go in `tagged`.
    private(set) var taggedLayout = TaggedLayout()

    var empty: String { path("empty") }
    var items: String { path("items") }
    var large: String { path("large") }
    var owners: String { path("owners") }
    var tagged: String { path("tagged") }

    /// The same fixtures for cases that insert `count` rows instead of `sizes.inserts` (M3).
    func inserting(_ count: Int) -> Fixtures {
        var copy = self
        copy.sizes.inserts = count
        return copy
    }

    func path(_ name: String) -> String { directory.appendingPathComponent("\(name).sqlite").path }

    /// Opens existing fixtures (a child process) or makes them.
    init(directory: URL, sizes: Sizes, create: Bool) throws {
        self.directory = directory
        self.sizes = sizes
        if create {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Self.makeSchema(at: empty)
            try Self.makeSchema(at: tagged, model: TaggedModel.shared)
        }
        taggedLayout = try TaggedLayout(store: path("tagged"))
        let numbers = try RawDatabase(path: empty).prepare("SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY")
        while try numbers.step() {
            switch numbers.string(1) {
            case "Item": itemEntity = numbers.int64(0)
            case "Owner": ownerEntity = numbers.int64(0)
            default: break
            }
        }
        guard create else { return }
        try fill(items, items: sizes.fetched, owners: 0)
        try fill(large, items: sizes.large, owners: 0)
        try fill(owners, items: sizes.owners * sizes.children, owners: sizes.owners)
    }

    /// An empty store with Strata's schema for the model, closed again.
    private static func makeSchema(at path: String, model: NSManagedObjectModel = BenchModel.shared) throws {
        try? FileManager.default.removeItem(atPath: path)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: URL(fileURLWithPath: path))
        try coordinator.remove(store)
    }

    /// A copy of the empty store with `items` items; with `owners`, item `n` belongs to owner
    /// `(n - 1) / children + 1`.
    private func fill(_ path: String, items: Int, owners: Int) throws {
        try copy(empty, to: path)
        let database = try RawDatabase(path: path)
        try database.execute("BEGIN")
        if owners > 0 {
            let insert = try database.prepare("INSERT INTO ZOWNER (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (?, ?, 1, ?)")
            for n in 1...owners {
                insert.bind(Int64(n), at: 1)
                insert.bind(ownerEntity, at: 2)
                insert.bind("Owner \(n)", at: 3)
                try insert.step()
                insert.reset()
            }
            try database.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = \(owners) WHERE Z_ENT = \(ownerEntity)")
        }
        let insert = try database.prepare(Layout.itemInsert)
        for n in stride(from: 1, through: items, by: 1) {
            RawCases.bind(ItemValues(n), key: Int64(n), entity: itemEntity, to: insert)
            if owners > 0 { insert.bind(Int64((n - 1) / sizes.children + 1), at: 13) }
            try insert.step()
            insert.reset()
        }
        try database.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = \(items) WHERE Z_ENT = \(itemEntity)")
        try database.execute("COMMIT")
    }

    /// A fresh copy of a fixture for a case that writes, in the scratch folder.
    func scratchCopy(of fixture: String) throws -> String {
        let target = path("scratch-\(UUID().uuidString)")
        try copy(fixture, to: target)
        return target
    }

    /// Copies a store file, its write-ahead log checkpointed into it first.
    func copy(_ source: String, to target: String) throws {
        try RawDatabase(path: source).execute("PRAGMA wal_checkpoint(TRUNCATE)")
        Self.remove(target)
        try FileManager.default.copyItem(atPath: source, toPath: target)
    }

    /// Removes a store file and SQLite's files beside it.
    static func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}
