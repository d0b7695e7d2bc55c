import CoreData
import Foundation
import Testing
import TodoKit

@Suite("The store and the model file")
struct PersistenceTests {
    @Test("to-dos saved in a SQLite store are there when it is opened again")
    func reopen() async throws {
        let store = try TestStore(.sqlite)
        let url = try #require(store.sqliteURL)
        let tag = try await store.services.tags.tag(titled: "home")
        let todo = try await store.services.todos.add(title: "Persist me", tagIds: [tag.id])
        let located = try await store.services.todos.locate(id: todo.id, at: LocationModel(latitude: 1, longitude: 2))
        let reopened = try TodoServices(store: .sqlite(url))
        #expect(try await reopened.todos.todo(id: todo.id) == located)
    }

    @Test("close closes the store: the repositories fail after it, and the file opens again with everything")
    func close() async throws {
        let store = try TestStore(.sqlite)
        let url = try #require(store.sqliteURL)
        let todo = try await store.services.todos.add(title: "Saved before closing", tagIds: [])
        try store.persistence.close()
        #expect(store.persistence.container.persistentStoreCoordinator.persistentStores.isEmpty)
        // With no store, a fetch finds nothing (as with Core Data): the to-do is not found.
        await #expect(throws: TodoKitError.todoNotFound(todo.id)) { try await store.services.todos.todo(id: todo.id) }
        let reopened = try TodoServices(store: .sqlite(url))
        #expect(try await reopened.todos.todo(id: todo.id) == todo)
    }

    @Test("the model file reads as Xcode wrote it: Strata writes the same text back")
    func modelFileIsXcodes() throws {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/TodoKit/Todos.xcdatamodeld/Todos.xcdatamodel/contents")
        let text = try String(contentsOf: source, encoding: .utf8)
        let model = try XcodeModelBundle(url: source.deletingLastPathComponent().deletingLastPathComponent()).currentModel()
        #expect(String(decoding: model.xcodeModelContents(), as: UTF8.self) == text)
        #expect(model.entitiesByName.keys.sorted() == ["Location", "Tag", "Todo"])
        #expect(model.entitiesByName["Todo"]?.uniquenessConstraints.map { $0.map { "\($0)" } } == [["todoId"]])
    }

    @Test("the container finds the model the plugin copied, with the generated classes")
    func containerModel() throws {
        let persistence = try PersistenceController(store: .inMemory)
        let entities = persistence.container.managedObjectModel.entitiesByName
        #expect(entities["Todo"]?.relationshipsByName["tags"]?.inverseRelationship?.name == "todos")
        #expect(entities["Todo"]?.relationshipsByName["location"]?.isToMany == false)
        #expect(entities["Location"]?.relationshipsByName["todos"]?.isToMany == true)
        #expect(entities["Todo"]?.managedObjectClassName == String(reflecting: TodoEntity.self))
        let context = persistence.newTaskContext()
        context.performAndWait {
            #expect(TodoEntity(context: context).entity.name == "Todo")
        }
    }
}
