import Foundation
import Hummingbird
import TodoKit

/// An error as the API reports it: an HTTP status and a JSON body
/// `{"error": {"code": "invalid_id", "message": "…"}}` whose code a program can branch on and
/// whose message a person can read.
///
/// Every error a handler throws becomes one of these in `APIErrorMiddleware`, so that no input,
/// however wrong, gets a crash or an empty 500.
public struct APIError: Error, Equatable, Sendable {
    public var status: HTTPResponse.Status
    public var code: String
    public var message: String

    public init(_ status: HTTPResponse.Status, code: String, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    /// The error's JSON body.
    public struct Body: Codable, Equatable, Sendable {
        public struct Detail: Codable, Equatable, Sendable {
            public var code: String
            public var message: String
        }

        public var error: Detail
    }

    var body: Body { Body(error: .init(code: code, message: message)) }

    static func badRequest(_ code: String, _ message: String) -> APIError {
        APIError(.badRequest, code: code, message: message)
    }

    static func invalidId(_ text: String, kind: String) -> APIError {
        badRequest("invalid_id", "'\(text)' is not a \(kind) id: ids are UUIDs such as 26f28fc5-9141-47f7-884b-8e70331ec4f5.")
    }

    static let internalError = APIError(
        .internalServerError, code: "internal_error", message: "The server could not complete the request.")
}

extension APIError {
    /// The API's form of any error a request ran into.
    init(_ error: any Error) {
        switch error {
        case let error as APIError:
            self = error
        case let error as TodoKitError:
            self.init(error)
        case let error as DecodingError:
            self = Self.describe(error)
        case let error as any HTTPResponseError:
            self.init(httpStatus: error.status, message: (error as? HTTPError)?.body)
        default:
            let error = error as NSError
            // Core Data's validation errors (a value the model file does not allow) are the
            // input's fault; the repositories check first, so these are a safety net.
            if error.domain == NSCocoaErrorDomain, Self.validationErrorCodes.contains(error.code) {
                self = .badRequest("invalid_value", error.localizedDescription)
            } else {
                self = .internalError
            }
        }
    }

    /// Foundation's `NSValidationErrorMinimum...NSValidationErrorMaximum`, which Core Data's
    /// validation codes (1550 to 1680) fall in; Foundation on Linux does not name them.
    private static let validationErrorCodes = 1024...2047

    private init(_ error: TodoKitError) {
        let message = error.errorDescription ?? "\(error)"
        switch error {
        case .todoNotFound, .tagNotFound, .locationNotFound, .noMatch:
            self.init(.notFound, code: "not_found", message: message)
        case .ambiguous:
            self = .badRequest("ambiguous_id", message)
        case .notAnId:
            self = .badRequest("invalid_id", message)
        case .emptyTitle:
            self = .badRequest("empty_title", message)
        case .duplicateTagTitle:
            self.init(.conflict, code: "duplicate_tag", message: message)
        case .invalidLocation:
            self = .badRequest("invalid_location", message)
        case .unreadableArchive, .invalidArchive:
            self = .badRequest("invalid_archive", message)
        }
    }

    private init(httpStatus status: HTTPResponse.Status, message: String?) {
        switch status {
        case .notFound:
            self.init(status, code: "not_found", message: message ?? "There is nothing at this address.")
        case .methodNotAllowed:
            self.init(status, code: "method_not_allowed", message: message ?? "This address does not take that method.")
        case .contentTooLarge:
            self.init(status, code: "body_too_large", message: message ?? "The request body is too large.")
        case let status where status.kind == .clientError:
            self.init(status, code: "bad_request", message: message ?? status.reasonPhrase)
        default:
            self = .internalError
        }
    }

    /// A sentence naming the field a JSON body got wrong.
    private static func describe(_ error: DecodingError) -> APIError {
        func field(_ path: [any CodingKey]) -> String {
            path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
                .replacingOccurrences(of: ".[", with: "[")
        }
        switch error {
        case .keyNotFound(let key, let context):
            return .badRequest("missing_field", "The field '\(field(context.codingPath + [key]))' is required.")
        case .valueNotFound(_, let context):
            return .badRequest("missing_field", "The field '\(field(context.codingPath))' cannot be null.")
        case .typeMismatch(_, let context) where context.codingPath.isEmpty:
            return .badRequest("invalid_json", "The body must be a JSON object.")
        case .typeMismatch(let type, let context):
            return .badRequest(
                "invalid_field", "The field '\(field(context.codingPath))' must be \(Self.jsonKind(of: type)).")
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            return .badRequest("invalid_json", "The body is not valid JSON.")
        case .dataCorrupted(let context):
            return .badRequest(
                "invalid_field", "The field '\(field(context.codingPath))' is not valid: \(context.debugDescription)")
        @unknown default:
            return .badRequest("invalid_json", "The body could not be read.")
        }
    }

    /// What a JSON value of a Swift type is called, for messages: "a number", "a string".
    private static func jsonKind(of type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Double.Type, is Int.Type: "a number"
        case is Bool.Type: "true or false"
        case is [Any].Type: "an array"
        default: "an object"
        }
    }
}
