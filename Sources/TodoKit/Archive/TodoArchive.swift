import Foundation

/// The whole graph as one JSON document: every tag, every location and every to-do, the
/// to-dos naming their tags and location by id. `export` writes it and `import` reads it.
///
/// ```json
/// { "version": 1,
///   "tags": [{ "id": "…", "title": "home", "createdAt": "2025-11-16T15:33:20.123Z", "updatedAt": … }],
///   "locations": [{ "id": "…", "latitude": 48.854, "longitude": 2.3325, "placeName": "Café de Flore" }],
///   "todos": [{ "id": "…", "title": "…", "createdAt": …, "updatedAt": …, "tagIds": ["…"], "locationId": "…" }] }
/// ```
///
/// Dates are ISO 8601 text in UTC, as in the app's other JSON, with every fraction digit the
/// exact value needs (`ArchiveDate`): a round trip must give back exactly what the store
/// held. Archives written before this held seconds since 2001-01-01; import reads both.
public struct TodoArchive: Codable, Equatable, Sendable {
    /// A to-do as the archive holds it: its links by id.
    public struct Todo: Codable, Equatable, Sendable {
        public var id: UUID
        public var title: String
        public var createdAt: Date
        public var updatedAt: Date
        public var completedAt: Date?
        public var tagIds: [UUID]
        public var locationId: UUID?

        public init(_ model: TodoModel) {
            id = model.id
            title = model.title
            createdAt = model.createdAt
            updatedAt = model.updatedAt
            completedAt = model.completedAt
            tagIds = model.tags.map(\.id)
            locationId = model.location?.id
        }
    }

    /// The format this program writes and reads.
    public static let currentVersion = 1

    public var version: Int
    public var tags: [TagModel]
    public var locations: [LocationModel]
    public var todos: [Todo]

    /// An archive of the values in a fixed order (tags by title, locations by id, to-dos by
    /// creation then id), so that exporting the same graph twice gives the same bytes.
    public init(tags: [TagModel], locations: [LocationModel], todos: [TodoModel]) {
        version = Self.currentVersion
        self.tags = TagModel.ordered(tags)
        self.locations = locations.sorted { $0.id.uuidString < $1.id.uuidString }
        self.todos = todos.sorted { lhs, rhs in
            lhs.createdAt != rhs.createdAt ? lhs.createdAt < rhs.createdAt : lhs.id.uuidString < rhs.id.uuidString
        }
        .map(Todo.init)
    }

    /// The archive as pretty-printed JSON with sorted keys.
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(ArchiveDate.text(for: date))
        }
        return try encoder.encode(self)
    }

    /// Reads an archive; throws `TodoKitError.unreadableArchive` saying where the JSON
    /// departs from the format.
    public init(jsonData data: Data) throws {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom(ArchiveDate.decode(from:))
        do {
            self = try decoder.decode(TodoArchive.self, from: data)
        } catch let error as DecodingError {
            throw TodoKitError.unreadableArchive(Self.describe(error))
        } catch {
            throw TodoKitError.unreadableArchive(error.localizedDescription)
        }
    }

    /// A decoding error as a sentence with the JSON path where it happened.
    private static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            let text = keys.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
            return text.isEmpty ? "the document" : String(text.drop { $0 == "." })
        }
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "\(path(context.codingPath)): \(context.debugDescription)"
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])) is missing."
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return "it is not valid JSON." }
            return "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}
