import Foundation

/// What the interfaces ask of to-dos (with their locations, which belong to them). A
/// protocol, so that the sync service can later stand behind it: the interfaces never know
/// whether an answer came from the local store or from the server.
public protocol TodoRepository: Sendable {
    /// Saves a new to-do with the tags.
    func add(title: String, tagIds: [UUID]) async throws -> TodoModel
    /// The to-do; throws `TodoKitError.todoNotFound`.
    func todo(id: UUID) async throws -> TodoModel
    /// A page of to-dos, most recently updated first.
    func todos(matching query: TodoQuery) async throws -> TodoPage
    /// Saves the to-do's title, completion, tags and location (a location not yet stored is
    /// added), and stamps it as updated.
    func save(_ todo: TodoModel) async throws -> TodoModel
    /// Puts the to-do at the place, reusing a stored location with the same values, or takes
    /// its location away (`nil`).
    func locate(id: UUID, at place: LocationModel?) async throws -> TodoModel
    func delete(id: UUID) async throws
    /// The id a person typed: an unambiguous start of one (`IdReference`).
    func resolve(_ reference: String) async throws -> UUID
    /// Every to-do's id, for showing short ids.
    func allIds() async throws -> [UUID]
}

extension TodoRepository {
    /// Gives the to-do a new title.
    public func rename(id: UUID, to title: String) async throws -> TodoModel {
        var todo = try await todo(id: id)
        todo.title = title
        return try await save(todo)
    }

    /// Marks the to-do done, now (or keeps the time it was done at).
    public func complete(id: UUID, at date: Date = Date()) async throws -> TodoModel {
        var todo = try await todo(id: id)
        todo.completedAt = todo.completedAt ?? date
        return try await save(todo)
    }

    /// Marks the to-do open again.
    public func reopen(id: UUID) async throws -> TodoModel {
        var todo = try await todo(id: id)
        todo.completedAt = nil
        return try await save(todo)
    }

    /// Adds the tags the to-do does not carry yet.
    public func tag(id: UUID, with tags: [TagModel]) async throws -> TodoModel {
        var todo = try await todo(id: id)
        let carried = Set(todo.tags.map(\.id))
        todo.tags += tags.filter { !carried.contains($0.id) }
        return try await save(todo)
    }

    /// Removes the tags from the to-do (those it does not carry are ignored).
    public func untag(id: UUID, removing tags: [TagModel]) async throws -> TodoModel {
        var todo = try await todo(id: id)
        let removed = Set(tags.map(\.id))
        todo.tags.removeAll { removed.contains($0.id) }
        return try await save(todo)
    }
}
