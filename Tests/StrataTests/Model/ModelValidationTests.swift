import Foundation
import Testing

@testable import Strata

@Suite struct ModelValidationTests {
    private func kinds(_ model: NSManagedObjectModel) -> [ModelError.Kind] { model.validationErrors().map(\.kind) }

    @Test func validModelHasNoErrors() throws {
        #expect(todoModel().validationErrors().isEmpty)
        try todoModel().validate()
    }

    @Test func missingDestinationNamesEntityAndProperty() throws {
        let model = NSManagedObjectModel {
            Entity("Todo") { Relationship("owner", to: "Person") }
        }
        let error = try #require(model.validationErrors().first)
        #expect(error.kind == .missingDestination(name: "Person"))
        #expect(error.entity == "Todo")
        #expect(error.property == "owner")
        #expect(error.description.contains("entity Todo, property owner"))
    }

    @Test func missingInverse() {
        let model = NSManagedObjectModel {
            Entity("Todo") { Relationship("tags", to: "Tag", inverse: "todos", toMany: true) }
            Entity("Tag") { Attribute("name", .stringAttributeType) }
        }
        #expect(kinds(model) == [.missingInverse(name: "todos", entity: "Tag")])
    }

    @Test func inverseThatDoesNotPointBack() {
        let model = NSManagedObjectModel {
            Entity("Todo") {
                Relationship("tags", to: "Tag", inverse: "todos", toMany: true)
                Relationship("archivedTags", to: "Tag", toMany: true)
            }
            Entity("Tag") { Relationship("todos", to: "Todo", inverse: "archivedTags", toMany: true) }
        }
        #expect(kinds(model).contains(.inverseDoesNotPointBack(inverse: "todos", pointsTo: "archivedTags")))
    }

    @Test func constraintOnUnknownAndUnsupportedProperties() {
        let model = NSManagedObjectModel {
            Entity("Todo") {
                Attribute("title", .stringAttributeType)
                Attribute("scratch", .stringAttributeType, transient: true)
                Relationship("tags", to: "Tag", inverse: "todos", toMany: true)
                Unique("titel")
                Unique("scratch", "title")
                Unique("tags")
            }
            Entity("Tag") { Relationship("todos", to: "Todo", inverse: "tags", toMany: true) }
        }
        #expect(
            kinds(model) == [
                .constraintOnUnknownAttribute(name: "titel"), .constraintOnUnsupportedProperty(name: "scratch"),
                .constraintOnUnsupportedProperty(name: "tags"),
            ])
    }

    @Test func duplicateEntityAndPropertyNames() {
        let model = NSManagedObjectModel {
            Entity("Todo") {
                Attribute("title", .stringAttributeType)
                Attribute("title", .integer16AttributeType)
            }
            Entity("Todo") { Attribute("name", .stringAttributeType) }
        }
        let errors = model.validationErrors()
        #expect(errors.contains { $0.kind == .duplicatePropertyName && $0.property == "title" })
        #expect(errors.contains { $0.kind == .duplicateEntityName && $0.entity == "Todo" })
    }

    @Test func inheritedPropertyRedeclaredIsADuplicate() {
        let model = NSManagedObjectModel {
            Entity("Item") { Attribute("label", .stringAttributeType) }
            Entity("Checkbox", parent: "Item") { Attribute("label", .stringAttributeType) }
        }
        #expect(model.validationErrors().contains { $0.kind == .duplicatePropertyName && $0.entity == "Checkbox" })
    }

    @Test func derivedAttributeOnUnreachableKeyPath() {
        let model = NSManagedObjectModel {
            Entity("Book") {
                Attribute("title", .stringAttributeType)
                Relationship("pages", to: "Page", inverse: "book", toMany: true)
                Relationship("author", to: "Author")
                DerivedAttribute("good", .stringAttributeType, expression: "author.name")
                DerivedAttribute("count", .integer64AttributeType, expression: "pages.@count")
                DerivedAttribute("total", .integer64AttributeType, expression: "pages.@sum.number")
                DerivedAttribute("upper", .stringAttributeType, expression: "uppercase:(title)")
                DerivedAttribute("stamp", .dateAttributeType, expression: "now()")
                DerivedAttribute("badPath", .stringAttributeType, expression: "author.nickname")
                DerivedAttribute("throughToMany", .stringAttributeType, expression: "pages.text")
                DerivedAttribute("countOfAttribute", .integer64AttributeType, expression: "title.@count")
                DerivedAttribute("sumOfText", .integer64AttributeType, expression: "pages.@sum.text")
                DerivedAttribute("weird", .stringAttributeType, expression: "title + 1")
            }
            Entity("Page") {
                Attribute("number", .integer32AttributeType)
                Attribute("text", .stringAttributeType)
                Relationship("book", to: "Book", inverse: "pages")
            }
            Entity("Author") { Attribute("name", .stringAttributeType) }
        }
        let byProperty = Dictionary(
            model.validationErrors().map { ($0.property ?? "", $0.kind) }, uniquingKeysWith: { a, _ in a })
        #expect(byProperty.count == 5)
        #expect(byProperty["badPath"] == .unreachableDerivationKeyPath(keyPath: "author.nickname"))
        #expect(byProperty["throughToMany"] == .unreachableDerivationKeyPath(keyPath: "pages.text"))
        #expect(byProperty["countOfAttribute"] == .unreachableDerivationKeyPath(keyPath: "title"))
        #expect(byProperty["sumOfText"] == .unreachableDerivationKeyPath(keyPath: "pages.@sum.text"))
        #expect(byProperty["weird"] == .unsupportedDerivation(expression: "title + 1"))
    }

    @Test func undefinedTypeOnlyForTransients() {
        let model = NSManagedObjectModel {
            Entity("Todo") {
                Attribute("stored", .undefinedAttributeType)
                Attribute("scratch", .undefinedAttributeType, transient: true)
            }
        }
        #expect(model.validationErrors().map(\.property) == ["stored"])
        #expect(kinds(model) == [.undefinedAttributeType])
    }

    @Test func unknownParentCycleAndIndexErrors() throws {
        let model = NSManagedObjectModel {
            Entity("A") {
                Attribute("x", .stringAttributeType)
                FetchIndex("byY", "y")
            }
            Entity("B") { Attribute("y", .stringAttributeType) }
        }
        let a = try #require(model.entitiesByName["A"])
        let b = try #require(model.entitiesByName["B"])
        a.subentities = [b]
        b.subentities = [a]
        let errors = kinds(model)
        #expect(errors.contains(.inheritanceCycle))

        #expect(
            kinds(NSManagedObjectModel { Entity("A") { FetchIndex("i", "nothing") } }) == [
                .indexOnUnknownProperty(name: "nothing")
            ])

        let ghost = NSEntityDescription()
        ghost.name = "Ghost"
        let child = NSEntityDescription()
        child.name = "Child"
        ghost.subentities = [child]
        let orphaned = NSManagedObjectModel()
        orphaned.entities = [child]
        #expect(kinds(orphaned) == [.unknownParentEntity(name: "Ghost")])
    }

    @Test func relationshipCountsAndTemplatesAndConfigurations() throws {
        let model = NSManagedObjectModel {
            Entity("A") {
                Relationship("bs", to: "B", inverse: "a", toMany: true, minCount: 5, maxCount: 3)
            }
            Entity("B") { Relationship("a", to: "A", inverse: "bs") }
        }
        model.setFetchRequestTemplate(NSFetchRequest(entityName: "Nope"), forName: "t")
        let ghost = NSEntityDescription()
        ghost.name = "Ghost"
        model.setEntities([ghost], forConfigurationName: "Cloud")
        #expect(
            kinds(model) == [
                .invalidRelationshipCount(min: 5, max: 3), .unknownConfigurationMember(configuration: "Cloud", entity: "Ghost"),
                .unknownTemplateEntity(template: "t", entity: "Nope"),
            ])
        // Xcode compiles such models and Core Data runs with them: warnings, not errors.
        #expect(model.validationErrors().allSatisfy { $0.severity == .warning })
        try model.validate()
    }

    @Test func invalidDefaultValueIsReported() throws {
        let model = NSManagedObjectModel { Entity("A") { Attribute("n", .integer32AttributeType) } }
        try #require(model.entitiesByName["A"]?.attributesByName["n"]).invalidDefaultValueText = "many"
        #expect(kinds(model) == [.invalidDefaultValue(value: "many")])
        #expect(model.validationErrors().first?.severity == .warning)
    }
}
