import CloudKit
import CoreData
import Foundation
import StrataSyncServer
import SyncTestSupport
import Testing

extension SyncClientTests {
    /// The sync engine against a real server that goes away and comes back, and the token
    /// provider an app gives for its users' credentials.
    @Suite(.enabled(if: TestPostgres.isAvailable, "PostgreSQL is absent")) struct ResilienceTests {
        private let scratch = Scratch()

        /// Syncs `container` until `condition` holds (a server that just came back may refuse
        /// a first request); false after `seconds`.
        private func syncUntil(
            _ container: NSPersistentCloudKitContainer, seconds: Double = 60, _ condition: () throws -> Bool
        ) async throws -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                try? await container.syncNow()
                if try condition() { return true }
                try await Task.sleep(nanoseconds: 50_000_000)
            }
            return try condition()
        }

        /// A container syncing on its own while its server is down keeps its change, reports the
        /// failures, and sends the change once the server is back on the same address.
        @Test func theEngineRetriesAfterAnOutage() async throws {
            let database = try await TestPostgres.shared.makeDatabase()
            var configuration = TestSyncServer.configuration(databaseURL: database)
            let first = try await TestSyncServer.start(configuration: configuration)
            let token = try await TestTokens.token(for: "outage")
            let down = Backend(server: first, token: token, user: "outage")
            await first.stop()

            let a = try SyncClientTests.container(at: scratch.file("a.sqlite"), backend: down, automatic: true)
            let events = EventLog(container: a)
            try SyncClientTests.change(a) { context in
                NSEntityDescription.insertNewObject(forEntityName: "Habit", into: context).setValue("Outage", forKey: "title")
            }
            // The outage, seen by the engine: at least one sync that ended with an error.
            #expect(try await SyncClientTests.eventually { events.ended().contains { !$0.succeeded } })

            configuration.port = try #require(first.url.port)
            let second = try await TestSyncServer.start(configuration: configuration)
            defer { Task { await second.stop() } }
            let up = Backend(server: second, token: token, user: "outage")
            let b = try SyncClientTests.container(at: scratch.file("b.sqlite"), backend: up)
            // No call to a.syncNow(): the engine's own retry sends the change.
            #expect(try await syncUntil(b) { try SyncClientTests.count("Habit", in: b) == 1 })
            let store = try #require(a.persistentStoreCoordinator.persistentStores.first)
            #expect(try await SyncClientTests.eventually { a.syncStatus(for: store)?.pendingChanges == 0 })
            a.stopSyncing()
        }

        /// Whether the error is of the type, or has one underneath.
        private static func carries<E: Error>(_ error: any Error, _ type: E.Type) -> Bool {
            if error is E { return true }
            guard let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? any Error else { return false }
            return carries(underlying, type)
        }

        /// The provider is asked for a token for each request (so a refreshed credential is used
        /// at once); when it fails, the sync fails with its error and sends nothing, and the next
        /// sync after it recovers sends the change.
        @Test func theTokenProviderIsAskedForEachRequest() async throws {
            let backend = try await Backend.start()
            defer { Task { await backend.stop() } }
            let asked = Counter()
            let failing = Counter()
            let token = backend.token
            let a = try SyncClientTests.container(at: scratch.file("a.sqlite"), backend: backend) {
                asked.add()
                if failing.value > 0 { throw ProviderError() }
                return token
            }
            try SyncClientTests.change(a) { context in
                NSEntityDescription.insertNewObject(forEntityName: "Habit", into: context).setValue("First", forKey: "title")
            }
            try await a.syncNow()
            let afterFirst = asked.value
            #expect(afterFirst >= 2, "a sync makes several requests: \(afterFirst)")
            try await a.syncNow()
            #expect(asked.value > afterFirst)

            failing.add()
            try SyncClientTests.change(a) { context in
                NSEntityDescription.insertNewObject(forEntityName: "Habit", into: context).setValue("Second", forKey: "title")
            }
            let error = try await #require(throws: (any Error).self) { try await a.syncNow() }
            #expect(Self.carries(error, ProviderError.self), "\(error)")
            let other = try SyncClientTests.container(at: scratch.file("other.sqlite"), backend: backend)
            try await other.syncNow()
            #expect(try SyncClientTests.count("Habit", in: other) == 1, "nothing was sent without a token")

            failing.reset()
            try await a.syncNow()
            try await other.syncNow()
            #expect(try SyncClientTests.count("Habit", in: other) == 2)
        }
    }

    struct ProviderError: Error {}

    /// A count shared with a token provider.
    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        var value: Int { lock.withLock { count } }
        func add() { lock.withLock { count += 1 } }
        func reset() { lock.withLock { count = 0 } }
    }
}
