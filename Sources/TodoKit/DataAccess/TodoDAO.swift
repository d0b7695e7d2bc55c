import CoreData
import Foundation

/// Every Core Data access for to-dos, written as an app's data layer is on Apple's systems:
/// the rest of the program passes and receives `TodoModel` values, and each piece of work
/// runs on a background context of its own.
public final class TodoDAO: Sendable {
    private let persistence: PersistenceController

    public init(persistence: PersistenceController) {
        self.persistence = persistence
    }

    /// Saves a new to-do with the given tags (which must exist) and location (the stored
    /// one with its id, or a new one).
    public func create(
        title: String, tagIds: [UUID] = [], location: LocationModel? = nil, at date: Date = Date()
    ) async throws -> TodoModel {
        let context = persistence.newTaskContext()
        return try await context.perform {
            let todo = TodoEntity(context: context)
            todo.todoId = UUID()
            todo.title = title
            todo.createdAt = date
            todo.updatedAt = date
            try Self.link(todo, toTags: tagIds, location: location, in: context)
            try context.save()
            return TodoModel(todo)
        }
    }

    /// Saves a to-do's title, completion, tags and location as the model has them, and
    /// stamps it as updated when any of them changed. A location the to-do leaves is deleted
    /// if no to-do is there.
    ///
    /// Only what differs is written: a property set to the value it has is still a change to
    /// Core Data (history names it), and a synced store then tells other devices of a write
    /// nobody made.
    public func update(_ model: TodoModel, at date: Date = Date()) async throws -> TodoModel {
        let context = persistence.newTaskContext()
        return try await context.perform {
            guard let todo = try Self.todo(withId: model.id, in: context) else {
                throw TodoKitError.todoNotFound(model.id)
            }
            if todo.title != model.title { todo.title = model.title }
            if todo.completedAt != model.completedAt { todo.completedAt = model.completedAt }
            try Self.link(todo, toTags: model.tags.map(\.id), location: model.location, in: context)
            guard context.hasChanges else { return TodoModel(todo) }
            todo.updatedAt = date
            try context.save()
            return TodoModel(todo)
        }
    }

    /// Deletes a to-do, and its location if no other to-do is there; its tags stay.
    public func delete(id: UUID) async throws {
        let context = persistence.newTaskContext()
        try await context.perform {
            guard let todo = try Self.todo(withId: id, in: context) else {
                throw TodoKitError.todoNotFound(id)
            }
            let location = todo.location
            context.delete(todo)
            if let location {
                LocationDAO.deleteIfUnused(location, in: context)
            }
            try context.save()
        }
    }

    /// The to-do with the id, if there is one.
    public func find(id: UUID) async throws -> TodoModel? {
        try await persistence.performBackgroundTask { context in
            try Self.todo(withId: id, in: context).map(TodoModel.init)
        }
    }

    /// A page of the to-dos that match the query, most recently updated first, and how many
    /// match in all.
    public func findMany(_ query: TodoQuery) async throws -> TodoPage {
        let pageSize = max(1, query.pageSize)
        let page = max(1, query.page)
        let request: NSFetchRequest<TodoEntity> = TodoEntity.fetchRequest()
        request.predicate = Self.predicate(for: query)
        // Newest update first; creation and id break ties, so that pages never overlap.
        request.sortDescriptors = [
            NSSortDescriptor(keyPath: \TodoEntity.updatedAt, ascending: false),
            NSSortDescriptor(keyPath: \TodoEntity.createdAt, ascending: false),
            NSSortDescriptor(keyPath: \TodoEntity.todoId, ascending: true),
        ]
        request.fetchOffset = (page - 1) * pageSize
        request.fetchLimit = pageSize
        request.relationshipKeyPathsForPrefetching = ["tags", "location"]
        let countRequest: NSFetchRequest<TodoEntity> = TodoEntity.fetchRequest()
        countRequest.predicate = request.predicate
        let context = persistence.newTaskContext()
        return try await context.perform {
            let todos = try context.fetch(request).map(TodoModel.init)
            let total = try context.count(for: countRequest)
            return TodoPage(todos: todos, page: page, pageSize: pageSize, total: total)
        }
    }

    /// The ids of every to-do, for matching the short ids people type.
    public func allIds() async throws -> [UUID] {
        let request = NSFetchRequest<NSDictionary>(entityName: "Todo")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = ["todoId"]
        let context = persistence.newTaskContext()
        return try await context.perform {
            try context.fetch(request).compactMap { $0["todoId"] as? UUID }
        }
    }

    /// The filter of a query: the title search ignores case and accents (`[cd]`), and the
    /// tag filter looks through the to-many relationship (`ANY`).
    private static func predicate(for query: TodoQuery) -> NSPredicate? {
        var predicates: [NSPredicate] = []
        if let search = query.search?.trimmingCharacters(in: .whitespaces), !search.isEmpty {
            predicates.append(NSPredicate(format: "title CONTAINS[cd] %@", search))
        }
        if let tagId = query.tagId {
            predicates.append(NSPredicate(format: "ANY tags.tagId == %@", tagId as CVarArg))
        }
        return predicates.isEmpty ? nil : NSCompoundPredicate(andPredicateWithSubpredicates: predicates)
    }

    /// Makes the to-do's tags exactly the given ones and its location the given one, through
    /// the generated accessors, so that the inverse relationships follow.
    private static func link(
        _ todo: TodoEntity, toTags tagIds: [UUID], location: LocationModel?, in context: NSManagedObjectContext
    ) throws {
        let wanted = try TagDAO.tags(withIds: tagIds, in: context)
        let current = todo.tags?.allObjects as? [TagEntity] ?? []
        let stale = current.filter { !wanted.contains($0) }
        let added = wanted.filter { !current.contains($0) }
        if !stale.isEmpty {
            todo.removeFromTags(NSSet(array: stale))
        }
        if !added.isEmpty {
            todo.addToTags(NSSet(array: added))
        }
        let previous = todo.location
        let wantedLocation = try LocationDAO.location(for: location, in: context)
        if wantedLocation != previous { todo.location = wantedLocation }
        if let previous, previous != todo.location {
            LocationDAO.deleteIfUnused(previous, in: context)
        }
    }

    /// The managed to-do with the id, in the context.
    static func todo(withId id: UUID, in context: NSManagedObjectContext) throws -> TodoEntity? {
        let request: NSFetchRequest<TodoEntity> = TodoEntity.fetchRequest()
        request.predicate = NSPredicate(format: "todoId == %@", id as CVarArg)
        request.fetchLimit = 1
        return try context.fetch(request).first
    }
}
