import Foundation
import Testing

@testable import Strata

/// A small model built in code, shared by model tests.
func todoModel() -> NSManagedObjectModel {
    NSManagedObjectModel {
        Entity("Todo", className: "Todo") {
            Attribute("todoId", .UUIDAttributeType, optional: false)
            Attribute("title", .stringAttributeType, optional: false, defaultValue: "")
            Attribute("priority", .integer16AttributeType, optional: false, defaultValue: Int16(2))
            Attribute("done", .booleanAttributeType, optional: false, defaultValue: false)
            Attribute("dueAt", .dateAttributeType)
            Attribute("scratch", .undefinedAttributeType, transient: true)
            DerivedAttribute("titleKey", .stringAttributeType, expression: "canonical:(title)")
            Relationship("tags", to: "Tag", inverse: "todos", toMany: true)
            Relationship("steps", to: "Step", inverse: "todo", toMany: true, ordered: true, deleteRule: .cascadeDeleteRule)
            Unique("todoId")
            FetchIndex("byTitle", "title")
        }
        Entity("Tag") {
            Attribute("name", .stringAttributeType, optional: false)
            Relationship("todos", to: "Todo", inverse: "tags", toMany: true)
            DerivedAttribute("todoCount", .integer64AttributeType, expression: "todos.@count")
        }
        Entity("Step") {
            Attribute("text", .stringAttributeType)
            Relationship("todo", to: "Todo", inverse: "steps")
        }
        Entity("Item", abstract: true) {
            Attribute("label", .stringAttributeType)
        }
        Entity("Checkbox", parent: "Item") {
            Attribute("checked", .booleanAttributeType)
        }
    }
}

@Suite struct ModelBuilderTests {
    @Test func buildsEntitiesPropertiesAndRelationships() throws {
        let model = todoModel()
        #expect(model.entities.compactMap(\.name) == ["Todo", "Tag", "Step", "Item", "Checkbox"])
        #expect(model.validationErrors().isEmpty)
        let todo = try #require(model.entitiesByName["Todo"])
        #expect(todo.managedObjectClassName == "Todo")
        #expect(Set(todo.attributesByName.keys) == ["todoId", "title", "priority", "done", "dueAt", "scratch", "titleKey"])
        #expect(todo.attributesByName["priority"]?.defaultValue as? Int16 == 2)
        #expect(todo.attributesByName["title"]?.isOptional == false)
        #expect(todo.attributesByName["dueAt"]?.isOptional == true)
        #expect(todo.attributesByName["scratch"]?.isTransient == true)
        #expect(todo.attributesByName["titleKey"]?.isReadOnly == true)
        #expect(todo.uniquenessConstraintNames == [["todoId"]])
        #expect(todo.indexes.first?.elements.first?.property === todo.attributesByName["title"])

        let tags = try #require(todo.relationshipsByName["tags"])
        let tag = try #require(model.entitiesByName["Tag"])
        #expect(tags.isToMany && !tags.isOrdered)
        #expect(tags.destinationEntity === tag)
        #expect(tags.inverseRelationship === tag.relationshipsByName["todos"])
        let steps = try #require(todo.relationshipsByName["steps"])
        #expect(steps.isOrdered && steps.deleteRule == .cascadeDeleteRule)
        let stepTodo = try #require(model.entitiesByName["Step"]?.relationshipsByName["todo"])
        #expect(!stepTodo.isToMany && stepTodo.maxCount == 1)
        #expect(stepTodo.inverseRelationship === steps)
    }

    @Test func inheritanceSharesPropertiesAndRoot() throws {
        let model = todoModel()
        let item = try #require(model.entitiesByName["Item"])
        let checkbox = try #require(model.entitiesByName["Checkbox"])
        #expect(item.isAbstract)
        #expect(checkbox.superentity === item)
        #expect(item.subentities.map { $0 } == [checkbox])
        #expect(checkbox.properties.map(\.name) == ["label", "checked"])
        #expect(checkbox.declaredProperties.map(\.name) == ["checked"])
        #expect(checkbox.rootEntity === item)
        #expect(checkbox.isKindOf(entity: item) && !item.isKindOf(entity: checkbox))
        #expect(item.subentitiesByName["Checkbox"] === checkbox)
    }

    @Test func equalModelsCompareEqualAndDifferentOnesDoNot() throws {
        #expect(todoModel().isEqual(todoModel()))
        let changed = todoModel()
        try #require(changed.entitiesByName["Tag"]?.attributesByName["name"]).isOptional = true
        #expect(!todoModel().isEqual(changed))
    }

    @Test func mergingCombinesModelsAndRefusesDuplicateEntities() throws {
        let first = NSManagedObjectModel { Entity("A") { Attribute("x", .integer32AttributeType) } }
        let second = NSManagedObjectModel {
            Entity("B") {
                Attribute("y", .stringAttributeType)
                Relationship("a", to: "A")
            }
        }
        let merged = try #require(NSManagedObjectModel(byMerging: [first, second]))
        #expect(Set(merged.entitiesByName.keys) == ["A", "B"])
        #expect(merged.entitiesByName["B"]?.relationshipsByName["a"]?.destinationEntity === merged.entitiesByName["A"])
        #expect(merged.entitiesByName["A"] !== first.entitiesByName["A"])
        #expect(NSManagedObjectModel(byMerging: [first, first]) == nil)
    }

    @Test func configurationsListTheirEntities() throws {
        let model = todoModel()
        let todo = try #require(model.entitiesByName["Todo"])
        model.setEntities([todo], forConfigurationName: "Local")
        #expect(model.configurations == ["Local"])
        #expect(model.entities(forConfigurationName: "Local")?.map { $0 } == [todo])
        #expect(model.entities(forConfigurationName: nil)?.count == model.entities.count)
        #expect(model.entities(forConfigurationName: "Default")?.count == model.entities.count)
        #expect(model.entities(forConfigurationName: "Missing") == nil)
    }

    @Test func fetchRequestTemplatesAreKeptByName() throws {
        let model = todoModel()
        let template = NSFetchRequest<NSFetchRequestResult>(entityName: "Todo")
        template.predicateFormat = "title == $TITLE"
        model.setFetchRequestTemplate(template, forName: "byTitle")
        #expect(model.fetchRequestTemplate(forName: "byTitle") === template)
        #expect(template.entity === model.entitiesByName["Todo"])
        #expect(model.fetchRequestTemplatesByName.keys.sorted() == ["byTitle"])
        model.setFetchRequestTemplate(nil, forName: "byTitle")
        #expect(model.fetchRequestTemplate(forName: "byTitle") == nil)
    }
}
