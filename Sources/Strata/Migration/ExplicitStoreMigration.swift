import Foundation
internal import GRDB

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An explicit migration of a SQLite store in place, such that the store is, at every
/// moment, either the original file byte for byte or the fully migrated one — whatever
/// fails, and wherever the process is killed.
///
/// The migration manager reads the original (read-only) and writes a new store in a
/// staging folder beside it (`.<name>.migrating`), under the same file name so that its
/// external data files have the same relative paths. Then:
/// 1. the new store is checkpointed, so that it is whole without its WAL;
/// 2. two lists go into the staging folder: the new store's external data files (`added`)
///    and the original's that the new store does not name (`obsolete`);
/// 3. the `added` files are copied into the original's support folder (new names: the
///    original's rows never name them);
/// 4. the original's empty WAL companions are removed and the new file is renamed over the
///    original — `rename(2)` replaces it atomically: the commit point;
/// 5. the `obsolete` files are removed, then the staging folder.
///
/// A process killed on the way leaves the staging folder, which the next open clears with
/// `discardLeftovers`: before the commit point (the new file still in the staging folder)
/// the copied `added` files go, after it the `obsolete` ones — so no external file is ever
/// lost, and none is left behind.
enum ExplicitStoreMigration {
    static func stagingFolder(of url: URL) -> URL {
        url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).migrating", isDirectory: true)
    }

    /// Removes what an interrupted migration left: before its commit point the original is
    /// untouched and the external files copied for the new store are garbage; after it the
    /// migrated file is in place and the original's external files it does not name are.
    /// Either way the staging folder goes.
    static func discardLeftovers(of url: URL) {
        let fileManager = FileManager.default
        let staging = stagingFolder(of: url)
        guard fileManager.fileExists(atPath: staging.path) else { return }
        let committed = !fileManager.fileExists(atPath: staging.appendingPathComponent(url.lastPathComponent).path)
        let list = staging.appendingPathComponent(committed ? obsoleteList : addedList)
        removeExternalFiles(named: fileNames(in: list), of: url)
        try? fileManager.removeItem(at: staging)
    }

    /// The staging folder's lists of external data file names, one per line.
    private static let addedList = "added"
    private static let obsoleteList = "obsolete"

    private static func fileNames(in list: URL) -> [String] {
        guard let text = try? String(contentsOf: list, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").map(String.init)
    }

    /// Removes the named files from a store's `_EXTERNAL_DATA` folder. Names come from the
    /// staging lists, which only this code writes; one holding a path separator is skipped all
    /// the same.
    private static func removeExternalFiles(named names: [String], of url: URL) {
        let folder = SQLiteExternalStorage.supportFolder(of: url).appendingPathComponent("_EXTERNAL_DATA")
        for name in names where !name.isEmpty && !name.contains("/") && name != "." && name != ".." {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
    }

    /// The names of the files in a support folder's `_EXTERNAL_DATA`.
    private static func externalFileNames(in support: URL) -> Set<String> {
        let names = try? FileManager.default.contentsOfDirectory(atPath: support.appendingPathComponent("_EXTERNAL_DATA").path)
        return Set(names ?? [])
    }

    static func migrateInPlace(
        _ url: URL, sourceModel: NSManagedObjectModel, destinationModel: NSManagedObjectModel, mapping: NSMappingModel,
        options: [AnyHashable: Any]?, manager: NSMigrationManager? = nil
    ) throws {
        let fileManager = FileManager.default
        try checkpoint(url)
        let staging = stagingFolder(of: url)
        discardLeftovers(of: url)
        try fileManager.createDirectory(at: staging, withIntermediateDirectories: true)
        let migrated = staging.appendingPathComponent(url.lastPathComponent)
        do {
            let manager = manager ?? NSMigrationManager(sourceModel: sourceModel, destinationModel: destinationModel)
            var plain = options ?? [:]
            plain[NSPersistentStoreStagedMigrationManagerOptionKey] = nil
            plain[NSMigratePersistentStoresAutomaticallyOption] = false
            try manager.migrateStore(
                from: url, type: NSSQLiteStoreType, options: plain, with: mapping, toDestinationURL: migrated,
                destinationType: NSSQLiteStoreType, destinationOptions: plain)
            try checkpoint(migrated)
            let migratedNames = externalFileNames(in: SQLiteExternalStorage.supportFolder(of: migrated))
            let originalNames = externalFileNames(in: SQLiteExternalStorage.supportFolder(of: url))
            // A name in both (never, with unique names) is neither copied nor removed.
            let added = migratedNames.subtracting(originalNames)
            let obsolete = originalNames.subtracting(migratedNames)
            // The lists first, each written whole (atomically), so that a leftover is always cleared right.
            try Data(added.sorted().joined(separator: "\n").utf8).write(
                to: staging.appendingPathComponent(addedList), options: .atomic)
            try Data(obsolete.sorted().joined(separator: "\n").utf8).write(
                to: staging.appendingPathComponent(obsoleteList), options: .atomic)
            try copyExternalData(
                from: SQLiteExternalStorage.supportFolder(of: migrated), to: SQLiteExternalStorage.supportFolder(of: url))
            for suffix in ["-wal", "-shm"] where fileManager.fileExists(atPath: url.path + suffix) {
                try fileManager.removeItem(atPath: url.path + suffix)
            }
            guard rename(migrated.path, url.path) == 0 else {
                throw CoreDataError.make(
                    NSMigrationError, "The migrated store could not replace the original (errno \(errno)).",
                    userInfo: [NSURLErrorKey: url])
            }
        } catch {
            // Before the commit point: the original stands; what was copied for the new store goes.
            discardLeftovers(of: url)
            throw error
        }
        discardLeftovers(of: url)
    }

    /// Writes a store's WAL into its main file and empties it, so that the main file alone
    /// is the whole store (and its companions can go).
    static func checkpoint(_ url: URL) throws {
        let wal = url.path + "-wal"
        guard let size = (try? FileManager.default.attributesOfItem(atPath: wal))?[.size] as? NSNumber,
            size.intValue > 0
        else { return }
        try StoreFile.translatingSQLiteErrors(url) {
            let database = try DatabaseQueue(path: url.path)
            try database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
            try database.close()
        }
    }

    /// Copies the files of one support folder's external data into another's, keeping names.
    private static func copyExternalData(from source: URL, to destination: URL) throws {
        let fileManager = FileManager.default
        let sourceData = source.appendingPathComponent("_EXTERNAL_DATA")
        guard let names = try? fileManager.contentsOfDirectory(atPath: sourceData.path), !names.isEmpty else { return }
        let destinationData = destination.appendingPathComponent("_EXTERNAL_DATA")
        try fileManager.createDirectory(at: destinationData, withIntermediateDirectories: true)
        for name in names {
            let target = destinationData.appendingPathComponent(name)
            if fileManager.fileExists(atPath: target.path) { continue }
            try fileManager.copyItem(at: sourceData.appendingPathComponent(name), to: target)
        }
    }
}
