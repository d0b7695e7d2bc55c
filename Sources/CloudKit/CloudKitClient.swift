import Foundation
import StrataSyncProtocol

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The query endpoint over HTTP, for `CKDatabase`. Failures are `CKError`s.
struct CloudKitClient: Sendable {
    let serverURL: URL
    let tokenProvider: (@Sendable () async throws -> String)?

    func query(_ request: QueryRequest, zone: String) async throws -> QueryResponse {
        var url = serverURL
        for segment in SyncPaths.query(zone).split(separator: "/") {
            url.appendPathComponent(String(segment).removingPercentEncoding ?? String(segment))
        }
        var http = URLRequest(url: url)
        http.httpMethod = "POST"
        http.setValue("application/json", forHTTPHeaderField: "Content-Type")
        http.httpBody = try JSONEncoder().encode(request)
        if let tokenProvider { http.setValue("Bearer \(try await tokenProvider())", forHTTPHeaderField: "Authorization") }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await URLSession.shared.data(for: http)
        } catch {
            throw CKError(
                .networkUnavailable,
                userInfo: [NSLocalizedDescriptionKey: "The sync server could not be reached: \(error.localizedDescription)"])
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            let answer = try? JSONDecoder().decode(ErrorResponse.self, from: data)
            let code: CKError.Code =
                switch status {
                case 400: answer?.error.code == .limitExceeded ? .limitExceeded : .invalidArguments
                case 401: .notAuthenticated
                case 404: .zoneNotFound
                case 413: .limitExceeded
                case 429: .requestRateLimited
                default: status >= 500 ? .internalError : .serverRejectedRequest
                }
            throw CKError(
                code,
                userInfo: [
                    NSLocalizedDescriptionKey: "The sync server answered \(status): \(answer?.error.message ?? "no reason given")"
                ])
        }
        do {
            return try JSONDecoder().decode(QueryResponse.self, from: data)
        } catch {
            throw CKError(
                .serverResponseLost, userInfo: [NSLocalizedDescriptionKey: "The query's answer could not be read: \(error)"])
        }
    }
}
