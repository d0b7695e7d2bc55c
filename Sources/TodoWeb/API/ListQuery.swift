import Foundation
import TodoKit

/// The query string of `GET /api/todos`: `search`, `tag` (an id or a title), `page` (from 1)
/// and `pageSize` (1 to 100), each checked with a 400 for a value that cannot be one.
struct ListQuery: Sendable {
    static let maximumPageSize = 100

    var search: String?
    var tag: String?
    var page = 1
    var pageSize = TodoQuery.defaultPageSize

    init(query: String?) throws {
        let items = try Self.items(of: query ?? "")
        if let search = items["search"]?.trimmingCharacters(in: .whitespacesAndNewlines), !search.isEmpty {
            self.search = search
        }
        if let tag = items["tag"]?.trimmingCharacters(in: .whitespacesAndNewlines), !tag.isEmpty {
            self.tag = tag
        }
        if let text = items["page"] {
            guard let page = Int(text), page >= 1 else {
                throw APIError.badRequest("invalid_page", "The page must be a whole number from 1, not '\(text)'.")
            }
            self.page = page
        }
        if let text = items["pageSize"] {
            guard let pageSize = Int(text), (1...Self.maximumPageSize).contains(pageSize) else {
                throw APIError.badRequest(
                    "invalid_page_size", "The page size must be a whole number from 1 to \(Self.maximumPageSize), not '\(text)'.")
            }
            self.pageSize = pageSize
        }
    }

    /// The query as the repository takes it, with the tag looked up: a UUID names a tag by id,
    /// other text by title (ignoring case and accents). An unknown tag is a 404.
    func todoQuery(tags: any TagRepository) async throws -> TodoQuery {
        var tagId: UUID?
        if let tag, let id = UUID(uuidString: tag) {
            tagId = try await tags.tag(id: id).id
        } else if let tag {
            tagId = try await tags.resolve(tag).id
        }
        return TodoQuery(search: search, tagId: tagId, page: page, pageSize: pageSize)
    }

    /// The name–value pairs of a query string, as browsers send them (`+` for a space,
    /// `%XX` for other bytes); the first value of a name counts.
    static func items(of query: String) throws -> [String: String] {
        var items: [String: String] = [:]
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = try decode(parts[0])
            let value = try parts.count > 1 ? decode(parts[1]) : ""
            if items[name] == nil {
                items[name] = value
            }
        }
        return items
    }

    private static func decode(_ text: Substring) throws -> String {
        guard let decoded = text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding else {
            throw APIError.badRequest("invalid_query", "'\(text)' in the query string is not percent-encoded UTF-8.")
        }
        return decoded
    }
}
