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
/// 2. its external data files are copied into the original's support folder (new names:
///    the original's rows never name them);
/// 3. the original's empty WAL companions are removed and the new file is renamed over the
///    original — `rename(2)` replaces it atomically: the commit point;
/// 4. the staging folder is removed (and at the next open when the process died before).
///
/// The original's own external data files stay (the migrated rows that kept their values
/// name new files): they are orphaned, not lost.
enum ExplicitStoreMigration {
    static func stagingFolder(of url: URL) -> URL {
        url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).migrating", isDirectory: true)
    }

    /// Removes what an interrupted migration left: before its commit point the original is
    /// untouched, after it the migrated file is in place; either way the staging folder is
    /// garbage.
    static func discardLeftovers(of url: URL) {
        let staging = stagingFolder(of: url)
        if FileManager.default.fileExists(atPath: staging.path) { try? FileManager.default.removeItem(at: staging) }
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
            try? fileManager.removeItem(at: staging)
            throw error
        }
        try? fileManager.removeItem(at: staging)
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
