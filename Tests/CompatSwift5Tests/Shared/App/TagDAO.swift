import CoreData
import Foundation

/// Every Core Data access for tags, written as an app's data layer is on Apple's systems.
final class TagDAO: Sendable {
    private let container: NSPersistentContainer

    init(container: NSPersistentContainer) {
        self.container = container
    }

    /// Saves a new tag.
    func create(title: String, at date: Date = Date()) async throws -> TagModel {
        try await container.performBackgroundTask { context in
            let tag = TagEntity(context: context)
            tag.tagId = UUID()
            tag.title = title
            tag.createdAt = date
            try context.save()
            return TagModel(tag)
        }
    }

    /// Renames a tag.
    func rename(id: UUID, to title: String) async throws -> TagModel {
        let context = container.newBackgroundContext()
        return try await context.perform {
            guard let tag = try Self.tags(withIds: [id], in: context).first else {
                throw DataLayerError.tagNotFound(id)
            }
            tag.title = title
            try context.save()
            return TagModel(tag)
        }
    }

    /// Deletes a tag; the to-dos that carried it stay, without it.
    func delete(id: UUID) async throws {
        try await container.performBackgroundTask { context in
            guard let tag = try Self.tags(withIds: [id], in: context).first else {
                throw DataLayerError.tagNotFound(id)
            }
            context.delete(tag)
            try context.save()
        }
    }

    /// The tag with the given id, if there is one.
    func find(id: UUID) async throws -> TagModel? {
        try await container.performBackgroundTask { context in
            try Self.tags(withIds: [id], in: context).first.map { TagModel($0) }
        }
    }

    /// A page of tags in title order (ignoring case), those whose title starts with
    /// `prefix` if one is given.
    func findMany(prefix: String? = nil, page: Int = 0, pageSize: Int = 50) async throws -> [TagModel] {
        let request: NSFetchRequest<TagEntity> = TagEntity.fetchRequest()
        if let prefix {
            request.predicate = NSPredicate(format: "title BEGINSWITH[cd] %@", prefix)
        }
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true, selector: Selector("caseInsensitiveCompare:"))]
        request.fetchLimit = pageSize
        request.fetchOffset = page * pageSize
        let context = container.newBackgroundContext()
        return try await context.perform {
            try context.fetch(request).map { TagModel($0) }
        }
    }

    /// Every tag in title order, read on the main queue's context, as a screen shows them.
    @MainActor
    func allTags() throws -> [TagModel] {
        let request: NSFetchRequest<TagEntity> = TagEntity.fetchRequest()
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        return try container.viewContext.fetch(request).map { TagModel($0) }
    }

    /// How many to-dos carry each tag, by tag title: a dictionary fetch whose
    /// `NSExpressionDescription` counts the to-many relationship.
    func todoCountsByTag() async throws -> [String: Int] {
        try await container.performBackgroundTask { context in
            let todoCount = NSExpressionDescription()
            todoCount.name = "todoCount"
            todoCount.expression = NSExpression(forKeyPath: "todos.@count")
            todoCount.expressionResultType = .integer64AttributeType
            let request = NSFetchRequest<NSFetchRequestResult>(entityName: "TagEntity")
            request.resultType = .dictionaryResultType
            request.propertiesToFetch = ["title", todoCount]
            let rows = try context.fetch(request) as? [[String: Any]] ?? []
            var counts: [String: Int] = [:]
            for row in rows {
                if let title = row["title"] as? String, let count = row["todoCount"] as? Int {
                    counts[title] = count
                }
            }
            return counts
        }
    }

    /// The managed tags with the given ids, in the context.
    static func tags(withIds ids: [UUID], in context: NSManagedObjectContext) throws -> [TagEntity] {
        guard !ids.isEmpty else { return [] }
        let request: NSFetchRequest<TagEntity> = TagEntity.fetchRequest()
        request.predicate = NSPredicate(format: "tagId IN %@", ids)
        return try context.fetch(request)
    }
}
