import Foundation

/// A tag as the interfaces see it.
public struct TagModel: Codable, Equatable, Sendable, Identifiable {
    public var id: UUID
    public var title: String
    public var createdAt: Date
    public var updatedAt: Date

    public init(id: UUID, title: String, createdAt: Date, updatedAt: Date) {
        self.id = id
        self.title = title
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// Tags in the order every list shows them: by title ignoring case, then by id, so that
    /// the order never depends on how a store happened to return them.
    public static func ordered(_ tags: [TagModel]) -> [TagModel] {
        tags.sorted { lhs, rhs in
            let left = lhs.title.lowercased()
            let right = rhs.title.lowercased()
            if left != right { return left < right }
            if lhs.title != rhs.title { return lhs.title < rhs.title }
            return lhs.id.uuidString < rhs.id.uuidString
        }
    }
}
