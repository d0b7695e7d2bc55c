import Foundation
import Hummingbird
import TodoKit

/// The request context of the app: request bodies are small JSON objects, read and written
/// with the interfaces' JSON conventions (`TodoJSON`: ISO 8601 dates with milliseconds).
struct TodoRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
    }

    /// No request of this API needs more than a few hundred bytes; anything past this is
    /// refused with 413 before it is read.
    var maxUploadSize: Int { 64 * 1024 }

    var requestDecoder: JSONDecoder { TodoJSON.decoder() }
    var responseEncoder: JSONEncoder { TodoJSON.encoder() }
}

/// A value sent back as JSON with a status (200 unless told).
struct JSONResponse<Value: Encodable & Sendable>: ResponseGenerator {
    var status: HTTPResponse.Status = .ok
    let value: Value

    init(_ value: Value, status: HTTPResponse.Status = .ok) {
        self.value = value
        self.status = status
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = try context.responseEncoder.encode(value, from: request, context: context)
        response.status = status
        return response
    }
}

extension Request {
    /// The JSON body decoded as `type`; an `APIError` naming the problem when it is missing,
    /// is not JSON, or lacks a field.
    func decodeJSON<Value: Decodable>(_ type: Value.Type, context: TodoRequestContext) async throws -> Value {
        let buffer = try await body.collect(upTo: context.maxUploadSize)
        guard buffer.readableBytes > 0 else {
            throw APIError.badRequest("missing_body", "The request needs a JSON body.")
        }
        return try context.requestDecoder.decode(Value.self, from: Data(buffer.readableBytesView))
    }
}
