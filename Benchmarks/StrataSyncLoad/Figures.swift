import Foundation
import Strata
import SyncTestSupport
import TodoKit

/// `strata-sync-load --figures N`: issue 24's upload and download figures in a release build.
/// One store saves N habits and `syncNow()` pushes them (upload); an empty store on the same
/// account `syncNow()`s until it has them all (download). The same work as
/// `SyncFiguresTests.uploadAndDownloadOf100kObjects`, which a debug test run measures. Then the
/// same with N to-dos of the to-do app, through its own `PersistenceController` (its model, history
/// with old values, uniqueness constraints), under another user.
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
        let url = try await TestPostgres.shared.makeDatabase()
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
        guard received == count else {
            await server.stop()
            throw TestPostgresError(message: "the empty store received \(received) of \(count) habits")
        }
        print("SYNC FIGURE upload \(count): \(seconds(upload)) s; download: \(seconds(download)) s; all \(received) received")
        do {
            try await runTodos(count: count, server: server.url, folder: folder)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// The figure with the to-do app's stores: `todo` with a sync server, as its users run it.
    private static func runTodos(count: Int, server: URL, folder: URL) async throws {
        let settings = PersistenceController.SyncSettings(
            serverURL: server, token: try await TestTokens.token(for: "figures-todos"))
        let source = try PersistenceController(
            store: .sqlite(folder.appendingPathComponent("todos-source.sqlite")), author: "figures", sync: settings)
        let context = source.container.newBackgroundContext()
        try context.performAndWait {
            let start = Date(timeIntervalSinceReferenceDate: 786_000_000)
            for index in 0..<count {
                let todo = NSEntityDescription.insertNewObject(forEntityName: "Todo", into: context)
                let date = start.addingTimeInterval(Double(index))
                todo.setValue("To-do number \(index)", forKey: "title")
                todo.setValue(UUID(), forKey: "todoId")
                todo.setValue(date, forKey: "createdAt")
                todo.setValue(date, forKey: "updatedAt")
                if index % 3 == 0 { todo.setValue(date.addingTimeInterval(60), forKey: "completedAt") }
            }
            try context.save()
        }
        let clock = ContinuousClock()
        let upload = try await clock.measure { try await source.syncNow() }
        let target = try PersistenceController(
            store: .sqlite(folder.appendingPathComponent("todos-target.sqlite")), author: "figures", sync: settings)
        let download = try await clock.measure { try await target.syncNow() }
        let reading = target.container.newBackgroundContext()
        let received = try reading.performAndWait {
            try reading.count(for: NSFetchRequest<NSManagedObject>(entityName: "Todo"))
        }
        try source.close()
        try target.close()
        guard received == count else {
            throw TestPostgresError(message: "the empty to-do store received \(received) of \(count) to-dos")
        }
        print(
            "SYNC FIGURE todos upload \(count): \(seconds(upload)) s; download: \(seconds(download)) s; all \(received) received")
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
