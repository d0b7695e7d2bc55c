import CoreData

/// What differs between the four targets that compile the files of `Shared/`: this one
/// does not apply Strata's plugin; it writes `#CoreDataNames` once (CoreDataNames.swift) for
/// its files that import Foundation too. (CoreDataImportNoPluginSwift6Tests has neither, and
/// shows that files importing only CoreData need nothing.) The model is a resource of the target
/// (declared in Package.swift), and `NoteEntity` is written by hand.
enum ImportTarget {
    struct ModelNotFound: Error {}

    /// The model, from the target's resources.
    static func loadModel() throws -> NSManagedObjectModel {
        guard let url = Bundle.module.url(forResource: "NotesNoPlugin5", withExtension: "xcdatamodeld"),
            let model = NSManagedObjectModel(contentsOf: url)
        else { throw ModelNotFound() }
        return model
    }
}
