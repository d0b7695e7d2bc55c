import Foundation
import Hummingbird
import NIOCore
import StrataSyncProtocol

/// The request context of the sync API: the token's user once `AuthenticationMiddleware` has
/// checked it.
public struct SyncRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The `sub` of the request's token.
    var user: String?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
    }

    /// The routes read bodies themselves, against the configured limit.
    public var maxUploadSize: Int { Int.max }

    /// The user, for routes behind the authentication middleware (401 if somehow absent).
    func requireUser() throws -> String {
        guard let user else { throw SyncError(.unauthorized, "Send a token: Authorization: Bearer <JWT>.") }
        return user
    }
}

/// Checks the bearer token of every `/v1` request and the user's request rate.
struct AuthenticationMiddleware: RouterMiddleware {
    let verifier: TokenVerifier
    let rateLimiter: RateLimiter

    func handle(
        _ request: Request, context: SyncRequestContext,
        next: (Request, SyncRequestContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        let user = try await verifier.user(for: request)
        if let retryAfter = rateLimiter.retryAfter(for: user) {
            throw SyncError(.rateLimited, "Too many requests; retry in \(retryAfter) s.", retryAfter: retryAfter)
        }
        context.user = user
        return try await next(request, context)
    }
}

/// The endpoints of `SyncPaths`, each a thin layer over `SyncStore`: read and check the
/// request, call the store, encode the answer.
struct SyncRoutes {
    let store: SyncStore
    let maxBodyBytes: Int

    func register(on router: Router<SyncRequestContext>, verifier: TokenVerifier, rateLimiter: RateLimiter) {
        router.get("health") { _, _ in JSONAnswer(["status": "ok"]) }
        let v1 = router.group("v1").add(middleware: AuthenticationMiddleware(verifier: verifier, rateLimiter: rateLimiter))
        v1.get("zones") { _, context in
            JSONAnswer(ZoneList(zones: try await store.zones(owner: try context.requireUser())))
        }
        v1.put("zones/:zone") { _, context in
            JSONAnswer(try await store.createZone(owner: try context.requireUser(), name: try zoneName(context)))
        }
        v1.get("zones/:zone") { _, context in
            JSONAnswer(try await store.zone(owner: try context.requireUser(), name: try zoneName(context)).info)
        }
        v1.delete("zones/:zone") { _, context in
            try await store.deleteZone(owner: try context.requireUser(), name: try zoneName(context))
            return Response(status: .noContent)
        }
        v1.post("zones/:zone/push") { request, context in
            let push = try await decode(PushRequest.self, from: request, with: WireJSON.decodePushRequest)
            return JSONAnswer(try await store.push(push, owner: try context.requireUser(), zoneName: try zoneName(context)))
        }
        v1.get("zones/:zone/changes") { request, context in
            let parameters = request.uri.queryParameters
            let since = parameters.get("since").flatMap { $0.isEmpty ? nil : String($0) }
            let wait = try integer("wait", parameters.get("wait"), in: 0...store.configuration.maxWaitSeconds)
            if let wait, wait > 0 { context.logger.debug("A long poll of up to \(wait) s") }
            return try await store.changes(
                owner: try context.requireUser(), zoneName: try zoneName(context), since: since,
                limit: try integer("limit", parameters.get("limit"), in: 1...Int.max),
                wait: wait,
                // An empty `client` is no client ID (400), not one left out.
                requester: parameters.get("client").map { String($0) })
        }
        v1.post("zones/:zone/query") { request, context in
            let query = try await decode(QueryRequest.self, from: request)
            return JSONAnswer(try await store.query(query, owner: try context.requireUser(), zoneName: try zoneName(context)))
        }
        v1.get("schema") { _, context in
            _ = try context.requireUser()
            return JSONAnswer(try await store.schemaIndexes())
        }
        v1.put("schema") { request, context in
            _ = try context.requireUser()
            let indexes = try await decode(SchemaIndexes.self, from: request)
            return JSONAnswer(try await store.addIndexes(indexes))
        }
        v1.put("zones/:zone/assets/:sha256") { request, context in
            let user = try context.requireUser()
            let bytes = try await body(of: request)
            try await store.putAsset(
                bytes, sha256: context.parameters.get("sha256") ?? "", owner: user, zoneName: try zoneName(context))
            return Response(status: .noContent)
        }
        v1.get("zones/:zone/assets/:sha256") { _, context in
            let bytes = try await store.asset(
                sha256: context.parameters.get("sha256") ?? "", owner: try context.requireUser(),
                zoneName: try zoneName(context))
            return Response(
                status: .ok, headers: [.contentType: "application/octet-stream"], body: .init(byteBuffer: bytes))
        }
    }

    private func zoneName(_ context: SyncRequestContext) throws -> String {
        try RequestValidation.zoneName(context.parameters.get("zone") ?? "")
    }

    /// A whole number of the query, nil when absent; 400 for anything else (an empty value
    /// too) and outside `range` (the document's `minimum` and `maximum`), rather than a value
    /// quietly moved into it.
    private func integer(_ name: String, _ text: String?, in range: ClosedRange<Int>) throws -> Int? {
        guard let text else { return nil }
        guard let value = Int(text), range.contains(value) else {
            let bounds = range.upperBound == Int.max ? "≥ \(range.lowerBound)" : "from \(range.lowerBound) to \(range.upperBound)"
            throw SyncError.badRequest("\(name) must be a whole number \(bounds).")
        }
        return value
    }

    /// The body, at most `maxBodyBytes` (413 past that, before reading more when the
    /// request says its length).
    private func body(of request: Request) async throws -> ByteBuffer {
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > maxBodyBytes {
            throw SyncError(.payloadTooLarge, "The body has \(length) bytes; this server takes at most \(maxBodyBytes).")
        }
        do {
            return try await request.body.collect(upTo: maxBodyBytes)
        } catch is NIOTooManyBytesError {
            throw SyncError(.payloadTooLarge, "The body is larger than the \(maxBodyBytes) bytes this server takes.")
        }
    }

    /// The JSON body as `type`; 400 naming the first problem when it is not.
    private func decode<Value: Decodable>(
        _ type: Value.Type, from request: Request,
        with decoder: (Data) throws -> Value = { try JSONDecoder().decode(Value.self, from: $0) }
    ) async throws -> Value {
        let buffer = try await body(of: request)
        guard buffer.readableBytes > 0 else { throw SyncError.badRequest("The request needs a JSON body.") }
        do {
            return try decoder(Data(buffer.readableBytesView))
        } catch let error as DecodingError {
            throw SyncError.badRequest("The body is not a valid \(Value.self): \(Self.describe(error))")
        } catch {
            throw SyncError.badRequest("The body is not JSON.")
        }
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return path.isEmpty ? "" : " at \(path.prefix(200))"
        }
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "wrong or missing value\(path(context))"
        case .keyNotFound(let key, let context):
            return "missing \(key.stringValue.prefix(64))\(path(context))"
        case .dataCorrupted(let context):
            return "\(context.debugDescription.prefix(200))\(path(context))"
        @unknown default:
            return "unreadable"
        }
    }
}

/// A value answered as JSON with status 200.
struct JSONAnswer<Value: Encodable & Sendable>: ResponseGenerator {
    let value: Value

    init(_ value: Value) { self.value = value }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let data = try JSONEncoder().encode(value)
        return Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
