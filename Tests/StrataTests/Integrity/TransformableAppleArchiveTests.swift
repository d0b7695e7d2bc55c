import Foundation
import GRDB
import Testing

@testable import Strata

/// The page content class of the corpus store (`@objc(Content)` in the app that wrote it).
final class AppleArchivedContent: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    let text: String

    init(text: String) { self.text = text }

    func encode(with coder: NSCoder) { coder.encode(text, forKey: "text") }

    required init?(coder: NSCoder) {
        guard let text = coder.decodeObject(of: [NSString.self], forKey: "text") as? String else { return nil }
        self.text = text
    }
}

/// The book cover class of the corpus store (a Swift class archived as `CoreDataPlus_Tests.Cover`).
final class AppleArchivedCover: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    let text: String

    init(text: String) { self.text = text }

    func encode(with coder: NSCoder) { coder.encode(text, forKey: "text") }

    required init?(coder: NSCoder) {
        guard let text = coder.decodeObject(of: [NSString.self], forKey: "text") as? String else { return nil }
        self.text = text
    }
}

/// The secure-unarchiving transformer the app registers for its pages' content.
final class AppleArchivedContentTransformer: NSSecureUnarchiveFromDataTransformer, @unchecked Sendable {
    static let name = NSValueTransformerName("StrataTestsAppleContentTransformer")
    override class var allowedTopLevelClasses: [AnyClass] { [AppleArchivedContent.self] }
}

/// Values Apple's `NSKeyedArchiver` wrote into transformable columns of a corpus store
/// (CoreDataPlus `SampleModel2_V1.sqlite`: `Page.content` and `Book.cover`, archives of the
/// app's own classes), read back through a Strata store opened on a copy of it.
@Suite struct TransformableAppleArchiveTests {
    static let storeName = "alemar11__CoreDataPlus__Tests__Resources__SampleModel2__Fixtures__SampleModel2_V1.sqlite"

    /// The store's model, written in code by the app (CoreDataPlus `SampleModel2+V1.swift`):
    /// the same entities and stored properties, so that its version hashes match the store's.
    static func model() -> NSManagedObjectModel {
        func transformable(_ name: String, _ transformer: String?) -> Attribute {
            Attribute(name, .transformableAttributeType, optional: false) { $0.valueTransformerName = transformer }
        }
        return NSManagedObjectModel {
            Entity("Writer", abstract: true) {
                Attribute("age", .integer16AttributeType, optional: false)
            }
            Entity("Author", parent: "Writer") {
                Attribute("alias", .stringAttributeType, optional: false)
                Attribute("siteURL", .URIAttributeType)
                Relationship("books", to: "Book", inverse: "author", toMany: true, deleteRule: .cascadeDeleteRule, maxCount: .max)
                Unique("alias")
            }
            Entity("Book") {
                Attribute("uniqueID", .UUIDAttributeType, optional: false)
                Attribute("title", .stringAttributeType, optional: false)
                Attribute("price", .decimalAttributeType, optional: false)
                transformable("cover", nil)
                Attribute("publishedAt", .dateAttributeType, optional: false)
                DerivedAttribute("pagesCount", .integer64AttributeType, expression: "pages.@count")
                Relationship("author", to: "Author", inverse: "books", optional: false, minCount: 1, maxCount: 1)
                Relationship(
                    "pages", to: "Page", inverse: "book", toMany: true, optional: false, deleteRule: .cascadeDeleteRule,
                    minCount: 1, maxCount: 10_000)
                Unique("uniqueID")
            }
            Entity("GraphicNovel", parent: "Book") {
                Attribute("isBlackAndWhite", .booleanAttributeType, optional: false, defaultValue: false)
            }
            Entity("Page") {
                Attribute("isBookmarked", .booleanAttributeType, optional: false, defaultValue: false)
                Attribute("number", .integer32AttributeType, optional: false)
                transformable("content", AppleArchivedContentTransformer.name.rawValue)
                Relationship("book", to: "Book", inverse: "pages", optional: false, minCount: 1, maxCount: 1)
            }
            Entity("Feedback") {
                Attribute("authorAlias", .stringAttributeType, optional: false)
                Attribute("bookID", .UUIDAttributeType, optional: false)
                Attribute("comment", .stringAttributeType)
                Attribute("rating", .doubleAttributeType, optional: false)
            }
        }
    }

    @Test(.enabled(if: TestCorpus.isAvailable, "the corpus is absent")) func keyedArchivesWrittenByAppleReadBackAsTheirObjects()
        throws
    {
        ValueTransformer.setValueTransformer(AppleArchivedContentTransformer(), forName: AppleArchivedContentTransformer.name)
        // The archives name the app's classes; Linux has these instead.
        NSKeyedUnarchiver.setClass(AppleArchivedContent.self, forClassName: "Content")
        NSKeyedUnarchiver.setClass(AppleArchivedCover.self, forClassName: "CoreDataPlus_Tests.Cover")
        let url = try TestCorpus.copyOfStore(named: Self.storeName)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }

        let model = Self.model()
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        let stored = metadata["NSStoreModelVersionHashes"] as? [String: Data] ?? [:]
        let different = model.entityVersionHashesByName.filter { stored[$0.key] != $0.value }.keys.sorted()
        #expect(different.isEmpty, "entities whose hash differs from the store's: \(different)")

        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let pages = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Page"))
            #expect(pages.count == 4970)
            let wrong = pages.filter { page in
                let content = page.value(forKey: "content") as? AppleArchivedContent
                return content?.text != "content for page \(page.value(forKey: "number") as? Int32 ?? -1)"
            }
            #expect(wrong.isEmpty, "\(wrong.count) pages read a wrong content")

            let books = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Book"))
            let covers = books.map { ($0.value(forKey: "cover") as? AppleArchivedCover)?.text ?? "unreadable" }
            #expect(covers.count == 52)
            #expect(Set(covers) == ["default cover", "Cover Graphic Novel"])
        }
    }
}
