import Foundation
import Testing

@testable import Strata

/// `entity(named:)`, which fetches use instead of making `entitiesByName` each time, answers
/// what `entitiesByName` answers through every edit of the model: entities renamed, added and
/// replaced after a first lookup.
@Suite struct EntityLookupTests {
    private static func entity(_ name: String) -> NSEntityDescription {
        let entity = NSEntityDescription()
        entity.name = name
        return entity
    }

    @Test func aLookupFollowsEveryEditOfTheModel() {
        let model = NSManagedObjectModel()
        let book = Self.entity("Book")
        let author = Self.entity("Author")
        model.entities = [book, author]
        func agrees(_ names: [String]) -> Bool {
            names.allSatisfy { model.entity(named: $0) === model.entitiesByName[$0] }
        }
        let names = ["Book", "Author", "Novel", "Writer", ""]
        #expect(model.entity(named: "Book") === book)
        #expect(agrees(names))
        // A rename after the first lookup: the old name finds nothing, the new one the entity.
        author.name = "Writer"
        #expect(model.entity(named: "Author") == nil)
        #expect(model.entity(named: "Writer") === author)
        #expect(agrees(names))
        // Another entity takes a name an index held for the first.
        book.name = "Novel"
        author.name = "Book"
        #expect(model.entity(named: "Book") === author)
        #expect(model.entity(named: "Novel") === book)
        #expect(agrees(names))
        // The entities replaced.
        let other = Self.entity("Book")
        model.entities = [other]
        #expect(model.entity(named: "Book") === other)
        #expect(model.entity(named: "Novel") == nil)
        #expect(agrees(names))
    }
}
