import Foundation
import Testing

@testable import Strata

extension ObjectGraphTests {
    /// Typed to-many getters (`Set<Novel>`, `[Chapter]`) read the relationship's members
    /// directly instead of building an `NSSet` and bridging it: they must give what
    /// `value(forKey:)` gives, load a relationship fault, see unsaved changes, keep an ordered
    /// relationship's order, and call the access hooks as any accessor does.
    @Suite struct TypedToManyReadTests {
        private let scratch = ScratchDirectory()

        /// An author with three novels, the first with four chapters, saved; then read in a
        /// context of a second coordinator.
        private func reopened(_ read: (NSManagedObjectContext) throws -> Void) throws {
            try saveAndReopen(libraryModel(), at: scratch.file("typed.sqlite"), write: Self.seed, read: read)
        }

        /// The author, novels and chapters `reopened` saves.
        private static func seed(_ context: NSManagedObjectContext) {
            let author = Author(context: context)
            author.name = "Le Guin"
            for (index, title) in ["Earthsea", "Lathe", "Dispossessed"].enumerated() {
                let novel = Novel(context: context)
                novel.title = title
                novel.year = Int16(1968 + index)
                novel.author = author
                if index == 0 {
                    for number in [3, 1, 4, 2] {
                        let chapter = Chapter(context: context)
                        chapter.number = Int32(number)
                        chapter.novel = novel
                    }
                }
            }
        }

        @Test func aSetGetterGivesTheRelationshipsObjectsAndLoadsItsFault() throws {
            try reopened { context in
                let author = try fetchOne(Author.self, "Author", where: "name", is: "Le Guin", in: context)
                #expect(author.values[author.layout.index(of: "novels")!] is RelationshipFault)
                let before = context.relationshipElementCopies
                let typed: Set<Novel> = author.novels
                // Read from the members: no `NSSet` was made of them.
                #expect(context.relationshipElementCopies == before)
                let untyped = try #require(author.value(forKey: "novels") as? NSSet)
                #expect(context.relationshipElementCopies == before + 3)
                #expect(Set(typed.compactMap(\.title)) == ["Earthsea", "Lathe", "Dispossessed"])
                #expect(typed.count == untyped.count)
                #expect(typed.allSatisfy { untyped.contains($0) })
                #expect(typed.allSatisfy { $0.author === author })
            }
        }

        @Test func aSetGetterSeesUnsavedChanges() throws {
            try reopened { context in
                let author = try fetchOne(Author.self, "Author", where: "name", is: "Le Guin", in: context)
                let lathe = try #require(author.novels.first { $0.title == "Lathe" })
                lathe.author = nil
                let extra = Novel(context: context)
                extra.title = "Tehanu"
                extra.author = author
                #expect(Set(author.novels.compactMap(\.title)) == ["Earthsea", "Dispossessed", "Tehanu"])
                let optional: Set<Novel>? = author._managedValue(forKey: "novels")
                #expect(optional == author.novels)
            }
        }

        @Test func anArrayGetterKeepsTheOrderedRelationshipsOrder() throws {
            try reopened { context in
                let novel = try fetchOne(Novel.self, "Novel", where: "title", is: "Earthsea", in: context)
                let ordered = try #require(novel.value(forKey: "chapters") as? NSOrderedSet)
                #expect(novel.chapters.map(\.number) == [3, 1, 4, 2])
                #expect(novel.chapters.map(ObjectIdentifier.init) == ordered.array.map { ObjectIdentifier($0 as AnyObject) })
                let moved = novel.chapters[0]
                novel.mutableOrderedSetValue(forKey: "chapters").removeObject(at: 0)
                novel.mutableOrderedSetValue(forKey: "chapters").add(moved)
                #expect(novel.chapters.map(\.number) == [1, 4, 2, 3])
            }
        }

        @Test func typedGettersCallTheAccessHooks() throws {
            let model = libraryModel()
            let counted = try #require(model.entitiesByName["Shelf"])
            let stack = try Stack(model, at: scratch.file("hooks.sqlite"))
            let context = stack.newContext()
            context.performAndWait {
                let shelf = CountingShelf(entity: counted, insertInto: context)
                let novel = Novel(context: context)
                novel.title = "Earthsea"
                novel.setValue(shelf, forKey: "shelf")
                shelf.accessed = []
                let novels: Set<Novel> = shelf._managedValue(forKey: "novels")
                #expect(novels.map(\.title) == ["Earthsea"])
                #expect(shelf.accessed == ["will novels", "did novels"])
            }
        }
    }
}

/// A shelf that records the access hooks called on it.
final class CountingShelf: NSManagedObject {
    var accessed: [String] = []

    override func willAccessValue(forKey key: String?) {
        accessed.append("will \(key ?? "")")
        super.willAccessValue(forKey: key)
    }

    override func didAccessValue(forKey key: String?) {
        accessed.append("did \(key ?? "")")
        super.didAccessValue(forKey: key)
    }
}
