import Foundation
import Testing

@testable import Strata

extension ObjectGraphTests {
    /// What a change of one object of a to-many relationship does besides the change, in every
    /// way of making it (the mutable set, the inverse to-one, the whole set): both sides are
    /// updated and say so in `changedValues()` and `ObjectsDidChange`; relationships not loaded
    /// yet load the stored objects first; delete rules, rollback and saves see the change.
    @Suite struct ToManyChangeTrackingTests {
        let scratch = ScratchDirectory()

        /// Runs `body` in a new context of a SQLite store in the scratch directory (the same
        /// file every call), with a recorder of its notifications.
        private func inContext(_ body: (NSManagedObjectContext, NotificationRecorder) throws -> Void) throws {
            let stack = try Stack(libraryModel(), at: scratch.file("library.sqlite"))
            defer { try? stack.close() }
            let context = stack.newContext()
            let recorder = NotificationRecorder(context)
            defer { recorder.stop() }
            try context.performAndWait { try body(context, recorder) }
        }

        private func saveAuthor(named name: String, novels titles: [String]) throws {
            try inContext { context, _ in
                let author = Author(context: context)
                author.name = name
                for title in titles {
                    let novel = Novel(context: context)
                    novel.title = title
                    novel.author = author
                }
                try context.save()
            }
        }

        @Test(arguments: ["mutable set", "inverse", "whole set", "union"])
        func aLinkUpdatesBothSavedSidesAndTheirChangedValues(way: String) throws {
            try saveAuthor(named: "Herbert", novels: ["Dune"])
            try inContext { context, _ in
                let novel = Novel(context: context)
                novel.title = "Messiah"
                try context.save()
            }
            try inContext { context, recorder in
                let author = try fetchOne(Author.self, "Author", where: "name", is: "Herbert", in: context)
                let dune = try fetchOne(Novel.self, "Novel", where: "title", is: "Dune", in: context)
                let messiah = try fetchOne(Novel.self, "Novel", where: "title", is: "Messiah", in: context)
                switch way {
                case "mutable set": author.mutableSetValue(forKey: "novels").add(messiah)
                case "inverse": messiah.author = author
                case "whole set": author.setValue(NSSet(array: [dune, messiah]), forKey: "novels")
                default: author.mutableSetValue(forKey: "novels").union([messiah])
                }
                #expect(author.isUpdated && messiah.isUpdated)
                #expect(!dune.isUpdated)
                let changed = try #require(author.changedValues()["novels"] as? NSSet)
                #expect(changed == NSSet(array: [dune, messiah]))
                #expect(messiah.changedValues()["author"] as? Author === author)
                context.processPendingChanges()
                let event = try #require(recorder.recorded(.NSManagedObjectContextObjectsDidChange).last)
                #expect(event.updated == [author, messiah])
                try context.save()
            }
            try inContext { context, _ in
                let author = try fetchOne(Author.self, "Author", where: "name", is: "Herbert", in: context)
                #expect(Set(author.novels.compactMap(\.title)) == ["Dune", "Messiah"])
            }
        }

        @Test func anUnlinkThroughTheMutableSetUpdatesBothSidesAndIsSaved() throws {
            try saveAuthor(named: "Herbert", novels: ["Dune", "Messiah"])
            try inContext { context, recorder in
                let author = try fetchOne(Author.self, "Author", where: "name", is: "Herbert", in: context)
                let dune = try fetchOne(Novel.self, "Novel", where: "title", is: "Dune", in: context)
                author.mutableSetValue(forKey: "novels").remove(dune)
                #expect(dune.author == nil)
                #expect(dune.changedValues()["author"] is NSNull)
                #expect(author.novels.compactMap(\.title) == ["Messiah"])
                context.processPendingChanges()
                #expect(recorder.recorded(.NSManagedObjectContextObjectsDidChange).last?.updated == [author, dune])
                try context.save()
            }
            try inContext { context, _ in
                let dune = try fetchOne(Novel.self, "Novel", where: "title", is: "Dune", in: context)
                #expect(dune.author == nil)
            }
        }

        /// A to-many not loaded yet is loaded before an object joins or leaves it, whichever
        /// side the change is made from: the stored objects stay.
        @Test func aRelationshipNotLoadedYetKeepsItsStoredObjects() throws {
            try saveAuthor(named: "Herbert", novels: ["Dune", "Messiah", "Children"])
            try inContext { context, _ in
                let author = try fetchOne(Author.self, "Author", where: "name", is: "Herbert", in: context)
                let index = try #require(author.layout.index(of: "novels"))
                #expect(author.values[index] is RelationshipFault)
                let heretics = Novel(context: context)
                heretics.title = "Heretics"
                heretics.author = author
                let chapterhouse = Novel(context: context)
                chapterhouse.title = "Chapterhouse"
                let children = try fetchOne(Novel.self, "Novel", where: "title", is: "Children", in: context)
                author.mutableSetValue(forKey: "novels").add(chapterhouse)
                children.author = nil
                #expect(Set(author.novels.compactMap(\.title)) == ["Dune", "Messiah", "Heretics", "Chapterhouse"])
                try context.save()
            }
            try inContext { context, _ in
                let author = try fetchOne(Author.self, "Author", where: "name", is: "Herbert", in: context)
                #expect(Set(author.novels.compactMap(\.title)) == ["Dune", "Messiah", "Heretics", "Chapterhouse"])
            }
        }

        @Test func deleteRulesApplyToObjectsLinkedInPlace() throws {
            try inContext { context, _ in
                let author = Author(context: context)
                let novel = Novel(context: context)
                let chapters = (1...20).map { number -> Chapter in
                    let chapter = Chapter(context: context)
                    chapter.number = Int32(number)
                    return chapter
                }
                for chapter in chapters { novel.mutableOrderedSetValue(forKey: "chapters").add(chapter) }
                author.mutableSetValue(forKey: "novels").add(novel)
                try context.save()
                // Cascade (novel → chapters) and Nullify (author → novels).
                context.delete(novel)
                context.processPendingChanges()
                #expect(chapters.allSatisfy { $0.isDeleted })
                #expect(author.novels.isEmpty)
                try context.save()
                #expect(try fetchAll(Chapter.self, "Chapter", in: context).isEmpty)
            }
        }

        @Test func rollbackUndoesLinksMadeInPlace() throws {
            try saveAuthor(named: "Herbert", novels: ["Dune"])
            try inContext { context, _ in
                let author = try fetchOne(Author.self, "Author", where: "name", is: "Herbert", in: context)
                let dune = try fetchOne(Novel.self, "Novel", where: "title", is: "Dune", in: context)
                let other = Author(context: context)
                other.mutableSetValue(forKey: "novels").add(dune)
                #expect(author.novels.isEmpty)
                context.rollback()
                #expect(dune.author === author)
                #expect(author.novels.compactMap(\.title) == ["Dune"])
                #expect(!author.hasChanges && !dune.hasChanges)
            }
        }

        /// An ordered relationship changed in place keeps its order through removals and a save.
        @Test func anOrderedRelationshipChangedInPlaceSavesItsOrder() throws {
            try inContext { context, _ in
                let novel = Novel(context: context)
                novel.title = "Dune"
                let chapters = (1...30).map { number -> Chapter in
                    let chapter = Chapter(context: context)
                    chapter.number = Int32(number)
                    return chapter
                }
                for chapter in chapters.reversed() { chapter.novel = novel }
                for chapter in chapters where chapter.number % 4 == 0 {
                    novel.mutableOrderedSetValue(forKey: "chapters").remove(chapter)
                }
                try context.save()
            }
            try inContext { context, _ in
                let novel = try fetchOne(Novel.self, "Novel", where: "title", is: "Dune", in: context)
                let expected = (1...30).reversed().filter { $0 % 4 != 0 }.map(Int32.init)
                #expect(novel.chapters.map(\.number) == expected)
            }
        }
    }
}
