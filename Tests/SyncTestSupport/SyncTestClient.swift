import Foundation
import StrataSyncProtocol

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Requests to a sync server over real HTTP (URLSession), with a bearer token.
public struct SyncTestClient: Sendable {
    public let base: URL
    public var token: String?
    let session: URLSession

    public init(base: URL, token: String?) {
        self.base = base
        self.token = token
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 64
        configuration.timeoutIntervalForRequest = 120
        session = URLSession(configuration: configuration)
    }

    /// What the server answered.
    public struct Reply: Sendable {
        public let status: Int
        public let headers: [String: String]
        public let data: Data

        public var text: String { String(decoding: data, as: UTF8.self) }

        public func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
            do {
                return try JSONDecoder().decode(Value.self, from: data)
            } catch {
                throw TestPostgresError(message: "Status \(status), body \(text.prefix(500)): \(error)")
            }
        }

        /// The wire format's error, if the body is one.
        public var error: ErrorResponse.Body? { (try? JSONDecoder().decode(ErrorResponse.self, from: data))?.error }

        public func header(_ name: String) -> String? {
            headers.first { $0.key.lowercased() == name.lowercased() }?.value
        }
    }

    /// Sends a request; `path` is added to the server's address as written (query included).
    public func send(
        _ method: String, _ path: String, body: Data? = nil, contentType: String = "application/json",
        headers: [String: String] = [:]
    ) async throws -> Reply {
        guard let url = URL(string: base.absoluteString + path) else {
            throw TestPostgresError(message: "Bad path \(path)")
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.httpBody = body
            request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw TestPostgresError(message: "Not an HTTP answer") }
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields[name] = value }
        }
        return Reply(status: http.statusCode, headers: fields, data: data)
    }

    public func send<Body: Encodable>(_ method: String, _ path: String, json: Body) async throws -> Reply {
        try await send(method, path, body: try JSONEncoder().encode(json))
    }

    // MARK: The endpoints, answering the decoded success or throwing with the reply

    @discardableResult
    public func createZone(_ zone: String = SyncPaths.defaultZone) async throws -> ZoneInfo {
        try await send("PUT", SyncPaths.zone(zone)).decode(ZoneInfo.self)
    }

    public func push(_ request: PushRequest, zone: String = SyncPaths.defaultZone) async throws -> Reply {
        try await send("POST", SyncPaths.push(zone), json: request)
    }

    public func changes(
        zone: String = SyncPaths.defaultZone, since: String? = nil, limit: Int? = nil, wait: Int? = nil,
        client: String? = nil
    ) async throws -> Reply {
        var query: [String] = []
        if let since { query.append("since=\(since)") }
        if let client { query.append("client=\(client)") }
        if let limit { query.append("limit=\(limit)") }
        if let wait { query.append("wait=\(wait)") }
        return try await send("GET", SyncPaths.changes(zone) + (query.isEmpty ? "" : "?" + query.joined(separator: "&")))
    }

    /// Every record of the zone after `since`, page after page; and the last token.
    public func pullAll(
        zone: String = SyncPaths.defaultZone, since: String? = nil, limit: Int? = nil, client: String? = nil
    ) async throws -> (
        records: [RecordState], token: String
    ) {
        var records: [RecordState] = []
        var token = since
        while true {
            let page = try await changes(zone: zone, since: token, limit: limit, client: client).decode(
                ChangesResponse.self)
            records += page.records
            token = page.nextToken
            if !page.hasMore { return (records, page.nextToken) }
        }
    }

    public func query(_ request: QueryRequest, zone: String = SyncPaths.defaultZone) async throws -> Reply {
        try await send("POST", SyncPaths.query(zone), json: request)
    }
}
