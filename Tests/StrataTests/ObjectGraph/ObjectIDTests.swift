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

        /// An ID keeps three words (its entity, its number, and what its store's IDs share);
        /// equality follows the row: one file's rows through two store objects are equal, a
        /// subentity's ID equals its root's for one key (with one hash), a temporary ID never
        /// equals a permanent one of the same number, and an ID made before its store's
        /// identifier changed keeps the old one.
        @Test func idsOfOneRowAreEqualWhicheverStoreObjectOrEntityMadeThem() throws {
            let url = scratch.file("library.sqlite")
            let novel = try #require(model.entitiesByName["Novel"])
            let author = try #require(model.entitiesByName["Author"])
            let first = try Stack(model, at: url)
            let a = NSManagedObjectID(entity: novel, primaryKey: 7, store: first.store)
            let b = NSManagedObjectID(entity: novel, primaryKey: 7, store: first.store)
            #expect(a !== b && a == b && a.hash == b.hash && a.origin === b.origin)
            #expect(a != NSManagedObjectID(entity: novel, primaryKey: 8, store: first.store))
            #expect(a != NSManagedObjectID(entity: author, primaryKey: 7, store: first.store))
            #expect(a.primaryKey == 7 && !a.isTemporaryID && a.persistentStore === first.store)

            let second = try Stack(model, at: url)
            let c = NSManagedObjectID(entity: novel, primaryKey: 7, store: second.store)
            #expect(second.store !== first.store && c.persistentStore === second.store)
            #expect(c == a && c.hash == a.hash)

            let temporary = NSManagedObjectID(temporaryFor: novel)
            let sameNumber = NSManagedObjectID(entity: novel, primaryKey: temporary.number, store: first.store)
            #expect(temporary.isTemporaryID && temporary.primaryKey == 0 && temporary.persistentStore == nil)
            #expect(temporary != sameNumber && sameNumber != temporary)

            let identifier = try #require(first.store.identifier)
            first.store.identifier = "6F1C0000-0000-0000-0000-000000000000"
            let renamed = NSManagedObjectID(entity: novel, primaryKey: 7, store: first.store)
            first.store.identifier = identifier
            #expect(renamed != a)
            #expect(renamed.uriRepresentation().host == "6F1C0000-0000-0000-0000-000000000000")
            #expect(a.uriRepresentation().host == identifier)
            #expect(NSManagedObjectID(entity: novel, primaryKey: 7, store: first.store) == a)

            // Inheritance: a subentity's rows are its root's.
            let media = NSEntityDescription()
            media.name = "Media"
            let book = NSEntityDescription()
            book.name = "Book"
            let paperback = NSEntityDescription()
            paperback.name = "Paperback"
            book.subentities = [paperback]
            media.subentities = [book]
            #expect(paperback.rootIdentity == ObjectIdentifier(media) && media.rootIdentity == ObjectIdentifier(media))
            let origin = StoreReference(store: nil, identifier: "S")
            let asMedia = NSManagedObjectID(entity: media, primaryKey: 3, origin: origin)
            let asPaperback = NSManagedObjectID(entity: paperback, primaryKey: 3, origin: origin)
            #expect(asMedia == asPaperback && asMedia.hash == asPaperback.hash)
            #expect(asMedia != NSManagedObjectID(entity: novel, primaryKey: 3, origin: origin))
            // Taken out of the tree, an entity is its own root again.
            media.subentities = []
            #expect(book.rootIdentity == ObjectIdentifier(book) && paperback.rootIdentity == ObjectIdentifier(book))
        }
    }
}
