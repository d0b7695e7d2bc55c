import Foundation
import GRDB
import Testing

@testable import Strata

extension ObjectGraphTests {
    /// Changes at a position of an ordered to-many relationship (`insert(_:at:)`,
    /// `removeObject(at:)`, `replaceObject(at:with:)` of `mutableOrderedSetValue(forKey:)`,
    /// which the generated `insertIntoX(_:at:)`, `removeFromX(at:)` and `replaceX(at:with:)`
    /// call), mixed with appends, removals and changes through the inverse, against an array
    /// doing the same: the order, the inverses, and the order saved to SQLite and read back.
    @Suite struct OrderedToManyPositionTests {
        private let scratch = ScratchDirectory()

        /// Chapter numbers of a novel's chapters, as the relationship reads.
        private func numbers(_ novel: Novel) -> [Int32] { novel.chapters.map(\.number) }

        /// The chapter numbers of the novel titled `title`, ordered by the `Z_FOK_` column,
        /// read with SQLite.
        private func storedNumbers(of title: String, in url: URL) throws -> [Int32] {
            try DatabaseQueue(path: url.path).read { db in
                try Int32.fetchAll(
                    db,
                    sql: """
                        SELECT c.ZNUMBER FROM ZCHAPTER c JOIN ZNOVEL n ON c.ZNOVEL = n.Z_PK \
                        WHERE n.ZTITLE = ? ORDER BY c.Z_FOK_NOVEL
                        """, arguments: [title])
            }
        }

        @Test(arguments: [1, 2] as [UInt64])
        func changesAtPositionsMatchAnArrayThroughSavesAndARefetch(seed: UInt64) throws {
            let url = scratch.file("ordered.sqlite")
            let stack = try Stack(libraryModel(), at: url)
            let context = stack.newContext()
            var expected: [Int32] = []
            try context.performAndWait {
                var generator = SeededGenerator(seed: seed)
                let novel = Novel(context: context)
                novel.title = "Dune"
                let other = Novel(context: context)
                other.title = "Ubik"
                var next: Int32 = 0
                func newChapter() -> Chapter {
                    let chapter = Chapter(context: context)
                    chapter.number = next
                    next += 1
                    return chapter
                }
                var reference: [Chapter] = []
                var elsewhere: [Chapter] = []
                let chapters = novel.mutableOrderedSetValue(forKey: "chapters")
                for step in 0..<3_000 {
                    let roll = Int.random(in: 0..<100, using: &generator)
                    if reference.isEmpty || roll < 40 {
                        let chapter = newChapter()
                        let index = Int.random(in: 0...reference.count, using: &generator)
                        chapters.insert(chapter, at: index)
                        reference.insert(chapter, at: index)
                    } else if roll < 55 {
                        let index = Int.random(in: 0..<reference.count, using: &generator)
                        chapters.removeObject(at: index)
                        reference.remove(at: index)
                    } else if roll < 65 {
                        let index = Int.random(in: 0..<reference.count, using: &generator)
                        let chapter = elsewhere.popLast() ?? newChapter()
                        chapters.replaceObject(at: index, with: chapter)
                        reference[index] = chapter
                    } else if roll < 72 {
                        // Moved to the other novel through the inverse: it leaves this one.
                        let index = Int.random(in: 0..<reference.count, using: &generator)
                        reference[index].novel = other
                        elsewhere.append(reference.remove(at: index))
                    } else if roll < 80 {
                        let chapter = newChapter()
                        chapters.add(chapter)
                        reference.append(chapter)
                    } else if roll < 86 {
                        let chapter = reference[Int.random(in: 0..<reference.count, using: &generator)]
                        chapters.remove(chapter)
                        reference.removeAll { $0 === chapter }
                    } else if roll < 93 {
                        // Joins this novel at the end through the inverse.
                        let chapter = elsewhere.popLast() ?? newChapter()
                        chapter.novel = novel
                        reference.append(chapter)
                    } else {
                        // Already there: inserting or replacing with it changes nothing.
                        let present = reference[Int.random(in: 0..<reference.count, using: &generator)]
                        chapters.insert(present, at: Int.random(in: 0...reference.count, using: &generator))
                        chapters.replaceObject(
                            at: Int.random(in: 0..<reference.count, using: &generator), with: present)
                    }
                    #expect(chapters.count == reference.count)
                    if !reference.isEmpty {
                        let index = Int.random(in: 0..<reference.count, using: &generator)
                        #expect(chapters.object(at: index) as? Chapter === reference[index])
                        #expect(chapters.index(of: reference[index]) == index)
                    }
                    if step % 250 == 0 {
                        #expect(numbers(novel) == reference.map(\.number), "step \(step)")
                        try context.save()
                        #expect(try storedNumbers(of: "Dune", in: url) == reference.map(\.number), "step \(step)")
                    }
                }
                #expect(numbers(novel) == reference.map(\.number))
                #expect(reference.allSatisfy { $0.novel === novel })
                #expect(elsewhere.allSatisfy { $0.novel === other })
                #expect(Set(other.chapters.map(ObjectIdentifier.init)) == Set(elsewhere.map(ObjectIdentifier.init)))
                let all = try fetchAll(Chapter.self, "Chapter", in: context)
                let inNovel = Set(reference.map(ObjectIdentifier.init))
                let inOther = Set(elsewhere.map(ObjectIdentifier.init))
                let placed = inNovel.union(inOther)
                for chapter in all where !placed.contains(ObjectIdentifier(chapter)) { #expect(chapter.novel == nil) }
                try context.save()
                expected = reference.map(\.number)
                #expect(try storedNumbers(of: "Dune", in: url) == expected)
            }
            try stack.close()

            let reader = try Stack(libraryModel(), at: url)
            let readContext = reader.newContext()
            try readContext.performAndWait {
                let novel = try fetchOne(Novel.self, "Novel", where: "title", is: "Dune", in: readContext)
                #expect(numbers(novel) == expected)
                #expect(novel.chapters.allSatisfy { $0.novel === novel })
            }
            try reader.close()
        }

        /// An ordered many-to-many (`Album.songs`, its inverse `Song.albums` unordered): changes
        /// at positions of two albums sharing songs, saved, read back in order by a second
        /// coordinator, with each song's albums.
        @Test func orderedManyToManyChangesAtPositionsReadBackInOrder() throws {
            let model = SQLiteJoinTableWritingTests.model
            let url = scratch.file("albums.sqlite")
            let stack = try Stack(model, at: url)
            let context = stack.newContext()
            var expected: [String: [String]] = [:]
            var expectedAlbums: [String: Set<String>] = [:]
            try context.performAndWait {
                var generator = SeededGenerator(seed: 11)
                let albums = ["A", "B"].map { name -> NSManagedObject in
                    let album = NSEntityDescription.insertNewObject(forEntityName: "Album", into: context)
                    album.setValue(name, forKey: "name")
                    return album
                }
                let songs = (0..<300).map { n -> NSManagedObject in
                    let song = NSEntityDescription.insertNewObject(forEntityName: "Song", into: context)
                    song.setValue("song \(n)", forKey: "name")
                    return song
                }
                var references: [[NSManagedObject]] = [[], []]
                for step in 0..<2_000 {
                    let which = Int.random(in: 0..<2, using: &generator)
                    let set = albums[which].mutableOrderedSetValue(forKey: "songs")
                    let roll = Int.random(in: 0..<100, using: &generator)
                    let song = songs[Int.random(in: 0..<songs.count, using: &generator)]
                    let present = references[which].contains { $0 === song }
                    if references[which].isEmpty || (roll < 50 && !present) {
                        let index = Int.random(in: 0...references[which].count, using: &generator)
                        set.insert(song, at: index)
                        if !present { references[which].insert(song, at: index) }
                    } else if roll < 70 {
                        let index = Int.random(in: 0..<references[which].count, using: &generator)
                        set.removeObject(at: index)
                        references[which].remove(at: index)
                    } else if roll < 85, !present {
                        let index = Int.random(in: 0..<references[which].count, using: &generator)
                        set.replaceObject(at: index, with: song)
                        references[which][index] = song
                    } else if present {
                        // From the song's side: it leaves the album.
                        song.mutableSetValue(forKey: "albums").remove(albums[which])
                        references[which].removeAll { $0 === song }
                    }
                    if step % 400 == 0 { try context.save() }
                }
                for (which, album) in albums.enumerated() {
                    let read = SQLiteJoinTableWritingTests.members(of: album, "songs")
                    #expect(read.map(ObjectIdentifier.init) == references[which].map(ObjectIdentifier.init))
                }
                try context.save()
                func name(_ object: NSManagedObject) -> String { object.value(forKey: "name") as? String ?? "?" }
                for (which, album) in albums.enumerated() { expected[name(album)] = references[which].map(name) }
                for song in songs {
                    expectedAlbums[name(song)] = Set(SQLiteJoinTableWritingTests.members(of: song, "albums").map(name))
                }
            }
            try stack.close()

            let reader = try Stack(model, at: url)
            let readContext = reader.newContext()
            try readContext.performAndWait {
                func name(_ object: NSManagedObject) -> String { object.value(forKey: "name") as? String ?? "?" }
                for album in try readContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Album")) {
                    let read = SQLiteJoinTableWritingTests.members(of: album, "songs").map(name)
                    #expect(read == expected[name(album)])
                }
                for song in try readContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Song")) {
                    let read = Set(SQLiteJoinTableWritingTests.members(of: song, "albums").map(name))
                    #expect(read == expectedAlbums[name(song)])
                }
            }
            try reader.close()
        }
    }
}
