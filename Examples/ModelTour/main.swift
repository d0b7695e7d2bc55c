// A tour of Strata: a model built in code, written as an Xcode model file and read back, the
// version hashes that tie a store to its model, and objects of generated-style classes saved
// to a SQLite store in Core Data's layout, fetched and read back after reopening.
import CoreData
import Foundation

final class Todo: NSManagedObject {
    @Managed var title: String?
    @Managed var priority: Int16
    @Managed var tags: Set<Tag>
}

final class Tag: NSManagedObject {
    @Managed var name: String?
}

let model = NSManagedObjectModel {
    Entity("Todo", className: "Todo") {
        Attribute("todoId", .UUIDAttributeType, optional: false)
        Attribute("title", .stringAttributeType)
        Attribute("priority", .integer16AttributeType, optional: false, defaultValue: Int16(1))
        Relationship("tags", to: "Tag", inverse: "todos", toMany: true)
        Unique("todoId")
    }
    Entity("Tag", className: "Tag") {
        Attribute("name", .stringAttributeType)
        Relationship("todos", to: "Todo", inverse: "tags", toMany: true)
    }
}

do {
    try model.validate()
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "model-tour-\(ProcessInfo.processInfo.processIdentifier)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("Todos.xcdatamodeld")
    try model.write(toXcodeModelAt: file)
    let reread = try NSManagedObjectModel.load(contentsOf: file)
    print("Wrote \(file.lastPathComponent) and read it back: equal = \(reread.isEqual(model))")

    for entity in reread.entities {
        let properties = entity.properties.map { property in
            if let relationship = property as? NSRelationshipDescription {
                return "\(property.name) → \(relationship.destinationName ?? "?")\(relationship.isToMany ? " (to-many)" : "")"
            }
            let type = (property as? NSAttributeDescription)?.attributeType.xcodeModelName ?? "?"
            return "\(property.name): \(type)"
        }
        let hash = entity.versionHash.prefix(6).map { String(format: "%02x", $0) }.joined()
        print("  \(entity.name ?? "?") [hash \(hash)…]: \(properties.joined(separator: ", "))")
    }

    let container = NSPersistentContainer(name: "Todos", managedObjectModel: model)
    container.persistentStoreDescriptions = [
        NSPersistentStoreDescription(url: directory.appendingPathComponent("Todos.sqlite"))
    ]
    var loadError: (any Error)?
    container.loadPersistentStores { _, error in loadError = error }
    if let loadError { throw loadError }

    try await container.performBackgroundTask { context in
        let tag = Tag(context: context)
        tag.name = "linux"
        for (title, priority) in [("Run Core Data code on Linux", 3), ("Open an iPhone app's store", 2)] {
            let todo = Todo(context: context)
            todo.setValue(UUID(), forKey: "todoId")
            todo.title = title
            todo.priority = Int16(priority)
            todo.tags = [tag]
        }
        try context.save()
    }
    let request = NSFetchRequest<Todo>(entityName: "Todo")
    request.sortDescriptors = [NSSortDescriptor(key: "priority", ascending: false)]
    for todo in try container.viewContext.fetch(request) {
        print(
            "A Todo: \(todo.title ?? ""), priority \(todo.priority), tags \(todo.tags.compactMap(\.name)), "
                + "id \(todo.objectID.uriRepresentation().absoluteString)")
    }

    let reopened = NSPersistentStoreCoordinator(managedObjectModel: model)
    try reopened.addPersistentStore(
        ofType: NSSQLiteStoreType, configurationName: nil, at: directory.appendingPathComponent("Todos.sqlite"))
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = reopened
    let count = try context.performAndWait { try context.count(for: NSFetchRequest<Todo>(entityName: "Todo")) }
    print("Reopened the store: \(count) todos")
} catch {
    print("error: \(error)")
    exit(1)
}
