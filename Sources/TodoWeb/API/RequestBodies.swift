import Foundation
import TodoKit

// The JSON bodies the API reads. Each checks its values before any change is made, so that
// a request with one bad field changes nothing.

/// `POST /api/todos`: `{"title": "…", "tags": ["home"], "tagIds": ["…"], "location": {…}}`;
/// tags, tag ids and location are optional; tags are titles (a new title makes a new tag), tag
/// ids name existing tags (an id that is not a UUID is a 400, an unknown one a 404, and nothing
/// is written). A field the API does not know is a 400 too, rather than silently dropped.
struct NewTodo: Decodable, Sendable {
    var title: String
    var tags: [String]?
    var tagIds: [UUID]?
    var location: PlaceInput?

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case title, tags, tagIds, location
    }

    init(title: String, tags: [String]?, tagIds: [UUID]?, location: PlaceInput?) {
        self.title = title
        self.tags = tags
        self.tagIds = tagIds
        self.location = location
    }

    init(from decoder: any Decoder) throws {
        try Checks.knownFields(CodingKeys.self, in: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try container.decode(String.self, forKey: .title)
        tags = try container.decodeIfPresent([String].self, forKey: .tags)
        tagIds = try container.decodeIfPresent([String].self, forKey: .tagIds).map(Checks.tagIds)
        location = try container.decodeIfPresent(PlaceInput.self, forKey: .location)
    }

    func checked() throws -> NewTodo {
        NewTodo(
            title: try Checks.title(title), tags: try tags.map(Checks.tagTitles), tagIds: tagIds,
            location: try location.map { try $0.checked() })
    }
}

/// `PATCH /api/todos/:id`: any of `title`, `tags` (the whole set, by title), `tagIds` (the whole
/// set, by id; with `tags`, the two together), `completed` and `location` (an object, or `null`
/// to take the place away).
struct TodoChanges: Decodable, Sendable {
    enum LocationChange: Sendable {
        case unchanged
        case cleared
        case moved(PlaceInput)
    }

    var title: String?
    var tags: [String]?
    var tagIds: [UUID]?
    var completed: Bool?
    var location: LocationChange = .unchanged

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case title, tags, tagIds, completed, location
    }

    init(from decoder: any Decoder) throws {
        try Checks.knownFields(CodingKeys.self, in: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try container.decodeIfPresent(String.self, forKey: .title)
        tags = try container.decodeIfPresent([String].self, forKey: .tags)
        tagIds = try container.decodeIfPresent([String].self, forKey: .tagIds).map(Checks.tagIds)
        completed = try container.decodeIfPresent(Bool.self, forKey: .completed)
        // `decodeIfPresent` reads an absent key and `null` alike; here they differ.
        if try container.contains(.location) && container.decodeNil(forKey: .location) {
            location = .cleared
        } else if let place = try container.decodeIfPresent(PlaceInput.self, forKey: .location) {
            location = .moved(place)
        }
    }

    func checked() throws -> TodoChanges {
        var changes = self
        changes.title = try title.map(Checks.title)
        changes.tags = try tags.map(Checks.tagTitles)
        if case .moved(let place) = location {
            changes.location = .moved(try place.checked())
        }
        if changes.title == nil, changes.tags == nil, changes.tagIds == nil, changes.completed == nil,
            case .unchanged = changes.location
        {
            throw APIError.badRequest(
                "no_changes", "Give at least one of 'title', 'tags', 'tagIds', 'completed' and 'location'.")
        }
        return changes
    }
}

/// A place: `{"latitude": 48.854, "longitude": 2.3325, "altitude": 35, "placeName": "Café de Flore"}`
/// (`PUT /api/todos/:id/location`, and the `location` of the other bodies).
struct PlaceInput: Decodable, Sendable {
    var latitude: Double
    var longitude: Double
    var altitude: Double?
    var placeName: String?

    func checked() throws -> PlaceInput {
        if let problem = model.problem {
            throw TodoKitError.invalidLocation(problem)
        }
        var place = self
        let name = placeName?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        place.placeName = name.isEmpty ? nil : name
        guard name.count <= Checks.maximumTitleLength else {
            throw APIError.badRequest("invalid_location", "A place name has at most \(Checks.maximumTitleLength) characters.")
        }
        return place
    }

    var model: LocationModel {
        LocationModel(latitude: latitude, longitude: longitude, altitude: altitude, placeName: placeName)
    }
}

/// `POST /api/todos/:id/tags`: `{"tags": ["home", "paris"]}` (titles; new ones make tags), or
/// `{"tagIds": ["…"]}` (existing tags), or both.
struct TagTitles: Decodable, Sendable {
    var tags: [String]
    var tagIds: [UUID] = []

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case tags, tagIds
    }

    init(tags: [String], tagIds: [UUID]) {
        self.tags = tags
        self.tagIds = tagIds
    }

    init(from decoder: any Decoder) throws {
        try Checks.knownFields(CodingKeys.self, in: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        tags = try container.decodeIfPresent([String].self, forKey: .tags) ?? []
        tagIds = try container.decodeIfPresent([String].self, forKey: .tagIds).map(Checks.tagIds) ?? []
    }

    func checked() throws -> TagTitles {
        guard !tags.isEmpty || !tagIds.isEmpty else {
            throw APIError.badRequest("missing_field", "The field 'tags' (or 'tagIds') needs at least one tag.")
        }
        return TagTitles(tags: try Checks.tagTitles(tags), tagIds: tagIds)
    }
}

/// `PATCH /api/tags/:id`: `{"title": "Paris"}`.
struct TagRename: Decodable, Sendable {
    var title: String
}

/// The rules for titles, checked before the repositories are called.
enum Checks {
    static let maximumTitleLength = 500

    /// The title without surrounding white space; throws for an empty or overlong one.
    static func title(_ title: String) throws -> String {
        let trimmed = title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw TodoKitError.emptyTitle }
        guard trimmed.count <= maximumTitleLength else {
            throw APIError.badRequest("title_too_long", "A title has at most \(maximumTitleLength) characters.")
        }
        return trimmed
    }

    /// Tag titles, trimmed, each once (ignoring case).
    static func tagTitles(_ titles: [String]) throws -> [String] {
        var seen: Set<String> = []
        return try titles.map(title).filter { seen.insert($0.lowercased()).inserted }
    }

    /// Tag ids, each once; a text that is not a UUID is a 400 (`invalid_id`).
    static func tagIds(_ texts: [String]) throws -> [UUID] {
        var seen: Set<UUID> = []
        return try texts.map { text in
            guard let id = UUID(uuidString: text) else { throw APIError.invalidId(text, kind: "tag") }
            return id
        }.filter { seen.insert($0).inserted }
    }

    /// Refuses a body with a field the API does not read (a 400, `unknown_field`), so that a
    /// misspelt or unsupported field is not silently dropped while the rest is written.
    static func knownFields<Keys: CodingKey & CaseIterable>(_ keys: Keys.Type, in decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        let known = Set(Keys.allCases.map(\.stringValue))
        if let unknown = container.allKeys.map(\.stringValue).sorted().first(where: { !known.contains($0) }) {
            let expected = Keys.allCases.map { "'\($0.stringValue)'" }.joined(separator: ", ")
            throw APIError.badRequest("unknown_field", "The field '\(unknown)' is not one the API reads (\(expected)).")
        }
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
