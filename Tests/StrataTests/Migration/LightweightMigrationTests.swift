import Foundation
import GRDB
import Testing

@testable import Strata

/// A store saved with version 1 of a model and opened with version 3 migrates in one open,
/// inferred directly from 1 to 3 (version 2 sits between them in the bundle), with every
/// kind of change lightweight migration infers; each row is checked afterwards.
@Suite struct LightweightMigrationTests {
    static let v1 = """
        <entity name="Author">
            <attribute name="name" attributeType="String"/>
            <attribute name="age" optional="YES" attributeType="Integer 16" defaultValueString="0"/>
            <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="author" inverseEntity="Book"/>
        </entity>
        <entity name="Book">
            <attribute name="title" attributeType="String"/>
            <attribute name="pages" optional="YES" attributeType="Integer 32"/>
            <attribute name="notes" optional="YES" attributeType="String"/>
            <relationship name="author" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="books" inverseEntity="Author"/>
            <relationship name="cover" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Image" inverseName="book" inverseEntity="Image"/>
            <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="books" inverseEntity="Tag"/>
        </entity>
        <entity name="Image">
            <attribute name="path" optional="YES" attributeType="String"/>
            <relationship name="book" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Book" inverseName="cover" inverseEntity="Book"/>
        </entity>
        <entity name="Magazine">
            <attribute name="issue" optional="YES" attributeType="Integer 64" defaultValueString="0"/>
        </entity>
        <entity name="Shelf">
            <attribute name="label" optional="YES" attributeType="String"/>
        </entity>
        <entity name="Tag">
            <attribute name="label" attributeType="String"/>
            <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="tags" inverseEntity="Book"/>
        </entity>
        """

    /// Version 2 renames Book.title to heading; version 3 renames it again, to caption: both
    /// carry the renaming identifier `title`, so 1 → 3 and 2 → 3 both follow it.
    static let v2 = v1.replacingOccurrences(
        of: #"<attribute name="title" attributeType="String"/>"#,
        with: #"<attribute name="heading" attributeType="String" elementID="title"/>"#)

    static let v3 = """
        <entity name="Book">
            <attribute name="caption" attributeType="String" elementID="title"/>
            <attribute name="pages" attributeType="Integer 32" defaultValueString="0"/>
            <attribute name="isbn" optional="YES" attributeType="String" defaultValueString="none"/>
            <relationship name="writer" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Writer" inverseName="books" inverseEntity="Writer" elementID="author"/>
            <relationship name="cover" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Image" inverseName="books" inverseEntity="Image"/>
            <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="books" inverseEntity="Tag"/>
        </entity>
        <entity name="Image">
            <attribute name="path" optional="YES" attributeType="String"/>
            <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="cover" inverseEntity="Book" elementID="book"/>
        </entity>
        <entity name="Magazine" parentEntity="Publication">
            <attribute name="issue" optional="YES" attributeType="Integer 64" defaultValueString="0"/>
        </entity>
        <entity name="Publication">
            <attribute name="publisher" optional="YES" attributeType="String"/>
        </entity>
        <entity name="Reader">
            <attribute name="email" optional="YES" attributeType="String"/>
        </entity>
        <entity name="Tag">
            <attribute name="label" attributeType="String"/>
            <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="tags" inverseEntity="Book"/>
            <uniquenessConstraints><uniquenessConstraint><constraint value="label"/></uniquenessConstraint></uniquenessConstraints>
        </entity>
        <entity name="Writer" elementID="Author">
            <attribute name="name" attributeType="String"/>
            <attribute name="age" optional="YES" attributeType="Integer 64" defaultValueString="0"/>
            <attribute name="rating" attributeType="Double" defaultValueString="2.5"/>
            <relationship name="books" optional="YES" toMany="YES" ordered="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="writer" inverseEntity="Book"/>
        </entity>
        """

    /// Saves the version 1 store: two authors, three books (one without pages), tags, an
    /// image, magazines and a shelf.
    static func makeVersion1Store(_ bundle: URL) throws -> URL {
        let url = MigrationFixtures.store(in: bundle)
        let (coordinator, context) = try MigrationFixtures.open(try MigrationFixtures.model(bundle, "V1"), url)
        try context.performAndWait {
            let ada = MigrationFixtures.insert("Author", ["name": "Ada", "age": 36], into: context)
            let bob = MigrationFixtures.insert("Author", ["name": "Bob", "age": nil], into: context)
            let image = MigrationFixtures.insert("Image", ["path": "/c.png"], into: context)
            let red = MigrationFixtures.insert("Tag", ["label": "red"], into: context)
            let blue = MigrationFixtures.insert("Tag", ["label": "blue"], into: context)
            let one = MigrationFixtures.insert("Book", ["title": "One", "pages": 100, "notes": "n1"], into: context)
            let two = MigrationFixtures.insert("Book", ["title": "Two", "pages": nil], into: context)
            let three = MigrationFixtures.insert("Book", ["title": "Three", "pages": 300], into: context)
            one.setValue(ada, forKey: "author")
            two.setValue(ada, forKey: "author")
            three.setValue(bob, forKey: "author")
            one.setValue(image, forKey: "cover")
            one.setValue(Set([red, blue]), forKey: "tags")
            three.setValue(Set([blue]), forKey: "tags")
            _ = MigrationFixtures.insert("Magazine", ["issue": 7], into: context)
            _ = MigrationFixtures.insert("Magazine", ["issue": 8], into: context)
            _ = MigrationFixtures.insert("Shelf", ["label": "top"], into: context)
            try context.save()
        }
        try MigrationFixtures.close(coordinator)
        return url
    }

    @Test func versionOneStoreOpensWithVersionThreeAndEveryRowIsThere() throws {
        let bundle = try MigrationFixtures.bundle(["V1": Self.v1, "V2": Self.v2, "V3": Self.v3], current: "V3")
        defer { try? FileManager.default.removeItem(at: bundle.deletingLastPathComponent()) }
        let url = try Self.makeVersion1Store(bundle)
        let v3 = try MigrationFixtures.model(bundle, "V3")
        let (coordinator, context) = try MigrationFixtures.open(v3, url)
        let store = try #require(coordinator.persistentStores.first)
        #expect(v3.isConfiguration(withName: nil, compatibleWithStoreMetadata: store.metadata))

        try context.performAndWait {
            let writers = try MigrationFixtures.fetch("Writer", in: context, sortedBy: "name")
            #expect(writers.map { $0.value(forKey: "name") as? String } == ["Ada", "Bob"])
            #expect(writers.map { ($0.value(forKey: "age") as? NSNumber)?.int64Value } == [36, nil])
            #expect(writers.map { ($0.value(forKey: "rating") as? NSNumber)?.doubleValue } == [2.5, 2.5])
            let adaBooks = try #require(writers.first?.value(forKey: "books") as? NSOrderedSet)
            #expect(
                adaBooks.array.compactMap { ($0 as? NSManagedObject)?.value(forKey: "caption") as? String } == ["One", "Two"])

            let books = try MigrationFixtures.fetch("Book", in: context, sortedBy: "caption")
            #expect(books.map { $0.value(forKey: "caption") as? String } == ["One", "Three", "Two"])
            // Optional → required with a default: the book without pages gets the default.
            #expect(books.map { ($0.value(forKey: "pages") as? NSNumber)?.intValue } == [100, 300, 0])
            #expect(books.map { $0.value(forKey: "isbn") as? String } == ["none", "none", "none"])
            #expect(
                books.map { ($0.value(forKey: "writer") as? NSManagedObject)?.value(forKey: "name") as? String } == [
                    "Ada", "Bob", "Ada",
                ])
            let tags = books.map { book in
                ((book.value(forKey: "tags") as? Set<NSManagedObject>) ?? []).compactMap { $0.value(forKey: "label") as? String }
                    .sorted()
            }
            #expect(tags == [["blue", "red"], ["blue"], []])
            let cover = try #require(books.first?.value(forKey: "cover") as? NSManagedObject)
            #expect(cover.value(forKey: "path") as? String == "/c.png")
            #expect(((cover.value(forKey: "books") as? Set<NSManagedObject>) ?? []).count == 1)

            // Magazine moved under a new parent: fetched as Publications too.
            let publications = try MigrationFixtures.fetch("Publication", in: context, sortedBy: "publisher")
            #expect(publications.count == 2)
            #expect(Set(publications.map { $0.entity.name ?? "" }) == ["Magazine"])
            let magazines = try MigrationFixtures.fetch("Magazine", in: context, sortedBy: "issue")
            #expect(magazines.map { ($0.value(forKey: "issue") as? NSNumber)?.int64Value } == [7, 8])
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Reader")) == 0)

            // New objects get keys after the migrated ones, and saves work.
            let fresh = MigrationFixtures.insert("Book", ["caption": "Four"], into: context)
            fresh.setValue(writers.last, forKey: "writer")
            _ = MigrationFixtures.insert("Reader", ["email": "r@x"], into: context)
            try context.save()
        }

        try MigrationFixtures.close(coordinator)
        let queue = try DatabaseQueue(path: url.path)
        defer { try? queue.close() }
        try queue.read { db in
            let entities = try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT")
                .map { "\($0[0] as Int) \($0[1] as String) \($0[2] as Int)" }
            #expect(
                entities == ["1 Book 0", "2 Image 0", "3 Publication 0", "4 Magazine 3", "5 Reader 0", "6 Tag 0", "7 Writer 0"])
            #expect(try !db.tableExists("ZSHELF"))
            #expect(try !db.tableExists("ZAUTHOR"))
            #expect(try !db.tableExists("ZMAGAZINE"))
            #expect(try db.tableExists("Z_1TAGS"))
            #expect(try !db.tableExists("Z_2TAGS"))
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM Z_1TAGS") == 3)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM ZPUBLICATION WHERE Z_ENT = 4") == 2)
            #expect(try Int.fetchOne(db, sql: "SELECT max(Z_PK) FROM ZBOOK") == 4)
            #expect(try Int.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Book'") == 4)
            let indexes = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")
            #expect(indexes.contains("Z_Tag_UNIQUE_label"))
            #expect(indexes.contains("ZBOOK_ZWRITER_INDEX"))
            #expect(!indexes.contains("ZBOOK_ZAUTHOR_INDEX"))
            let expected = SQLiteSchema(model: v3)
            for table in expected.tables {
                let columns = try Row.fetchAll(db, sql: "PRAGMA table_info(\(table.name))").map { $0["name"] as String }
                #expect(columns == table.columns.map(\.name), "\(table.name)")
            }
        }
    }

    @Test func versionTwoStoreFollowsTheSecondRename() throws {
        let bundle = try MigrationFixtures.bundle(["V2": Self.v2, "V3": Self.v3], current: "V3")
        defer { try? FileManager.default.removeItem(at: bundle.deletingLastPathComponent()) }
        let url = MigrationFixtures.store(in: bundle)
        do {
            let (coordinator, context) = try MigrationFixtures.open(try MigrationFixtures.model(bundle, "V2"), url)
            try context.performAndWait {
                _ = MigrationFixtures.insert("Book", ["heading": "Dune", "pages": 412], into: context)
                try context.save()
            }
            try MigrationFixtures.close(coordinator)
        }
        let (coordinator, context) = try MigrationFixtures.open(try MigrationFixtures.model(bundle, "V3"), url)
        defer { try? MigrationFixtures.close(coordinator) }
        try context.performAndWait {
            let books = try MigrationFixtures.fetch("Book", in: context, sortedBy: "caption")
            #expect(books.map { $0.value(forKey: "caption") as? String } == ["Dune"])
            #expect(books.map { ($0.value(forKey: "pages") as? NSNumber)?.intValue } == [412])
        }
    }
}
