import Foundation

/// The repositories over one store: what an interface (the command line, the web server)
/// opens once and calls.
public struct TodoServices: Sendable {
    public let persistence: PersistenceController
    public let todos: any TodoRepository
    public let tags: any TagRepository
    public let archive: any ArchiveRepository

    /// Opens the store and the repositories over it; `author` names the interface in the
    /// store's history (`cli`, `web`). With sync settings the store syncs with the server (the
    /// repositories work on the local store either way: sync runs underneath, offline first).
    public init(
        store: PersistenceController.Store, author: String? = nil, sync: PersistenceController.SyncSettings? = nil
    ) throws {
        let persistence = try PersistenceController(store: store, author: author, sync: sync)
        self.init(
            persistence: persistence,
            todos: LocalTodoRepository(persistence: persistence),
            tags: LocalTagRepository(persistence: persistence),
            archive: LocalArchiveRepository(persistence: persistence)
        )
    }

    /// Services with the given repositories (a sync-backed one, or a test double).
    public init(
        persistence: PersistenceController, todos: any TodoRepository, tags: any TagRepository,
        archive: any ArchiveRepository
    ) {
        self.persistence = persistence
        self.todos = todos
        self.tags = tags
        self.archive = archive
    }
}
