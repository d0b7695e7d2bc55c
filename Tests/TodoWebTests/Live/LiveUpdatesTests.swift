import CoreData
import Foundation
import Synchronization
import Testing
import TodoKit
import TodoWeb

/// The broadcast behind the live page: which saves become events, who gets them, and who is
/// let go. The subscriptions here are the server's own (`LiveUpdates.subscribe()`), read in
/// this process; `EventStreamTests` reads the same events over HTTP.
@Suite("Live updates: the broadcast", .timeLimit(.minutes(2)))
struct LiveUpdatesTests {
    @Test("two subscribers get the change of a save made through the API; one that unsubscribed gets nothing")
    func twoSubscribersAndOneGone() async throws {
        try await withServer { api in
            let first = Received(api.live.subscribe())
            let second = Received(api.live.subscribe())
            let gone = api.live.subscribe()
            gone.cancel()
            #expect(api.live.subscriberCount == 2)

            let todo = try await api.create("Water the plants", tags: ["home"])
            for received in [first, second] {
                let changes = try await received.changes(1)
                #expect(changes.map(\.version) == [1])
                // Both went through the same JSON once (the API's answer and the event).
                #expect(changes.first?.inserted == [todo])
                #expect(changes.first?.updated == [] && changes.first?.deleted == [])
                #expect(received.events.first?.name == "ready")
                #expect(received.events.first?.retry == LiveUpdates.retryMilliseconds)
            }
            var left: [ServerSentEvent] = []
            for await event in gone.events { left.append(event) }
            #expect(left.map(\.name) == ["ready"])
            #expect(api.live.version == 1)
        }
    }

    @Test("a completion and a delete carry the new values and the deleted id, numbered in order")
    func updatesAndDeletesInOrder() async throws {
        try await withServer { api in
            let received = Received(api.live.subscribe())
            let todo = try await api.create("File the taxes")
            let done = try await api.expect(200, TodoModel.self, "POST", todo.path + "/complete")
            _ = try await api.send("DELETE", todo.path)
            let changes = try await received.changes(3)
            #expect(changes.map(\.version) == [1, 2, 3])
            #expect(received.events.filter { $0.name == "change" }.map(\.id) == ["1", "2", "3"])
            #expect(changes[1].updated == [done] && changes[1].updated.first?.completedAt != nil)
            #expect(changes[2].deleted == [todo.id] && changes[2].inserted.isEmpty && changes[2].updated.isEmpty)
        }
    }

    @Test("a renamed tag is a change of every to-do that carries it")
    func tagRename() async throws {
        try await withServer { api in
            let one = try await api.create("Paint the fence", tags: ["garden"])
            let two = try await api.create("Mow the lawn", tags: ["garden"])
            let received = Received(api.live.subscribe())
            let tagId = try #require(one.tags.first?.id)
            _ = try await api.expect(200, TagModel.self, "PATCH", "api/tags/\(tagId)", json: #"{"title": "yard"}"#)
            let change = try #require(try await received.changes(1).first)
            #expect(Set(change.updated.map(\.id)) == [one.id, two.id])
            #expect(change.updated.allSatisfy { $0.tags.map(\.title) == ["yard"] })
        }
    }

    @Test("a save through another context of the store, not the API, is sent too")
    func saveThroughAnotherContext() async throws {
        try await withServer { api in
            let received = Received(api.live.subscribe())
            let context = api.services.persistence.container.newBackgroundContext()
            let id = UUID()
            try await context.perform {
                let todo = TodoEntity(context: context)
                todo.todoId = id
                todo.title = "Saved beside the server"
                todo.createdAt = Date()
                todo.updatedAt = Date()
                try context.save()
            }
            let change = try #require(try await received.changes(1).first)
            #expect(change.inserted.map(\.id) == [id] && change.inserted.first?.title == "Saved beside the server")
        }
    }

    @Test("a scratch child context's save is sent when its parent saves, not before")
    func childSavesWaitForTheParent() async throws {
        try await withServer { api in
            let received = Received(api.live.subscribe())
            let parent = api.services.persistence.newTaskContext()
            let scratch = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            scratch.parent = parent
            try await scratch.perform {
                let todo = TodoEntity(context: scratch)
                todo.todoId = UUID()
                todo.title = "Drafted in a scratch context"
                todo.createdAt = Date()
                todo.updatedAt = Date()
                try scratch.save()
            }
            // Changes are sent in the order their saves finished: had the child's save been
            // sent, it would come before this one.
            _ = try await api.create("Saved after the child")
            try await parent.perform { try parent.save() }
            let changes = try await received.changes(2)
            #expect(changes.map { $0.inserted.map(\.title) } == [["Saved after the child"], ["Drafted in a scratch context"]])
        }
    }

    @Test("a subscriber that falls too far behind is let go; a save that touches no to-do is not sent")
    func slowSubscriberAndEmptyChange() async throws {
        let updates = LiveUpdates()
        let slow = updates.subscribe()
        updates.publish(TodoChange())
        #expect(updates.version == 0)
        let todo = TodoModel(id: UUID(), title: "Read", createdAt: Date(), updatedAt: Date())
        for _ in 0..<LiveUpdates.bufferLimit {
            updates.publish(TodoChange(updated: [todo]))
        }
        #expect(updates.subscriberCount == 0)
        var count = 0
        for await _ in slow.events { count += 1 }
        // `ready`, then as many changes as the buffer held.
        #expect(count == LiveUpdates.bufferLimit)
    }

    @Test("idle streams get keep-alive comments; when the changes end, every stream ends")
    func keepAliveAndTheEnd() async throws {
        let updates = LiveUpdates(keepAliveInterval: .milliseconds(50))
        let (changes, continuation) = AsyncStream<TodoChange>.makeStream()
        let following = Task { await updates.follow(changes) }
        let received = Received(updates.subscribe())
        try await received.wait("a keep-alive") { $0.contains { $0.comment == "keep-alive" } }
        continuation.finish()
        await following.value
        #expect(try await received.waitForEnd())
        #expect(updates.subscriberCount == 0)
    }

    @Test("events are written as the HTML standard's event-stream format")
    func eventText() {
        #expect(
            ServerSentEvent(name: "ready", id: "0", data: #"{"version":0}"#, retry: 1000).text
                == "retry: 1000\nevent: ready\nid: 0\ndata: {\"version\":0}\n\n")
        #expect(
            ServerSentEvent(name: "change", data: "one\r\ntwo\rthree\nfour").text
                == "event: change\ndata: one\ndata: two\ndata: three\ndata: four\n\n")
        #expect(ServerSentEvent(name: "x\ny", id: "1\r\n2", data: "").text == "event: xy\nid: 12\ndata: \n\n")
        #expect(ServerSentEvent.comment("keep-alive").text == ": keep-alive\n\n")
    }
}

/// A subscription's events, collected as they come by a task of their own.
final class Received: Sendable {
    private let state = Mutex((events: [ServerSentEvent](), ended: false))

    init(_ subscription: LiveUpdates.Subscription) {
        Task { [self] in
            for await event in subscription.events {
                state.withLock { $0.events.append(event) }
            }
            state.withLock { $0.ended = true }
        }
    }

    var events: [ServerSentEvent] { state.withLock { $0.events } }

    /// Waits until `condition` holds for the events received; fails after a minute (a bound
    /// for "never": in a full test run on two cores this task may wait long for a thread).
    @discardableResult
    func wait(
        _ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ condition: ([ServerSentEvent]) -> Bool
    ) async throws -> [ServerSentEvent] {
        let deadline = Date().addingTimeInterval(60)
        while true {
            let events = self.events
            if condition(events) { return events }
            guard Date() < deadline else {
                Issue.record("Never received \(what); received \(events)", sourceLocation: sourceLocation)
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// The first `count` change events, decoded; fails if fewer come within a minute.
    func changes(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [LiveEvent] {
        let events = try await wait("\(count) changes", sourceLocation: sourceLocation) {
            $0.filter { $0.name == "change" }.count >= count
        }
        return try events.filter { $0.name == "change" }.prefix(count).map {
            try TodoJSON.decoder().decode(LiveEvent.self, from: Data($0.data.utf8))
        }
    }

    /// Waits until the stream ends; false if it is still open after a minute.
    func waitForEnd() async throws -> Bool {
        let deadline = Date().addingTimeInterval(60)
        while !state.withLock({ $0.ended }) {
            guard Date() < deadline else { return false }
            try await Task.sleep(for: .milliseconds(20))
        }
        return true
    }
}
