import CoreData
import Foundation

// Conversions from managed objects to value models, called on the object's context queue.
// The model file makes ids, titles and dates required, so the fallbacks only ever serve an
// object that has not passed a save.

extension TodoModel {
    /// The values of a managed to-do, with its tags and location.
    init(_ entity: TodoEntity) {
        let tags = entity.tags?.allObjects as? [TagEntity] ?? []
        self.init(
            id: entity.todoId ?? UUID(),
            title: entity.title ?? "",
            createdAt: entity.createdAt ?? .distantPast,
            updatedAt: entity.updatedAt ?? .distantPast,
            completedAt: entity.completedAt,
            tags: tags.map(TagModel.init),
            location: entity.location.map(LocationModel.init)
        )
    }
}

extension TagModel {
    /// The values of a managed tag.
    init(_ entity: TagEntity) {
        self.init(
            id: entity.tagId ?? UUID(),
            title: entity.title ?? "",
            createdAt: entity.createdAt ?? .distantPast,
            updatedAt: entity.updatedAt ?? .distantPast
        )
    }
}

extension LocationModel {
    /// The values of a managed location.
    init(_ entity: LocationEntity) {
        self.init(
            id: entity.id ?? UUID(),
            latitude: entity.latitude,
            longitude: entity.longitude,
            altitude: entity.altitude?.doubleValue,
            placeName: entity.placeName
        )
    }
}
