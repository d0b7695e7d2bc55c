import Foundation
import Hummingbird
import TodoKit

/// A tag with the number of to-dos that carry it, as `GET /api/tags` lists it.
struct TagSummary: Encodable, Sendable {
    var id: UUID
    var title: String
    var createdAt: Date
    var updatedAt: Date
    var todoCount: Int

    init(_ tag: TagModel, todoCount: Int) {
        id = tag.id
        title = tag.title
        createdAt = tag.createdAt
        updatedAt = tag.updatedAt
        self.todoCount = todoCount
    }
}

/// The tag endpoints, under `/api/tags`: list, get, rename, delete. Tags are made by tagging
/// a to-do with a new title.
struct TagRoutes: Sendable {
    let services: TodoServices
    let writes: WriteQueue

    func register(on tags: RouterGroup<TodoRequestContext>) {
        tags.get { _, _ in
            let counts = try await services.tags.todoCounts()
            return JSONResponse(try await services.tags.allTags().map { TagSummary($0, todoCount: counts[$0.id] ?? 0) })
        }
        tags.get(":id") { _, context in
            let id = try Self.tagId(context)
            let tag = try await services.tags.tag(id: id)
            return JSONResponse(TagSummary(tag, todoCount: try await services.tags.todoCounts()[id] ?? 0))
        }
        tags.patch(":id") { request, context in
            let id = try Self.tagId(context)
            let title = try Checks.title(try await request.decodeJSON(TagRename.self, context: context).title)
            return JSONResponse(try await writes.run { try await services.tags.rename(id: id, to: title) })
        }
        tags.delete(":id") { _, context in
            let id = try Self.tagId(context)
            try await writes.run { try await services.tags.delete(id: id) }
            return HTTPResponse.Status.noContent
        }
    }

    /// The `:id` of the path, which must be a whole UUID.
    static func tagId(_ context: TodoRequestContext) throws -> UUID {
        let text = context.parameters.get("id") ?? ""
        guard let id = UUID(uuidString: text) else {
            throw APIError.invalidId(text, kind: "tag")
        }
        return id
    }
}
