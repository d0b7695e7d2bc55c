import CoreData

/// What differs between the four targets that compile the files of `Shared/`: this one
/// does not apply Strata's plugin (nor write `#CoreDataNames`): its files import only
/// CoreData and still mean Core Data's classes. The model is a resource of the target
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
