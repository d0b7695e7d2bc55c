import CoreData
import Foundation

/// The app's Core Data stack, as Xcode's project template sets it up: a container that finds
/// the model by name, with its store at a given place (each test gives its own).
struct PersistenceController {
    let container: NSPersistentContainer

    /// Loads the model and opens (or creates) the SQLite store at `storeURL`, or an in-memory
    /// store when it is `nil`. (Xcode's template points the SQLite store at `/dev/null` for
    /// that, which Strata does not support yet.)
    init(storeURL: URL?) throws {
        container = NSPersistentContainer(name: CompatTarget.modelName)
        if let storeURL {
            container.persistentStoreDescriptions.first?.url = storeURL
        } else {
            container.persistentStoreDescriptions.first?.type = NSInMemoryStoreType
        }
        var loadError: NSError?
        container.loadPersistentStores { _, error in
            if let error = error as NSError? {
                loadError = error
            }
        }
        if let loadError {
            throw loadError
        }
        container.viewContext.name = "viewContext"
    }
}
