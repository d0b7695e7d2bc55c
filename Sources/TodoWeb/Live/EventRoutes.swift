import Hummingbird
import ServiceLifecycle

/// `GET /api/events`: the live list's stream of server-sent events (`LiveUpdates`), which the
/// page opens with `EventSource`.
///
/// The response never ends by itself, so it ends on its own when the server shuts down
/// gracefully (otherwise the server would wait for it forever), when the request's task is
/// cancelled, and when a write fails because the page went away.
struct EventRoutes: Sendable {
    let updates: LiveUpdates

    func register(on events: RouterGroup<TodoRequestContext>) {
        events.get { _, _ in stream() }
    }

    private func stream() -> Response {
        let subscription = updates.subscribe()
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream; charset=utf-8"
        headers[.cacheControl] = "no-cache"
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                defer { subscription.cancel() }
                try await withGracefulShutdownHandler {
                    for await event in subscription.events {
                        try await writer.write(ByteBuffer(string: event.text))
                    }
                } onGracefulShutdown: {
                    subscription.cancel()
                }
                try await writer.finish(nil)
            })
    }
}
