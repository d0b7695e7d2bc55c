import Foundation
import Testing

@testable import Strata

extension ObjectGraphTests {
    /// Optimistic locking: a context saving changes to an object that another context changed
    /// and saved since it was fetched gets a merge conflict (with the default error policy).
    @Suite struct OptimisticLockingTests {
        private let scratch = ScratchDirectory()
        private let model = libraryModel()
        private var url: URL { scratch.file("library.sqlite") }

        /// Saves a novel titled `title` ("Original" unless given) and returns its ID.
        private func savedNovelID(in stack: Stack, title: String = "Original") throws -> NSManagedObjectID {
            let context = stack.newContext()
            return try context.performAndWait {
                let novel = Novel(context: context)
                novel.title = title
                try context.save()
                return novel.objectID
            }
        }

        /// The novel with this ID in the context, with its values loaded.
        private func loadedNovel(_ id: NSManagedObjectID, in context: NSManagedObjectContext) throws -> Novel {
            try context.performAndWait {
                let novel = try #require(try context.existingObject(with: id) as? Novel)
                #expect(novel.title == "Original")
                return novel
            }
        }

        @Test func theSecondOfTwoStaleSavesFailsWithAMergeConflict() throws {
            let stack = try Stack(model, at: url)
            let id = try savedNovelID(in: stack)
            let first = stack.newContext()
            let second = stack.newContext()
            let firstNovel = try loadedNovel(id, in: first)
            let secondNovel = try loadedNovel(id, in: second)

            try first.performAndWait {
                firstNovel.title = "First"
                try first.save()
            }
            try second.performAndWait {
                secondNovel.title = "Second"
                let error = try #require(throws: (any Error).self) { try second.save() } as NSError
                #expect(error.domain == NSCocoaErrorDomain)
                #expect(error.code == 133020)  // NSManagedObjectMergeError
                let conflicts = try #require(error.userInfo["conflictList"] as? [NSMergeConflict])
                #expect(conflicts.count == 1)
                #expect(conflicts.first?.sourceObject === secondNovel)
                #expect(secondNovel.title == "Second")
                #expect(second.hasChanges)
            }
            try stack.close()

            let reopened = try Stack(model, at: url)
            let reader = reopened.newContext()
            let titles = try reader.performAndWait { try fetchAll(Novel.self, "Novel", in: reader).compactMap(\.title) }
            #expect(titles == ["First"])
        }

        /// A batched fetch reads the rows around a fault as it fires and leaves them to the faults
        /// among them; an object already loaded keeps the version it was loaded with, so that its
        /// stale save still conflicts.
        @Test func aBatchReadAroundAFaultLeavesLoadedObjectsTheirVersion() throws {
            let stack = try Stack(model, at: url)
            let id = try savedNovelID(in: stack)
            let otherID = try savedNovelID(in: stack, title: "Other")
            let first = stack.newContext()
            let second = stack.newContext()
            let firstNovel = try loadedNovel(id, in: first)
            let secondNovel = try loadedNovel(id, in: second)
            try second.performAndWait {
                secondNovel.title = "Second"
                try second.save()
            }
            try first.performAndWait {
                let request = NSFetchRequest<Novel>(entityName: "Novel")
                request.fetchBatchSize = 10
                let novels = try first.fetch(request)
                #expect(novels.count == 2)
                let other = try #require(novels.first { $0.objectID == otherID })
                #expect(other.isFault && !firstNovel.isFault)
                firstNovel.title = "First"
                // Fires the fault: its batch's rows are read, the first novel's (version 2) too.
                #expect(other.title == "Other")
                #expect(firstNovel.title == "First")
                let error = try #require(throws: (any Error).self) { try first.save() } as NSError
                #expect(error.code == 133020)  // NSManagedObjectMergeError
            }
        }

        @Test func aFailedSaveWritesNoneOfItsChanges() throws {
            let stack = try Stack(model, at: url)
            let id = try savedNovelID(in: stack)
            let first = stack.newContext()
            let second = stack.newContext()
            let firstNovel = try loadedNovel(id, in: first)
            let secondNovel = try loadedNovel(id, in: second)

            try first.performAndWait {
                firstNovel.title = "First"
                try first.save()
            }
            try second.performAndWait {
                secondNovel.title = "Second"
                let author = Author(context: second)
                author.name = "Inserted in the failing save"
                let error = try #require(throws: NSError.self) { try second.save() }
                #expect(error.domain == NSCocoaErrorDomain)
                #expect(error.code == NSManagedObjectMergeError)
            }
            try stack.close()

            let reopened = try Stack(model, at: url)
            let reader = reopened.newContext()
            let (authors, titles) = try reader.performAndWait {
                (
                    try fetchAll(Author.self, "Author", in: reader).count,
                    try fetchAll(Novel.self, "Novel", in: reader).map(\.title)
                )
            }
            #expect(authors == 0)
            #expect(titles == ["First"])
        }

        @Test func changesToDifferentObjectsDoNotConflict() throws {
            let stack = try Stack(model, at: url)
            let id = try savedNovelID(in: stack)
            let first = stack.newContext()
            let second = stack.newContext()
            let firstNovel = try loadedNovel(id, in: first)
            try first.performAndWait {
                firstNovel.title = "First"
                try first.save()
            }
            try second.performAndWait {
                let author = Author(context: second)
                author.name = "Frank Herbert"
                try second.save()
                #expect(!second.hasChanges)
            }
            let reader = stack.newContext()
            let (titles, names) = try reader.performAndWait {
                (
                    try fetchAll(Novel.self, "Novel", in: reader).map(\.title),
                    try fetchAll(Author.self, "Author", in: reader).map(\.name)
                )
            }
            #expect(titles == ["First"])
            #expect(names == ["Frank Herbert"])
        }

        @Test func refreshingTheStaleObjectLetsItsChangesBeSaved() throws {
            let stack = try Stack(model, at: url)
            let id = try savedNovelID(in: stack)
            let first = stack.newContext()
            let second = stack.newContext()
            let firstNovel = try loadedNovel(id, in: first)
            let secondNovel = try loadedNovel(id, in: second)

            try first.performAndWait {
                firstNovel.title = "First"
                firstNovel.year = 1965
                try first.save()
            }
            try second.performAndWait {
                secondNovel.title = "Second"
                second.refresh(secondNovel, mergeChanges: true)
                #expect(secondNovel.title == "Second")
                #expect(secondNovel.year == 1965)
                try second.save()
            }
            try stack.close()

            let reopened = try Stack(model, at: url)
            let reader = reopened.newContext()
            try reader.performAndWait {
                let novel = try #require(try fetchAll(Novel.self, "Novel", in: reader).first)
                #expect(novel.title == "Second")
                #expect(novel.year == 1965)
            }
        }
    }
}
