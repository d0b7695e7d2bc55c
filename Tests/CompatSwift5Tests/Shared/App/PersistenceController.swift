import CoreData
import Foundation

/// The app's Core Data stack, as Xcode's project template sets it up: a container that finds
/// the model by name, with its store at a given place (each test gives its own).
struct PersistenceController {
    let container: NSPersistentContainer

    /// Loads the model and opens (or creates) the SQLite store at `storeURL`.
    init(storeURL: URL) throws {
        container = NSPersistentContainer(name: CompatTarget.modelName)
        container.persistentStoreDescriptions.first?.url = storeURL
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
