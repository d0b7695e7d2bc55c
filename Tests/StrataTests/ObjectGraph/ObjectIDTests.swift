import Foundation
import Testing

@testable import Strata

extension ObjectGraphTests {
    /// Object IDs are temporary until save and permanent after, in Core Data's URI form
    /// `x-coredata://<store identifier>/<Entity>/p<primary key>`.
    @Suite struct ObjectIDTests {
        private let scratch = ScratchDirectory()
        private let model = libraryModel()

        @Test func anIDIsTemporaryUntilSaveAndPermanentAfter() throws {
            let stack = try Stack(model, at: scratch.file("library.sqlite"))
            let context = stack.newContext()
            try context.performAndWait {
                let novel = Novel(context: context)
                let temporary = novel.objectID
                #expect(temporary.isTemporaryID)
                #expect(temporary.entity === novel.entity)
                #expect(temporary.persistentStore == nil)
                try context.save()
                #expect(!novel.objectID.isTemporaryID)
                #expect(novel.objectID != temporary)
                #expect(novel.objectID.entity.name == "Novel")
                #expect(novel.objectID.persistentStore === stack.store)
            }
        }

        @Test func aPermanentURINamesTheStoreTheEntityAndThePrimaryKey() throws {
            let stack = try Stack(model, at: scratch.file("library.sqlite"))
            let context = stack.newContext()
            try context.performAndWait {
                let first = Novel(context: context)
                let second = Novel(context: context)
                let author = Author(context: context)
                try context.obtainPermanentIDs(for: [first])
                try context.obtainPermanentIDs(for: [second])
                try context.save()

                let identifier = try #require(stack.store.identifier)
                #expect(UUID(uuidString: identifier) != nil)
                #expect(stack.coordinator.metadata(for: stack.store)[NSStoreUUIDKey] as? String == identifier)
                #expect(first.objectID.uriRepresentation().absoluteString == "x-coredata://\(identifier)/Novel/p1")
                #expect(second.objectID.uriRepresentation().absoluteString == "x-coredata://\(identifier)/Novel/p2")
                let uri = author.objectID.uriRepresentation()
                #expect(uri.scheme == "x-coredata")
                #expect(uri.host == identifier)
                #expect(uri.path == "/Author/p1")
            }
        }

        @Test func aURIRoundTripsThroughTheCoordinator() throws {
            let url = scratch.file("library.sqlite")
            let stack = try Stack(model, at: url)
            let context = stack.newContext()
            let uri = try context.performAndWait {
                let novel = Novel(context: context)
                novel.title = "Dune"
                try context.save()
                let uri = novel.objectID.uriRepresentation()
                #expect(stack.coordinator.managedObjectID(forURIRepresentation: uri) == novel.objectID)
                return uri
            }
            try stack.close()

            let reopened = try Stack(model, at: url)
            let readContext = reopened.newContext()
            try readContext.performAndWait {
                let id = try #require(reopened.coordinator.managedObjectID(forURIRepresentation: uri))
                #expect(!id.isTemporaryID)
                #expect(id.entity.name == "Novel")
                #expect(id.uriRepresentation() == uri)
                #expect((readContext.object(with: id) as? Novel)?.title == "Dune")
            }
        }

        @Test func aURIOfAnotherStoreOrEntityIsNotRecognised() throws {
            let stack = try Stack(model, at: scratch.file("library.sqlite"))
            let identifier = try #require(stack.store.identifier)
            let unknownStore = try #require(URL(string: "x-coredata://\(UUID().uuidString)/Novel/p1"))
            let unknownEntity = try #require(URL(string: "x-coredata://\(identifier)/Spaceship/p1"))
            #expect(stack.coordinator.managedObjectID(forURIRepresentation: unknownStore) == nil)
            #expect(stack.coordinator.managedObjectID(forURIRepresentation: unknownEntity) == nil)
        }

        @Test func obtainedPermanentIDsAreKeptBySave() throws {
            let url = scratch.file("library.sqlite")
            let stack = try Stack(model, at: url)
            let context = stack.newContext()
            let uri = try context.performAndWait {
                let novel = Novel(context: context)
                novel.title = "Dune"
                let temporary = novel.objectID
                try context.obtainPermanentIDs(for: [novel])
                let permanent = novel.objectID
                #expect(temporary.isTemporaryID)
                #expect(!permanent.isTemporaryID)
                #expect(novel.isInserted)
                #expect(context.registeredObject(for: permanent) === novel)
                try context.save()
                #expect(novel.objectID == permanent)
                #expect(novel.objectID.uriRepresentation() == permanent.uriRepresentation())
                return permanent.uriRepresentation()
            }
            try stack.close()

            let reopened = try Stack(model, at: url)
            let readContext = reopened.newContext()
            try readContext.performAndWait {
                let id = try #require(reopened.coordinator.managedObjectID(forURIRepresentation: uri))
                #expect((try readContext.existingObject(with: id) as? Novel)?.title == "Dune")
            }
        }

        @Test func existingObjectThrowsForAnIDThatIsNotInTheStore() throws {
            let stack = try Stack(model, at: scratch.file("library.sqlite"))
            let identifier = try #require(stack.store.identifier)
            let context = stack.newContext()
            let (keptID, removedID) = try context.performAndWait {
                let kept = Novel(context: context)
                kept.title = "Kept"
                let removed = Novel(context: context)
                try context.save()
                let ids = (kept.objectID, removed.objectID)
                context.delete(removed)
                try context.save()
                return ids
            }

            let other = stack.newContext()
            try other.performAndWait {
                #expect((try other.existingObject(with: keptID) as? Novel)?.title == "Kept")
                let deletedError = try #require(throws: (any Error).self) { try other.existingObject(with: removedID) }
                #expect((deletedError as NSError).domain == NSCocoaErrorDomain)

                let neverURI = try #require(URL(string: "x-coredata://\(identifier)/Novel/p999"))
                let never = try #require(stack.coordinator.managedObjectID(forURIRepresentation: neverURI))
                let neverError = try #require(throws: (any Error).self) { try other.existingObject(with: never) }
                #expect((neverError as NSError).domain == NSCocoaErrorDomain)
            }
        }

        @Test func existingObjectReturnsTheRegisteredInstance() throws {
            let stack = try Stack(model, at: scratch.file("library.sqlite"))
            let context = stack.newContext()
            try context.performAndWait {
                let novel = Novel(context: context)
                #expect(try context.existingObject(with: novel.objectID) === novel)
                #expect(context.object(with: novel.objectID) === novel)
                try context.save()
                #expect(try context.existingObject(with: novel.objectID) === novel)
                #expect(context.registeredObject(for: novel.objectID) === novel)
            }
        }

        /// Dictionaries and sets of `ObjectKey` hash with the ID's own spread hash and the
        /// table's seed (`_rawHashValue(seed:)`): equal IDs made apart find one entry, IDs of
        /// other roots and temporary IDs are told apart, and every answer agrees with a
        /// dictionary keyed by (root entity, key).
        @Test func objectKeysHashAndCompareAsTheirIDs() throws {
            let stack = try Stack(model, at: scratch.file("library.sqlite"))
            let novel = try #require(model.entitiesByName["Novel"])
            let author = try #require(model.entitiesByName["Author"])
            var table: [ObjectKey: Int] = [:]
            var reference: [String: Int] = [:]
            var generator = SystemRandomNumberGenerator()
            for step in 0..<20_000 {
                let entity = Bool.random(using: &generator) ? novel : author
                let key = Int64.random(in: 1...3_000, using: &generator)
                let id = NSManagedObjectID(entity: entity, primaryKey: key, store: stack.store)
                let name = "\(entity.name ?? "")/\(key)"
                if step % 3 == 0 {
                    #expect(table.removeValue(forKey: ObjectKey(id)) == reference.removeValue(forKey: name))
                } else {
                    table[ObjectKey(id)] = step
                    reference[name] = step
                }
            }
            #expect(table.count == reference.count)
            for (key, value) in table {
                let name = "\(key.objectID.entity.name ?? "")/\(key.objectID.primaryKey)"
                #expect(reference[name] == value)
            }
            // A copy into a table that starts small (its own seed) keeps every entry.
            var copy: [ObjectKey: Int] = [:]
            for (key, value) in table { copy[key] = value }
            #expect(copy == table)
            // Temporary IDs are equal only to themselves.
            let first = NSManagedObjectID(temporaryFor: novel)
            let second = NSManagedObjectID(temporaryFor: novel)
            let temporary: Set<ObjectKey> = [ObjectKey(first), ObjectKey(second), ObjectKey(first)]
            #expect(temporary.count == 2)
            #expect(temporary.contains(ObjectKey(first)) && temporary.contains(ObjectKey(second)))
        }
    }
}
