import CoreData
import Foundation

/// Every Core Data access for locations. Locations belong to the to-dos that point at them:
/// the to-do DAO links them, and removes one when its last to-do leaves it.
public final class LocationDAO: Sendable {
    private let persistence: PersistenceController

    public init(persistence: PersistenceController) {
        self.persistence = persistence
    }

    /// Saves a new location with the model's values and id.
    public func create(_ model: LocationModel) async throws -> LocationModel {
        try await persistence.performBackgroundTask { context in
            let location = LocationEntity(context: context)
            location.id = model.id
            Self.copy(model, to: location)
            try context.save()
            return LocationModel(location)
        }
    }

    /// Saves a location's coordinates and name; every to-do there moves with it.
    public func update(_ model: LocationModel) async throws -> LocationModel {
        let context = persistence.newTaskContext()
        return try await context.perform {
            guard let location = try Self.location(withId: model.id, in: context) else {
                throw TodoKitError.locationNotFound(model.id)
            }
            Self.copy(model, to: location)
            try context.save()
            return LocationModel(location)
        }
    }

    /// Deletes a location; its to-dos stay, with no location (Nullify).
    public func delete(id: UUID) async throws {
        let context = persistence.newTaskContext()
        try await context.perform {
            guard let location = try Self.location(withId: id, in: context) else {
                throw TodoKitError.locationNotFound(id)
            }
            context.delete(location)
            try context.save()
        }
    }

    /// The location with the id, if there is one.
    public func find(id: UUID) async throws -> LocationModel? {
        let context = persistence.newTaskContext()
        return try await context.perform {
            try Self.location(withId: id, in: context).map(LocationModel.init)
        }
    }

    /// A location at the same place as the model (equal coordinates, altitude and name), so
    /// that to-dos located at one place share it.
    public func find(samePlaceAs model: LocationModel) async throws -> LocationModel? {
        var predicates = [
            NSPredicate(format: "latitude == %@", NSNumber(value: model.latitude)),
            NSPredicate(format: "longitude == %@", NSNumber(value: model.longitude)),
        ]
        if let altitude = model.altitude {
            predicates.append(NSPredicate(format: "altitude == %@", NSNumber(value: altitude)))
        } else {
            predicates.append(NSPredicate(format: "altitude == nil"))
        }
        if let placeName = model.placeName {
            predicates.append(NSPredicate(format: "placeName == %@", placeName))
        } else {
            predicates.append(NSPredicate(format: "placeName == nil"))
        }
        let request: NSFetchRequest<LocationEntity> = LocationEntity.fetchRequest()
        request.predicate = NSCompoundPredicate(andPredicateWithSubpredicates: predicates)
        request.fetchLimit = 1
        let context = persistence.newTaskContext()
        return try await context.perform {
            try context.fetch(request).first.map(LocationModel.init)
        }
    }

    /// A page (from 1) of locations by place name, those whose name contains `search`
    /// ignoring case and accents if given.
    public func findMany(search: String? = nil, page: Int = 1, pageSize: Int = 100) async throws -> [LocationModel] {
        let request: NSFetchRequest<LocationEntity> = LocationEntity.fetchRequest()
        if let search, !search.isEmpty {
            request.predicate = NSPredicate(format: "placeName CONTAINS[cd] %@", search)
        }
        request.sortDescriptors = [
            NSSortDescriptor(key: "placeName", ascending: true, selector: Selector("caseInsensitiveCompare:")),
            NSSortDescriptor(key: "latitude", ascending: true),
            NSSortDescriptor(key: "longitude", ascending: true),
        ]
        request.fetchOffset = max(0, page - 1) * pageSize
        request.fetchLimit = pageSize
        let context = persistence.newTaskContext()
        return try await context.perform {
            try context.fetch(request).map(LocationModel.init)
        }
    }

    /// The managed location with the id, in the context.
    static func location(withId id: UUID, in context: NSManagedObjectContext) throws -> LocationEntity? {
        let request: NSFetchRequest<LocationEntity> = LocationEntity.fetchRequest()
        request.predicate = NSPredicate(format: "id == %@", id as CVarArg)
        request.fetchLimit = 1
        return try context.fetch(request).first
    }

    /// The managed location for a to-do's location value: the stored one with its id, or a
    /// new one with its values (a to-do saved with a place not yet in the store).
    static func location(for model: LocationModel?, in context: NSManagedObjectContext) throws -> LocationEntity? {
        guard let model else { return nil }
        if let location = try location(withId: model.id, in: context) {
            return location
        }
        let location = LocationEntity(context: context)
        location.id = model.id
        copy(model, to: location)
        return location
    }

    /// Deletes the location if no to-do (left in the context) is there any more.
    static func deleteIfUnused(_ location: LocationEntity, in context: NSManagedObjectContext) {
        let todos = location.todos?.allObjects as? [TodoEntity] ?? []
        if todos.allSatisfy(\.isDeleted) {
            context.delete(location)
        }
    }

    /// Writes the model's coordinates and name, each only when it differs (as `TodoDAO.update`
    /// explains).
    static func copy(_ model: LocationModel, to location: LocationEntity) {
        if location.latitude != model.latitude { location.latitude = model.latitude }
        if location.longitude != model.longitude { location.longitude = model.longitude }
        if location.altitude?.doubleValue != model.altitude { location.altitude = model.altitude.map { NSNumber(value: $0) } }
        if location.placeName != model.placeName { location.placeName = model.placeName }
    }
}
