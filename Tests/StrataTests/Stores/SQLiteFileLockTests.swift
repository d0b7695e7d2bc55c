import Foundation
import Testing

@testable import Strata

/// An open store keeps its POSIX locks while the same process opens the file again (a second
/// coordinator, the metadata calls). Such locks belong to the process: a descriptor Strata
/// opened and closed on the file to read its header dropped those of every SQLite connection
/// on it, and another process could then take the file over — found by the concurrency
/// harness, as a second coordinator's and a second process's saves failing with SQLite's
/// disk I/O error (extended code 522, a WAL read short of its end) and duplicate history keys.
@Suite struct SQLiteFileLockTests {
    private let scratch = ScratchFolder()

    private static func model() -> NSManagedObjectModel {
        NSManagedObjectModel {
            Entity("Note") { Attribute("text", .stringAttributeType) }
        }
    }

    /// SQLite's command-line shell, another process on the same file.
    static let shell: URL? = ["/usr/bin/sqlite3", "/usr/local/bin/sqlite3", "/bin/sqlite3"].map(URL.init(fileURLWithPath:)).first
    {
        FileManager.default.isExecutableFile(atPath: $0.path)
    }

    /// Runs the shell on the file; returns its exit status and what it wrote.
    private func runShell(_ shell: URL, _ url: URL, _ sql: String) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = shell
        process.arguments = [url.path, sql]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test(.enabled(if: Self.shell != nil, "SQLite's command-line shell (the sqlite3 package) is not installed"))
    func anotherProcessCannotTakeTheFileWhileTheStoreIsOpen() throws {
        let shell = try #require(Self.shell)
        let url = scratch.file("Notes.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
        _ = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Note", into: context).setValue("first", forKey: "text")
            try context.save()
        }

        // The same process opens the file again, as apps do: metadata, a second coordinator.
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        #expect(metadata[NSStoreTypeKey] as? String == NSSQLiteStoreType)
        let second = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
        let secondStore = try second.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        try second.remove(secondStore)

        // Leaving WAL mode needs the file to itself: refused while the store is open.
        _ = try runShell(shell, url, "PRAGMA journal_mode = DELETE;")
        let mode = try runShell(shell, url, "PRAGMA journal_mode;")
        #expect(
            mode.output.trimmingCharacters(in: .whitespacesAndNewlines) == "wal", "another process took the file: \(mode.output)")

        // The store goes on saving and reading.
        let texts = try context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Note", into: context).setValue("second", forKey: "text")
            try context.save()
            context.reset()
            return try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note")).compactMap {
                $0.value(forKey: "text") as? String
            }.sorted()
        }
        #expect(texts == ["first", "second"])
    }
}
