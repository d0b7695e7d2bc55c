import Foundation
import Testing

@testable import Strata

@Suite("Xcode model writer") struct XcodeModelWriterTests {
    /// A model built in code, with no model file behind it.
    private func libraryModel() -> NSManagedObjectModel {
        let book = NSEntityDescription()
        book.name = "Book"
        book.managedObjectClassName = "Book"
        let title = NSAttributeDescription()
        title.name = "title"
        title.attributeType = .stringAttributeType
        title.isOptional = false
        title.defaultValue = "A \"quoted\" <title> & more\nnext line"
        let pages = NSAttributeDescription()
        pages.name = "pages"
        pages.attributeType = .integer16AttributeType
        pages.defaultValue = Int16(12)
        pages.usesScalarValueType = true
        let published = NSAttributeDescription()
        published.name = "published"
        published.attributeType = .dateAttributeType
        published.defaultValue = Date(timeIntervalSinceReferenceDate: 1000)
        let shelf = NSRelationshipDescription()
        shelf.name = "shelf"
        shelf.maxCount = 1
        let shelfEntity = NSEntityDescription()
        shelfEntity.name = "Shelf"
        let books = NSRelationshipDescription()
        books.name = "books"
        books.maxCount = 0
        books.isOrdered = true
        books.deleteRule = .cascadeDeleteRule
        book.properties = [title, pages, published, shelf]
        shelfEntity.properties = [books]
        shelf.destinationEntity = shelfEntity
        books.destinationEntity = book
        shelf.inverseRelationship = books
        books.inverseRelationship = shelf
        let model = NSManagedObjectModel()
        model.entities = [shelfEntity, book]
        return model
    }

    @Test func writesACodeBuiltModelInXcodesStyle() throws {
        let xml = XcodeModelWriter.contentsXML(for: libraryModel())
        let expected = #"""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22758" systemVersion="23F79" minimumToolsVersion="Automatic" sourceLanguage="Swift">
                <entity name="Book" representedClassName="Book">
                    <attribute name="pages" optional="YES" attributeType="Integer 16" defaultValueString="12" usesScalarValueType="YES"/>
                    <attribute name="published" optional="YES" attributeType="Date" defaultDateTimeInterval="1000"/>
                    <attribute name="title" attributeType="String" defaultValueString="A &quot;quoted&quot; &lt;title&gt; &amp; more&#10;next line"/>
                    <relationship name="shelf" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Shelf" inverseName="books" inverseEntity="Shelf"/>
                </entity>
                <entity name="Shelf">
                    <relationship name="books" optional="YES" toMany="YES" deletionRule="Cascade" ordered="YES" destinationEntity="Book" inverseName="shelf" inverseEntity="Book"/>
                </entity>
            </model>
            """#
        #expect(xml == expected)
    }

    @Test func aCodeBuiltModelReadsBackEqualButForTheFileAttributes() throws {
        let model = libraryModel()
        let read = try NSManagedObjectModel.load(xml: model.xcodeModelContents())
        #expect(read.modelFileAttributes == XcodeModelWriter.defaultModelAttributes)
        read.modelFileAttributes = [:]
        #expect(read.isEqual(model))
        let title = try #require(read.entitiesByName["Book"]?.attributesByName["title"])
        #expect(title.defaultValue as? String == "A \"quoted\" <title> & more\nnext line")
    }

    @Test func theEverythingFixtureRoundTrips() throws {
        let model = try XcodeModelFixtures.load(XcodeModelFixtures.everything)
        let written = XcodeModelWriter.contentsXML(for: model)
        #expect(written == XcodeModelFixtures.everything)
        let again = try NSManagedObjectModel.load(xml: Data(written.utf8))
        #expect(again.isEqual(model))
    }

    @Test func typedValuesWinOverKeptFileAttributes() throws {
        let model = try XcodeModelFixtures.load(XcodeModelFixtures.everything)
        let createdAt = try #require(model.entitiesByName["Book"]?.attributesByName["createdAt"])
        #expect(createdAt.modelFileAttributes == ["usesScalarValueType": "NO"])
        createdAt.usesScalarValueType = true
        createdAt.isOptional = true
        let person = try #require(model.entitiesByName["Person"])
        person.managedObjectClassName = "Person"
        let xml = XcodeModelWriter.contentsXML(for: model)
        #expect(
            xml.contains(
                #"<attribute name="createdAt" optional="YES" attributeType="Date" defaultDateTimeInterval="631152000" usesScalarValueType="YES"/>"#
            ))
        #expect(xml.contains(#"<entity name="Person" representedClassName="Person" isAbstract="YES" syncable="YES">"#))
    }

    @Test func legacyRootAttributesKeepTheirOrder() throws {
        let text = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model name="" userDefinedModelVersionIdentifier="1.0" type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="1811" systemVersion="12C60" minimumToolsVersion="Xcode 4.3" macOSVersion="Automatic" iOSVersion="Automatic">
                <entity name="Item" syncable="YES">
                    <attribute name="title" optional="YES" attributeType="String" syncable="YES">
                        <userInfo/>
                    </attribute>
                </entity>
            </model>
            """
        let model = try XcodeModelFixtures.load(text)
        #expect(model.versionIdentifiers == ["1.0"])
        #expect(XcodeModelWriter.contentsXML(for: model) == text)
    }

    @Test func writesAnXcdatamodelDirectory() throws {
        let directory = try XcodeModelFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = try XcodeModelFixtures.load(XcodeModelFixtures.everything)
        let url = directory.appendingPathComponent("Books.xcdatamodel")
        try model.write(toXcodeModelAt: url)
        let contents = try Data(contentsOf: url.appendingPathComponent("contents"))
        #expect(contents == model.xcodeModelContents())
        #expect(try NSManagedObjectModel.load(contentsOf: url).isEqual(model))
    }

    @Test func writesAnXcdatamodeldBundle() throws {
        let directory = try XcodeModelFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = try XcodeModelFixtures.load(XcodeModelFixtures.everything)
        let url = directory.appendingPathComponent("Books.xcdatamodeld")
        try model.write(toXcodeModelAt: url)

        let markerData = try Data(contentsOf: url.appendingPathComponent(".xccurrentversion"))
        let marker = try PropertyListSerialization.propertyList(from: markerData, format: nil) as? [String: String]
        #expect(marker == ["_XCCurrentVersionName": "Books.xcdatamodel"])
        #expect(FileManager.default.fileExists(atPath: url.appendingPathComponent("Books.xcdatamodel/contents").path))
        let bundle = try XcodeModelBundle(url: url)
        #expect(bundle.versionNames == ["Books"])
        #expect(try NSManagedObjectModel.load(contentsOf: url).isEqual(model))
    }

    @Test func refusesOtherExtensions() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("Books.momd")
        #expect(throws: ModelError(.notAModelFile, file: url)) {
            try XcodeModelFixtures.load(XcodeModelFixtures.single()).write(toXcodeModelAt: url)
        }
    }

    @Test func escapesControlCharactersAndMarkup() throws {
        let model = try XcodeModelFixtures.load(XcodeModelFixtures.single())
        let item = try #require(model.entitiesByName["Item"])
        item.userInfo = ["tab\there": "a\rb & 'c'"]
        let xml = XcodeModelWriter.contentsXML(for: model)
        #expect(xml.contains(#"<entry key="tab&#9;here" value="a&#13;b &amp; 'c'"/>"#))
        let read = try NSManagedObjectModel.load(xml: Data(xml.utf8))
        #expect(read.entitiesByName["Item"]?.userInfo?["tab\there"] as? String == "a\rb & 'c'")
    }

    /// An inverse that is not in the model (a file with `inverseName` and no `inverseEntity`,
    /// whose destination lacks the inverse) is written as read: the writer does not name an
    /// inverse entity the file did not, which would make another model once read back (found
    /// by fuzzing: Fuzz/Regressions/model-xml/inverse-without-entity.xml).
    @Test func anUnresolvedInverseIsWrittenAsRead() throws {
        let text = XcodeModelFixtures.single(
            attribute:
                #"<relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="items"/>"#
        )
        let model = try XcodeModelFixtures.load(text)
        let tags = try #require(model.entitiesByName["Item"]?.relationshipsByName["tags"])
        #expect(tags.inverseRelationship == nil && tags.inverseRelationshipName == "items")
        #expect(tags.inverseEntityNameInModel == nil)
        let xml = XcodeModelWriter.contentsXML(for: model)
        #expect(xml.contains(#"destinationEntity="Item" inverseName="items"/>"#))
        #expect(!xml.contains("inverseEntity="))
        let read = try NSManagedObjectModel.load(xml: Data(xml.utf8))
        #expect(read.isEqual(model))
        #expect(read.entitiesByName["Item"]?.relationshipsByName["tags"]?.inverseEntityNameInModel == nil)
        #expect(XcodeModelWriter.contentsXML(for: read) == xml)
        // An inverse entity the file names is kept, resolved or not.
        let named = try XcodeModelFixtures.load(
            XcodeModelFixtures.single(
                attribute:
                    #"<relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="items" inverseEntity="Item"/>"#
            ))
        #expect(XcodeModelWriter.contentsXML(for: named).contains(#"inverseName="items" inverseEntity="Item"/>"#))
    }
}
