// A tour of Strata's model layer: a model built in code, written as an Xcode model file and
// read back, objects of a generated-style class, and the version hashes that tie a store to
// its model.
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

    let todo = Todo(entity: model.entitiesByName["Todo"]!, insertInto: nil)
    let tag = Tag(entity: model.entitiesByName["Tag"]!, insertInto: nil)
    tag.name = "linux"
    todo.title = "Run Core Data code on Linux"
    todo.tags = [tag]
    print("A Todo: \(todo.title ?? ""), priority \(todo.priority), tags \(todo.tags.compactMap(\.name))")
} catch {
    print("error: \(error)")
    exit(1)
}
