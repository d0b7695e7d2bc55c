import CoreData
import Foundation

/// Every Core Data access for to-dos, written as an app's data layer is on Apple's systems:
/// the rest of the app passes and receives `TodoModel` values, and the work runs on
/// background contexts (`performBackgroundTask` in its async and closure forms, and
/// `newBackgroundContext()` with `perform`).
final class TodoDAO: Sendable {
    private let container: NSPersistentContainer

    init(container: NSPersistentContainer) {
        self.container = container
    }

    /// Saves a new to-do with the given tags.
    func create(title: String, priority: Int = 0, tagIds: [UUID] = [], at date: Date = Date()) async throws -> TodoModel {
        try await container.performBackgroundTask { context in
            let todo = TodoEntity(context: context)
            todo.todoId = UUID()
            todo.title = title
            todo.priority = Int16(priority)
            todo.createdAt = date
            todo.updatedAt = date
            if !tagIds.isEmpty {
                todo.addToTags(NSSet(array: try TagDAO.tags(withIds: tagIds, in: context)))
            }
            try context.save()
            return TodoModel(todo)
        }
    }

    /// Saves the title, priority, state and tags of a to-do, and stamps it as updated.
    func update(_ model: TodoModel, at date: Date = Date()) async throws -> TodoModel {
        let context = container.newBackgroundContext()
        return try await context.perform {
            guard let todo = try Self.todo(withId: model.id, in: context) else {
                throw DataLayerError.todoNotFound(model.id)
            }
            todo.title = model.title
            todo.priority = Int16(model.priority)
            if todo.isDone != model.isDone {
                todo.isDone = model.isDone
                todo.completedAt = model.isDone ? date : nil
            }
            todo.removeFromTags(todo.tags ?? [])
            todo.addToTags(NSSet(array: try TagDAO.tags(withIds: Array(model.tagIds), in: context)))
            todo.updatedAt = date
            try context.save()
            return TodoModel(todo)
        }
    }

    /// Deletes a to-do; `completion` gets `nil` or the error, on the background queue.
    func delete(id: UUID, completion: @escaping ((any Error)?) -> Void) {
        container.performBackgroundTask { context in
            do {
                guard let todo = try Self.todo(withId: id, in: context) else {
                    throw DataLayerError.todoNotFound(id)
                }
                context.delete(todo)
                try context.save()
                completion(nil)
            } catch {
                completion(error)
            }
        }
    }

    /// Deletes a to-do.
    func delete(id: UUID) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            delete(id: id) { error in
                if let error {
                    continuation.resume(throwing: error)
                } else {
                    continuation.resume()
                }
            }
        }
    }

    /// The to-do with the given id, if there is one.
    func find(id: UUID) async throws -> TodoModel? {
        try await container.performBackgroundTask { context in
            try Self.todo(withId: id, in: context).map { TodoModel($0) }
        }
    }

    /// A page of to-dos, most recently updated first: those whose title contains `search`
    /// (ignoring case and accents), that carry the tag `tagId`, and only open ones if asked.
    func findMany(
        search: String? = nil, tagId: UUID? = nil, onlyOpen: Bool = false, page: Int = 0, pageSize: Int = 20
    ) async throws -> [TodoModel] {
        let request = Self.request(search: search, tagId: tagId, onlyOpen: onlyOpen)
        request.sortDescriptors = [
            NSSortDescriptor(key: "updatedAt", ascending: false),
            NSSortDescriptor(key: "title", ascending: true),
        ]
        request.fetchLimit = pageSize
        request.fetchOffset = page * pageSize
        request.fetchBatchSize = pageSize
        let context = container.newBackgroundContext()
        return try await context.perform {
            try context.fetch(request).map { TodoModel($0) }
        }
    }

    /// How many to-dos `findMany` would find across all pages.
    func count(search: String? = nil, tagId: UUID? = nil, onlyOpen: Bool = false) async throws -> Int {
        let request = Self.request(search: search, tagId: tagId, onlyOpen: onlyOpen)
        let context = container.newBackgroundContext()
        return try await context.perform {
            try context.count(for: request)
        }
    }

    /// The number of open and done to-dos, keyed by `isDone`: a dictionary fetch grouped by
    /// the attribute, with a `count:` expression.
    func countsByState() async throws -> [Bool: Int] {
        try await container.performBackgroundTask { context in
            let count = NSExpressionDescription()
            count.name = "count"
            count.expression = NSExpression(forFunction: "count:", arguments: [NSExpression(forKeyPath: "todoId")])
            count.expressionResultType = .integer64AttributeType
            let request = NSFetchRequest<NSFetchRequestResult>(entityName: "TodoEntity")
            request.resultType = .dictionaryResultType
            request.propertiesToFetch = ["isDone", count]
            request.propertiesToGroupBy = ["isDone"]
            let rows = try context.fetch(request) as? [[String: Any]] ?? []
            var counts: [Bool: Int] = [:]
            for row in rows {
                if let isDone = row["isDone"] as? Bool, let count = row["count"] as? Int {
                    counts[isDone] = count
                }
            }
            return counts
        }
    }

    /// The request for the to-dos that match the filters, with no order or page.
    private static func request(search: String?, tagId: UUID?, onlyOpen: Bool) -> NSFetchRequest<TodoEntity> {
        var predicates: [NSPredicate] = []
        if let search, !search.isEmpty {
            predicates.append(NSPredicate(format: "title CONTAINS[cd] %@", search))
        }
        if let tagId {
            predicates.append(NSPredicate(format: "ANY tags.tagId == %@", tagId as NSUUID))
        }
        if onlyOpen {
            predicates.append(NSPredicate(format: "isDone == NO"))
        }
        let request: NSFetchRequest<TodoEntity> = TodoEntity.fetchRequest()
        request.predicate = NSCompoundPredicate(andPredicateWithSubpredicates: predicates)
        return request
    }

    /// The managed to-do with the given id, in the context.
    static func todo(withId id: UUID, in context: NSManagedObjectContext) throws -> TodoEntity? {
        let request: NSFetchRequest<TodoEntity> = TodoEntity.fetchRequest()
        request.predicate = NSPredicate(format: "todoId == %@", id as NSUUID)
        request.fetchLimit = 1
        return try context.fetch(request).first
    }
}
