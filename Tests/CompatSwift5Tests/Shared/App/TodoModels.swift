import CoreData
import Foundation

/// A to-do as the rest of the app sees it: a value, free of Core Data.
struct TodoModel: Equatable, Sendable {
    var id: UUID
    var title: String
    var isDone: Bool
    var priority: Int
    var createdAt: Date
    var updatedAt: Date
    var completedAt: Date?
    var tagIds: Set<UUID>
}

/// A tag as the rest of the app sees it.
struct TagModel: Equatable, Sendable {
    var id: UUID
    var title: String
    var createdAt: Date
}

/// What the data layer reports when an object it was asked for is not in the store.
enum DataLayerError: Error, Equatable {
    case todoNotFound(UUID)
    case tagNotFound(UUID)
}

extension TodoModel {
    /// The values of a managed to-do; called on its context's queue.
    init(_ entity: TodoEntity) {
        let tags = entity.tags?.allObjects as? [TagEntity] ?? []
        self.init(
            id: entity.todoId ?? UUID(),
            title: entity.title ?? "",
            isDone: entity.isDone,
            priority: Int(entity.priority),
            createdAt: entity.createdAt ?? Date.distantPast,
            updatedAt: entity.updatedAt ?? Date.distantPast,
            completedAt: entity.completedAt,
            tagIds: Set(tags.compactMap { $0.tagId }))
    }
}

extension TagModel {
    /// The values of a managed tag; called on its context's queue.
    init(_ entity: TagEntity) {
        self.init(id: entity.tagId ?? UUID(), title: entity.title ?? "", createdAt: entity.createdAt ?? Date.distantPast)
    }
}
