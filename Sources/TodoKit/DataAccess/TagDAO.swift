import CoreData
import Foundation

/// Every Core Data access for tags. The rest of the program passes and receives `TagModel`
/// values; the work runs on background contexts.
public final class TagDAO: Sendable {
    private let persistence: PersistenceController

    public init(persistence: PersistenceController) {
        self.persistence = persistence
    }

    /// Saves a new tag.
    public func create(title: String, at date: Date = Date()) async throws -> TagModel {
        try await persistence.performBackgroundTask { context in
            let tag = TagEntity(context: context)
            tag.tagId = UUID()
            tag.title = title
            tag.createdAt = date
            tag.updatedAt = date
            try context.save()
            return TagModel(tag)
        }
    }

    /// Saves a tag's title, and stamps it as updated, when it changed (only what differs is
    /// written, as `TodoDAO.update` explains).
    public func update(_ model: TagModel, at date: Date = Date()) async throws -> TagModel {
        let context = persistence.newTaskContext()
        return try await context.perform {
            guard let tag = try Self.tag(withId: model.id, in: context) else {
                throw TodoKitError.tagNotFound(model.id)
            }
            guard tag.title != model.title else { return TagModel(tag) }
            tag.title = model.title
            tag.updatedAt = date
            try context.save()
            return TagModel(tag)
        }
    }

    /// Deletes a tag; the to-dos that carried it stay, without it (the relationship's delete
    /// rule is Nullify).
    public func delete(id: UUID) async throws {
        let context = persistence.newTaskContext()
        try await context.perform {
            guard let tag = try Self.tag(withId: id, in: context) else {
                throw TodoKitError.tagNotFound(id)
            }
            context.delete(tag)
            try context.save()
        }
    }

    /// The tag with the id, if there is one.
    public func find(id: UUID) async throws -> TagModel? {
        let context = persistence.newTaskContext()
        return try await context.perform {
            try Self.tag(withId: id, in: context).map(TagModel.init)
        }
    }

    /// The tag with the title, ignoring case and accents, if there is one.
    public func find(title: String) async throws -> TagModel? {
        let request: NSFetchRequest<TagEntity> = TagEntity.fetchRequest()
        request.predicate = NSPredicate(format: "title ==[cd] %@", title)
        request.sortDescriptors = [NSSortDescriptor(key: "createdAt", ascending: true)]
        request.fetchLimit = 1
        let context = persistence.newTaskContext()
        return try await context.perform {
            try context.fetch(request).first.map(TagModel.init)
        }
    }

    /// A page (from 1) of tags in title order ignoring case, those whose title contains
    /// `search` ignoring case and accents if given.
    public func findMany(search: String? = nil, page: Int = 1, pageSize: Int = 100) async throws -> [TagModel] {
        let request: NSFetchRequest<TagEntity> = TagEntity.fetchRequest()
        if let search, !search.isEmpty {
            request.predicate = NSPredicate(format: "title CONTAINS[cd] %@", search)
        }
        request.sortDescriptors = [
            // `Selector("…")`: Linux has no `#selector`, which needs the Objective-C runtime.
            NSSortDescriptor(key: "title", ascending: true, selector: Selector("caseInsensitiveCompare:")),
            NSSortDescriptor(key: "createdAt", ascending: true),
        ]
        request.fetchOffset = max(0, page - 1) * pageSize
        request.fetchLimit = pageSize
        let context = persistence.newTaskContext()
        return try await context.perform {
            try context.fetch(request).map(TagModel.init)
        }
    }

    /// How many to-dos carry each tag, by tag id: a dictionary fetch whose expression counts
    /// the to-many relationship in the store, without loading a single to-do.
    public func todoCounts() async throws -> [UUID: Int] {
        let count = NSExpressionDescription()
        count.name = "count"
        count.expression = NSExpression(forKeyPath: "todos.@count")
        count.expressionResultType = .integer64AttributeType
        let request = NSFetchRequest<NSDictionary>(entityName: "Tag")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = ["tagId", count]
        let context = persistence.newTaskContext()
        return try await context.perform {
            var counts: [UUID: Int] = [:]
            for row in try context.fetch(request) {
                if let id = row["tagId"] as? UUID, let count = row["count"] as? Int {
                    counts[id] = count
                }
            }
            return counts
        }
    }

    /// The ids of every tag, for matching the short ids people type.
    public func allIds() async throws -> [UUID] {
        let request = NSFetchRequest<NSDictionary>(entityName: "Tag")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = ["tagId"]
        let context = persistence.newTaskContext()
        return try await context.perform {
            try context.fetch(request).compactMap { $0["tagId"] as? UUID }
        }
    }

    /// The managed tag with the id, in the context.
    static func tag(withId id: UUID, in context: NSManagedObjectContext) throws -> TagEntity? {
        let request: NSFetchRequest<TagEntity> = TagEntity.fetchRequest()
        request.predicate = NSPredicate(format: "tagId == %@", id as CVarArg)
        request.fetchLimit = 1
        return try context.fetch(request).first
    }

    /// The managed tags with the ids, in the context; throws for the first id no tag has.
    static func tags(withIds ids: [UUID], in context: NSManagedObjectContext) throws -> [TagEntity] {
        guard !ids.isEmpty else { return [] }
        let request: NSFetchRequest<TagEntity> = TagEntity.fetchRequest()
        request.predicate = NSPredicate(format: "tagId IN %@", ids)
        let tags = try context.fetch(request)
        let found = Set(tags.compactMap(\.tagId))
        if let missing = ids.first(where: { !found.contains($0) }) {
            throw TodoKitError.tagNotFound(missing)
        }
        return tags
    }
}
