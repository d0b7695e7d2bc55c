import CoreData

/// The entity class, written by hand as Xcode's "Manual/None" code generation leaves it to
/// the developer, in a file that imports only CoreData.
public class NoteEntity: NSManagedObject {}

extension NoteEntity {
    @nonobjc public class func fetchRequest() -> NSFetchRequest<NoteEntity> {
        return NSFetchRequest<NoteEntity>(entityName: "NoteEntity")
    }

    @Managed public var createdAt: Date?
    @Managed public var noteId: UUID?
    @Managed public var pinned: Bool
    @Managed public var rating: Int16
    @Managed public var title: String?
}
