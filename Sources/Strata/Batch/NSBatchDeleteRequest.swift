import Foundation

/// What an `NSBatchDeleteRequest` returns in its result.
///
/// ```swift
/// delete.resultType = .resultTypeObjectIDs
/// let ids = (try context.execute(delete) as? NSBatchDeleteResult)?.result as? [NSManagedObjectID]
/// ```
public enum NSBatchDeleteRequestResultType: UInt, Sendable {
    /// Whether the request succeeded (`result` is `true`).
    case resultTypeStatusOnly = 0
    /// The IDs of the rows deleted, cascades included (`result` is `[NSManagedObjectID]`).
    case resultTypeObjectIDs = 1
    /// The number of rows deleted, cascades included (`result` is an `Int`).
    case resultTypeCount = 2
}

/// Deletes the rows a fetch request selects, or the given objects, in the stores, without
/// loading objects or changing contexts; merge the returned IDs into contexts with
/// `NSManagedObjectContext.mergeChanges(fromRemoteContextSave:into:)`.
///
/// ```swift
/// let request = NSFetchRequest<NSFetchRequestResult>(entityName: "User")
/// request.predicate = NSPredicate(format: "age < 18")
/// let delete = NSBatchDeleteRequest(fetchRequest: request)
/// delete.resultType = .resultTypeObjectIDs
/// let deleted = (try context.execute(delete) as? NSBatchDeleteResult)?.result as? [NSManagedObjectID] ?? []
/// NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSDeletedObjectsKey: deleted], into: [viewContext])
/// ```
///
/// Delete rules hold in the store: cascades reach related rows (recursively), nullify clears
/// the foreign keys and join-table rows that point at deleted rows, and a deny rule with
/// related rows left refuses the whole request (`NSValidationRelationshipDeniedDeleteError`).
open class NSBatchDeleteRequest: NSPersistentStoreRequest, @unchecked Sendable {
    /// The fetch whose rows are deleted (its predicate, sort descriptors, limit and offset
    /// count); for a request made with object IDs, a fetch of their entity.
    open private(set) var fetchRequest: NSFetchRequest<NSFetchRequestResult>
    /// What the result holds; `.resultTypeStatusOnly` unless set.
    open var resultType: NSBatchDeleteRequestResultType = .resultTypeStatusOnly
    /// The objects to delete, for a request made with IDs.
    let objectIDs: [NSManagedObjectID]?

    /// A request deleting every row the fetch request selects.
    public init(fetchRequest: NSFetchRequest<NSFetchRequestResult>) {
        self.fetchRequest = fetchRequest
        self.objectIDs = nil
        super.init()
    }

    /// A request deleting every row a typed fetch request selects. Swift cannot cast
    /// `NSFetchRequest<Book>` to `NSFetchRequest<NSFetchRequestResult>`, so this takes it
    /// as it is:
    ///
    /// ```swift
    /// let delete = NSBatchDeleteRequest(fetchRequest: Book.fetchRequest())
    /// ```
    public convenience init<ResultType>(fetchRequest: NSFetchRequest<ResultType>) {
        self.init(fetchRequest: Self.untyped(fetchRequest))
    }

    /// A request deleting the objects with these IDs (of any entities of one store).
    public init(objectIDs objects: [NSManagedObjectID]) {
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: objects.first?.entity.name ?? "")
        request.entity = objects.first?.entity
        self.fetchRequest = request
        self.objectIDs = objects
        super.init()
    }

    /// The same fetch as an untyped request.
    private static func untyped<ResultType>(_ typed: NSFetchRequest<ResultType>) -> NSFetchRequest<NSFetchRequestResult> {
        let request = NSFetchRequest<NSFetchRequestResult>()
        request.entityName = typed.entityName
        if let entity = typed.entity { request.entity = entity }
        request.predicate = typed.predicate
        request.sortDescriptors = typed.sortDescriptors
        request.fetchLimit = typed.fetchLimit
        request.fetchOffset = typed.fetchOffset
        request.includesSubentities = typed.includesSubentities
        request.affectedStores = typed.affectedStores
        return request
    }
}

/// The result of an `NSBatchDeleteRequest`.
///
/// ```swift
/// let deleted = (try context.execute(delete) as? NSBatchDeleteResult)?.result as? Int
/// ```
open class NSBatchDeleteResult: NSPersistentStoreResult, @unchecked Sendable {
    /// `true`, the IDs deleted or their number, as `resultType` says.
    open private(set) var result: Any?
    /// The request's result type.
    open private(set) var resultType: NSBatchDeleteRequestResultType

    init(result: Any?, resultType: NSBatchDeleteRequestResultType) {
        self.result = result
        self.resultType = resultType
        super.init()
    }
}
