import Foundation
import Synchronization
import TodoKit

/// The open pages, and the store's changes sent to each: `todo serve`'s live list.
///
/// Each page that opens `GET /api/events` subscribes and gets a stream of server-sent events:
/// first `ready` (with the current version and the reconnection delay), then a `change` for
/// every save that reaches the store (`PersistenceController.todoChanges()`: the API's own
/// saves, whichever page or program sent them, and any other context's), and a keep-alive
/// comment every `keepAliveInterval`.
///
/// ```swift
/// let updates = LiveUpdates()
/// let subscription = updates.subscribe()
/// for await event in subscription.events { print(event.text) }   // until cancel()
/// ```
///
/// A subscriber is removed as soon as its stream ends: its page went away (the server's write
/// fails, at the latest at the next keep-alive), the server shuts down, or it fell more than
/// `bufferLimit` events behind (its stream ends and `EventSource` reconnects, then refetches).
public final class LiveUpdates: Sendable {
    /// One page's events, until `cancel()` or the end of the server.
    public struct Subscription: Sendable {
        public let events: AsyncStream<ServerSentEvent>
        let id: Int
        let updates: LiveUpdates

        /// Ends the stream and removes the subscriber.
        public func cancel() {
            updates.remove(id)?.finish()
        }
    }

    private struct State {
        var subscribers: [Int: AsyncStream<ServerSentEvent>.Continuation] = [:]
        var nextId = 0
        var version = 0
    }

    private let state = Mutex(State())
    /// How often an idle stream gets a comment, so that proxies do not cut it and a page that
    /// went away is noticed.
    public let keepAliveInterval: Duration
    /// How many events a page may be behind before its stream is ended.
    public static let bufferLimit = 256
    /// The reconnection delay the pages are told: a page follows a restarted server within a
    /// second or so.
    public static let retryMilliseconds = 1000

    public init(keepAliveInterval: Duration = .seconds(15)) {
        self.keepAliveInterval = keepAliveInterval
    }

    /// How many pages are subscribed.
    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// The number of the last change sent (0 before the first).
    public var version: Int { state.withLock { $0.version } }

    /// A new subscriber, whose stream starts with the `ready` event.
    public func subscribe() -> Subscription {
        let (events, continuation) = AsyncStream<ServerSentEvent>.makeStream(
            bufferingPolicy: .bufferingOldest(Self.bufferLimit))
        let (id, version) = state.withLock { state in
            state.nextId += 1
            state.subscribers[state.nextId] = continuation
            return (state.nextId, state.version)
        }
        continuation.yield(
            ServerSentEvent(
                name: "ready", id: String(version), data: #"{"version":\#(version)}"#, retry: Self.retryMilliseconds))
        let subscription = Subscription(events: events, id: id, updates: self)
        // The consuming task cancelled, or the stream dropped: the subscriber goes too.
        continuation.onTermination = { _ in subscription.updates.remove(id)?.finish() }
        return subscription
    }

    /// Sends the change to every subscriber as the next version's `change` event; a change
    /// that touched no to-do is not sent.
    public func publish(_ change: TodoChange) {
        guard !change.isEmpty else { return }
        let behind = state.withLock { state in
            state.version += 1
            let event = Self.event(LiveEvent(version: state.version, change: change))
            // Sent under the lock, so that every page gets the versions in order.
            return state.subscribers.filter { $0.value.yield(event).isDropped }.map(\.key)
        }
        for id in behind {
            remove(id)?.finish()
        }
    }

    /// Sends the keep-alive comment to every subscriber.
    func keepAlive() {
        let subscribers = state.withLock { Array($0.subscribers.values) }
        for subscriber in subscribers {
            subscriber.yield(.comment("keep-alive"))
        }
    }

    /// Publishes every change of the stream, and keeps idle streams alive, until the calling
    /// task is cancelled or the changes end; then ends every subscriber's stream.
    public func follow(_ changes: AsyncStream<TodoChange>) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await change in changes {
                    self.publish(change)
                }
            }
            group.addTask {
                while (try? await Task.sleep(for: self.keepAliveInterval)) != nil {
                    self.keepAlive()
                }
            }
            // Either ending (the changes finished, or cancellation) ends the other.
            _ = await group.next()
            group.cancelAll()
        }
        finishAll()
    }

    /// Ends every subscriber's stream.
    func finishAll() {
        let subscribers = state.withLock { state in
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers {
            subscriber.finish()
        }
    }

    /// Takes the subscriber out, and returns its continuation for finishing outside the lock
    /// (finishing calls `onTermination`, which takes the lock again).
    private func remove(_ id: Int) -> AsyncStream<ServerSentEvent>.Continuation? {
        state.withLock { $0.subscribers.removeValue(forKey: id) }
    }

    /// The `change` event of a version. Should the change not encode (it always does: values
    /// of strings, dates and numbers), the page is sent the version alone, and refetches.
    private static func event(_ live: LiveEvent) -> ServerSentEvent {
        let data = (try? LiveEvent.encoder().encode(live)).map { String(decoding: $0, as: UTF8.self) }
        return ServerSentEvent(name: "change", id: String(live.version), data: data ?? #"{"version":\#(live.version)}"#)
    }
}

extension AsyncStream.Continuation.YieldResult {
    /// The buffer was full and the element was not kept.
    fileprivate var isDropped: Bool {
        if case .dropped = self { return true }
        return false
    }
}
