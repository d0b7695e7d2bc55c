import CoreData

/// What differs between the four targets that compile the files of `Shared/`: this one
/// applies Strata's plugin, which generates `NoteEntity` from `NotesSwift5.xcdatamodeld` and puts
/// the model among the target's resources.
enum ImportTarget {
    struct ModelNotFound: Error {}

    /// The model, found and loaded as apps find theirs: the compiled `.momd` in the main
    /// bundle (the plugin also puts it in the target's resources).
    static func loadModel() throws -> NSManagedObjectModel {
        guard let url = Bundle.main.url(forResource: "NotesSwift5", withExtension: "momd"),
            let model = NSManagedObjectModel(contentsOf: url)
        else { throw ModelNotFound() }
        return model
    }

    /// The same model among the target's resources.
    static func resourceModelURL() -> URL? {
        Bundle.module.url(forResource: "NotesSwift5", withExtension: "momd")
    }
}
