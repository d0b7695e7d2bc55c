import Foundation
import Testing
import TodoKit
import TodoWeb

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Requests to the server under test over real HTTP, with URLSession.
struct APIClient: Sendable {
    let base: URL
    /// The store the server serves, for checking what a request left behind.
    let services: TodoServices
    /// The server's open pages, for checking who is subscribed.
    let live: LiveUpdates
    let session: URLSession

    init(base: URL, services: TodoServices, live: LiveUpdates) {
        self.base = base
        self.services = services
        self.live = live
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 32
        // Generous: the tests check what the server keeps and answers, not how fast; a request
        // waiting on 23 conflicting saves while the rest of the suite runs beside it on a
        // 2-core machine once went 30 s without a byte (CI, session 34).
        configuration.timeoutIntervalForRequest = 120
        session = URLSession(configuration: configuration)
    }

    /// What the server answered.
    struct Reply: Sendable {
        let status: Int
        let contentType: String?
        let data: Data

        var text: String { String(decoding: data, as: UTF8.self) }

        func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
            try TodoJSON.decoder().decode(Value.self, from: data)
        }

        /// The API's JSON error, if the body is one.
        var error: APIError.Body? { try? decode(APIError.Body.self) }
    }

    /// Sends a request; `path` is appended to the server's address as written (query included).
    func send(_ method: String, _ path: String, body: Data? = nil) async throws -> Reply {
        let url = try #require(path.isEmpty ? base : URL(string: path, relativeTo: base))
        var request = URLRequest(url: url)
        request.httpMethod = method
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await session.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        return Reply(status: http.statusCode, contentType: http.value(forHTTPHeaderField: "Content-Type"), data: data)
    }

    /// Sends JSON text as the body.
    func send(_ method: String, _ path: String, json: String) async throws -> Reply {
        try await send(method, path, body: Data(json.utf8))
    }

    /// Sends a value encoded as JSON.
    func send(_ method: String, _ path: String, value: some Encodable) async throws -> Reply {
        try await send(method, path, body: try JSONEncoder().encode(value))
    }

    /// Sends a request that must answer `status`, and decodes the body.
    func expect<Value: Decodable>(
        _ status: Int, _ type: Value.Type, _ method: String, _ path: String, json: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Value {
        let reply = try await send(method, path, body: json.map { Data($0.utf8) })
        #expect(reply.status == status, "\(method) \(path): \(reply.text)", sourceLocation: sourceLocation)
        return try reply.decode(Value.self)
    }

    /// Sends a request that must fail with `status` and the JSON error `code`; returns the message.
    @discardableResult
    func expectError(
        _ status: Int, _ code: String, _ method: String, _ path: String, json: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> String {
        let reply = try await send(method, path, body: json.map { Data($0.utf8) })
        #expect(reply.status == status, "\(method) \(path): \(reply.text)", sourceLocation: sourceLocation)
        #expect(reply.contentType?.hasPrefix("application/json") == true, sourceLocation: sourceLocation)
        let error = try #require(reply.error, "not a JSON error: \(reply.text)", sourceLocation: sourceLocation)
        #expect(error.error.code == code, sourceLocation: sourceLocation)
        #expect(!error.error.message.isEmpty, sourceLocation: sourceLocation)
        return error.error.message
    }

    /// Adds a to-do through the API.
    func create(_ title: String, tags: [String] = [], sourceLocation: SourceLocation = #_sourceLocation) async throws -> TodoModel
    {
        struct NewTodo: Encodable {
            let title: String
            let tags: [String]
        }
        let reply = try await send("POST", "api/todos", value: NewTodo(title: title, tags: tags))
        #expect(reply.status == 201, "POST api/todos: \(reply.text)", sourceLocation: sourceLocation)
        return try reply.decode(TodoModel.self)
    }

    /// `GET /api/todos` with the query string.
    func list(_ query: String = "") async throws -> TodoListReply {
        try await expect(200, TodoListReply.self, "GET", "api/todos" + (query.isEmpty ? "" : "?" + query))
    }

    /// `GET /api/tags`.
    func tags() async throws -> [TagReply] {
        try await expect(200, [TagReply].self, "GET", "api/tags")
    }
}

/// The body of `GET /api/todos`.
struct TodoListReply: Decodable, Equatable {
    var todos: [TodoModel]
    var page: Int
    var pageSize: Int
    var total: Int
    var pageCount: Int

    var titles: [String] { todos.map(\.title) }
}

/// One tag of `GET /api/tags`.
struct TagReply: Decodable, Equatable {
    var id: UUID
    var title: String
    var todoCount: Int
}

extension TodoModel {
    /// The id as the API's paths take it.
    var path: String { "api/todos/\(id.uuidString)" }

    /// The to-do as the API shows it: its dates to the millisecond, as JSON carries them.
    var asServed: TodoModel {
        get throws { try TodoJSON.decoder().decode(TodoModel.self, from: TodoJSON.encoder().encode(self)) }
    }
}
