import Foundation
import Testing

@testable import Strata

extension ObjectGraphTests {
    /// Changing one object of a to-many relationship costs the same however many objects it
    /// holds. Checked without a clock: the context counts the references copied whole out of
    /// or into to-many relationships (debug builds), and the big side keeps its storage.
    @Suite struct RelationshipScalingTests {
        private func inContext(_ body: (NSManagedObjectContext) throws -> Void) throws {
            let context = try Stack(libraryModel(), type: NSInMemoryStoreType, at: nil).newContext()
            try context.performAndWait { try body(context) }
        }

        /// The storage of a to-many relationship, as the object holds it.
        private func storage(of object: NSManagedObject, _ key: String) throws -> AnyObject? {
            let index = try #require(object.layout.index(of: key))
            return object.values[index] as AnyObject?
        }

        /// Links `count` novels to one genre and one author, in each way an app can, then unlinks
        /// half: every link copies a bounded number of references, not the genre's whole set
        /// (which made linking quadratic: count² / 2 references for count links).
        @Test func linkingManyObjectsToOneDoesNotCopyItsSet() throws {
            let count = 2_400
            try inContext { context in
                let genre = Genre(context: context)
                let author = Author(context: context)
                let novels = (0..<count).map { _ in Novel(context: context) }
                let before = context.relationshipElementCopies
                for (n, novel) in novels.enumerated() {
                    switch n % 4 {
                    case 0: novel.genres = [genre]
                    case 1: novel.mutableSetValue(forKey: "genres").add(genre)
                    case 2: genre.mutableSetValue(forKey: "novels").add(novel)
                    default: genre.mutableSetValue(forKey: "novels").addObjects(from: [novel])
                    }
                    if n % 2 == 0 {
                        novel.author = author
                    } else {
                        author.mutableSetValue(forKey: "novels").add(novel)
                    }
                }
                let genreStorage = try storage(of: genre, "novels")
                for (n, novel) in novels.enumerated() where n % 2 == 0 {
                    if n % 4 == 0 {
                        novel.genres = []
                        author.mutableSetValue(forKey: "novels").remove(novel)
                    } else {
                        genre.mutableSetValue(forKey: "novels").minus([novel])
                        novel.author = nil
                    }
                }
                let copies = context.relationshipElementCopies - before
                // A few references per link and unlink (each novel's own small set); a copy of
                // the genre's set at each link would be about 2.9M.
                #expect(copies < 8 * count, "\(copies) references copied for \(count) links")
                #expect(try storage(of: genre, "novels") === genreStorage)
                let kept = Set(novels.enumerated().filter { $0.offset % 2 == 1 }.map { ObjectIdentifier($0.element) })
                #expect(Set(genre.novels.map(ObjectIdentifier.init)) == kept)
                #expect(Set(author.novels.map(ObjectIdentifier.init)) == kept)
                for (n, novel) in novels.enumerated() {
                    #expect(novel.genres.contains(genre) == (n % 2 == 1))
                    #expect((novel.author === author) == (n % 2 == 1))
                }
            }
        }

        /// The same for an ordered relationship: appending through the mutable ordered set and
        /// through the inverse to-one, and removing through the inverse, keep the order.
        @Test func linkingManyObjectsToAnOrderedOneKeepsOrderWithoutCopies() throws {
            let count = 2_400
            try inContext { context in
                let novel = Novel(context: context)
                let chapters = (0..<count).map { n -> Chapter in
                    let chapter = Chapter(context: context)
                    chapter.number = Int32(n)
                    return chapter
                }
                let before = context.relationshipElementCopies
                for (n, chapter) in chapters.enumerated() {
                    if n % 2 == 0 {
                        chapter.novel = novel
                    } else {
                        novel.mutableOrderedSetValue(forKey: "chapters").add(chapter)
                    }
                }
                for chapter in chapters where chapter.number % 3 == 0 { chapter.novel = nil }
                let copies = context.relationshipElementCopies - before
                #expect(copies < 8 * count, "\(copies) references copied for \(count) links")
                let expected = chapters.filter { $0.number % 3 != 0 }.map(\.number)
                #expect(novel.chapters.map(\.number) == expected)
                #expect(novel.mutableOrderedSetValue(forKey: "chapters").count == expected.count)
            }
        }

        /// Inserting, replacing and removing at positions of an ordered relationship (as the
        /// generated `insertIntoChapters(_:at:)` does) copies none of its other objects: each
        /// change set the whole relationship again before, count² / 2 references for count
        /// inserts.
        @Test func changesAtPositionsOfAnOrderedOneDoNotCopyIt() throws {
            let count = 2_400
            try inContext { context in
                let novel = Novel(context: context)
                let chapters = novel.mutableOrderedSetValue(forKey: "chapters")
                var reference: [Chapter] = []
                var generator = SeededGenerator(seed: 7)
                let before = context.relationshipElementCopies
                for n in 0..<count {
                    let chapter = Chapter(context: context)
                    chapter.number = Int32(n)
                    let index = Int.random(in: 0...reference.count, using: &generator)
                    chapters.insert(chapter, at: index)
                    reference.insert(chapter, at: index)
                    if n % 3 == 0 {
                        let replacement = Chapter(context: context)
                        replacement.number = Int32(count + n)
                        let at = Int.random(in: 0..<reference.count, using: &generator)
                        chapters.replaceObject(at: at, with: replacement)
                        reference[at] = replacement
                    }
                    if n % 4 == 0 {
                        let at = Int.random(in: 0..<reference.count, using: &generator)
                        #expect(chapters.object(at: at) as? Chapter === reference[at])
                        chapters.removeObject(at: at)
                        reference.remove(at: at)
                    }
                }
                let copies = context.relationshipElementCopies - before
                #expect(copies < 8 * count, "\(copies) references copied for \(count) inserts")
                #expect(novel.chapters.map(\.number) == reference.map(\.number))
                #expect(reference.allSatisfy { $0.novel === novel })
            }
        }

        /// Reading a changed relationship gives its current objects; a set read before a
        /// change keeps what it had (sets are values), and reading twice gives the same set.
        @Test func readsAfterAChangeSeeItAndEarlierReadsKeepTheirObjects() throws {
            try inContext { context in
                let genre = Genre(context: context)
                let first = Novel(context: context)
                let second = Novel(context: context)
                genre.mutableSetValue(forKey: "novels").add(first)
                let before = try #require(genre.value(forKey: "novels") as? NSSet)
                genre.mutableSetValue(forKey: "novels").add(second)
                let after = try #require(genre.value(forKey: "novels") as? NSSet)
                #expect(before.count == 1)
                #expect(after.count == 2)
                #expect(after.contains(first) && after.contains(second))
                #expect(genre.value(forKey: "novels") as? NSSet === after)
                #expect(genre.mutableSetValue(forKey: "novels").member(second) as? Novel === second)
                #expect(genre.mutableSetValue(forKey: "novels").count == 2)
            }
        }
    }
}
