import Foundation

/// Which to-dos to list: a title search, a tag, and a page. Pages count from 1.
public struct TodoQuery: Codable, Equatable, Sendable {
    /// Text the title contains, ignoring case and accents ("cafe" finds "Café").
    public var search: String?
    /// The tag the to-dos carry.
    public var tagId: UUID?
    public var page: Int
    public var pageSize: Int

    public static let defaultPageSize = 20

    public init(search: String? = nil, tagId: UUID? = nil, page: Int = 1, pageSize: Int = TodoQuery.defaultPageSize) {
        self.search = search
        self.tagId = tagId
        self.page = page
        self.pageSize = pageSize
    }
}

/// One page of to-dos, most recently updated first, with what is needed to page on.
public struct TodoPage: Codable, Equatable, Sendable {
    public var todos: [TodoModel]
    public var page: Int
    public var pageSize: Int
    /// How many to-dos match the query across all pages.
    public var total: Int

    public init(todos: [TodoModel], page: Int, pageSize: Int, total: Int) {
        self.todos = todos
        self.page = page
        self.pageSize = pageSize
        self.total = total
    }

    /// The number of pages; at least 1, so that an empty list is "page 1 of 1".
    public var pageCount: Int { max(1, (total + pageSize - 1) / pageSize) }
}
