import Foundation
import TodoKit

/// One command's use of the store: opens it as the options say, runs the work, and turns
/// whatever goes wrong into a message for the person at the terminal.
struct Session {
    let services: TodoServices

    /// Opens the store and runs `work` with it; the store's history names `author` as the
    /// interface that made the changes.
    static func run(
        _ options: TodoCommand, author: String = "cli", sync: Bool = true, _ work: (Session) async throws -> Void
    ) async throws {
        let session: Session
        do {
            session = try await open(options, author: author, sync: sync)
        } catch {
            throw CommandFailure("The store could not be opened: \(CommandFailure.describe(error))")
        }
        // With a sync server: the server's changes first, so that the command sees them; the
        // command's own changes pushed before it exits. Offline, the command still runs on the
        // local store, and its changes wait in history for the next sync.
        await session.sync(quietly: !sync || options.syncSettings() == nil)
        do {
            try await work(session)
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure(CommandFailure.describe(error))
        }
        await session.sync(quietly: !sync || options.syncSettings() == nil)
    }

    /// Syncs now, when the store syncs; a failure is a warning on standard error.
    func sync(quietly: Bool) async {
        guard !quietly else { return }
        do {
            try await services.persistence.syncNow()
        } catch {
            FileHandle.standardError.write(Data("Warning: not synced: \(CommandFailure.describe(error))\n".utf8))
        }
    }

    private static func open(_ options: TodoCommand, author: String, sync: Bool) async throws -> Session {
        if case .sqlite(let url) = options.storeLocation {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        }
        let session = Session(
            services: try TodoServices(
                store: options.storeLocation, author: author, sync: sync ? options.syncSettings(live: author == "web") : nil))
        if options.sample, try await session.services.todos.allIds().isEmpty {
            try await SampleData.load(into: session.services)
        }
        return session
    }

    /// The to-do a person named by the start of its id.
    func todo(_ reference: String) async throws -> TodoModel {
        try await services.todos.todo(id: services.todos.resolve(reference))
    }

    /// How ids are shown for the store's to-dos now.
    func todoIds() async throws -> ShortIds {
        ShortIds(length: IdReference.shortLength(for: try await services.todos.allIds()))
    }
}

/// The length at which ids are shown: enough digits to tell every to-do apart.
struct ShortIds {
    let length: Int

    func callAsFunction(_ id: UUID) -> String {
        IdReference.short(id, length: length)
    }
}
