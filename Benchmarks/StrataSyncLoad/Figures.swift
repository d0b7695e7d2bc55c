import Foundation
import Strata
import SyncTestSupport

/// `strata-sync-load --figures N`: issue 24's upload and download figures in a release build.
/// One store saves N habits and `syncNow()` pushes them (upload); an empty store on the same
/// account `syncNow()`s until it has them all (download). The same work as
/// `SyncFiguresTests.uploadAndDownloadOf100kObjects`, which a debug test run measures.
enum SyncFigures {
    /// Seed 004's habits, as the client tests have them (tags and a routine unused here).
    static let model: NSManagedObjectModel = NSManagedObjectModel {
        Entity("Habit") {
            Attribute("title", .stringAttributeType)
            Attribute("isExample", .booleanAttributeType, optional: false, defaultValue: false)
            Attribute("streak", .integer64AttributeType, optional: false, defaultValue: Int64(0))
            Attribute("createdAt", .dateAttributeType)
            Relationship("tags", to: "HabitTag", inverse: "habits", toMany: true)
        }
        Entity("HabitTag") {
            Attribute("name", .stringAttributeType)
            Relationship("habits", to: "Habit", inverse: "tags", toMany: true)
        }
    }

    static func run(count: Int) async throws {
        guard let url = try await TestPostgres.shared.makeDatabase() else {
            throw TestPostgresError(message: "no PostgreSQL (install postgresql-15 or set DATABASE_URL)")
        }
        let server = try await TestSyncServer.start(databaseURL: url)
        let token = try await TestTokens.token(for: "figures")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-sync-figures-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        let source = try container(at: folder.appendingPathComponent("source.sqlite"), server: server.url, token: token)
        let context = source.newBackgroundContext()
        try context.performAndWait {
            for index in 0..<count {
                let habit = NSEntityDescription.insertNewObject(forEntityName: "Habit", into: context)
                habit.setValue("Habit number \(index)", forKey: "title")
                habit.setValue(Int64(index), forKey: "streak")
                habit.setValue(index % 10 == 0, forKey: "isExample")
                habit.setValue(Date(timeIntervalSinceReferenceDate: Double(index)), forKey: "createdAt")
            }
            try context.save()
        }
        let clock = ContinuousClock()
        let upload = try await clock.measure { try await source.syncNow() }
        let target = try container(at: folder.appendingPathComponent("target.sqlite"), server: server.url, token: token)
        let download = try await clock.measure { try await target.syncNow() }
        let reading = target.newBackgroundContext()
        let received = try reading.performAndWait {
            try reading.count(for: NSFetchRequest<NSManagedObject>(entityName: "Habit"))
        }
        await server.stop()
        guard received == count else {
            throw TestPostgresError(message: "the empty store received \(received) of \(count) habits")
        }
        print("SYNC FIGURE upload \(count): \(seconds(upload)) s; download: \(seconds(download)) s; all \(received) received")
    }

    private static func seconds(_ duration: Duration) -> String {
        let (whole, attoseconds) = duration.components
        return String(format: "%.2f", Double(whole) + Double(attoseconds) / 1e18)
    }

    private static func container(at url: URL, server: URL, token: String) throws -> NSPersistentCloudKitContainer {
        let container = NSPersistentCloudKitContainer(name: "Habits", managedObjectModel: model)
        let description = NSPersistentStoreDescription(url: url)
        description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)
        let options = NSPersistentCloudKitContainerOptions(containerIdentifier: "iCloud.org.strata.Habits")
        options.serverURL = server
        options.useStaticToken(token)
        options.syncsAutomatically = false
        description.cloudKitContainerOptions = options
        container.persistentStoreDescriptions = [description]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }
}
