import CoreData
import Foundation

/// The app's Core Data stack, as Xcode's template and Apple's "large data feed" sample set
/// it up: a container that finds `Todos.xcdatamodeld` by name, a view context that follows
/// the background saves, and task contexts for the DAOs' work.
public final class PersistenceController: Sendable {
    /// Where the store lives.
    public enum Store: Equatable, Sendable {
        /// `Todos.sqlite` in the user's data directory (`NSPersistentContainer.defaultDirectoryURL()`).
        case standard
        /// A SQLite file at the URL.
        case sqlite(URL)
        /// Memory only: gone when the program ends (demos and tests).
        case inMemory
    }

    /// The model's name, and the default store's.
    public static let modelName = "Todos"

    /// The file `.standard` opens.
    public static var standardStoreURL: URL {
        NSPersistentContainer.defaultDirectoryURL().appendingPathComponent("\(modelName).sqlite")
    }

    public let container: NSPersistentContainer

    /// A sync server to mirror the store to (issue 24): with one, the controller's container
    /// is an `NSPersistentCloudKitContainer` whose store syncs; without, a plain container.
    public struct SyncSettings: Equatable, Sendable {
        /// The container identifier the store syncs under (the `CloudKit` module finds the
        /// server by it).
        public static let containerIdentifier = "iCloud.org.strata.Todos"

        public var serverURL: URL
        /// The bearer token (a JWT) the server takes.
        public var token: String?
        /// Whether the store syncs by itself while open (`todo serve`), or only when
        /// `syncNow()` is called (a command-line run, which syncs around its work).
        public var live: Bool

        public init(serverURL: URL, token: String?, live: Bool = false) {
            self.serverURL = serverURL
            self.token = token
            self.live = live
        }
    }

    /// The sync settings the controller was made with.
    public let sync: SyncSettings?

    /// Loads the model and opens (or creates) the store; throws the container's error when
    /// the store cannot be opened (a folder that cannot be written, a file that is not a
    /// store of this model).
    /// The author persistent history records for this controller's saves (`cli`, `web`).
    public let author: String?

    public init(store: Store = .standard, author: String? = nil, sync: SyncSettings? = nil) throws {
        self.author = author
        self.sync = sync
        if let sync, store != .inMemory {
            let syncing = NSPersistentCloudKitContainer(name: Self.modelName)
            let options = NSPersistentCloudKitContainerOptions(containerIdentifier: SyncSettings.containerIdentifier)
            options.serverURL = sync.serverURL
            if let token = sync.token { options.useStaticToken(token) }
            options.syncsAutomatically = sync.live
            syncing.persistentStoreDescriptions.first?.cloudKitContainerOptions = options
            container = syncing
        } else {
            container = NSPersistentContainer(name: Self.modelName)
        }
        switch store {
        case .standard:
            break
        case .sqlite(let url):
            container.persistentStoreDescriptions.first?.url = url
        case .inMemory:
            container.persistentStoreDescriptions.first?.type = NSInMemoryStoreType
            // Xcode's template's URL for a store never written: with the default URL left in
            // place, Strata's container makes the data directory even for an in-memory store.
            container.persistentStoreDescriptions.first?.url = URL(fileURLWithPath: "/dev/null")
        }
        // History records every save (`todo log` reads it), and another process's saves are
        // noticed (`todo serve` shows what `todo add` does).
        for description in container.persistentStoreDescriptions {
            description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)
            // Beyond Apple: updates keep their old values, so the log tells what really changed.
            description.setOption(true as NSNumber, forKey: StrataPersistentHistoryValuesKey)
            description.setOption(true as NSNumber, forKey: NSPersistentStoreRemoteChangeNotificationPostOptionKey)
        }
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in
            if let error {
                loadError = error
            }
        }
        if let loadError {
            throw loadError
        }
        container.viewContext.automaticallyMergesChangesFromParent = true
        container.viewContext.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        container.viewContext.name = "viewContext"
        container.viewContext.transactionAuthor = author
    }

    /// Exports the store's local changes and imports the server's, until the server has
    /// nothing newer; nothing without sync settings. A command-line run calls it before it
    /// exits, so that what it did reaches the server.
    public func syncNow() async throws {
        try await (container as? NSPersistentCloudKitContainer)?.syncNow()
    }

    /// Where the store's sync stands: pending changes, last import and export, last failure;
    /// nil for a store that never synced.
    public func syncStatus() throws -> NSPersistentCloudKitContainer.SyncStatus? {
        guard let store = container.persistentStoreCoordinator.persistentStores.first else { return nil }
        return try NSPersistentCloudKitContainer.syncStatus(of: store)
    }

    /// Closes the store files, as a program does before it exits (`todo serve` on SIGINT).
    /// Every DAO call has saved by the time it returns, so there is nothing left to save;
    /// removing the stores from the coordinator closes their files. The controller cannot be
    /// used afterwards.
    public func close() throws {
        (container as? NSPersistentCloudKitContainer)?.stopSyncing()
        let coordinator = container.persistentStoreCoordinator
        for store in coordinator.persistentStores {
            try coordinator.remove(store)
        }
    }

    /// Runs the block on a new background context that saves as this controller's author (the
    /// container's own `performBackgroundTask`, whose contexts have no author).
    public func performBackgroundTask<T, E: Error>(
        _ block: @escaping (NSManagedObjectContext) throws(E) -> T
    ) async throws(E) -> T {
        let context = container.newBackgroundContext()
        context.transactionAuthor = author
        return try await context.perform(schedule: .enqueued) { () throws(E) -> T in try block(context) }
    }

    /// A private-queue context for one piece of work. Its merge policy makes a save whose
    /// ids are already in the store (another context inserted them first) update those
    /// rows instead of failing on the uniqueness constraints.
    public func newTaskContext() -> NSManagedObjectContext {
        let context = container.newBackgroundContext()
        context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        context.transactionAuthor = author
        return context
    }
}
