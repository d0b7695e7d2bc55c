import CoreData
import Foundation
import Testing

/// COMPAT 2: the generated `fetchRequest()` of an entity class is typed and chosen without
/// ambiguity over `NSManagedObject.fetchRequest()`, in every way app code spells it.
@Suite("COMPAT 2: generated fetchRequest()")
struct GeneratedFetchRequestTests {
    @Test("TagEntity.fetchRequest() is NSFetchRequest<TagEntity> without annotation")
    func typedWithoutAnnotation() {
        let request = TagEntity.fetchRequest()
        #expect(type(of: request) == NSFetchRequest<TagEntity>.self)
        #expect(request.entityName == "TagEntity")
        let annotated: NSFetchRequest<TodoEntity> = TodoEntity.fetchRequest()
        #expect(annotated.entityName == "TodoEntity")
    }

    @Test("NSFetchRequest<NSFetchRequestResult> = TodoEntity.fetchRequest() takes the untyped base request")
    func untypedByAnnotation() {
        let request: NSFetchRequest<NSFetchRequestResult> = TodoEntity.fetchRequest()
        #expect(request.entityName == "TodoEntity")
    }

    @Test("the generated requests fetch the generated classes")
    func fetchesGeneratedClasses() throws {
        let store = try TestStore()
        try store.insert([(title: "Call Ann", priority: 1, tags: ["home", "phone"])])
        let context = store.container.newBackgroundContext()
        try context.performAndWait {
            let tags = try context.fetch(TagEntity.fetchRequest())
            #expect(tags.compactMap { $0.title }.sorted() == ["home", "phone"])
            let todos: [TodoEntity] = try context.fetch(TodoEntity.fetchRequest())
            #expect(todos.map { $0.title } == ["Call Ann"])
            let untyped: NSFetchRequest<NSFetchRequestResult> = TodoEntity.fetchRequest()
            let objects = try context.fetch(untyped)
            #expect((objects as? [TodoEntity])?.first === todos.first)
        }
    }
}
