import Foundation
import StrataSyncProtocol

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The sync server's endpoints over HTTP, through Foundation's `URLSession` (the platform's
/// HTTP client). Failures become `NSError`s in CloudKit's error domain with CloudKit's codes, so
/// that events and `CKError` tell them as CloudKit would.
struct SyncServerClient: Sendable {
    let serverURL: URL
    let tokenProvider: (@Sendable () async throws -> String)?
    let session: URLSession

    init(serverURL: URL, tokenProvider: (@Sendable () async throws -> String)?) {
        self.serverURL = serverURL
        self.tokenProvider = tokenProvider
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 90
        self.session = URLSession(configuration: configuration)
    }

    func createZone(_ zone: String) async throws -> ZoneInfo {
        try await send("PUT", SyncPaths.zone(zone), body: nil as Data?, as: ZoneInfo.self)
    }

    /// Adds the server's field indexes (`PUT /v1/schema`); every index it keeps.
    func addIndexes(_ indexes: [FieldIndex]) async throws -> SchemaIndexes {
        try await send(
            "PUT", SyncPaths.schema, body: try JSONEncoder().encode(SchemaIndexes(indexes: indexes)), as: SchemaIndexes.self)
    }

    /// A push of batches already encoded (the outbox keeps them as JSON): the request's JSON
    /// is put together around them, so that no batch is decoded and encoded again.
    func push(clientID: String, batches: [Data], zone: String) async throws -> PushResponse {
        try await send(
            "POST", SyncPaths.push(zone), body: try Self.pushBody(clientID: clientID, batches: batches), as: PushResponse.self)
    }

    /// A `PushRequest`'s JSON around batches' JSON.
    static func pushBody(clientID: String, batches: [Data]) throws -> Data {
        var body = Data("{\"clientID\":".utf8)
        body.append(try JSONEncoder().encode(clientID))
        body.append(contentsOf: Array(",\"batches\":[".utf8))
        for (index, batch) in batches.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body.append(batch)
        }
        body.append(contentsOf: Array("]}".utf8))
        return body
    }

    /// The zone's changes after `token`; with `excludingOwnOf`, without the records that
    /// client alone wrote (it has them).
    func changes(
        zone: String, since token: String?, limit: Int, wait: Int, excludingOwnOf client: String? = nil
    ) async throws -> ChangesResponse {
        var query: [URLQueryItem] = [URLQueryItem(name: "limit", value: String(limit))]
        if let token { query.append(URLQueryItem(name: "since", value: token)) }
        if let client { query.append(URLQueryItem(name: "client", value: client)) }
        // The server refuses a longer wait (400): asking for the longest it takes is the same poll.
        if wait > 0 { query.append(URLQueryItem(name: "wait", value: String(min(wait, SyncPaths.longestWait)))) }
        return try await send(
            "GET", SyncPaths.changes(zone), query: query, body: nil, as: ChangesResponse.self,
            decoder: WireJSON.decodeChangesResponse)
    }

    func query(_ request: QueryRequest, zone: String) async throws -> QueryResponse {
        try await send("POST", SyncPaths.query(zone), body: try JSONEncoder().encode(request), as: QueryResponse.self)
    }

    func uploadAsset(_ bytes: Data, sha256: String, zone: String) async throws {
        _ = try await raw("PUT", SyncPaths.asset(zone, sha256: sha256), body: bytes, contentType: "application/octet-stream")
    }

    func downloadAsset(_ sha256: String, zone: String) async throws -> Data {
        try await raw("GET", SyncPaths.asset(zone, sha256: sha256), body: nil)
    }

    private func send<Answer: Decodable>(
        _ method: String, _ path: String, query: [URLQueryItem] = [], body: Data?, as: Answer.Type,
        decoder: (Data) throws -> Answer = { try JSONDecoder().decode(Answer.self, from: $0) }
    ) async throws -> Answer {
        let data = try await raw(method, path, query: query, body: body, contentType: "application/json")
        do {
            return try decoder(data)
        } catch {
            throw SyncServerError.make(
                .serverResponseLost, "The sync server's answer to \(method) \(path) could not be read: \(error)")
        }
    }

    private func raw(
        _ method: String, _ path: String, query: [URLQueryItem] = [], body: Data?, contentType: String? = nil
    ) async throws -> Data {
        guard var components = URLComponents(url: serverURL, resolvingAgainstBaseURL: false) else {
            throw SyncServerError.make(.badContainer, "The sync server URL \(serverURL) is not a URL.")
        }
        let base =
            components.percentEncodedPath.hasSuffix("/")
            ? String(components.percentEncodedPath.dropLast()) : components.percentEncodedPath
        components.percentEncodedPath = base + path
        if !query.isEmpty { components.queryItems = query }
        guard let url = components.url else {
            throw SyncServerError.make(.badContainer, "The sync server URL \(serverURL) cannot take the path \(path).")
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.httpBody = body
        if let contentType, body != nil { request.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        if let tokenProvider {
            let token = try await tokenProvider()
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            if error is CancellationError || (error as NSError).code == NSURLErrorCancelled { throw CancellationError() }
            throw SyncServerError.make(
                .networkUnavailable, "The sync server at \(serverURL) could not be reached: \(error.localizedDescription)",
                underlying: error)
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            let answer = try? JSONDecoder().decode(ErrorResponse.self, from: data)
            let retryAfter = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Retry-After").flatMap(Double.init)
            throw SyncServerError.from(status: status, answer: answer?.error, path: path, retryAfter: retryAfter)
        }
        return data
    }
}

/// CloudKit's error domain and codes, which Apple's mirroring reports in its events; the
/// `CloudKit` module's `CKError` reads these.
public enum SyncServerError {
    /// `CKErrorDomain`.
    public static let domain = "CKErrorDomain"
    /// User-info key: the server's own error code (`SyncErrorCode`'s raw value).
    public static let serverCodeKey = "StrataSyncServerCode"
    /// User-info key: for `outOfOrder`, the last batch sequence the server applied.
    public static let lastBatchSequenceKey = "StrataLastBatchSequence"
    /// User-info key: seconds to wait before retrying (`CKErrorRetryAfterKey`'s name).
    public static let retryAfterKey = "CKRetryAfter"

    /// CloudKit's codes for the failures a sync server answers with.
    public enum Code: Int, Sendable {
        case internalError = 1
        case networkUnavailable = 3
        case networkFailure = 4
        case badContainer = 5
        case serviceUnavailable = 6
        case requestRateLimited = 7
        case notAuthenticated = 9
        case permissionFailure = 10
        case unknownItem = 11
        case invalidArguments = 12
        case serverRecordChanged = 14
        case serverRejectedRequest = 15
        case changeTokenExpired = 21
        case limitExceeded = 27
        case zoneNotFound = 26
        case serverResponseLost = 34
    }

    static func make(_ code: Code, _ reason: String, underlying: (any Error)? = nil, more: [String: Any] = [:]) -> NSError {
        var info = more
        info[NSLocalizedDescriptionKey] = reason
        if let underlying { info[NSUnderlyingErrorKey] = underlying as NSError }
        return NSError(domain: domain, code: code.rawValue, userInfo: info)
    }

    static func from(status: Int, answer: ErrorResponse.Body?, path: String, retryAfter: Double?) -> NSError {
        let code: Code
        switch answer?.code {
        case .badRequest: code = .invalidArguments
        case .limitExceeded, .payloadTooLarge: code = .limitExceeded
        case .unauthorized: code = .notAuthenticated
        case .notFound: code = path.contains("/assets/") ? .unknownItem : .zoneNotFound
        case .outOfOrder: code = .serverRejectedRequest
        case .schemaConflict: code = .invalidArguments
        case .resyncRequired: code = .changeTokenExpired
        case .rateLimited: code = .requestRateLimited
        case .internalError: code = .internalError
        case nil:
            switch status {
            case 401: code = .notAuthenticated
            case 404: code = .zoneNotFound
            case 410: code = .changeTokenExpired
            case 413: code = .limitExceeded
            case 429: code = .requestRateLimited
            case 503: code = .serviceUnavailable
            default: code = status >= 500 ? .internalError : .serverRejectedRequest
            }
        }
        var more: [String: Any] = ["StrataHTTPStatus": status]
        if let answer { more[serverCodeKey] = answer.code.rawValue }
        if let last = answer?.lastBatchSequence { more[lastBatchSequenceKey] = last }
        if let retryAfter { more[retryAfterKey] = retryAfter }
        return make(code, "The sync server answered \(status) to \(path): \(answer?.message ?? "no reason given").", more: more)
    }

    /// Whether an error is the server's 410: the zone must be pulled again from the start.
    static func isResyncRequired(_ error: any Error) -> Bool {
        let error = error as NSError
        return error.domain == domain && error.code == Code.changeTokenExpired.rawValue
    }

    /// The last batch the server applied, when it refused a push as out of order.
    static func lastAppliedBatch(_ error: any Error) -> Int64? {
        let error = error as NSError
        guard error.domain == domain, error.userInfo[serverCodeKey] as? String == SyncErrorCode.outOfOrder.rawValue else {
            return nil
        }
        return (error.userInfo[lastBatchSequenceKey] as? Int64)
    }
}
