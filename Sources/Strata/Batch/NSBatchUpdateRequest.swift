import Foundation

/// What an `NSBatchUpdateRequest` returns in its result.
///
/// ```swift
/// update.resultType = .updatedObjectIDsResultType
/// let ids = (try context.execute(update) as? NSBatchUpdateResult)?.result as? [NSManagedObjectID]
/// ```
public enum NSBatchUpdateRequestResultType: UInt, Sendable {
    /// Whether the request succeeded (`result` is `true`).
    case statusOnlyResultType = 0
    /// The IDs of the rows updated (`result` is `[NSManagedObjectID]`).
    case updatedObjectIDsResultType = 1
    /// The number of rows updated (`result` is an `Int`).
    case updatedObjectsCountResultType = 2
}

/// Sets properties of every row of an entity that matches a predicate, in the store, without
/// loading objects or changing contexts; merge the returned IDs into contexts with
/// `NSManagedObjectContext.mergeChanges(fromRemoteContextSave:into:)`.
///
/// ```swift
/// let update = NSBatchUpdateRequest(entityName: "Product")
/// update.predicate = NSPredicate(format: "onSale == YES")
/// update.propertiesToUpdate = ["price": NSExpression(format: "price * 1.1"), "checkedAt": NSExpression(format: "now()")]
/// update.resultType = .updatedObjectIDsResultType
/// let ids = (try context.execute(update) as? NSBatchUpdateResult)?.result as? [NSManagedObjectID]
/// ```
///
/// Each updated row's version (`Z_OPT`) moves, so a context that still holds an older
/// version of one of them gets an optimistic-locking conflict when it saves it.
open class NSBatchUpdateRequest: NSPersistentStoreRequest, @unchecked Sendable {
    /// The name of the entity whose rows are updated.
    open var entityName: String
    /// The entity, when the request was made with one.
    open var entity: NSEntityDescription?
    /// Which rows to update; all when `nil`.
    open var predicate: NSPredicate?
    /// Whether rows of subentities are updated too; `true` unless set.
    open var includesSubentities: Bool = true
    /// What the result holds; `.statusOnlyResultType` unless set.
    open var resultType: NSBatchUpdateRequestResultType = .statusOnlyResultType
    /// Property (name or `NSPropertyDescription`) → new value: a constant, or an `NSExpression`
    /// evaluated for each row (`NSExpression(format: "price * 1.1")`, `now()`).
    open var propertiesToUpdate: [AnyHashable: Any]?

    /// A request updating rows of the named entity.
    public init(entityName: String) {
        self.entityName = entityName
        super.init()
    }

    /// A request updating rows of the entity.
    public init(entity: NSEntityDescription) {
        self.entityName = entity.name ?? ""
        self.entity = entity
        super.init()
    }
}

/// The result of an `NSBatchUpdateRequest`.
///
/// ```swift
/// let updated = (try context.execute(update) as? NSBatchUpdateResult)?.result as? Int
/// ```
open class NSBatchUpdateResult: NSPersistentStoreResult, @unchecked Sendable {
    /// `true`, the IDs updated or their number, as `resultType` says.
    open private(set) var result: Any?
    /// The request's result type.
    open private(set) var resultType: NSBatchUpdateRequestResultType

    init(result: Any?, resultType: NSBatchUpdateRequestResultType) {
        self.result = result
        self.resultType = resultType
        super.init()
    }
}
