import Foundation
import GRDB
import Testing

@testable import Strata

extension ObjectGraphTests {
    /// A row a save inserts into an ordered to-many whose order its own table holds
    /// (`Z_FOK_`) is inserted with its order key (`OrderedInsertKeys`); the rows that were
    /// there are updated to their new keys as before. The keys read from the file are the
    /// positions' keys, new and old rows alike, through saves that insert, move and remove.
    @Suite struct OrderedInsertKeyTests {
        private let scratch = ScratchDirectory()

        /// (chapter number, `Z_FOK_NOVEL`) of the chapters of the novel `title`, by key.
        private func stored(_ title: String, in url: URL) throws -> [(number: Int32, key: Int64?)] {
            try DatabaseQueue(path: url.path).read { db in
                try Row.fetchAll(
                    db,
                    sql: """
                        SELECT c.ZNUMBER, c.Z_FOK_NOVEL FROM ZCHAPTER c JOIN ZNOVEL n ON c.ZNOVEL = n.Z_PK \
                        WHERE n.ZTITLE = ? ORDER BY c.Z_FOK_NOVEL
                        """, arguments: [title]
                ).map { (number: $0[0], key: $0[1]) }
            }
        }

        private func expectKeys(_ rows: [(number: Int32, key: Int64?)], numbers: [Int32]) {
            #expect(rows.map(\.number) == numbers)
            #expect(rows.map(\.key) == numbers.indices.map { Optional(SQLiteStore.orderKey(at: $0)) })
        }

        @Test func newRowsGoInWithTheirKeysAndOldRowsMoveToTheirs() throws {
            let url = scratch.file("keys.sqlite")
            let stack = try Stack(libraryModel(), at: url)
            let context = stack.newContext()
            try context.performAndWait {
                let novel = Novel(context: context)
                novel.title = "Dune"
                let chapters = novel.mutableOrderedSetValue(forKey: "chapters")
                func chapter(_ number: Int32) -> Chapter {
                    let chapter = Chapter(context: context)
                    chapter.number = number
                    return chapter
                }
                // A new novel and its new chapters, inserted at positions: one save.
                chapters.add(chapter(1))
                chapters.insert(chapter(0), at: 0)
                chapters.add(chapter(3))
                chapters.insert(chapter(2), at: 2)
                try context.save()
                expectKeys(try stored("Dune", in: url), numbers: [0, 1, 2, 3])

                // New chapters among saved ones: the old rows' keys move, the new ones go in.
                chapters.insert(chapter(10), at: 0)
                chapters.insert(chapter(11), at: 3)
                chapters.add(chapter(12))
                try context.save()
                expectKeys(try stored("Dune", in: url), numbers: [10, 0, 1, 11, 2, 3, 12])

                // A new chapter joins through its to-one; a saved one leaves for a new novel,
                // where it is the second after a new one.
                let ubik = Novel(context: context)
                ubik.title = "Ubik"
                let moved = try #require(novel.chapters.first { $0.number == 1 })
                let first = chapter(20)
                first.novel = ubik
                moved.novel = ubik
                chapter(13).novel = novel
                try context.save()
                expectKeys(try stored("Dune", in: url), numbers: [10, 0, 11, 2, 3, 12, 13])
                expectKeys(try stored("Ubik", in: url), numbers: [20, 1])

                // Read back in a new context, the order is the saved one.
                let reader = stack.newContext()
                try reader.performAndWait {
                    let request = NSFetchRequest<Novel>(entityName: "Novel")
                    request.predicate = NSPredicate(format: "title == %@", "Dune")
                    let dune = try #require(try reader.fetch(request).first)
                    #expect(dune.chapters.map(\.number) == [10, 0, 11, 2, 3, 12, 13])
                }
            }
        }
    }
}
