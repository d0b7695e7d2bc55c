import Foundation
import Testing

@testable import Strata

extension ObjectGraphTests {
    /// What each store type keeps: SQLite and binary stores keep their data in their file
    /// across coordinators; an in-memory store keeps it across the contexts of its coordinator
    /// only.
    @Suite struct StoreTypeTests {
        private let scratch = ScratchDirectory()
        private let model = libraryModel()
        private static let publishedAt = Date(timeIntervalSinceReferenceDate: -1_104_537_600)

        /// Saves Dune (with every attribute type of the novel) and its author to the store.
        private func saveNovel(in stack: Stack) throws {
            let context = stack.newContext()
            try context.performAndWait {
                let herbert = Author(context: context)
                herbert.name = "Frank Herbert"
                let dune = Novel(context: context)
                dune.title = "Dune"
                dune.year = 1965
                dune.rating = 4.25
                dune.publishedAt = Self.publishedAt
                dune.inPrint = true
                dune.author = herbert
                let other = Novel(context: context)
                other.title = "Untitled"
                try context.save()
            }
        }

        /// Checks that the store holds exactly what `saveNovel(in:)` saved.
        private func expectSavedNovel(in stack: Stack) throws {
            let context = stack.newContext()
            try context.performAndWait {
                let dune = try fetchOne(Novel.self, "Novel", where: "title", is: "Dune", in: context)
                #expect(dune.year == 1965)
                #expect(dune.rating == 4.25)
                #expect(dune.publishedAt == Self.publishedAt)
                #expect(dune.inPrint)
                #expect(dune.author?.name == "Frank Herbert")
                #expect(dune.author?.novels == [dune])
                let other = try fetchOne(Novel.self, "Novel", where: "title", is: "Untitled", in: context)
                #expect(other.year == 0 && other.rating == 0 && other.publishedAt == nil && !other.inPrint)
                #expect(other.author == nil)
                #expect(try fetchAll(Novel.self, "Novel", in: context).count == 2)
                #expect(try fetchAll(Author.self, "Author", in: context).count == 1)
            }
        }

        /// The file's inode number: a file replaced by a rename gets a new one.
        private func fileNumber(of url: URL) throws -> UInt64? {
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            return (attributes[.systemFileNumber] as? NSNumber)?.uint64Value
        }

        @Test func sqliteStoreKeepsItsDataForANewCoordinator() throws {
            let url = scratch.file("library.sqlite")
            let writer = try Stack(model, type: NSSQLiteStoreType, at: url)
            #expect(writer.store.type == NSSQLiteStoreType)
            try saveNovel(in: writer)
            try writer.close()
            #expect(FileManager.default.fileExists(atPath: url.path))
            try expectSavedNovel(in: try Stack(model, type: NSSQLiteStoreType, at: url))
        }

        @Test func sqliteStoreIsAnSQLiteDatabase() throws {
            let url = scratch.file("library.sqlite")
            let writer = try Stack(model, type: NSSQLiteStoreType, at: url)
            try saveNovel(in: writer)
            try writer.close()
            let header = try Data(contentsOf: url).prefix(16)
            #expect(header == Data("SQLite format 3\0".utf8))
        }

        @Test func binaryStoreKeepsItsDataForANewCoordinator() throws {
            let url = scratch.file("library.bin")
            let writer = try Stack(model, type: NSBinaryStoreType, at: url)
            #expect(writer.store.type == NSBinaryStoreType)
            try saveNovel(in: writer)
            try writer.close()
            #expect(FileManager.default.fileExists(atPath: url.path))
            try expectSavedNovel(in: try Stack(model, type: NSBinaryStoreType, at: url))
        }

        @Test func binaryStoreIsReplacedWholeOnEachSave() throws {
            let url = scratch.file("library.bin")
            let stack = try Stack(model, type: NSBinaryStoreType, at: url)
            try saveNovel(in: stack)
            let firstFile = try fileNumber(of: url)
            let firstBytes = try Data(contentsOf: url)
            #expect(!firstBytes.isEmpty)

            let context = stack.newContext()
            try context.performAndWait {
                let novel = try fetchOne(Novel.self, "Novel", where: "title", is: "Untitled", in: context)
                novel.title = "Ubik"
                try context.save()
            }
            let secondFile = try fileNumber(of: url)
            #expect(try Data(contentsOf: url) != firstBytes)
            // Written to a new file and moved into place, never rewritten in place.
            #expect(firstFile != nil && secondFile != nil && firstFile != secondFile)
            #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path) == ["library.bin"])

            try stack.close()
            let reader = try Stack(model, type: NSBinaryStoreType, at: url)
            let readContext = reader.newContext()
            try readContext.performAndWait {
                let titles = try fetchAll(Novel.self, "Novel", in: readContext).compactMap(\.title)
                #expect(Set(titles) == ["Dune", "Ubik"])
            }
        }

        @Test func binaryStoreIDsArePermanentURIs() throws {
            let stack = try Stack(model, type: NSBinaryStoreType, at: scratch.file("library.bin"))
            let identifier = try #require(stack.store.identifier)
            let context = stack.newContext()
            try context.performAndWait {
                let novel = Novel(context: context)
                try context.save()
                #expect(!novel.objectID.isTemporaryID)
                let uri = novel.objectID.uriRepresentation()
                #expect(uri.absoluteString.hasPrefix("x-coredata://\(identifier)/Novel/p"))
                #expect(stack.coordinator.managedObjectID(forURIRepresentation: uri) == novel.objectID)
            }
        }

        @Test func inMemoryStoreSharesItsDataBetweenTheContextsOfItsCoordinator() throws {
            let stack = try Stack(model, type: NSInMemoryStoreType, at: nil)
            #expect(stack.store.type == NSInMemoryStoreType)
            try saveNovel(in: stack)
            try expectSavedNovel(in: stack)
        }

        @Test func inMemoryStoreStartsEmptyInANewCoordinator() throws {
            let stack = try Stack(model, type: NSInMemoryStoreType, at: nil)
            try saveNovel(in: stack)
            let fresh = try Stack(model, type: NSInMemoryStoreType, at: nil)
            let context = fresh.newContext()
            let (novels, authors) = try context.performAndWait {
                (
                    try context.count(for: NSFetchRequest<Novel>(entityName: "Novel")),
                    try fetchAll(Author.self, "Author", in: context).count
                )
            }
            #expect(novels == 0)
            #expect(authors == 0)
            #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).isEmpty)
        }

        @Test func aCoordinatorListsItsStores() throws {
            let stack = try Stack(model, type: NSInMemoryStoreType, at: nil)
            #expect(stack.coordinator.persistentStores.count == 1)
            #expect(stack.coordinator.persistentStores.first === stack.store)
            #expect(stack.store.persistentStoreCoordinator === stack.coordinator)
            try stack.close()
            #expect(stack.coordinator.persistentStores.isEmpty)
        }
    }
}
