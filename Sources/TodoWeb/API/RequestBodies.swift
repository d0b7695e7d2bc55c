import Foundation
import TodoKit

// The JSON bodies the API reads. Each checks its values before any change is made, so that
// a request with one bad field changes nothing.

/// `POST /api/todos`: `{"title": "…", "tags": ["home"], "location": {…}}`; tags and location
/// are optional, and tags are titles (a new title makes a new tag).
struct NewTodo: Decodable, Sendable {
    var title: String
    var tags: [String]?
    var location: PlaceInput?

    func checked() throws -> NewTodo {
        NewTodo(
            title: try Checks.title(title), tags: try tags.map(Checks.tagTitles),
            location: try location.map { try $0.checked() })
    }
}

/// `PATCH /api/todos/:id`: any of `title`, `tags` (the whole set, by title), `completed` and
/// `location` (an object, or `null` to take the place away).
struct TodoChanges: Decodable, Sendable {
    enum LocationChange: Sendable {
        case unchanged
        case cleared
        case moved(PlaceInput)
    }

    var title: String?
    var tags: [String]?
    var completed: Bool?
    var location: LocationChange = .unchanged

    private enum CodingKeys: String, CodingKey {
        case title, tags, completed, location
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try container.decodeIfPresent(String.self, forKey: .title)
        tags = try container.decodeIfPresent([String].self, forKey: .tags)
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
        if changes.title == nil, changes.tags == nil, changes.completed == nil, case .unchanged = changes.location {
            throw APIError.badRequest("no_changes", "Give at least one of 'title', 'tags', 'completed' and 'location'.")
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

/// `POST /api/todos/:id/tags`: `{"tags": ["home", "paris"]}`.
struct TagTitles: Decodable, Sendable {
    var tags: [String]

    func checked() throws -> TagTitles {
        guard !tags.isEmpty else {
            throw APIError.badRequest("missing_field", "The field 'tags' needs at least one title.")
        }
        return TagTitles(tags: try Checks.tagTitles(tags))
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
}
