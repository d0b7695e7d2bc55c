import Foundation
import Testing

@testable import Strata

// Classes of their own (the test process shares one class lookup among suites).

/// What the hooks of `HookedNote` saw, by the object's URI: each test uses its own objects.
private let hookLog = HookLog()

private final class HookLog: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [String: [String]] = [:]

    func record(_ object: NSManagedObject, _ event: String) {
        let key = object.objectID.uriRepresentation().absoluteString
        lock.withLock { events[key, default: []].append(event) }
    }

    func events(of objectID: NSManagedObjectID) -> [String] {
        lock.withLock { events[objectID.uriRepresentation().absoluteString] ?? [] }
    }
}

final class HookedNote: NSManagedObject {
    @Managed var text: String?
    @Managed var locked: Bool
    @Managed var tags: Set<HookedTag>

    override func awakeFromInsert() {
        super.awakeFromInsert()
        hookLog.record(self, "awakeFromInsert")
    }

    override func awakeFromFetch() {
        super.awakeFromFetch()
        // The values are there when it is called.
        hookLog.record(self, "awakeFromFetch \(text ?? "nil")")
    }

    override func willTurnIntoFault() {
        super.willTurnIntoFault()
        hookLog.record(self, "willTurnIntoFault fault=\(isFault)")
    }

    override func didTurnIntoFault() {
        super.didTurnIntoFault()
        hookLog.record(self, "didTurnIntoFault fault=\(isFault)")
    }

    override func prepareForDeletion() {
        super.prepareForDeletion()
        // Before the delete rules run: the tags are still linked.
        hookLog.record(self, "prepareForDeletion tags=\(tags.count)")
    }

    /// A locked note refuses to be deleted.
    override func validateForDelete() throws {
        try super.validateForDelete()
        if locked {
            throw NSError(
                domain: NSCocoaErrorDomain, code: NSManagedObjectValidationError,
                userInfo: [NSValidationObjectErrorKey: self, NSLocalizedDescriptionKey: "A locked note cannot be deleted."])
        }
    }
}

final class HookedTag: NSManagedObject {
    @Managed var name: String?
    @Managed var note: HookedNote?
}

/// The life-cycle hooks a subclass overrides: when Core Data calls them and what the object
/// holds then (Apple's documentation of `NSManagedObject`).
@Suite struct LifecycleHookTests {
    private static let model = NSManagedObjectModel {
        Entity("HookedNote", className: "HookedNote") {
            Attribute("text", .stringAttributeType)
            Attribute("locked", .booleanAttributeType, optional: false, defaultValue: false)
            Relationship("tags", to: "HookedTag", inverse: "note", toMany: true, deleteRule: .cascadeDeleteRule)
        }
        Entity("HookedTag", className: "HookedTag") {
            Attribute("name", .stringAttributeType)
            Relationship("note", to: "HookedNote", inverse: "tags")
        }
    }

    private final class Stack {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: LifecycleHookTests.model)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-hooks-\(UUID().uuidString)")

        init() throws {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            _ = try coordinator.addPersistentStore(
                ofType: NSSQLiteStoreType, configurationName: nil, at: folder.appendingPathComponent("Hooks.sqlite"),
                options: nil)
        }

        func context() -> NSManagedObjectContext {
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            return context
        }

        /// Saves a note with two tags; its permanent ID.
        func savedNote(_ text: String, locked: Bool = false) throws -> NSManagedObjectID {
            let context = context()
            return try context.performAndWait {
                let note = HookedNote(context: context)
                note.text = text
                note.locked = locked
                for name in ["a", "b"] {
                    let tag = HookedTag(context: context)
                    tag.name = name
                    tag.note = note
                }
                try context.save()
                return note.objectID
            }
        }

        deinit {
            for store in coordinator.persistentStores { try? coordinator.remove(store) }
            try? FileManager.default.removeItem(at: folder)
        }
    }

    @Test func awakeFromFetchRunsWhenTheValuesAreLoadedAndNotOnInsert() throws {
        let stack = try Stack()
        let id = try stack.savedNote("fetched")
        // The inserting context's object was inserted, never fetched.
        #expect(hookLog.events(of: id).isEmpty, "the insert was logged under its temporary ID only")
        let reader = stack.context()
        try reader.performAndWait {
            let request = NSFetchRequest<HookedNote>(entityName: "HookedNote")
            request.returnsObjectsAsFaults = true
            let note = try #require(try reader.fetch(request).first)
            #expect(note.isFault)
            #expect(hookLog.events(of: id).isEmpty, "a fault has loaded nothing")
            #expect(note.text == "fetched")  // fires the fault
            #expect(hookLog.events(of: id) == ["awakeFromFetch fetched"])
            _ = note.locked
            #expect(hookLog.events(of: id) == ["awakeFromFetch fetched"], "once per load")
        }
        let eager = stack.context()
        try eager.performAndWait {
            let request = NSFetchRequest<HookedNote>(entityName: "HookedNote")
            request.returnsObjectsAsFaults = false
            _ = try eager.fetch(request)
            #expect(hookLog.events(of: id) == ["awakeFromFetch fetched", "awakeFromFetch fetched"])
        }
    }

    @Test func refreshingCallsWillThenDidTurnIntoFault() throws {
        let stack = try Stack()
        let id = try stack.savedNote("refreshed")
        let context = stack.context()
        try context.performAndWait {
            let note = try #require(try context.existingObject(with: id) as? HookedNote)
            #expect(note.text == "refreshed")
            context.refresh(note, mergeChanges: false)
            #expect(note.isFault)
            #expect(
                hookLog.events(of: id) == [
                    "awakeFromFetch refreshed", "willTurnIntoFault fault=false", "didTurnIntoFault fault=true",
                ])
            #expect(note.text == "refreshed")
            #expect(hookLog.events(of: id).last == "awakeFromFetch refreshed")
        }
    }

    @Test func prepareForDeletionRunsOnceBeforeTheDeleteRules() throws {
        let stack = try Stack()
        let id = try stack.savedNote("deleted")
        let context = stack.context()
        try context.performAndWait {
            let note = try #require(try context.existingObject(with: id) as? HookedNote)
            context.delete(note)
            try context.save()
        }
        #expect(hookLog.events(of: id).filter { $0.hasPrefix("prepareForDeletion") } == ["prepareForDeletion tags=2"])
        let reader = stack.context()
        let counts = try reader.performAndWait {
            (
                try reader.count(for: NSFetchRequest<NSManagedObject>(entityName: "HookedNote")),
                try reader.count(for: NSFetchRequest<NSManagedObject>(entityName: "HookedTag"))
            )
        }
        #expect(counts.0 == 0 && counts.1 == 0, "the note and, by its cascade rule, its tags are gone")
    }

    /// `validateForDelete` throwing vetoes the save: the error comes back with the object, and
    /// nothing is deleted from the store; an unlocked note is deleted.
    @Test func validateForDeleteVetoesTheDelete() throws {
        let stack = try Stack()
        let lockedID = try stack.savedNote("kept", locked: true)
        let freeID = try stack.savedNote("free")
        let context = stack.context()
        try context.performAndWait {
            let locked = try #require(try context.existingObject(with: lockedID) as? HookedNote)
            context.delete(locked)
            let error = try #require(throws: NSError.self) { try context.save() }
            #expect(error.domain == NSCocoaErrorDomain)
            #expect(error.code == NSManagedObjectValidationError)
            #expect(error.userInfo[NSValidationObjectErrorKey] as? NSManagedObject === locked)
            context.rollback()
            #expect(!locked.isDeleted)
            let free = try #require(try context.existingObject(with: freeID) as? HookedNote)
            context.delete(free)
            try context.save()
        }
        let reader = stack.context()
        let texts = try reader.performAndWait {
            try reader.fetch(NSFetchRequest<HookedNote>(entityName: "HookedNote")).map { $0.text ?? "" }
        }
        #expect(texts == ["kept"])
    }
}
