import Foundation
import GRDB
import Testing

@testable import Strata

/// The object graph tests (issue 3): objects, relationships, contexts, stores and fetching.
/// Every suite of the area is nested here, so `swift test --filter ObjectGraph` runs them.
@Suite enum ObjectGraphTests {}

// MARK: - Classes of the library model
//
// Names are chosen not to collide with the classes of other test targets (`Book`, `Tag`,
// `Note`…), which share one test process with these.

final class Author: NSManagedObject {
    @Managed var name: String?
    @Managed var novels: Set<Novel>
}

final class Novel: NSManagedObject {
    @Managed var title: String?
    @Managed var year: Int16
    @Managed var rating: Double
    @Managed var publishedAt: Date?
    @Managed var inPrint: Bool
    @Managed var draft: String?
    @Managed var author: Author?
    @Managed var chapters: [Chapter]
    @Managed var genres: Set<Genre>
    @Managed var shelf: Shelf?
}

final class Chapter: NSManagedObject {
    @Managed var number: Int32
    @Managed var novel: Novel?
}

final class Genre: NSManagedObject {
    @Managed var name: String?
    @Managed var novels: Set<Novel>
}

final class Shelf: NSManagedObject {
    @Managed var label: String?
    @Managed var novels: Set<Novel>
}

final class Folder: NSManagedObject {
    @Managed var name: String?
    @Managed var parent: Folder?
    @Managed var children: Set<Folder>
}

final class Person: NSManagedObject {
    @Managed var name: String?
    @Managed var following: Set<Person>
    @Managed var followers: Set<Person>
}

final class Employee: NSManagedObject {
    @Managed var name: String?
    @Managed var desk: Desk?
}

final class Desk: NSManagedObject {
    @Managed var number: Int32
    @Managed var occupant: Employee?
}

final class Library: NSManagedObject {
    @Managed var name: String?
    @Managed var loans: Set<Loan>
}

final class Loan: NSManagedObject {
    @Managed var borrower: String?
    @Managed var library: Library?
}

class Animal: NSManagedObject {
    @Managed var name: String?
}

final class Dog: Animal {
    @Managed var breed: String?
}

final class Cat: Animal {
    @Managed var indoor: Bool
}

extension ObjectGraphTests {
    // MARK: - Models

    /// The library model: one entity pair per relationship kind and delete rule.
    ///
    /// - Author ⇄ Novel: one-to-many (nullify both ways).
    /// - Novel ⇄ Chapter: ordered one-to-many, cascading from the novel.
    /// - Novel ⇄ Genre: many-to-many.
    /// - Shelf ⇄ Novel: one-to-many, deny from the shelf.
    /// - Folder ⇄ Folder: a tree (parent / children, cascading to the children).
    /// - Person ⇄ Person: self-referential many-to-many (following / followers).
    /// - Employee ⇄ Desk: one-to-one.
    /// - Library ⇄ Loan: one-to-many, no action from the library.
    /// - Animal ← Dog, Cat: entity inheritance.
    static func libraryModel() -> NSManagedObjectModel {
        NSManagedObjectModel {
            Entity("Author", className: "Author") {
                Attribute("name", .stringAttributeType)
                Relationship("novels", to: "Novel", inverse: "author", toMany: true)
            }
            Entity("Novel", className: "Novel") {
                Attribute("title", .stringAttributeType)
                Attribute("year", .integer16AttributeType, optional: false, defaultValue: Int16(0))
                Attribute("rating", .doubleAttributeType, optional: false, defaultValue: 0.0)
                Attribute("publishedAt", .dateAttributeType)
                Attribute("inPrint", .booleanAttributeType, optional: false, defaultValue: false)
                Attribute("draft", .stringAttributeType, transient: true)
                Relationship("author", to: "Author", inverse: "novels")
                Relationship(
                    "chapters", to: "Chapter", inverse: "novel", toMany: true, ordered: true,
                    deleteRule: .cascadeDeleteRule)
                Relationship("genres", to: "Genre", inverse: "novels", toMany: true)
                Relationship("shelf", to: "Shelf", inverse: "novels")
            }
            Entity("Chapter", className: "Chapter") {
                Attribute("number", .integer32AttributeType, optional: false, defaultValue: Int32(0))
                Relationship("novel", to: "Novel", inverse: "chapters")
            }
            Entity("Genre", className: "Genre") {
                Attribute("name", .stringAttributeType)
                Relationship("novels", to: "Novel", inverse: "genres", toMany: true)
            }
            Entity("Shelf", className: "Shelf") {
                Attribute("label", .stringAttributeType)
                Relationship("novels", to: "Novel", inverse: "shelf", toMany: true, deleteRule: .denyDeleteRule)
            }
            Entity("Folder", className: "Folder") {
                Attribute("name", .stringAttributeType)
                Relationship("parent", to: "Folder", inverse: "children")
                Relationship("children", to: "Folder", inverse: "parent", toMany: true, deleteRule: .cascadeDeleteRule)
            }
            Entity("Person", className: "Person") {
                Attribute("name", .stringAttributeType)
                Relationship("following", to: "Person", inverse: "followers", toMany: true)
                Relationship("followers", to: "Person", inverse: "following", toMany: true)
            }
            Entity("Employee", className: "Employee") {
                Attribute("name", .stringAttributeType)
                Relationship("desk", to: "Desk", inverse: "occupant")
            }
            Entity("Desk", className: "Desk") {
                Attribute("number", .integer32AttributeType, optional: false, defaultValue: Int32(0))
                Relationship("occupant", to: "Employee", inverse: "desk")
            }
            Entity("Library", className: "Library") {
                Attribute("name", .stringAttributeType)
                Relationship("loans", to: "Loan", inverse: "library", toMany: true, deleteRule: .noActionDeleteRule)
            }
            Entity("Loan", className: "Loan") {
                Attribute("borrower", .stringAttributeType)
                Relationship("library", to: "Library", inverse: "loans")
            }
            Entity("Animal", className: "Animal") {
                Attribute("name", .stringAttributeType)
            }
            Entity("Dog", parent: "Animal", className: "Dog") {
                Attribute("breed", .stringAttributeType)
            }
            Entity("Cat", parent: "Animal", className: "Cat") {
                Attribute("indoor", .booleanAttributeType, optional: false, defaultValue: false)
            }
        }
    }

    /// A model that shares nothing with the library model, for incompatible-store errors.
    static func unrelatedModel() -> NSManagedObjectModel {
        NSManagedObjectModel {
            Entity("Invoice") {
                Attribute("number", .integer64AttributeType, optional: false, defaultValue: Int64(0))
                Attribute("customer", .stringAttributeType)
            }
        }
    }

    // MARK: - Stores and contexts

    /// A coordinator with one store, set up by hand as an app does without a container.
    struct Stack {
        let coordinator: NSPersistentStoreCoordinator
        let store: NSPersistentStore

        init(_ model: NSManagedObjectModel, type: String = NSSQLiteStoreType, at url: URL?) throws {
            coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            store = try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: url, options: nil)
        }

        /// A new private-queue context on the coordinator.
        func newContext() -> NSManagedObjectContext {
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            return context
        }

        /// Removes the store from its coordinator, as an app does before the file is reopened.
        func close() throws {
            try coordinator.remove(store)
        }
    }

    /// Runs `write` in a context of a first coordinator on the file at `url` and saves, closes
    /// that store, and runs `read` in a context of a second coordinator opened on the same file.
    static func saveAndReopen(
        _ model: NSManagedObjectModel, at url: URL, write: (NSManagedObjectContext) throws -> Void,
        read: (NSManagedObjectContext) throws -> Void
    ) throws {
        let writer = try Stack(model, at: url)
        let context = writer.newContext()
        try context.performAndWait {
            try write(context)
            try context.save()
        }
        try writer.close()

        let reader = try Stack(model, at: url)
        let readContext = reader.newContext()
        try readContext.performAndWait { try read(readContext) }
    }

    /// The titles of the novels in a store file, sorted, read with SQLite (not through Strata).
    static func novelTitles(in url: URL) throws -> [String] {
        try DatabaseQueue(path: url.path).read { db in
            try String.fetchAll(db, sql: "SELECT ZTITLE FROM ZNOVEL ORDER BY ZTITLE")
        }
    }

    typealias ScratchDirectory = ScratchFolder

    /// Every object of an entity, by a fetch request without predicate or order.
    static func fetchAll<T: NSManagedObject>(
        _ type: T.Type, _ entityName: String, in context: NSManagedObjectContext
    ) throws -> [T] {
        try context.fetch(NSFetchRequest<T>(entityName: entityName))
    }

    /// The one object of an entity whose string attribute `key` equals `value`, found in Swift
    /// (these tests do not depend on the predicate language).
    static func fetchOne<T: NSManagedObject>(
        _ type: T.Type, _ entityName: String, where key: String, is value: String, in context: NSManagedObjectContext
    ) throws -> T {
        let matches = try fetchAll(type, entityName, in: context).filter { $0.value(forKey: key) as? String == value }
        return try #require(matches.count == 1 ? matches.first : nil, "one \(entityName) with \(key) = \(value)")
    }

    /// Loads a container's stores and returns the error reported for each description
    /// (`nil` for a store that loaded). Stores are added synchronously unless a description
    /// asks otherwise, so the handler has run when this returns.
    static func loadStores(of container: NSPersistentContainer) -> [NSError?] {
        let reports = LockedValue<[NSError?]>([])
        container.loadPersistentStores { _, error in
            reports.withLock { $0.append(error.map { $0 as NSError }) }
        }
        return reports.withLock { $0 }
    }

    /// A value shared with escaping closures that may run on other threads.
    final class LockedValue<Value>: @unchecked Sendable {
        private let lock = NSLock()
        private var value: Value

        init(_ value: Value) { self.value = value }

        func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
            lock.lock()
            defer { lock.unlock() }
            return try body(&value)
        }
    }

    // MARK: - Notifications

    /// Records the context notifications posted for one context, with their object sets.
    final class NotificationRecorder: @unchecked Sendable {
        struct Event {
            let name: Notification.Name
            let inserted: Set<NSManagedObject>
            let updated: Set<NSManagedObject>
            let deleted: Set<NSManagedObject>
        }

        private let events = LockedValue<[Event]>([])
        private var tokens: [NSObjectProtocol] = []

        /// Starts observing `ObjectsDidChange`, `WillSave` and `DidSave` for the context.
        init(_ context: NSManagedObjectContext) {
            let names: [Notification.Name] = [
                .NSManagedObjectContextObjectsDidChange, .NSManagedObjectContextWillSave,
                .NSManagedObjectContextDidSave,
            ]
            let events = self.events
            tokens = names.map { name in
                NotificationCenter.default.addObserver(forName: name, object: context, queue: nil) { notification in
                    let info = notification.userInfo ?? [:]
                    func objects(_ key: String) -> Set<NSManagedObject> {
                        info[key] as? Set<NSManagedObject> ?? []
                    }
                    let event = Event(
                        name: notification.name, inserted: objects(NSInsertedObjectsKey),
                        updated: objects(NSUpdatedObjectsKey), deleted: objects(NSDeletedObjectsKey))
                    events.withLock { $0.append(event) }
                }
            }
        }

        /// Stops observing.
        func stop() {
            for token in tokens { NotificationCenter.default.removeObserver(token) }
            tokens = []
        }

        /// Everything recorded so far, in posting order.
        var recorded: [Event] { events.withLock { $0 } }

        /// The events with this name, in posting order.
        func recorded(_ name: Notification.Name) -> [Event] { recorded.filter { $0.name == name } }

        /// Forgets what was recorded so far.
        func clear() { events.withLock { $0.removeAll() } }

        deinit { stop() }
    }
}
