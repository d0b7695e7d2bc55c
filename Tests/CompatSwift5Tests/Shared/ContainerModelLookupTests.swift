import CoreData
import Foundation
import Testing

/// COMPAT 6: `NSPersistentContainer(name:)` finds the model that Strata's plugin processed in
/// this target, with no resource declared in Package.swift, as Xcode compiles the model into
/// the app bundle.
@Suite("COMPAT 6: the container finds the model by name")
struct ContainerModelLookupTests {
    @Test("init(name:) loads the target's model, whose classes are the generated ones")
    func findsTheModel() throws {
        let container = NSPersistentContainer(name: CompatTarget.modelName)
        let entities = container.managedObjectModel.entitiesByName
        #expect(Set(entities.keys) == ["TagEntity", "TodoEntity"])
        #expect(entities["TodoEntity"]?.managedObjectClassName == String(reflecting: TodoEntity.self))
        #expect(entities["TodoEntity"]?.relationshipsByName["tags"]?.inverseRelationship?.name == "todos")
        #expect(Bundle.module.url(forResource: CompatTarget.modelName, withExtension: "xcdatamodeld") != nil)
    }

    @Test("the loaded container saves and fetches the generated classes")
    func savesAndFetches() async throws {
        let store = try TestStore()
        let container = store.container
        #expect(container.persistentStoreCoordinator.persistentStores.count == 1)
        #expect(container.persistentStoreCoordinator.persistentStores.first?.type == NSSQLiteStoreType)
        let entityName = try await container.performBackgroundTask { context in
            let todo = TodoEntity(context: context)
            todo.title = "Water plants"
            try context.save()
            return todo.entity.name
        }
        #expect(entityName == "TodoEntity")
        let titles = try await container.performBackgroundTask { context in
            try context.fetch(TodoEntity.fetchRequest()).map { $0.title }
        }
        #expect(titles == ["Water plants"])
    }
}
