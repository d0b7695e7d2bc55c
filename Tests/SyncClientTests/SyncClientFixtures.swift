import CloudKit
import CoreData
import Foundation
import SyncTestSupport
import Testing

/// The sync client against a real `strata-sync` on a real PostgreSQL (issue 24), started in
/// this process by the server's test support; skipped with a notice where PostgreSQL is
/// absent (unless `STRATA_REQUIRE_POSTGRES=1`).
@Suite(.serialized) enum SyncClientTests {}

extension SyncClientTests {
    /// A server on a fresh database and a token for a fresh user; nil when PostgreSQL is
    /// absent.
    final class Backend: Sendable {
        let server: TestSyncServer
        let token: String
        let user: String

        private init(server: TestSyncServer, token: String, user: String) {
            self.server = server
            self.token = token
            self.user = user
        }

        static func start(function: String = #function) async throws -> Backend? {
            guard let database = try await TestPostgres.shared.makeDatabase(function: function) else { return nil }
            let server = try await TestSyncServer.start(databaseURL: database)
            let user = "user-" + UUID().uuidString.prefix(8).lowercased()
            return Backend(server: server, token: try await TestTokens.token(for: user), user: user)
        }

        var url: URL { server.url }

        func stop() async { await server.stop() }
    }

    /// The habits model of seed 004 (habits with an example flag), with tags (many-to-many),
    /// a routine (to-one) and a photo (binary).
    static let model: NSManagedObjectModel = {
        let model = NSManagedObjectModel {
            Entity("Habit") {
                Attribute("title", .stringAttributeType)
                Attribute("isExample", .booleanAttributeType, optional: false, defaultValue: false)
                Attribute("streak", .integer64AttributeType, optional: false, defaultValue: Int64(0))
                Attribute("createdAt", .dateAttributeType)
                Attribute("photo", .binaryDataAttributeType)
                Relationship("tags", to: "HabitTag", inverse: "habits", toMany: true)
                Relationship("routine", to: "Routine", inverse: "habits")
            }
            Entity("HabitTag") {
                Attribute("name", .stringAttributeType)
                Relationship("habits", to: "Habit", inverse: "tags", toMany: true)
            }
            Entity("Routine") {
                Attribute("name", .stringAttributeType)
                Relationship("habits", to: "Habit", inverse: "routine", toMany: true)
            }
        }
        return model
    }()

    /// Seed 004 subclasses the container, as apps do.
    final class HabitsContainer: NSPersistentCloudKitContainer, @unchecked Sendable {}

    static let containerIdentifier = "iCloud.org.strata.Habits"

    /// A container on the store file, syncing with the backend when given (on its own when
    /// `automatic`, else only on `syncNow()`), its pulls waiting `longPoll` seconds.
    static func container(
        at url: URL, backend: Backend?, serverURL: URL? = nil, automatic: Bool = false, longPoll: Int = 5
    ) throws -> HabitsContainer {
        let container = HabitsContainer(name: "Habits", managedObjectModel: model)
        let description = NSPersistentStoreDescription(url: url)
        description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)
        description.setOption(true as NSNumber, forKey: NSPersistentStoreRemoteChangeNotificationPostOptionKey)
        if let backend {
            let options = NSPersistentCloudKitContainerOptions(containerIdentifier: containerIdentifier)
            options.serverURL = serverURL ?? backend.url
            options.useStaticToken(backend.token)
            options.syncsAutomatically = automatic
            options.longPollSeconds = longPoll
            description.cloudKitContainerOptions = options
        }
        container.persistentStoreDescriptions = [description]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        container.viewContext.automaticallyMergesChangesFromParent = true
        container.viewContext.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        return container
    }

    /// Every object by record name, as comparable text (attributes, to-one and many-to-many
    /// relationships by record name).
    static func snapshot(of container: NSPersistentCloudKitContainer) throws -> [String: String] {
        let context = container.newBackgroundContext()
        return try context.performAndWait {
            var result: [String: String] = [:]
            for entity in ["Habit", "HabitTag", "Routine"] {
                for object in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: entity)) {
                    let name = container.recordName(for: object.objectID) ?? "unsynced \(object.objectID)"
                    var parts = [entity]
                    for key in object.entity.attributesByName.keys.sorted() {
                        parts.append("\(key)=\(String(describing: object.value(forKey: key)))")
                    }
                    for (key, relationship) in object.entity.relationshipsByName.sorted(by: { $0.key < $1.key }) {
                        if relationship.isToMany {
                            let related =
                                (object.value(forKey: key) as? NSSet)?.allObjects.compactMap { $0 as? NSManagedObject } ?? []
                            parts.append("\(key)=\(related.map { container.recordName(for: $0.objectID) ?? "?" }.sorted())")
                        } else if let related = object.value(forKey: key) as? NSManagedObject {
                            parts.append("\(key)=\(container.recordName(for: related.objectID) ?? "?")")
                        }
                    }
                    result[name] = parts.joined(separator: " ")
                }
            }
            return result
        }
    }

    /// Saves work done in a new background context.
    static func change(_ container: NSPersistentContainer, _ body: (NSManagedObjectContext) throws -> Void) throws {
        let context = container.newBackgroundContext()
        context.transactionAuthor = "app"
        try context.performAndWait {
            try body(context)
            if context.hasChanges { try context.save() }
        }
    }

    static func habit(_ title: String, in context: NSManagedObjectContext) throws -> NSManagedObject? {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Habit")
        request.predicate = NSPredicate(format: "title == %@", title)
        return try context.fetch(request).first
    }

    static func count(_ entity: String, in container: NSPersistentContainer) throws -> Int {
        let context = container.newBackgroundContext()
        return try context.performAndWait { try context.count(for: NSFetchRequest<NSManagedObject>(entityName: entity)) }
    }

    /// A fresh directory for one test, removed when the value goes away.
    final class Scratch: Sendable {
        let url: URL

        init() {
            url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-syncclient-\(UUID().uuidString)")
            try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }

        func file(_ name: String) -> URL { url.appendingPathComponent(name) }

        deinit { try? FileManager.default.removeItem(at: url) }
    }
}
