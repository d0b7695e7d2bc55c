import Foundation
import SwiftData
import TodoKit

/// The to-do list's data layer in SwiftData: what TodoKit's DAOs do over Core Data, written
/// with `@Model` classes and a `ModelContext`, on the same store file. Answers are TodoKit's
/// value models, so that either layer's results compare.
///
/// ```swift
/// let library = try TodoLibrary(url: PersistenceController.standardStoreURL)
/// let todo = try library.add(title: "Buy milk", tags: ["home"])
/// ```
public final class TodoLibrary {
    public let container: ModelContainer
    public let context: ModelContext

    /// The library over the store at the URL (created when absent).
    public init(url: URL) throws {
        container = try ModelContainer(for: Todo.self, configurations: ModelConfiguration(url: url))
        context = ModelContext(container)
        context.author = "swiftdata"
    }

    /// Adds a to-do with the tags of these titles (made when no tag has the title, ignoring case).
    @discardableResult
    public func add(title: String, tags titles: [String] = [], at date: Date = Date()) throws -> TodoModel {
        let todo = Todo(title: title, at: date)
        context.insert(todo)
        todo.tags = try titles.map { try tag(titled: $0, at: date) }
        try context.save()
        return Self.model(of: todo)
    }

    /// The to-dos, open ones first, each group newest first (as `todo list` shows them).
    public func todos(includingCompleted: Bool = true) throws -> [TodoModel] {
        var descriptor = FetchDescriptor<Todo>(sortBy: [SortDescriptor(\.updatedAt, order: .reverse)])
        if !includingCompleted { descriptor.predicate = #Predicate { $0.completedAt == nil } }
        let todos = try context.fetch(descriptor)
        return (todos.filter { $0.completedAt == nil } + todos.filter { $0.completedAt != nil }).map(Self.model(of:))
    }

    /// The to-dos carrying a tag of this title.
    public func todos(taggedWith title: String) throws -> [TodoModel] {
        let folded = title.lowercased()
        return try todos().filter { todo in todo.tags.contains { $0.title.lowercased() == folded } }
    }

    /// Marks a to-do done.
    @discardableResult
    public func complete(id: UUID, at date: Date = Date()) throws -> TodoModel {
        let todo = try self.todo(id: id)
        todo.completedAt = date
        todo.updatedAt = date
        try context.save()
        return Self.model(of: todo)
    }

    /// Sets where a to-do is to be done.
    @discardableResult
    public func locate(id: UUID, at place: LocationModel, at date: Date = Date()) throws -> TodoModel {
        let todo = try self.todo(id: id)
        let location = Location(
            latitude: place.latitude, longitude: place.longitude, altitude: place.altitude, placeName: place.placeName)
        location.id = place.id
        todo.location = location
        todo.updatedAt = date
        try context.save()
        return Self.model(of: todo)
    }

    /// Deletes a to-do (its tags and place stay).
    public func delete(id: UUID) throws {
        context.delete(try todo(id: id))
        try context.save()
    }

    private func todo(id: UUID) throws -> Todo {
        let found = try context.fetch(FetchDescriptor<Todo>(predicate: #Predicate { $0.todoId == id }))
        guard let todo = found.first else { throw TodoLibraryError.noTodo(id) }
        return todo
    }

    private func tag(titled title: String, at date: Date) throws -> Tag {
        let folded = title.lowercased()
        if let tag = try context.fetch(FetchDescriptor<Tag>()).first(where: { $0.title.lowercased() == folded }) {
            return tag
        }
        let tag = Tag(title: title, at: date)
        context.insert(tag)
        return tag
    }

    static func model(of todo: Todo) -> TodoModel {
        TodoModel(
            id: todo.todoId, title: todo.title, createdAt: todo.createdAt, updatedAt: todo.updatedAt,
            completedAt: todo.completedAt,
            tags: todo.tags.map { TagModel(id: $0.tagId, title: $0.title, createdAt: $0.createdAt, updatedAt: $0.updatedAt) },
            location: todo.location.map {
                LocationModel(
                    id: $0.id, latitude: $0.latitude, longitude: $0.longitude, altitude: $0.altitude, placeName: $0.placeName)
            })
    }
}

public enum TodoLibraryError: Error, Equatable, CustomStringConvertible {
    case noTodo(UUID)

    public var description: String {
        switch self {
        case .noTodo(let id): "No to-do has the id \(id.uuidString)."
        }
    }
}
