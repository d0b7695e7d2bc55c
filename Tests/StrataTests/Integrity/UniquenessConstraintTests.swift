import Foundation
import Testing

@testable import Strata

/// Uniqueness constraints checked at save, inside one context and against the store, and
/// resolved by each merge policy.
@Suite struct UniquenessConstraintTests {
    static func model() -> NSManagedObjectModel {
        NSManagedObjectModel {
            Entity("Topic") {
                Attribute("topicId", .integer64AttributeType, optional: false, defaultValue: Int64(0))
                Attribute("name", .stringAttributeType)
                Attribute("uses", .integer32AttributeType)
                Relationship("posts", to: "Post", inverse: "topics", toMany: true)
                Unique("topicId")
            }
            Entity("Post") {
                Attribute("title", .stringAttributeType)
                Relationship("topics", to: "Topic", inverse: "posts", toMany: true)
            }
            Entity("Member") {
                Attribute("team", .stringAttributeType)
                Attribute("number", .integer16AttributeType, optional: false, defaultValue: Int16(0))
                Unique("team", "number")
            }
            Entity("Captain", parent: "Member") {
                Attribute("armband", .stringAttributeType)
            }
        }
    }

    final class Store {
        let folder: URL
        let coordinator: NSPersistentStoreCoordinator

        init() throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-unique-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            coordinator = NSPersistentStoreCoordinator(managedObjectModel: UniquenessConstraintTests.model())
            try coordinator.addPersistentStore(
                ofType: NSSQLiteStoreType, configurationName: nil, at: folder.appendingPathComponent("u.sqlite"))
        }

        deinit { try? FileManager.default.removeItem(at: folder) }

        func context(_ policy: Any = NSErrorMergePolicy) -> NSManagedObjectContext {
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            context.mergePolicy = policy
            return context
        }

        @discardableResult
        func topic(_ id: Int64, _ name: String?, uses: Int32? = nil, in context: NSManagedObjectContext) -> NSManagedObject {
            let topic = NSEntityDescription.insertNewObject(forEntityName: "Topic", into: context)
            topic.setValue(id, forKey: "topicId")
            if let name { topic.setValue(name, forKey: "name") }
            if let uses { topic.setValue(uses, forKey: "uses") }
            return topic
        }

        /// The stored topics as "id name uses pk".
        func rows() throws -> [String] {
            let context = self.context()
            return try context.performAndWait {
                let request = NSFetchRequest<NSManagedObject>(entityName: "Topic")
                request.sortDescriptors = [NSSortDescriptor(key: "topicId", ascending: true)]
                return try context.fetch(request).map { topic in
                    "\(topic.value(forKey: "topicId") as? Int64 ?? -1) \(topic.value(forKey: "name") as? String ?? "nil") "
                        + "\(topic.value(forKey: "uses").map { "\($0)" } ?? "nil") p\(topic.objectID.primaryKey)"
                }
            }
        }

        /// A stored topic 1 "old" with 5 uses.
        func seed() throws {
            let context = self.context()
            try context.performAndWait {
                topic(1, "old", uses: 5, in: context)
                try context.save()
            }
        }
    }

    private func saveError(_ context: NSManagedObjectContext) -> NSError? {
        context.performAndWait {
            do {
                try context.save()
                return nil
            } catch {
                return error as NSError
            }
        }
    }

    @Test func duplicatesInOneContextFailWithTheErrorPolicy() throws {
        let store = try Store()
        let context = store.context()
        let (a, b) = context.performAndWait { (store.topic(7, "a", in: context), store.topic(7, "b", in: context)) }
        let error = saveError(context)
        #expect(error?.code == NSManagedObjectConstraintMergeError)
        let conflict = try #require((error?.userInfo["conflictList"] as? [NSConstraintConflict])?.first)
        #expect(conflict.databaseObject == nil)
        #expect(conflict.constraint == ["topicId"])
        #expect(Set(conflict.conflictingObjects.map(ObjectIdentifier.init)) == [ObjectIdentifier(a), ObjectIdentifier(b)])
        #expect(try store.rows().isEmpty, "nothing was written")
        #expect(context.performAndWait { context.hasChanges }, "the objects stay pending")
    }

    @Test func aDuplicateOfAStoredRowFailsWithTheErrorPolicy() throws {
        let store = try Store()
        try store.seed()
        let context = store.context()
        context.performAndWait { _ = store.topic(1, "new", in: context) }
        let error = saveError(context)
        #expect(error?.code == NSManagedObjectConstraintMergeError)
        let conflict = try #require((error?.userInfo["conflictList"] as? [NSConstraintConflict])?.first)
        #expect(conflict.databaseObject?.objectID.primaryKey == 1)
        #expect(conflict.databaseSnapshot?["name"] as? String == "old")
        #expect(try store.rows() == ["1 old 5 p1"])
    }

    @Test func objectTrumpIsAnUpsertThatKeepsTheRow() throws {
        let store = try Store()
        try store.seed()
        let context = store.context(NSMergeByPropertyObjectTrumpMergePolicy)
        try context.performAndWait {
            let topic = store.topic(1, "new", in: context)
            let post = NSEntityDescription.insertNewObject(forEntityName: "Post", into: context)
            post.setValue("hello", forKey: "title")
            post.mutableSetValue(forKey: "topics").add(topic)
            try context.save()
            let topics = (post.value(forKey: "topics") as? NSSet)?.allObjects as? [NSManagedObject]
            #expect(topics?.map(\.objectID.primaryKey) == [1], "the post now points at the stored topic")
        }
        #expect(try store.rows() == ["1 new 5 p1"])
    }

    @Test func storeTrumpKeepsTheStoredValues() throws {
        let store = try Store()
        try store.seed()
        let context = store.context(NSMergeByPropertyStoreTrumpMergePolicy)
        try context.performAndWait {
            store.topic(1, "new", uses: 9, in: context)
            try context.save()
        }
        #expect(try store.rows() == ["1 old 5 p1"])
    }

    @Test func overwriteReplacesTheRow() throws {
        let store = try Store()
        try store.seed()
        let context = store.context(NSOverwriteMergePolicy)
        try context.performAndWait {
            store.topic(1, "new", in: context)
            try context.save()
        }
        #expect(try store.rows() == ["1 new nil p2"])
    }

    @Test func rollbackDropsTheNewcomer() throws {
        let store = try Store()
        try store.seed()
        let context = store.context(NSRollbackMergePolicy)
        try context.performAndWait {
            let newcomer = store.topic(1, "new", in: context)
            store.topic(2, "two", in: context)
            try context.save()
            #expect(newcomer.managedObjectContext == nil)
        }
        #expect(try store.rows() == ["1 old 5 p1", "2 two nil p2"])
    }

    @Test func duplicatesInOneContextMergeIntoOneObject() throws {
        let store = try Store()
        let context = store.context(NSMergeByPropertyObjectTrumpMergePolicy)
        try context.performAndWait {
            store.topic(3, "first", uses: 1, in: context)
            store.topic(3, "second", in: context)
            try context.save()
        }
        #expect(try store.rows() == ["3 second 1 p1"])
    }

    @Test func compoundConstraintsAreInheritedBySubentities() throws {
        let store = try Store()
        let context = store.context()
        context.performAndWait {
            let member = NSEntityDescription.insertNewObject(forEntityName: "Member", into: context)
            member.setValue("Reds", forKey: "team")
            member.setValue(10, forKey: "number")
            let captain = NSEntityDescription.insertNewObject(forEntityName: "Captain", into: context)
            captain.setValue("Reds", forKey: "team")
            captain.setValue(10, forKey: "number")
            let other = NSEntityDescription.insertNewObject(forEntityName: "Member", into: context)
            other.setValue("Blues", forKey: "team")
            other.setValue(10, forKey: "number")
        }
        let error = saveError(context)
        #expect(error?.code == NSManagedObjectConstraintMergeError)
        let conflicts = error?.userInfo["conflictList"] as? [NSConstraintConflict]
        #expect(conflicts?.count == 1)
        #expect(conflicts?.first?.constraint == ["team", "number"])
        #expect(conflicts?.first?.conflictingObjects.count == 2)
    }
}
