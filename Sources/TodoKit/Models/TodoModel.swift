import Foundation

/// A to-do as the interfaces see it: a value, free of Core Data, that crosses threads and
/// turns into JSON. The DAOs make these from managed objects and save them back.
public struct TodoModel: Codable, Equatable, Sendable, Identifiable {
    public var id: UUID
    public var title: String
    public var createdAt: Date
    public var updatedAt: Date
    /// When the to-do was completed; `nil` while it is open.
    public var completedAt: Date?
    /// The tags it carries, by title (ignoring case), so that two reads compare equal.
    public var tags: [TagModel]
    /// Where it is to be done, if anywhere.
    public var location: LocationModel?

    public init(
        id: UUID, title: String, createdAt: Date, updatedAt: Date, completedAt: Date? = nil, tags: [TagModel] = [],
        location: LocationModel? = nil
    ) {
        self.id = id
        self.title = title
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.completedAt = completedAt
        self.tags = TagModel.ordered(tags)
        self.location = location
    }

    public var isCompleted: Bool { completedAt != nil }
}
