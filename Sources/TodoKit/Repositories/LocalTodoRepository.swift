import Foundation

/// The to-do repository on the local store alone.
public final class LocalTodoRepository: TodoRepository {
    private let todoDAO: TodoDAO
    private let locationDAO: LocationDAO

    public init(persistence: PersistenceController) {
        todoDAO = TodoDAO(persistence: persistence)
        locationDAO = LocationDAO(persistence: persistence)
    }

    public func add(title: String, tagIds: [UUID] = []) async throws -> TodoModel {
        try await todoDAO.create(title: try Self.checked(title), tagIds: tagIds)
    }

    public func todo(id: UUID) async throws -> TodoModel {
        guard let todo = try await todoDAO.find(id: id) else {
            throw TodoKitError.todoNotFound(id)
        }
        return todo
    }

    public func todos(matching query: TodoQuery) async throws -> TodoPage {
        try await todoDAO.findMany(query)
    }

    public func save(_ todo: TodoModel) async throws -> TodoModel {
        var todo = todo
        todo.title = try Self.checked(todo.title)
        if let problem = todo.location?.problem {
            throw TodoKitError.invalidLocation(problem)
        }
        return try await todoDAO.update(todo)
    }

    public func locate(id: UUID, at place: LocationModel?) async throws -> TodoModel {
        var todo = try await todo(id: id)
        if let place {
            if let problem = place.problem {
                throw TodoKitError.invalidLocation(problem)
            }
            todo.location = try await locationDAO.find(samePlaceAs: place) ?? place
        } else {
            todo.location = nil
        }
        return try await save(todo)
    }

    public func delete(id: UUID) async throws {
        try await todoDAO.delete(id: id)
    }

    public func resolve(_ reference: String) async throws -> UUID {
        try IdReference.resolve(reference, among: try await todoDAO.allIds(), kind: "to-do")
    }

    public func allIds() async throws -> [UUID] {
        try await todoDAO.allIds()
    }

    /// The title without surrounding white space; throws for one that is left empty.
    static func checked(_ title: String) throws -> String {
        let trimmed = title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else {
            throw TodoKitError.emptyTitle
        }
        return trimmed
    }
}
