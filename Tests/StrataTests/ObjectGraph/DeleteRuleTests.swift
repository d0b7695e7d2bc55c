import Foundation
import Testing

@testable import Strata

extension ObjectGraphTests {
    /// The delete rules (Nullify, Cascade, Deny, No Action) as they run when a context
    /// processes its pending changes and saves, and as the store shows them afterwards.
    @Suite struct DeleteRuleTests {
        private let scratch = ScratchDirectory()
        private let model = libraryModel()
        private var url: URL { scratch.file("library.sqlite") }

        /// Opens a new coordinator on the store file and runs `body` in one of its contexts.
        private func reopened<Result>(_ body: (NSManagedObjectContext) throws -> Result) throws -> Result {
            let stack = try Stack(model, at: url)
            defer { try? stack.close() }
            let context = stack.newContext()
            return try context.performAndWait { try body(context) }
        }

        @Test func nullifyClearsTheInverseAndKeepsTheDestination() throws {
            let stack = try Stack(model, at: url)
            let context = stack.newContext()
            try context.performAndWait {
                let herbert = Author(context: context)
                herbert.name = "Frank Herbert"
                let dune = Novel(context: context)
                dune.title = "Dune"
                dune.author = herbert
                let scienceFiction = Genre(context: context)
                scienceFiction.name = "SF"
                dune.mutableSetValue(forKey: "genres").add(scienceFiction)
                try context.save()

                context.delete(herbert)
                context.delete(scienceFiction)
                context.processPendingChanges()
                #expect(dune.author == nil)
                #expect(dune.genres.isEmpty)
                #expect(!dune.isDeleted)
                try context.save()
            }
            try stack.close()

            try reopened { context in
                #expect(try fetchAll(Author.self, "Author", in: context).isEmpty)
                #expect(try fetchAll(Genre.self, "Genre", in: context).isEmpty)
                let dune = try fetchOne(Novel.self, "Novel", where: "title", is: "Dune", in: context)
                #expect(dune.author == nil)
                #expect(dune.genres.isEmpty)
            }
        }

        @Test func cascadeDeletesDestinationsAndTheirCascades() throws {
            let stack = try Stack(model, at: url)
            let context = stack.newContext()
            try context.performAndWait {
                func folder(_ name: String, in parent: Folder?) -> Folder {
                    let folder = Folder(context: context)
                    folder.name = name
                    folder.parent = parent
                    return folder
                }
                let root = folder("root", in: nil)
                let documents = folder("Documents", in: root)
                let music = folder("Music", in: root)
                let taxes = folder("Taxes", in: documents)
                let other = folder("Other root", in: nil)
                try context.save()

                context.delete(root)
                context.processPendingChanges()
                #expect(root.isDeleted && documents.isDeleted && music.isDeleted && taxes.isDeleted)
                #expect(!other.isDeleted)
                #expect(context.deletedObjects == [root, documents, music, taxes])
                try context.save()
            }
            try stack.close()

            let names = try reopened { context in try fetchAll(Folder.self, "Folder", in: context).compactMap(\.name) }
            #expect(names == ["Other root"])
        }

        @Test func cascadeFollowsAnOrderedToMany() throws {
            let stack = try Stack(model, at: url)
            let context = stack.newContext()
            try context.performAndWait {
                let dune = Novel(context: context)
                dune.title = "Dune"
                let ubik = Novel(context: context)
                ubik.title = "Ubik"
                for (novel, count) in [(dune, 3), (ubik, 2)] {
                    for number in 1...count {
                        let chapter = Chapter(context: context)
                        chapter.number = Int32(number)
                        chapter.novel = novel
                    }
                }
                try context.save()
                context.delete(dune)
                try context.save()
            }
            try stack.close()

            try reopened { context in
                let chapters = try fetchAll(Chapter.self, "Chapter", in: context)
                #expect(chapters.count == 2)
                #expect(chapters.allSatisfy { $0.novel?.title == "Ubik" })
                #expect(try fetchAll(Novel.self, "Novel", in: context).compactMap(\.title) == ["Ubik"])
            }
        }

        @Test func denyFailsTheSaveWithError1600AndWritesNothing() throws {
            let stack = try Stack(model, at: url)
            let context = stack.newContext()
            try context.performAndWait {
                let shelf = Shelf(context: context)
                shelf.label = "Kitchen"
                let dune = Novel(context: context)
                dune.title = "Dune"
                dune.shelf = shelf
                try context.save()

                dune.title = "Dune (renamed in the failed save)"
                context.delete(shelf)
                let error = try #require(throws: (any Error).self) { try context.save() } as NSError
                #expect(error.domain == NSCocoaErrorDomain)
                #expect(error.code == 1600)  // NSValidationRelationshipDeniedDeleteError
                #expect(dune.shelf === shelf)
            }
            try stack.close()

            try reopened { context in
                let shelf = try fetchOne(Shelf.self, "Shelf", where: "label", is: "Kitchen", in: context)
                let novels = try fetchAll(Novel.self, "Novel", in: context)
                #expect(novels.compactMap(\.title) == ["Dune"])
                #expect(novels.first?.shelf === shelf)
                #expect(shelf.novels.count == 1)
            }
        }

        @Test func severalDeniedDeletesAreReportedTogether() throws {
            let stack = try Stack(model, at: url)
            let context = stack.newContext()
            try context.performAndWait {
                let shelves = ["Kitchen", "Hall"].map { label -> Shelf in
                    let shelf = Shelf(context: context)
                    shelf.label = label
                    let novel = Novel(context: context)
                    novel.shelf = shelf
                    return shelf
                }
                try context.save()

                for shelf in shelves { context.delete(shelf) }
                let error = try #require(throws: (any Error).self) { try context.save() } as NSError
                #expect(error.domain == NSCocoaErrorDomain)
                #expect(error.code == 1560)  // NSValidationMultipleErrorsError
                let details = try #require(error.userInfo[NSDetailedErrorsKey] as? [any Error]).map { $0 as NSError }
                #expect(details.count == 2)
                #expect(details.allSatisfy { $0.domain == NSCocoaErrorDomain && $0.code == 1600 })
            }
            try stack.close()

            let labels = try reopened { context in try fetchAll(Shelf.self, "Shelf", in: context).compactMap(\.label) }
            #expect(Set(labels) == ["Kitchen", "Hall"])
        }

        @Test func denyAllowsDeletingAnEmptySource() throws {
            let stack = try Stack(model, at: url)
            let context = stack.newContext()
            try context.performAndWait {
                let shelf = Shelf(context: context)
                shelf.label = "Empty"
                try context.save()
                context.delete(shelf)
                try context.save()
                #expect(try fetchAll(Shelf.self, "Shelf", in: context).isEmpty)
            }
        }

        @Test func noActionLeavesTheDestinationPointingAtTheDeletedObject() throws {
            let stack = try Stack(model, at: url)
            let context = stack.newContext()
            try context.performAndWait {
                let library = Library(context: context)
                library.name = "Central"
                let loan = Loan(context: context)
                loan.borrower = "Ann"
                loan.library = library
                try context.save()

                context.delete(library)
                context.processPendingChanges()
                #expect(library.isDeleted)
                #expect(!loan.isDeleted)
                #expect(loan.library === library)
                #expect(context.deletedObjects == [library])
            }
        }

        /// The rows read with the relationships of several deleted objects (and of a prefetch)
        /// go to the destinations that are still faults; a destination holding unsaved changes
        /// keeps them, and the others read the stored values.
        @Test func rowsReadAlongFillOnlyFaults() throws {
            let stack = try Stack(model, at: url)
            let context = stack.newContext()
            try context.performAndWait {
                for title in ["Dune", "Emma"] {
                    let novel = Novel(context: context)
                    novel.title = title
                    novel.author = Author(context: context)
                    for number in 1...3 {
                        let chapter = Chapter(context: context)
                        chapter.number = Int32(number)
                        chapter.novel = novel
                    }
                }
                try context.save()
            }
            try stack.close()

            try reopened { context in
                // One chapter is fetched and changed; the others stay unregistered until the
                // delete rules read them with their novels' chapters.
                let one = NSFetchRequest<Chapter>(entityName: "Chapter")
                one.predicate = NSPredicate(format: "number == 2")
                one.fetchLimit = 1
                let edited = try #require(try context.fetch(one).first)
                edited.number = 99
                #expect(context.registeredObjects.count == 2)  // the chapter and its novel's fault
                let request = NSFetchRequest<Author>(entityName: "Author")
                request.relationshipKeyPathsForPrefetching = ["novels"]
                let authors = try context.fetch(request)
                #expect(authors.compactMap { $0.novels.first?.title }.sorted() == ["Dune", "Emma"])

                let novels = try fetchAll(Novel.self, "Novel", in: context)
                for novel in novels { context.delete(novel) }
                context.processPendingChanges()
                let chapters = context.deletedObjects.compactMap { $0 as? Chapter }
                #expect(chapters.count == 6)
                #expect(chapters.map(\.number).sorted() == [1, 1, 2, 3, 3, 99])
                #expect(edited.isDeleted && edited.number == 99)
                try context.save()
                #expect(try fetchAll(Chapter.self, "Chapter", in: context).isEmpty)
            }
        }
    }
}
