import Foundation
import Testing

@testable import Strata

@Suite("Xcode model reader") struct XcodeModelReaderTests {
    private func everything() throws -> NSManagedObjectModel {
        try XcodeModelFixtures.load(XcodeModelFixtures.everything)
    }

    @Test func readsTheModelRoot() throws {
        let model = try everything()
        #expect(model.versionIdentifiers == ["v3"])
        #expect(model.modelFileAttributes["usedWithCloudKit"] == "YES")
        #expect(model.modelFileAttributes["lastSavedToolsVersion"] == "22758")
        #expect(model.modelFileAttributes["userDefinedModelVersionIdentifier"] == nil)
        #expect(model.entities.map(\.name) == ["Author", "Book", "Chapter", "Person"])
        #expect(model.diagramLayout.count == 2)
        #expect(model.diagramLayout.first?["positionX"] == "-63")
    }

    @Test func readsEntities() throws {
        let model = try everything()
        let book = try #require(model.entitiesByName["Book"])
        #expect(book.managedObjectClassName == "Book")
        #expect(book.renamingIdentifier == "OldBook")
        #expect(book.versionHashModifier == "2")
        #expect(book.codeGenerationType == "class")
        #expect(book.modelFileAttributes == ["syncable": "YES", "futureFlag": "kept"])
        #expect(book.userInfo?["color"] as? String == "blue")
        #expect(book.uniquenessConstraintNames == [["isbn"], ["title", "createdAt"]])
        #expect(book.compoundIndexNames == [["title", "isbn"]])
        #expect(book.modelFileLine == 7)

        let chapter = try #require(model.entitiesByName["Chapter"])
        #expect(chapter.managedObjectClassName == "NSManagedObject")
        #expect(chapter.modelFileAttributes == ["syncable": "YES"])
    }

    @Test func readsInheritance() throws {
        let model = try everything()
        let person = try #require(model.entitiesByName["Person"])
        let author = try #require(model.entitiesByName["Author"])
        #expect(person.isAbstract)
        #expect(author.superentity === person)
        // Object IDs hash by the root entity the entity keeps.
        #expect(author.rootIdentity == ObjectIdentifier(person) && person.rootIdentity == ObjectIdentifier(person))
        #expect(person.subentities.map(\.name) == ["Author"])
        #expect(author.propertiesByName["name"] != nil)
        #expect(author.declaredProperties.map(\.name) == ["penName", "books"])
        // An explicit representedClassName="NSManagedObject" is kept, to be written back.
        #expect(person.managedObjectClassName == "NSManagedObject")
        #expect(person.modelFileAttributes["representedClassName"] == "NSManagedObject")
        #expect(person.userInfo != nil && person.userInfo?.isEmpty == true)
    }

    @Test func readsAttributes() throws {
        let book = try #require(try everything().entitiesByName["Book"])
        let attributes = book.attributesByName

        let cover = try #require(attributes["cover"])
        #expect(cover.attributeType == .binaryDataAttributeType)
        #expect(cover.isOptional)
        #expect(cover.allowsExternalBinaryDataStorage && cover.preservesValueInHistoryOnDeletion)
        #expect(cover.allowsCloudEncryption && cover.isStoredInExternalRecord)

        let createdAt = try #require(attributes["createdAt"])
        #expect(!createdAt.isOptional)
        #expect(createdAt.defaultValue as? Date == Date(timeIntervalSinceReferenceDate: 631_152_000))
        #expect(createdAt.defaultValueString == "631152000")
        #expect(createdAt.modelFileAttributes == ["usesScalarValueType": "NO"])

        let isbn = try #require(attributes["isbn"])
        #expect(isbn.minValueString == "10" && isbn.maxValueString == "13")
        #expect(isbn.regularExpressionString == "^[0-9X]+$")
        #expect(isbn.isIndexedBySpotlight)

        let pages = try #require(attributes["pages"])
        #expect(pages.attributeType == .integer32AttributeType)
        #expect(pages.defaultValue as? Int32 == 0)
        #expect(pages.defaultValueString == "0.0")
        #expect(pages.usesScalarValueType && pages.isIndexed)

        let scratch = try #require(attributes["scratch"])
        #expect(scratch.attributeType == .undefinedAttributeType && scratch.isTransient)

        let tags = try #require(attributes["tags"])
        #expect(tags.valueTransformerName == "NSSecureUnarchiveFromData")
        #expect(tags.attributeValueClassName == "[String]")

        let title = try #require(attributes["title"])
        #expect(title.defaultValue as? String == #"Untitled "1" & <more>"#)
        #expect(title.renamingIdentifier == "name" && title.versionHashModifier == "3")
        #expect(title.modelFileLine == 15)

        let titleKey = try #require(attributes["titleKey"] as? NSDerivedAttributeDescription)
        #expect(titleKey.derivationExpressionFormat == "canonical:(title)")
        #expect(titleKey.derivation == .function(name: "canonical:", keyPath: "title"))
    }

    @Test func readsCompositeAttributesAndTypes() throws {
        let model = try everything()
        #expect(model.compositeTypes.map(\.name) == ["Point", "Label"])
        let point = try #require(model.compositeTypes.first)
        #expect(point.elements.map(\.name) == ["x", "y", "label"])
        let nestedLabel = try #require(point.elements.last as? NSCompositeAttributeDescription)
        #expect(nestedLabel.compositeTypeName == "Label")
        #expect(nestedLabel.elements.map(\.name) == ["text"])

        let location = try #require(
            model.entitiesByName["Book"]?.attributesByName["location"] as? NSCompositeAttributeDescription)
        #expect(location.attributeType == .compositeAttributeType)
        #expect(location.compositeTypeName == "Point")
        #expect(location.elements.map(\.name) == ["x", "y", "label"])
        // The attribute holds copies: changing them leaves the model's type alone.
        #expect(location.elements.first !== point.elements.first)
        #expect((location.elements.last as? NSCompositeAttributeDescription)?.elements.map(\.name) == ["text"])
    }

    @Test func readsRelationships() throws {
        let model = try everything()
        let book = try #require(model.entitiesByName["Book"])
        let author = try #require(book.relationshipsByName["author"])
        #expect(!author.isToMany && author.maxCount == 1 && author.minCount == 0)
        #expect(author.destinationEntity === model.entitiesByName["Author"])
        #expect(author.inverseRelationship === model.entitiesByName["Author"]?.relationshipsByName["books"])

        let chapters = try #require(book.relationshipsByName["chapters"])
        #expect(chapters.isToMany && chapters.isOrdered && !chapters.isOptional)
        #expect(chapters.minCount == 1 && chapters.maxCount == 50)
        #expect(chapters.deleteRule == .cascadeDeleteRule)
        #expect(chapters.userInfo?["note"] as? String == "line one\nline two")

        let books = try #require(model.entitiesByName["Author"]?.relationshipsByName["books"])
        #expect(books.isToMany && books.maxCount == 0 && books.deleteRule == .denyDeleteRule)
        let back = try #require(model.entitiesByName["Chapter"]?.relationshipsByName["book"])
        #expect(back.deleteRule == .noActionDeleteRule && !back.isOptional)
    }

    @Test func readsFetchedPropertiesAndIndexes() throws {
        let book = try #require(try everything().entitiesByName["Book"])
        let fetched = try #require(book.propertiesByName["longChapters"] as? NSFetchedPropertyDescription)
        #expect(fetched.isOptional)
        #expect(fetched.fetchRequest?.entityName == "Chapter")
        #expect(fetched.fetchRequest?.predicateFormat == "book == $FETCH_SOURCE AND pages > 30")

        #expect(book.indexes.map(\.name) == ["byTitle", "byPages"])
        let byTitle = try #require(book.indexes.first)
        #expect(byTitle.elements.map(\.propertyName) == ["title", "pages"])
        #expect(byTitle.elements.map(\.isAscending) == [false, true])
        #expect(byTitle.elements.first?.property === book.propertiesByName["title"])
        let byPages = try #require(book.indexes.last?.elements.first)
        #expect(byPages.expressionFormat == "pages" && byPages.expressionTypeName == "Integer 32")
        #expect(byPages.collationType == .rTree)
    }

    @Test func readsTemplatesAndConfigurations() throws {
        let model = try everything()
        let byTitle = try #require(model.fetchRequestTemplate(forName: "booksByTitle"))
        #expect(byTitle.entity === model.entitiesByName["Book"])
        #expect(byTitle.predicateFormat == "title == $TITLE")
        #expect(byTitle.fetchLimit == 10 && byTitle.fetchBatchSize == 20)
        #expect(byTitle.resultType == .dictionaryResultType)
        #expect(byTitle.includesSubentities && !byTitle.returnsDistinctResults)
        let distinct = try #require(model.fetchRequestTemplate(forName: "distinctBooks"))
        #expect(distinct.returnsDistinctResults && distinct.includesPendingChanges)

        #expect(model.configurations == ["Cloud", "Local"])
        #expect(model.entities(forConfigurationName: "Cloud")?.map(\.name) == ["Book", "Chapter"])
        #expect(model.configurationAttributes == ["Cloud": ["usedWithCloudKit": "YES"]])
    }

    @Test func absentAttributesTakeXcodesDefaults() throws {
        let model = try XcodeModelFixtures.load(
            XcodeModelFixtures.single(
                attribute: #"""
                    <attribute name="count" attributeType="Integer 64"/>
                            <relationship name="parent" destinationEntity="Item"/>
                            <relationship name="children" toMany="YES" destinationEntity="Item"/>
                    """#))
        let item = try #require(model.entitiesByName["Item"])
        #expect(item.attributesByName["count"]?.isOptional == false)
        #expect(item.attributesByName["count"]?.defaultValue == nil)
        let parent = try #require(item.relationshipsByName["parent"])
        #expect(!parent.isOptional && !parent.isToMany && parent.deleteRule == .nullifyDeleteRule)
        #expect(parent.inverseRelationship == nil)
        #expect(item.relationshipsByName["children"]?.maxCount == 0)
        #expect(model.versionIdentifiers == [""])
    }

    @Test func keepsUnknownElementsOutOfTheWay() throws {
        let model = try XcodeModelFixtures.load(
            XcodeModelFixtures.single(
                attribute: #"<attribute name="title" attributeType="String" futureAttribute="1"><futureChild a="b"/></attribute>"#
            ).replacingOccurrences(of: "</model>", with: "<futureElement/></model>"))
        let title = try #require(model.entitiesByName["Item"]?.attributesByName["title"])
        #expect(title.modelFileAttributes == ["futureAttribute": "1"])
    }

    @Test func anInvalidDefaultValueIsAWarningOfValidation() throws {
        let text = XcodeModelFixtures.single(
            attribute: #"<attribute name="count" attributeType="Integer 16" defaultValueString="many"/>"#)
        let model = try XcodeModelFixtures.load(text)
        let warning = try #require(model.validationErrors().first)
        #expect(warning.kind == .invalidDefaultValue(value: "many"))
        #expect(warning.severity == .warning)
        #expect(warning.entity == "Item" && warning.property == "count" && warning.line == 4)
        // Read as NSString reads a number: "many" starts with none, so 0.
        #expect(model.entitiesByName["Item"]?.attributesByName["count"]?.defaultValue as? Int16 == 0)
        // An empty default of a non-string type means no default.
        let empty = XcodeModelFixtures.single(attribute: #"<attribute name="id" attributeType="UUID" defaultValueString=""/>"#)
        let id = try #require(try XcodeModelFixtures.load(empty).entitiesByName["Item"]?.attributesByName["id"])
        #expect(id.defaultValue == nil)
        #expect(id.modelFileAttributes == ["defaultValueString": ""])
    }

    @Test func configurationMembersNotInTheModelAreReported() throws {
        let text = XcodeModelFixtures.single().replacingOccurrences(
            of: "</model>", with: #"<configuration name="Extra"><memberEntity name="Ghost"/></configuration></model>"#)
        let model = try XcodeModelFixtures.load(text)
        let warning = try #require(model.validationErrors().first)
        #expect(warning.kind == .unknownConfigurationMember(configuration: "Extra", entity: "Ghost"))
        #expect(warning.severity == .warning)
        // The missing member is skipped; the configuration has the entities that exist.
        #expect(model.entities(forConfigurationName: "Extra")?.isEmpty == true)
    }
}
