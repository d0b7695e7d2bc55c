import Foundation
import SyncTestSupport
import Testing
import TodoKit

/// Two `todo` stores (a laptop's and a phone's) syncing through a real `strata-sync` on a
/// real PostgreSQL, with the built program, as README's "Syncing two stores" shows it; skipped
/// with a notice where PostgreSQL is absent (unless `STRATA_REQUIRE_POSTGRES=1`).
@Suite("todo --sync-server", .serialized, .enabled(if: TestPostgres.isAvailable, "PostgreSQL is absent"))
struct TodoSyncCommandTests {
    /// Runs the blocking program off Swift's cooperative threads, which the in-process server
    /// needs to answer it.
    private func off<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }

    @Test("an added to-do reaches the other store, a completion comes back, status shows nothing pending")
    func twoStoresSync() async throws {
        let database = try await TestPostgres.shared.makeDatabase()
        let server = try await TestSyncServer.start(databaseURL: database)
        let token = try await TestTokens.token(for: "alice-" + UUID().uuidString.prefix(8).lowercased())
        let laptop = try TodoProgram()
        let phone = try TodoProgram()
        let settings = ["TODO_SYNC_SERVER": server.url.absoluteString, "TODO_SYNC_TOKEN": token]
        laptop.environment = settings
        phone.environment = settings
        do {
            let added = try await off { try laptop.json(TodoModel.self, "add", "Buy", "oat", "milk", "--tag", "errands") }
            let seen = try await off { try phone.json(TodoPage.self, "list") }
            #expect(seen.todos.map(\.title) == ["Buy oat milk"])
            #expect(seen.todos.first?.tags.map(\.title) == ["errands"])
            // The same object on both: its id travels with it.
            #expect(seen.todos.first?.id == added.id)
            let id = added.id.uuidString
            let completed = try await off { try phone.json(TodoModel.self, "complete", id) }
            #expect(completed.completedAt != nil)
            let back = try await off { try laptop.json(TodoModel.self, "show", id) }
            #expect(back.completedAt != nil)
            let status = try await off { try laptop.runBare(["--store", laptop.store.path, "sync", "status", "--json"]) }
            #expect(status.status == 0, "\(status.error)")
            let report = try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any]
            #expect(report?["syncing"] as? Bool == true)
            #expect(report?["pendingChanges"] as? Int == 0)
            #expect(report?["lastImport"] is String && report?["lastExport"] is String, "\(status.output)")
            let synced = try await off { try laptop.runBare(["--store", laptop.store.path, "sync"]) }
            #expect(synced.output == "Synced.\n", "\(synced.error)")
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test("offline, a command works on the local store and warns; the next run online sends its change")
    func offlineThenCatchUp() async throws {
        let database = try await TestPostgres.shared.makeDatabase()
        let server = try await TestSyncServer.start(databaseURL: database)
        let token = try await TestTokens.token(for: "bob-" + UUID().uuidString.prefix(8).lowercased())
        let laptop = try TodoProgram()
        let phone = try TodoProgram()
        phone.environment = ["TODO_SYNC_SERVER": server.url.absoluteString, "TODO_SYNC_TOKEN": token]
        do {
            // A port nothing listens on: the server is unreachable.
            laptop.environment = ["TODO_SYNC_SERVER": "http://127.0.0.1:9", "TODO_SYNC_TOKEN": token]
            let offline = try await off {
                try laptop.runBare(["--store", laptop.store.path, "add", "Water", "the", "plants", "--json"])
            }
            #expect(offline.status == 0, "\(offline.error)")
            #expect(!offline.error.isEmpty, "no warning that the server was not reached")
            let pending = try await off {
                try laptop.runBare(["--store", laptop.store.path, "sync", "status", "--json"])
            }
            let report = try JSONSerialization.jsonObject(with: Data(pending.output.utf8)) as? [String: Any]
            #expect((report?["pendingChanges"] as? Int ?? 0) > 0, "\(pending.output)")
            #expect(try await off { try phone.json(TodoPage.self, "list") }.total == 0)
            // Back online: any command sends what waited.
            laptop.environment = phone.environment
            _ = try await off { try laptop.json(TodoPage.self, "list") }
            #expect(try await off { try phone.json(TodoPage.self, "list") }.todos.map(\.title) == ["Water the plants"])
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
