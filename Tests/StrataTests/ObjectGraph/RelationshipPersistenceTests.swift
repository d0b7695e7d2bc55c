import Foundation
import Testing

@testable import Strata

extension ObjectGraphTests {
    /// Each kind of relationship is saved to SQLite and read back equal through a new
    /// coordinator on the same file.
    @Suite struct RelationshipPersistenceTests {
        private let scratch = ScratchDirectory()

        /// Runs `write` in a context of a first coordinator and saves, closes that store, and
        /// runs `read` in a context of a second coordinator opened on the same file.
        private func saveAndReopen(
            write: (NSManagedObjectContext) throws -> Void, read: (NSManagedObjectContext) throws -> Void
        ) throws {
            try ObjectGraphTests.saveAndReopen(
                libraryModel(), at: scratch.file("library.sqlite"), write: write, read: read)
        }

        @Test func oneToOneReadsBackFromBothSides() throws {
            try saveAndReopen { context in
                let ann = Employee(context: context)
                ann.name = "Ann"
                let desk = Desk(context: context)
                desk.number = 12
                ann.desk = desk
                let bob = Employee(context: context)
                bob.name = "Bob"
            } read: { context in
                let ann = try fetchOne(Employee.self, "Employee", where: "name", is: "Ann", in: context)
                let bob = try fetchOne(Employee.self, "Employee", where: "name", is: "Bob", in: context)
                let desk = try #require(ann.desk)
                #expect(desk.number == 12)
                #expect(desk.occupant === ann)
                #expect(bob.desk == nil)
                #expect(try fetchAll(Desk.self, "Desk", in: context).count == 1)
            }
        }

        @Test func oneToManyReadsBackFromBothSides() throws {
            try saveAndReopen { context in
                let herbert = Author(context: context)
                herbert.name = "Frank Herbert"
                let dick = Author(context: context)
                dick.name = "Philip K. Dick"
                for title in ["Dune", "Dune Messiah"] {
                    let novel = Novel(context: context)
                    novel.title = title
                    novel.author = herbert
                }
                let ubik = Novel(context: context)
                ubik.title = "Ubik"
                ubik.author = dick
                let orphan = Novel(context: context)
                orphan.title = "Anonymous"
            } read: { context in
                let herbert = try fetchOne(Author.self, "Author", where: "name", is: "Frank Herbert", in: context)
                let dick = try fetchOne(Author.self, "Author", where: "name", is: "Philip K. Dick", in: context)
                #expect(Set(herbert.novels.compactMap(\.title)) == ["Dune", "Dune Messiah"])
                #expect(Set(dick.novels.compactMap(\.title)) == ["Ubik"])
                let dune = try fetchOne(Novel.self, "Novel", where: "title", is: "Dune", in: context)
                #expect(dune.author === herbert)
                let orphan = try fetchOne(Novel.self, "Novel", where: "title", is: "Anonymous", in: context)
                #expect(orphan.author == nil)
            }
        }

        @Test func orderedToManyKeepsItsOrderAfterReopening() throws {
            try saveAndReopen { context in
                let novel = Novel(context: context)
                novel.title = "Dune"
                let chapters = novel.mutableOrderedSetValue(forKey: "chapters")
                for number: Int32 in [3, 1, 2, 5, 4] {
                    let chapter = Chapter(context: context)
                    chapter.number = number
                    chapters.add(chapter)
                }
            } read: { context in
                let novel = try fetchOne(Novel.self, "Novel", where: "title", is: "Dune", in: context)
                #expect(novel.chapters.map(\.number) == [3, 1, 2, 5, 4])
                let ordered = try #require(novel.value(forKey: "chapters") as? NSOrderedSet)
                #expect(ordered.array.compactMap { ($0 as? Chapter)?.number } == [3, 1, 2, 5, 4])
                #expect(novel.chapters.allSatisfy { $0.novel === novel })
            }
        }

        @Test func reorderingAnOrderedToManyIsSaved() throws {
            let model = libraryModel()
            let url = scratch.file("library.sqlite")
            let first = try Stack(model, at: url)
            let context = first.newContext()
            try context.performAndWait {
                let novel = Novel(context: context)
                novel.title = "Dune"
                for number: Int32 in 1...4 {
                    let chapter = Chapter(context: context)
                    chapter.number = number
                    novel.mutableOrderedSetValue(forKey: "chapters").add(chapter)
                }
                try context.save()
                let chapters = novel.mutableOrderedSetValue(forKey: "chapters")
                let fourth = chapters.object(at: 3)
                chapters.removeObject(at: 3)
                chapters.insert(fourth, at: 0)
                chapters.removeObject(at: 2)
                #expect(novel.chapters.map(\.number) == [4, 1, 3])
                try context.save()
            }
            try first.close()

            let second = try Stack(model, at: url)
            let readContext = second.newContext()
            try readContext.performAndWait {
                let novel = try fetchOne(Novel.self, "Novel", where: "title", is: "Dune", in: readContext)
                #expect(novel.chapters.map(\.number) == [4, 1, 3])
                let detached = try fetchAll(Chapter.self, "Chapter", in: readContext).filter { $0.novel == nil }
                #expect(detached.map(\.number) == [2])
            }
        }

        @Test func manyToManyReadsBackFromBothSides() throws {
            try saveAndReopen { context in
                func genre(_ name: String) -> Genre {
                    let genre = Genre(context: context)
                    genre.name = name
                    return genre
                }
                let scienceFiction = genre("SF")
                let classic = genre("Classic")
                let satire = genre("Satire")
                let dune = Novel(context: context)
                dune.title = "Dune"
                dune.mutableSetValue(forKey: "genres").addObjects(from: [scienceFiction, classic])
                let ubik = Novel(context: context)
                ubik.title = "Ubik"
                ubik.mutableSetValue(forKey: "genres").addObjects(from: [scienceFiction, satire])
            } read: { context in
                let dune = try fetchOne(Novel.self, "Novel", where: "title", is: "Dune", in: context)
                let ubik = try fetchOne(Novel.self, "Novel", where: "title", is: "Ubik", in: context)
                #expect(Set(dune.genres.compactMap(\.name)) == ["SF", "Classic"])
                #expect(Set(ubik.genres.compactMap(\.name)) == ["SF", "Satire"])
                let scienceFiction = try fetchOne(Genre.self, "Genre", where: "name", is: "SF", in: context)
                let satire = try fetchOne(Genre.self, "Genre", where: "name", is: "Satire", in: context)
                #expect(Set(scienceFiction.novels.compactMap(\.title)) == ["Dune", "Ubik"])
                #expect(Set(satire.novels.compactMap(\.title)) == ["Ubik"])
            }
        }

        @Test func selfReferentialManyToManyReadsBackFromBothSides() throws {
            try saveAndReopen { context in
                let people = ["Ann", "Bob", "Cy"].map { name -> Person in
                    let person = Person(context: context)
                    person.name = name
                    return person
                }
                people[0].mutableSetValue(forKey: "following").addObjects(from: [people[1], people[2]])
                people[1].mutableSetValue(forKey: "following").add(people[0])
            } read: { context in
                let ann = try fetchOne(Person.self, "Person", where: "name", is: "Ann", in: context)
                let bob = try fetchOne(Person.self, "Person", where: "name", is: "Bob", in: context)
                let cy = try fetchOne(Person.self, "Person", where: "name", is: "Cy", in: context)
                #expect(Set(ann.following.compactMap(\.name)) == ["Bob", "Cy"])
                #expect(Set(ann.followers.compactMap(\.name)) == ["Bob"])
                #expect(Set(bob.following.compactMap(\.name)) == ["Ann"])
                #expect(Set(bob.followers.compactMap(\.name)) == ["Ann"])
                #expect(cy.following.isEmpty)
                #expect(Set(cy.followers.compactMap(\.name)) == ["Ann"])
            }
        }

        @Test func selfReferentialTreeReadsBackFromBothSides() throws {
            try saveAndReopen { context in
                func folder(_ name: String, in parent: Folder?) -> Folder {
                    let folder = Folder(context: context)
                    folder.name = name
                    folder.parent = parent
                    return folder
                }
                let root = folder("root", in: nil)
                let documents = folder("Documents", in: root)
                _ = folder("Music", in: root)
                _ = folder("Taxes", in: documents)
            } read: { context in
                let root = try fetchOne(Folder.self, "Folder", where: "name", is: "root", in: context)
                let taxes = try fetchOne(Folder.self, "Folder", where: "name", is: "Taxes", in: context)
                #expect(root.parent == nil)
                #expect(Set(root.children.compactMap(\.name)) == ["Documents", "Music"])
                #expect(taxes.parent?.name == "Documents")
                #expect(taxes.parent?.parent === root)
                #expect(taxes.children.isEmpty)
                #expect(taxes.value(forKeyPath: "parent.parent.name") as? String == "root")
            }
        }
    }
}
