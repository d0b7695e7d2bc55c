import CoreData

/// A data-access object as Core Data apps write them, in a file that imports CoreData and
/// nothing else: Foundation's `Date`, `UUID` and `NSPredicate` come with it.
final class NoteDAO {
    let context: NSManagedObjectContext

    init(context: NSManagedObjectContext) {
        self.context = context
    }

    @discardableResult
    func create(title: String, rating: Int16 = 0, pinned: Bool = false, createdAt: Date = Date()) -> NoteEntity {
        let note = NoteEntity(context: context)
        note.noteId = UUID()
        note.title = title
        note.rating = rating
        note.pinned = pinned
        note.createdAt = createdAt
        return note
    }

    /// Notes whose title contains the text (all when it is nil or empty), pinned first, then
    /// newest first.
    func notes(matching text: String? = nil, minimumRating: Int16? = nil) throws -> [NoteEntity] {
        let request: NSFetchRequest<NoteEntity> = NoteEntity.fetchRequest()
        var predicates: [NSPredicate] = []
        if let text, !text.isEmpty {
            predicates.append(NSPredicate(format: "title CONTAINS[cd] %@", text))
        }
        if let minimumRating {
            predicates.append(NSPredicate(format: "rating >= %@", NSNumber(value: minimumRating)))
        }
        request.predicate = NSCompoundPredicate(andPredicateWithSubpredicates: predicates)
        request.sortDescriptors = [
            NSSortDescriptor(key: "pinned", ascending: false), NSSortDescriptor(key: "createdAt", ascending: false),
        ]
        return try context.fetch(request)
    }

    func note(withID id: UUID) throws -> NoteEntity? {
        let request: NSFetchRequest<NoteEntity> = NoteEntity.fetchRequest()
        request.predicate = NSPredicate(format: "noteId == %@", id as CVarArg)
        request.fetchLimit = 1
        return try context.fetch(request).first
    }

    func count(createdSince date: Date) throws -> Int {
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "NoteEntity")
        request.predicate = NSPredicate(format: "createdAt >= %@", date as NSDate)
        return try context.count(for: request)
    }

    /// The titles by rating, as a dictionary fetch returns them.
    func titlesByRating() throws -> [Int16: [String]] {
        let request = NSFetchRequest<NSDictionary>(entityName: "NoteEntity")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = ["title", "rating"]
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        var result: [Int16: [String]] = [:]
        for row in try context.fetch(request) {
            guard let title = row["title"] as? String, let rating = (row["rating"] as? NSNumber)?.int16Value else { continue }
            result[rating, default: []].append(title)
        }
        return result
    }

    func delete(_ note: NoteEntity) {
        context.delete(note)
    }

    func save() throws {
        if context.hasChanges { try context.save() }
    }
}
