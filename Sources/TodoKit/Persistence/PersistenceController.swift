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

    /// Loads the model and opens (or creates) the store; throws the container's error when
    /// the store cannot be opened (a folder that cannot be written, a file that is not a
    /// store of this model).
    public init(store: Store = .standard) throws {
        container = NSPersistentContainer(name: Self.modelName)
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
    }

    /// Closes the store files, as a program does before it exits (`todo serve` on SIGINT).
    /// Every DAO call has saved by the time it returns, so there is nothing left to save;
    /// removing the stores from the coordinator closes their files. The controller cannot be
    /// used afterwards.
    public func close() throws {
        let coordinator = container.persistentStoreCoordinator
        for store in coordinator.persistentStores {
            try coordinator.remove(store)
        }
    }

    /// A private-queue context for one piece of work. Its merge policy makes a save whose
    /// ids are already in the store (another context inserted them first) update those
    /// rows instead of failing on the uniqueness constraints.
    public func newTaskContext() -> NSManagedObjectContext {
        let context = container.newBackgroundContext()
        context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        return context
    }
}
