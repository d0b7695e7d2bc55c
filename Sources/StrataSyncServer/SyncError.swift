import Foundation
import Hummingbird
import StrataSyncProtocol

/// An answer other than success, as the wire format spells it: a `SyncErrorCode` (which
/// fixes the HTTP status), a message for people, and for `outOfOrder` where to resume.
/// Routes throw these; `SyncErrorMiddleware` writes them as `ErrorResponse` JSON.
public struct SyncError: Error, Equatable, CustomStringConvertible {
    public var code: SyncErrorCode
    public var message: String
    public var lastBatchSequence: Int64?
    /// Seconds for the `Retry-After` header (429).
    public var retryAfter: Int?

    public init(_ code: SyncErrorCode, _ message: String, lastBatchSequence: Int64? = nil, retryAfter: Int? = nil) {
        self.code = code
        self.message = message
        self.lastBatchSequence = lastBatchSequence
        self.retryAfter = retryAfter
    }

    public var description: String { "\(code.rawValue): \(message)" }

    static func badRequest(_ message: String) -> SyncError { SyncError(.badRequest, message) }

    /// Another user's zone reads exactly like a zone that does not exist: the answer must not
    /// tell whether a name is taken.
    static func zoneNotFound(_ zone: String) -> SyncError { SyncError(.notFound, "No zone named \(zone).") }

    var body: ErrorResponse {
        ErrorResponse(error: .init(code: code, message: message, lastBatchSequence: lastBatchSequence))
    }
}

/// Turns every error into the wire format's JSON error: `SyncError`s as they are, the
/// router's own 404 and 405, bodies past the limit (413), and anything else as a logged 500,
/// so that no failure answers with an empty body or closes the connection.
struct SyncErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response
    {
        do {
            return try await next(request, context)
        } catch {
            let syncError = Self.syncError(for: error, request: request)
            if syncError.code == .internalError {
                context.logger.error("\(request.method.rawValue) \(request.uri.path) failed: \(String(reflecting: error))")
            }
            return Self.response(for: syncError)
        }
    }

    static func syncError(for error: any Error, request: Request) -> SyncError {
        switch error {
        case let error as SyncError:
            return error
        case let error as HTTPResponseError where error.status == .notFound:
            return SyncError(.notFound, "Nothing at \(request.method.rawValue) \(request.uri.path).")
        case let error as HTTPResponseError where error.status == .methodNotAllowed:
            return SyncError(.badRequest, "\(request.method.rawValue) is not allowed on \(request.uri.path).")
        case let error as HTTPResponseError where error.status == .contentTooLarge:
            return SyncError(.payloadTooLarge, "The body is larger than this server takes.")
        case let error as HTTPResponseError where error.status.code >= 400 && error.status.code < 500:
            return SyncError(.badRequest, "The request was refused (\(error.status.code)).")
        default:
            return SyncError(.internalError, "The server failed; retry later.")
        }
    }

    static func response(for error: SyncError) -> Response {
        let data = (try? JSONEncoder().encode(error.body)) ?? Data(#"{"error":{"code":"internalError","message":""}}"#.utf8)
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        if let retryAfter = error.retryAfter {
            headers[.retryAfter] = String(retryAfter)
        }
        return Response(
            status: .init(code: error.code.httpStatus),
            headers: headers,
            body: .init(byteBuffer: ByteBuffer(bytes: data))
        )
    }
}
