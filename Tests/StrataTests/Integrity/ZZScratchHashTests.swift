import Foundation
import Testing

@testable import Strata

@Suite struct ZZScratchHashTests {
    @Test func printHashes() throws {
        for maxBooks in [Int.max, 0] {
            let model = NSManagedObjectModel {
                Entity("Writer", abstract: true) { Attribute("age", .integer16AttributeType, optional: false) }
                Entity("Author", parent: "Writer") {
                    Attribute("alias", .stringAttributeType, optional: false)
                    Attribute("siteURL", .URIAttributeType)
                    Relationship("books", to: "Book", inverse: "author", toMany: true, deleteRule: .cascadeDeleteRule, maxCount: maxBooks)
                    Unique("alias")
                }
                Entity("Book") {
                    Attribute("uniqueID", .UUIDAttributeType, optional: false)
                    Attribute("title", .stringAttributeType, optional: false)
                    Attribute("price", .decimalAttributeType, optional: false)
                    Attribute("cover", .transformableAttributeType, optional: false)
                    Attribute("publishedAt", .dateAttributeType, optional: false)
                    DerivedAttribute("pagesCount", .integer64AttributeType, expression: "pages.@count")
                    Relationship("author", to: "Author", inverse: "books", optional: false, minCount: 1, maxCount: 1)
                    Relationship("pages", to: "Page", inverse: "book", toMany: true, optional: false, deleteRule: .cascadeDeleteRule, minCount: 1, maxCount: 10_000)
                    Unique("uniqueID")
                }
                Entity("GraphicNovel", parent: "Book") { Attribute("isBlackAndWhite", .booleanAttributeType, optional: false, defaultValue: false) }
                Entity("Page") {
                    Attribute("isBookmarked", .booleanAttributeType, optional: false, defaultValue: false)
                    Attribute("number", .integer32AttributeType, optional: false)
                    Attribute("content", .transformableAttributeType, optional: false)
                    Relationship("book", to: "Book", inverse: "pages", optional: false, minCount: 1, maxCount: 1)
                }
                Entity("Feedback") {
                    Attribute("authorAlias", .stringAttributeType, optional: false)
                    Attribute("bookID", .UUIDAttributeType, optional: false)
                    Attribute("comment", .stringAttributeType)
                    Attribute("rating", .doubleAttributeType, optional: false)
                }
            }
            for (name, hash) in model.entityVersionHashesByName.sorted(by: { $0.key < $1.key }) {
                print("HASH \(maxBooks) \(name) \(hash.base64EncodedString())")
            }
        }
    }
}
