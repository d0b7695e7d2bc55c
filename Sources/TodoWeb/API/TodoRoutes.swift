import Foundation
import Hummingbird
import TodoKit

/// A page of to-dos as `GET /api/todos` returns it: the to-dos, newest update first, and what
/// is needed to page on.
struct TodoList: Encodable, Sendable {
    var todos: [TodoModel]
    var page: Int
    var pageSize: Int
    var total: Int
    var pageCount: Int

    init(_ page: TodoPage) {
        todos = page.todos
        self.page = page.page
        pageSize = page.pageSize
        total = page.total
        pageCount = page.pageCount
    }
}

/// The to-do endpoints, under `/api/todos`. Every change goes through the write queue; the
/// work itself is the repositories'.
struct TodoRoutes: Sendable {
    let services: TodoServices
    let writes: WriteQueue

    func register(on todos: RouterGroup<TodoRequestContext>) {
        todos.get { request, _ in try await list(request) }
        todos.post { request, context in try await create(request, context) }
        todos.get(":id") { _, context in JSONResponse(try await services.todos.todo(id: try Self.todoId(context))) }
        todos.patch(":id") { request, context in try await update(request, context) }
        todos.delete(":id") { _, context in try await delete(context) }
        todos.post(":id/complete") { _, context in
            let id = try Self.todoId(context)
            return JSONResponse(try await writes.run { try await services.todos.complete(id: id) })
        }
        todos.post(":id/reopen") { _, context in
            let id = try Self.todoId(context)
            return JSONResponse(try await writes.run { try await services.todos.reopen(id: id) })
        }
        todos.post(":id/tags") { request, context in try await tag(request, context) }
        todos.delete(":id/tags/:tagId") { _, context in try await untag(context) }
        todos.put(":id/location") { request, context in
            let id = try Self.todoId(context)
            let place = try await request.decodeJSON(PlaceInput.self, context: context).checked()
            return JSONResponse(try await writes.run { try await services.todos.locate(id: id, at: place.model) })
        }
        todos.delete(":id/location") { _, context in
            let id = try Self.todoId(context)
            return JSONResponse(try await writes.run { try await services.todos.locate(id: id, at: nil) })
        }
    }

    private func list(_ request: Request) async throws -> JSONResponse<TodoList> {
        let query = try await ListQuery(query: request.uri.query).todoQuery(tags: services.tags)
        return JSONResponse(TodoList(try await services.todos.todos(matching: query)))
    }

    private func create(_ request: Request, _ context: TodoRequestContext) async throws -> JSONResponse<TodoModel> {
        let new = try await request.decodeJSON(NewTodo.self, context: context).checked()
        let todo = try await writes.run {
            // Tags named by id first: an unknown one fails the request before anything is made.
            let named = try await tags(withIds: new.tagIds ?? [])
            let tags = merged(named, try await tags(titled: new.tags ?? []))
            let todo = try await services.todos.add(title: new.title, tagIds: tags.map(\.id))
            guard let place = new.location else { return todo }
            return try await services.todos.locate(id: todo.id, at: place.model)
        }
        return JSONResponse(todo, status: .created)
    }

    private func update(_ request: Request, _ context: TodoRequestContext) async throws -> JSONResponse<TodoModel> {
        let id = try Self.todoId(context)
        let changes = try await request.decodeJSON(TodoChanges.self, context: context).checked()
        let todo = try await writes.run {
            var todo = try await services.todos.todo(id: id)
            if changes.title != nil || changes.tags != nil || changes.tagIds != nil || changes.completed != nil {
                todo.title = changes.title ?? todo.title
                if changes.tags != nil || changes.tagIds != nil {
                    let named = try await tags(withIds: changes.tagIds ?? [])
                    todo.tags = merged(named, try await tags(titled: changes.tags ?? []))
                }
                if let completed = changes.completed {
                    todo.completedAt = completed ? (todo.completedAt ?? Date()) : nil
                }
                todo = try await services.todos.save(todo)
            }
            switch changes.location {
            case .unchanged: return todo
            case .cleared: return try await services.todos.locate(id: id, at: nil)
            case .moved(let place): return try await services.todos.locate(id: id, at: place.model)
            }
        }
        return JSONResponse(todo)
    }

    private func delete(_ context: TodoRequestContext) async throws -> HTTPResponse.Status {
        let id = try Self.todoId(context)
        try await writes.run { try await services.todos.delete(id: id) }
        return .noContent
    }

    private func tag(_ request: Request, _ context: TodoRequestContext) async throws -> JSONResponse<TodoModel> {
        let id = try Self.todoId(context)
        let titles = try await request.decodeJSON(TagTitles.self, context: context).checked()
        return JSONResponse(
            try await writes.run {
                // The to-do and the tags named by id first, so that a request for an unknown
                // one makes no tags.
                _ = try await services.todos.todo(id: id)
                let named = try await tags(withIds: titles.tagIds)
                return try await services.todos.tag(id: id, with: merged(named, try await tags(titled: titles.tags)))
            })
    }

    private func untag(_ context: TodoRequestContext) async throws -> JSONResponse<TodoModel> {
        let id = try Self.todoId(context)
        guard let text = context.parameters.get("tagId"), let tagId = UUID(uuidString: text) else {
            throw APIError.invalidId(context.parameters.get("tagId") ?? "", kind: "tag")
        }
        return JSONResponse(
            try await writes.run {
                _ = try await services.todos.todo(id: id)
                let tag = try await services.tags.tag(id: tagId)
                return try await services.todos.untag(id: id, removing: [tag])
            })
    }

    /// The tags with the titles, made where none has one (ignoring case and accents).
    /// The tags with these ids; throws `tagNotFound` (a 404) for the first unknown one.
    private func tags(withIds ids: [UUID]) async throws -> [TagModel] {
        var tags: [TagModel] = []
        for id in ids { tags.append(try await services.tags.tag(id: id)) }
        return tags
    }

    /// Both lists, each tag once.
    private func merged(_ first: [TagModel], _ second: [TagModel]) -> [TagModel] {
        var tags = first
        for tag in second where !tags.contains(where: { $0.id == tag.id }) { tags.append(tag) }
        return tags
    }

    private func tags(titled titles: [String]) async throws -> [TagModel] {
        var tags: [TagModel] = []
        for title in titles {
            let tag = try await services.tags.tag(titled: title)
            if !tags.contains(where: { $0.id == tag.id }) {
                tags.append(tag)
            }
        }
        return tags
    }

    /// The `:id` of the path, which must be a whole UUID.
    static func todoId(_ context: TodoRequestContext) throws -> UUID {
        let text = context.parameters.get("id") ?? ""
        guard let id = UUID(uuidString: text) else {
            throw APIError.invalidId(text, kind: "to-do")
        }
        return id
    }
}
