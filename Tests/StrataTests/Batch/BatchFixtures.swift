import Foundation
import GRDB
import Testing

@testable import Strata

/// The batch request tests (issue 20). Every suite of the area is nested here, so
/// `swift test --filter StrataTests.BatchTests` runs them.
@Suite enum BatchTests {}

extension BatchTests {
    /// The store types batch requests run on.
    static let storeTypes = [NSSQLiteStoreType, NSInMemoryStoreType, NSBinaryStoreType]

    /// The batch model: users with a unique id (the seed), products with subentities and
    /// a derived attribute, and one owner chain per delete rule.
    ///
    /// - User ⇄ Team: many-to-one, nullify both ways; User ⇄ Label: many-to-many, nullify.
    /// - Owner → Pet → Toy: cascades, two levels.
    /// - Shelf → Volume: deny.
    static func model() -> NSManagedObjectModel {
        NSManagedObjectModel {
            Entity("User") {
                Attribute("id", .stringAttributeType, optional: false)
                Attribute("name", .stringAttributeType)
                Attribute("age", .integer16AttributeType, optional: false, defaultValue: Int16(0))
                Attribute("city", .stringAttributeType, defaultValue: "北京")
                Attribute("photo", .binaryDataAttributeType) { $0.allowsExternalBinaryDataStorage = true }
                Relationship("team", to: "Team", inverse: "members")
                Relationship("labels", to: "Label", inverse: "users", toMany: true)
                Unique("id")
            }
            Entity("Team") {
                Attribute("name", .stringAttributeType)
                Relationship("members", to: "User", inverse: "team", toMany: true)
            }
            Entity("Label") {
                Attribute("name", .stringAttributeType)
                Relationship("users", to: "User", inverse: "labels", toMany: true)
            }
            Entity("Product") {
                Attribute("name", .stringAttributeType)
                Attribute("price", .doubleAttributeType, optional: false, defaultValue: 0.0)
                Attribute("onSale", .booleanAttributeType, optional: false, defaultValue: false)
                Attribute("checkedAt", .dateAttributeType)
                DerivedAttribute("upperName", .stringAttributeType, expression: "uppercase:(name)")
            }
            Entity("Gadget", parent: "Product") {
                Attribute("battery", .integer32AttributeType, optional: false, defaultValue: Int32(0))
            }
            Entity("Owner") {
                Attribute("name", .stringAttributeType)
                Relationship("pets", to: "Pet", inverse: "owner", toMany: true, deleteRule: .cascadeDeleteRule)
            }
            Entity("Pet") {
                Attribute("name", .stringAttributeType)
                Relationship("owner", to: "Owner", inverse: "pets")
                Relationship("toys", to: "Toy", inverse: "pet", toMany: true, deleteRule: .cascadeDeleteRule)
            }
            Entity("Toy") {
                Attribute("name", .stringAttributeType)
                Relationship("pet", to: "Pet", inverse: "toys")
            }
            Entity("Shelf") {
                Attribute("label", .stringAttributeType)
                Relationship("volumes", to: "Volume", inverse: "shelf", toMany: true, deleteRule: .denyDeleteRule)
            }
            Entity("Volume") {
                Attribute("title", .stringAttributeType)
                Relationship("shelf", to: "Shelf", inverse: "volumes")
            }
        }
    }

    /// A coordinator with one store of the type in a scratch folder.
    final class Stack {
        let folder: URL
        let coordinator: NSPersistentStoreCoordinator
        let store: NSPersistentStore
        let type: String

        init(_ type: String = NSSQLiteStoreType) throws {
            self.type = type
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-batch-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            coordinator = NSPersistentStoreCoordinator(managedObjectModel: BatchTests.model())
            store = try coordinator.addPersistentStore(
                ofType: type, configurationName: nil, at: folder.appendingPathComponent("batch.store"))
        }

        deinit { try? FileManager.default.removeItem(at: folder) }

        var url: URL { folder.appendingPathComponent("batch.store") }

        func context(_ policy: Any = NSErrorMergePolicy) -> NSManagedObjectContext {
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            context.mergePolicy = policy
            return context
        }

        /// Objects made and saved through a context, by entity and values.
        @discardableResult
        func save(_ entity: String, _ rows: [[String: Any]]) throws -> [NSManagedObjectID] {
            let context = self.context()
            return try context.performAndWait {
                let objects = rows.map { values in
                    let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
                    for (key, value) in values { object.setValue(value, forKey: key) }
                    return object
                }
                try context.save()
                return objects.map(\.objectID)
            }
        }

        /// The values of one attribute of every row of an entity, read in a fresh context,
        /// ordered by the key's values.
        func values(_ entity: String, _ key: String) throws -> [String] {
            let context = self.context()
            return try context.performAndWait {
                let request = NSFetchRequest<NSManagedObject>(entityName: entity)
                return try context.fetch(request).map { "\($0.value(forKey: key) ?? "nil")" }.sorted()
            }
        }

        /// The number of rows of an entity, read in a fresh context.
        func count(_ entity: String) throws -> Int {
            let context = self.context()
            return try context.performAndWait {
                try context.count(for: NSFetchRequest<NSManagedObject>(entityName: entity))
            }
        }

        /// A SQL query on the store file, read with SQLite itself.
        func sql<T: DatabaseValueConvertible>(_ query: String, as type: T.Type = T.self) throws -> [T?] {
            try DatabaseQueue(path: url.path).read { db in try Optional<T>.fetchAll(db, sql: query) }
        }
    }
}
