import Foundation
import Hummingbird

/// Turns every error a route throws (or the router's own 404) into the API's JSON error, and
/// logs those that are the server's fault rather than the request's.
struct APIErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response
    {
        do {
            return try await next(request, context)
        } catch {
            var apiError = APIError(error)
            if apiError.status == .notFound, apiError.code == "not_found", error is HTTPError {
                apiError.message = "Nothing at \(request.method.rawValue) \(request.uri.path)."
            }
            if apiError.status.kind == .serverError {
                context.logger.error("\(request.method.rawValue) \(request.uri.path) failed: \(String(reflecting: error))")
            }
            var response = try context.responseEncoder.encode(apiError.body, from: request, context: context)
            response.status = apiError.status
            return response
        }
    }
}
