import Foundation
import Testing

@testable import Strata

/// The persistent history tests (issue 23): recording, reading, trimming, tokens, the corpus
/// stores' Apple-written history, and remote change notifications. Every suite of the area is
/// nested here, so `swift test --filter HistoryTests` runs them.
@Suite enum HistoryTests {}

extension HistoryTests {
    /// A model of plain `NSManagedObject` entities: items (whose title a delete preserves in
    /// its tombstone) with tags (many-to-many) and a list (to-one), and a `Special` subentity.
    static func model() -> NSManagedObjectModel {
        let model = NSManagedObjectModel {
            Entity("HistItem") {
                Attribute("title", .stringAttributeType)
                Attribute("rank", .integer64AttributeType, optional: false, defaultValue: Int64(0))
                Attribute("note", .stringAttributeType)
                Attribute("due", .dateAttributeType)
                Relationship("tags", to: "HistTag", inverse: "items", toMany: true)
                Relationship("list", to: "HistList", inverse: "items")
            }
            Entity("HistTag") {
                Attribute("name", .stringAttributeType)
                Relationship("items", to: "HistItem", inverse: "tags", toMany: true)
            }
            Entity("HistList") {
                Attribute("name", .stringAttributeType)
                Relationship("items", to: "HistItem", inverse: "list", toMany: true, deleteRule: .cascadeDeleteRule)
            }
        }
        for name in ["title", "due"] {
            (model.entitiesByName["HistItem"]?.attributesByName[name])?.preservesValueInHistoryOnDeletion = true
        }
        return model
    }

    /// A coordinator with one store that tracks history (and records values when asked).
    final class Stack: @unchecked Sendable {
        let coordinator: NSPersistentStoreCoordinator
        let store: NSPersistentStore
        let url: URL

        init(
            type: String = NSSQLiteStoreType, at url: URL, model: NSManagedObjectModel = HistoryTests.model(),
            values: Bool = false, remote: Bool = false, tracking: Bool = true, readOnly: Bool = false
        ) throws {
            self.url = url
            coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            var options: [AnyHashable: Any] = [NSPersistentHistoryTrackingKey: tracking as NSNumber]
            if values { options[StrataPersistentHistoryValuesKey] = true }
            if remote { options[NSPersistentStoreRemoteChangeNotificationPostOptionKey] = true as NSNumber }
            if readOnly { options[NSReadOnlyPersistentStoreOption] = true }
            store = try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: url, options: options)
        }

        func context(author: String? = nil, name: String? = nil) -> NSManagedObjectContext {
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            context.transactionAuthor = author
            context.name = name
            return context
        }

        func close() throws { try coordinator.remove(store) }

        /// Runs a history request in a new context and returns its result.
        func history(_ request: NSPersistentHistoryChangeRequest) throws -> Any? {
            let context = self.context()
            return try context.performAndWait { try (context.execute(request) as? NSPersistentHistoryResult)?.result }
        }

        /// The transactions (with changes) after a token.
        func transactions(after token: NSPersistentHistoryToken? = nil) throws -> [NSPersistentHistoryTransaction] {
            try history(NSPersistentHistoryChangeRequest.fetchHistory(after: token)) as? [NSPersistentHistoryTransaction] ?? []
        }
    }

    typealias Scratch = ScratchFolder

    /// The URL of a store of each type in the scratch folder (the in-memory store ignores it).
    static func url(for type: String, in scratch: Scratch) -> URL {
        switch type {
        case NSSQLiteStoreType: scratch.file("history.sqlite")
        case NSBinaryStoreType: scratch.file("history.bin")
        default: URL(fileURLWithPath: "/dev/null")
        }
    }

    static let storeTypes = [NSSQLiteStoreType, NSInMemoryStoreType, NSBinaryStoreType]

    /// Inserts an item (with a tag and a list) and saves: returns the item's ID.
    @discardableResult
    static func insertItem(_ title: String, in context: NSManagedObjectContext) throws -> NSManagedObjectID {
        try context.performAndWait {
            let item = NSEntityDescription.insertNewObject(forEntityName: "HistItem", into: context)
            item.setValue(title, forKey: "title")
            item.setValue(Int64(1), forKey: "rank")
            item.setValue(Date(timeIntervalSinceReferenceDate: 86_400), forKey: "due")
            let tag = NSEntityDescription.insertNewObject(forEntityName: "HistTag", into: context)
            tag.setValue("home", forKey: "name")
            item.mutableSetValue(forKey: "tags").add(tag)
            try context.save()
            return item.objectID
        }
    }

    /// The names of a change's updated properties, sorted.
    static func updatedNames(_ change: NSPersistentHistoryChange) -> [String] {
        (change.updatedProperties ?? []).map(\.name).sorted()
    }
}
