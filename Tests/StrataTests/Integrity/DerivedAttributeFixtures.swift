import Foundation
import GRDB
import Testing

@testable import Strata

/// The models and stores of the derived-attribute suites. Entity names start with `DA` so as
/// not to collide with the classes and entities of other suites in the same test process.
enum DerivedAttributeFixtures {
    /// Every form of derivation on one entity, `DAItem`, whose sources are its own title, its
    /// owner (to-one), its lines (one-to-many) and its tags (many-to-many); and one on a
    /// subentity, which shares the table.
    static func model() -> NSManagedObjectModel {
        NSManagedObjectModel {
            Entity("DAOwner") {
                Attribute("name", .stringAttributeType)
                Relationship("items", to: "DAItem", inverse: "owner", toMany: true)
            }
            Entity("DAItem") {
                Attribute("title", .stringAttributeType)
                Relationship("owner", to: "DAOwner", inverse: "items")
                Relationship("lines", to: "DALine", inverse: "item", toMany: true, deleteRule: .cascadeDeleteRule)
                Relationship("tags", to: "DATag", inverse: "items", toMany: true)
                DerivedAttribute("titleCopy", .stringAttributeType, expression: "title")
                DerivedAttribute("ownerName", .stringAttributeType, expression: "owner.name")
                DerivedAttribute("upperTitle", .stringAttributeType, expression: "uppercase:(title)")
                DerivedAttribute("lowerTitle", .stringAttributeType, expression: "lowercase:(title)")
                DerivedAttribute("searchTitle", .stringAttributeType, expression: "canonical:(title)")
                DerivedAttribute("searchOwner", .stringAttributeType, expression: "canonical:(owner.name)")
                DerivedAttribute("lineCount", .integer64AttributeType, expression: "lines.@count")
                DerivedAttribute("total", .integer64AttributeType, expression: "lines.@sum.amount")
                DerivedAttribute("tagCount", .integer32AttributeType, expression: "tags.@count")
                DerivedAttribute("weight", .doubleAttributeType, expression: "tags.@sum.weight")
                DerivedAttribute("touchedAt", .dateAttributeType, expression: "now()")
            }
            Entity("DANote", parent: "DAItem") {
                Attribute("memo", .stringAttributeType)
                DerivedAttribute("memoUpper", .stringAttributeType, expression: "uppercase:(memo)")
            }
            Entity("DALine") {
                Attribute("amount", .integer64AttributeType, optional: false, defaultValue: Int64(0))
                Relationship("item", to: "DAItem", inverse: "lines")
            }
            Entity("DATag") {
                Attribute("name", .stringAttributeType)
                Attribute("weight", .doubleAttributeType, optional: false, defaultValue: 0.0)
                Relationship("items", to: "DAItem", inverse: "tags", toMany: true)
            }
        }
    }

    /// The model that wrote CoreDataPlus's `SampleModel2_V1.sqlite`, rebuilt from the store:
    /// its tables and columns, `Z_PRIMARYKEY` (Writer ← Author, Book ← GraphicNovel), the
    /// unique indexes, and the triggers of `Book.pagesCount = pages.@count`. Optionality,
    /// counts and delete rules come from CoreDataPlus's test source; the entity version
    /// hashes match all six the store records.
    static func sampleModel2V1() -> NSManagedObjectModel {
        NSManagedObjectModel {
            Entity("Writer", abstract: true) {
                Attribute("age", .integer16AttributeType, optional: false)
            }
            Entity("Author", parent: "Writer") {
                Attribute("alias", .stringAttributeType, optional: false)
                Attribute("siteURL", .URIAttributeType)
                Relationship(
                    "books", to: "Book", inverse: "author", toMany: true, deleteRule: .cascadeDeleteRule, maxCount: .max
                )
                Unique("alias")
            }
            Entity("Book") {
                Attribute("uniqueID", .UUIDAttributeType, optional: false)
                Attribute("title", .stringAttributeType, optional: false)
                Attribute("price", .decimalAttributeType, optional: false)
                Attribute("cover", .transformableAttributeType, optional: false)
                Attribute("publishedAt", .dateAttributeType, optional: false)
                DerivedAttribute("pagesCount", .integer64AttributeType, expression: "pages.@count")
                Relationship("author", to: "Author", inverse: "books", optional: false, minCount: 1, maxCount: 1)
                Relationship(
                    "pages", to: "Page", inverse: "book", toMany: true, optional: false, deleteRule: .cascadeDeleteRule,
                    minCount: 1, maxCount: 10_000)
                Unique("uniqueID")
            }
            Entity("GraphicNovel", parent: "Book") {
                Attribute("isBlackAndWhite", .booleanAttributeType, optional: false, defaultValue: false)
            }
            Entity("Page") {
                Attribute("isBookmarked", .booleanAttributeType, optional: false, defaultValue: false)
                Attribute("number", .integer32AttributeType, optional: false)
                Attribute("content", .transformableAttributeType, optional: false)
                Relationship("book", to: "Book", inverse: "pages", optional: false, minCount: 1, maxCount: 1)
            }
            Entity("Feedback") {
                Attribute("authorAlias", .stringAttributeType, optional: false)
                Attribute("bookID", .UUIDAttributeType, optional: false)
                Attribute("comment", .stringAttributeType)
                Attribute("rating", .doubleAttributeType, optional: false)
            }
        }
    }

    static let appleStore = "alemar11__CoreDataPlus__Tests__Resources__SampleModel2__Fixtures__SampleModel2_V1.sqlite"

    enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case sqlite, inMemory, binary
        var type: String {
            switch self {
            case .sqlite: NSSQLiteStoreType
            case .inMemory: NSInMemoryStoreType
            case .binary: NSBinaryStoreType
            }
        }
        var testDescription: String { rawValue }
    }

    /// A coordinator with one store in a directory of its own, removed with the value.
    final class Stack {
        let directory: URL
        let url: URL
        let model: NSManagedObjectModel
        let coordinator: NSPersistentStoreCoordinator
        private(set) var store: NSPersistentStore

        init(_ kind: StoreKind, model: NSManagedObjectModel? = nil, url: URL? = nil) throws {
            let model = model ?? DerivedAttributeFixtures.model()
            directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "strata-derived-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            self.url = url ?? directory.appendingPathComponent("Derived.\(kind == .binary ? "binary" : "sqlite")")
            self.model = model
            coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            store = try coordinator.addPersistentStore(
                ofType: kind.type, configurationName: nil, at: kind == .inMemory ? nil : self.url, options: nil)
        }

        deinit { try? FileManager.default.removeItem(at: directory) }

        func context() -> NSManagedObjectContext {
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            return context
        }

        /// Removes the store from the coordinator, so that its file can be changed.
        func close() throws { try coordinator.remove(store) }

        /// Adds the store again from its file.
        func open() throws {
            store = try coordinator.addPersistentStore(
                ofType: store.type, configurationName: nil, at: url, options: nil)
        }

        func reopen() throws {
            try close()
            try open()
        }

        /// Runs SQL on the store file through a connection of its own.
        func sql<T>(_ body: (Database) throws -> T) throws -> T {
            var configuration = Configuration()
            configuration.prepareDatabase { SQLiteFunctions.register(in: $0) }
            let queue = try DatabaseQueue(path: url.path, configuration: configuration)
            defer { try? queue.close() }
            return try queue.write(body)
        }
    }

    static func insert(
        _ entity: String, into context: NSManagedObjectContext, _ values: [String: Any] = [:]
    )
        -> NSManagedObject
    {
        let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
        for (key, value) in values { object.setValue(value, forKey: key) }
        return object
    }

    /// The object's values as the store has them now: the object is refreshed first.
    static func stored(_ object: NSManagedObject, _ key: String) -> Any? {
        object.managedObjectContext?.refresh(object, mergeChanges: false)
        return object.value(forKey: key)
    }

    /// `Z_DA_` triggers of a store file: name → SQL as SQLite keeps it.
    static func derivedTriggers(_ db: Database) throws -> [String: String] {
        let rows = try Row.fetchAll(
            db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'Z\\_DA\\_%' ESCAPE '\\'"
        )
        return Dictionary(uniqueKeysWithValues: rows.map { ($0["name"] as String, $0["sql"] as String) })
    }
}
