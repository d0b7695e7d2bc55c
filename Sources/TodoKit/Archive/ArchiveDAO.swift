import CoreData
import Foundation

/// The Core Data work of export and import, which spans every entity and so cannot be left
/// to the per-entity DAOs: each runs in one context, so that an export is one consistent
/// reading and an import one save.
public final class ArchiveDAO: Sendable {
    /// What an import did.
    public struct ImportSummary: Codable, Equatable, Sendable {
        public var todos: Int
        public var tags: Int
        public var locations: Int

        public init(todos: Int, tags: Int, locations: Int) {
            self.todos = todos
            self.tags = tags
            self.locations = locations
        }
    }

    private let persistence: PersistenceController

    public init(persistence: PersistenceController) {
        self.persistence = persistence
    }

    /// Every tag, location and to-do in the store.
    public func export() async throws -> TodoArchive {
        let context = persistence.newTaskContext()
        return try await context.perform {
            let todoRequest: NSFetchRequest<TodoEntity> = TodoEntity.fetchRequest()
            todoRequest.relationshipKeyPathsForPrefetching = ["tags", "location"]
            let tagRequest: NSFetchRequest<TagEntity> = TagEntity.fetchRequest()
            let locationRequest: NSFetchRequest<LocationEntity> = LocationEntity.fetchRequest()
            return TodoArchive(
                tags: try context.fetch(tagRequest).map(TagModel.init),
                locations: try context.fetch(locationRequest).map(LocationModel.init),
                todos: try context.fetch(todoRequest).map(TodoModel.init)
            )
        }
    }

    /// Adds the archive's objects to the store, replacing the values and links of those
    /// whose ids are already there; objects the archive does not name are left alone.
    ///
    /// All or nothing: the archive is checked first (`TodoKitError.invalidArchive` with every
    /// problem), then every object is written in one context and saved once, so a failure at
    /// any point leaves the store as it was.
    public func importArchive(_ archive: TodoArchive) async throws -> ImportSummary {
        let problems = archive.problems()
        guard problems.isEmpty else {
            throw TodoKitError.invalidArchive(problems)
        }
        let context = persistence.newTaskContext()
        return try await context.perform {
            // The objects already in the store, fetched once per entity rather than once per id.
            let storedTags = try Self.stored(TagEntity.fetchRequest(), "tagId", archive.tags.map(\.id), \.tagId, context)
            let storedLocations = try Self.stored(
                LocationEntity.fetchRequest(), "id", archive.locations.map(\.id), \.id, context)
            let storedTodos = try Self.stored(TodoEntity.fetchRequest(), "todoId", archive.todos.map(\.id), \.todoId, context)
            var tags: [UUID: TagEntity] = [:]
            for model in archive.tags {
                let tag = storedTags[model.id] ?? TagEntity(context: context)
                tag.tagId = model.id
                tag.title = model.title
                tag.createdAt = model.createdAt
                tag.updatedAt = model.updatedAt
                tags[model.id] = tag
            }
            var locations: [UUID: LocationEntity] = [:]
            for model in archive.locations {
                let location = storedLocations[model.id] ?? LocationEntity(context: context)
                location.id = model.id
                LocationDAO.copy(model, to: location)
                locations[model.id] = location
            }
            for model in archive.todos {
                let todo = storedTodos[model.id] ?? TodoEntity(context: context)
                todo.todoId = model.id
                todo.title = model.title
                todo.createdAt = model.createdAt
                todo.updatedAt = model.updatedAt
                todo.completedAt = model.completedAt
                todo.tags = NSSet(array: model.tagIds.compactMap { tags[$0] })
                todo.location = model.locationId.flatMap { locations[$0] }
            }
            // One save: one transaction. If it fails, this context and its changes are dropped.
            try context.save()
            return ImportSummary(todos: archive.todos.count, tags: archive.tags.count, locations: archive.locations.count)
        }
    }

    /// The objects the request finds whose id attribute (`key`, read through `id`) is one
    /// of the ids, by id.
    private static func stored<Entity: NSManagedObject>(
        _ request: NSFetchRequest<Entity>, _ key: String, _ ids: [UUID], _ id: KeyPath<Entity, UUID?>,
        _ context: NSManagedObjectContext
    ) throws -> [UUID: Entity] {
        guard !ids.isEmpty else { return [:] }
        request.predicate = NSPredicate(format: "%K IN %@", key, ids)
        var objects: [UUID: Entity] = [:]
        for object in try context.fetch(request) {
            if let value = object[keyPath: id] {
                objects[value] = object
            }
        }
        return objects
    }
}
