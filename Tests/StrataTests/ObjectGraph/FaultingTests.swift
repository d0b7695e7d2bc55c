import Foundation
import Testing

@testable import Strata

extension ObjectGraphTests {
    /// Objects and to-many relationships of a store load on first access, and refreshing
    /// turns an object back into a fault.
    @Suite struct FaultingTests {
        private let scratch = ScratchDirectory()
        private let model = libraryModel()

        /// Saves Dune (by Frank Herbert, three chapters) to a new SQLite store, closes it, and
        /// returns the store's URL and the URI of the novel.
        private func savedNovel() throws -> (url: URL, novel: URL) {
            let url = scratch.file("library.sqlite")
            let stack = try Stack(model, at: url)
            let context = stack.newContext()
            let uri = try context.performAndWait {
                let herbert = Author(context: context)
                herbert.name = "Frank Herbert"
                let dune = Novel(context: context)
                dune.title = "Dune"
                dune.year = 1965
                dune.author = herbert
                for number: Int32 in 1...3 {
                    let chapter = Chapter(context: context)
                    chapter.number = number
                    chapter.novel = dune
                }
                try context.save()
                return dune.objectID.uriRepresentation()
            }
            try stack.close()
            return (url, uri)
        }

        @Test func anObjectFromAReopenedStoreIsAFaultUntilAValueIsRead() throws {
            let (url, uri) = try savedNovel()
            let stack = try Stack(model, at: url)
            let context = stack.newContext()
            try context.performAndWait {
                let id = try #require(stack.coordinator.managedObjectID(forURIRepresentation: uri))
                let novel = context.object(with: id)
                #expect(novel.isFault)
                #expect(novel is Novel)
                #expect(novel.objectID == id)
                #expect(novel.value(forKey: "title") as? String == "Dune")
                #expect(!novel.isFault)
                #expect((novel as? Novel)?.year == 1965)
            }
        }

        @Test func aToManyRelationshipLoadsOnFirstAccess() throws {
            let (url, uri) = try savedNovel()
            let stack = try Stack(model, at: url)
            let context = stack.newContext()
            try context.performAndWait {
                let id = try #require(stack.coordinator.managedObjectID(forURIRepresentation: uri))
                let novel = try #require(context.object(with: id) as? Novel)
                #expect(novel.title == "Dune")
                #expect(!context.registeredObjects.contains { $0 is Chapter })
                #expect(novel.chapters.map(\.number) == [1, 2, 3])
                let chapters = context.registeredObjects.compactMap { $0 as? Chapter }
                #expect(chapters.count == 3)
                #expect(Set(chapters) == Set(novel.chapters))
            }
        }

        @Test func aToOneRelationshipReadsAsTheDestinationObject() throws {
            let (url, uri) = try savedNovel()
            let stack = try Stack(model, at: url)
            let context = stack.newContext()
            try context.performAndWait {
                let id = try #require(stack.coordinator.managedObjectID(forURIRepresentation: uri))
                let novel = try #require(context.object(with: id) as? Novel)
                let author = try #require(novel.author)
                #expect(author.name == "Frank Herbert")
                #expect(!author.isFault)
                #expect(author.novels == [novel])
            }
        }

        @Test func fetchedObjectsAreInstancesOfTheEntitysClass() throws {
            let (url, _) = try savedNovel()
            let stack = try Stack(model, at: url)
            let context = stack.newContext()
            try context.performAndWait {
                let objects = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Chapter"))
                #expect(objects.count == 3)
                #expect(objects.allSatisfy { $0 is Chapter })
                #expect(objects.allSatisfy { $0.managedObjectContext === context })
            }
        }

        @Test func refreshWithoutMergingTurnsTheObjectIntoAFaultAndDiscardsChanges() throws {
            let (url, uri) = try savedNovel()
            let stack = try Stack(model, at: url)
            let context = stack.newContext()
            try context.performAndWait {
                let id = try #require(stack.coordinator.managedObjectID(forURIRepresentation: uri))
                let novel = try #require(context.object(with: id) as? Novel)
                novel.title = "Dune (unsaved)"
                #expect(novel.isUpdated)
                context.refresh(novel, mergeChanges: false)
                #expect(novel.isFault)
                #expect(!novel.isUpdated)
                #expect(!context.hasChanges)
                #expect(novel.title == "Dune")
                #expect(!novel.isFault)
            }
        }

        @Test func refreshWithMergingKeepsUnsavedChanges() throws {
            let (url, uri) = try savedNovel()
            let stack = try Stack(model, at: url)
            let context = stack.newContext()
            try context.performAndWait {
                let id = try #require(stack.coordinator.managedObjectID(forURIRepresentation: uri))
                let novel = try #require(context.object(with: id) as? Novel)
                novel.title = "Dune (unsaved)"
                context.refresh(novel, mergeChanges: true)
                #expect(novel.title == "Dune (unsaved)")
                #expect(novel.year == 1965)
                #expect(novel.isUpdated)
                #expect(context.hasChanges)
                #expect(novel.changedValues().keys.sorted() == ["title"])
            }
        }

        @Test func refreshingAllObjectsKeepsTheirIdentityAndReloadsTheirValues() throws {
            let (url, uri) = try savedNovel()
            let stack = try Stack(model, at: url)
            let context = stack.newContext()
            try context.performAndWait {
                let id = try #require(stack.coordinator.managedObjectID(forURIRepresentation: uri))
                let novel = try #require(context.object(with: id) as? Novel)
                #expect(novel.title == "Dune")
                context.refreshAllObjects()
                #expect(context.registeredObject(for: id) === novel)
                #expect(novel.title == "Dune")
                #expect(novel.chapters.count == 3)
            }
        }
    }
}
