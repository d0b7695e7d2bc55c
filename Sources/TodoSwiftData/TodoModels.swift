import Foundation
import SwiftData

// The to-do list's model a second time, in SwiftData: the same entities, attributes,
// relationships and unique ids as `Todos.xcdatamodeld` (TodoKit), so that the same store
// opens through either API without a migration — the entity version hashes agree.

/// A to-do (entity `Todo`).
@Model
public final class Todo {
    #Unique<Todo>([\.todoId])
    #Index<Todo>([\.updatedAt])

    public var todoId: UUID
    public var title: String
    public var createdAt: Date
    public var updatedAt: Date
    public var completedAt: Date?
    @Relationship(deleteRule: .nullify, inverse: \Tag.todos) public var tags: [Tag] = []
    @Relationship(deleteRule: .nullify, inverse: \Location.todos) public var location: Location?

    public init(title: String, at date: Date = Date()) {
        todoId = UUID()
        self.title = title
        createdAt = date
        updatedAt = date
    }
}

/// A tag (entity `Tag`).
@Model
public final class Tag {
    @Attribute(.unique) public var tagId: UUID
    public var title: String
    public var createdAt: Date
    public var updatedAt: Date
    public var todos: [Todo] = []

    public init(title: String, at date: Date = Date()) {
        tagId = UUID()
        self.title = title
        createdAt = date
        updatedAt = date
    }
}

/// A place (entity `Location`).
@Model
public final class Location {
    @Attribute(.unique) public var id: UUID
    public var latitude: Double = 0.0
    public var longitude: Double = 0.0
    public var altitude: Double?
    public var placeName: String?
    public var todos: [Todo] = []

    public init(latitude: Double, longitude: Double, altitude: Double? = nil, placeName: String? = nil) {
        id = UUID()
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.placeName = placeName
    }
}
