import CoreData
import Foundation

/// The app's stack on a SQLite store in a new temporary folder, which goes away with the
/// value: every test starts with an empty store of its own.
final class TestStore {
    let container: NSPersistentContainer
    private let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "strata-compat-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        container = try PersistenceController(storeURL: folder.appendingPathComponent("Todos.sqlite")).container
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    /// Saves to-dos with the given titles (and tags, by title) in one background context,
    /// and returns their object IDs in order.
    @discardableResult
    func insert(_ todos: [(title: String, priority: Int16, tags: [String])]) throws -> [NSManagedObjectID] {
        let context = container.newBackgroundContext()
        return try context.performAndWait {
            var tags: [String: TagEntity] = [:]
            let objects = todos.enumerated().map { index, row -> TodoEntity in
                let todo = TodoEntity(context: context)
                todo.todoId = UUID()
                todo.title = row.title
                todo.priority = row.priority
                todo.createdAt = Date(timeIntervalSinceReferenceDate: Double(index) * 60)
                todo.updatedAt = todo.createdAt
                for title in row.tags {
                    let tag =
                        tags[title]
                        ?? {
                            let made = TagEntity(context: context)
                            made.tagId = UUID()
                            made.title = title
                            tags[title] = made
                            return made
                        }()
                    todo.addToTags(tag)
                }
                return todo
            }
            try context.save()
            return objects.map(\.objectID)
        }
    }
}
