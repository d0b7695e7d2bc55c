import Foundation

/// What an `NSBatchInsertRequest` returns in its result.
///
/// ```swift
/// insert.resultType = .count
/// let written = (try context.execute(insert) as? NSBatchInsertResult)?.result as? Int
/// ```
public enum NSBatchInsertRequestResultType: UInt, Sendable {
    /// Whether the request succeeded (`result` is `true`).
    case statusOnly = 0
    /// The IDs of the rows written (`result` is `[NSManagedObjectID]`).
    case objectIDs = 1
    /// The number of rows written (`result` is an `Int`).
    case count = 2
}

/// Inserts rows of one entity straight into the stores, without making managed objects and
/// without changing any context; merge the returned IDs into contexts with
/// `NSManagedObjectContext.mergeChanges(fromRemoteContextSave:into:)`.
///
/// ```swift
/// let insert = NSBatchInsertRequest(entityName: "User", objects: [["id": "0001", "name": "张三"]])
/// insert.resultType = .objectIDs
/// let ids = (try context.execute(insert) as? NSBatchInsertResult)?.result as? [NSManagedObjectID]
/// ```
///
/// Values are checked against the model before anything is written: an unknown key, a
/// relationship or a value of the wrong type fails the whole request with an `NSError` in
/// `NSCocoaErrorDomain`. Missing attributes take their defaults. A row whose unique values
/// match another row is resolved by the executing context's merge policy (see DEVIATIONS.md).
open class NSBatchInsertRequest: NSPersistentStoreRequest, @unchecked Sendable {
    /// The name of the entity to insert rows of.
    open var entityName: String
    /// The entity, when the request was made with one or executed once.
    open var entity: NSEntityDescription?
    /// The rows to insert, property name to value.
    open var objectsToInsert: [[String: Any]]?
    /// Fills the dictionary it is given with the next row and returns `false`, or returns
    /// `true` to stop (the dictionary it returns `true` for is not inserted).
    open var dictionaryHandler: ((NSMutableDictionary) -> Bool)?
    /// Fills the object it is given with the next row and returns `false`, or returns `true`
    /// to stop (the object it returns `true` for is not inserted).
    open var managedObjectHandler: ((NSManagedObject) -> Bool)?
    /// What the result holds; `.statusOnly` unless set.
    open var resultType: NSBatchInsertRequestResultType = .statusOnly

    /// A request inserting the rows, given as dictionaries, into the named entity.
    public init(entityName: String, objects dictionaries: [[String: Any]]) {
        self.entityName = entityName
        self.objectsToInsert = dictionaries
        super.init()
    }

    /// A request inserting the rows, given as dictionaries, into the entity.
    public init(entity: NSEntityDescription, objects dictionaries: [[String: Any]]) {
        self.entityName = entity.name ?? ""
        self.entity = entity
        self.objectsToInsert = dictionaries
        super.init()
    }

    /// A request asking the handler for one row at a time, until it returns `true`:
    ///
    /// ```swift
    /// var next = 0
    /// let insert = NSBatchInsertRequest(entityName: "User") { (row: NSMutableDictionary) in
    ///     guard next < users.count else { return true }
    ///     row["id"] = users[next].id
    ///     next += 1
    ///     return false
    /// }
    /// ```
    public init(entityName: String, dictionaryHandler handler: @escaping (NSMutableDictionary) -> Bool) {
        self.entityName = entityName
        self.dictionaryHandler = handler
        super.init()
    }

    /// A request asking the handler for one row at a time, as above, for the entity.
    public init(entity: NSEntityDescription, dictionaryHandler handler: @escaping (NSMutableDictionary) -> Bool) {
        self.entityName = entity.name ?? ""
        self.entity = entity
        self.dictionaryHandler = handler
        super.init()
    }

    /// A request handing the handler an object of the entity to fill for each row, until it
    /// returns `true`. The object belongs to no context; only its attributes are read.
    public init(entityName: String, managedObjectHandler handler: @escaping (NSManagedObject) -> Bool) {
        self.entityName = entityName
        self.managedObjectHandler = handler
        super.init()
    }

    /// A request handing the handler an object of the entity to fill for each row, as above.
    public init(entity: NSEntityDescription, managedObjectHandler handler: @escaping (NSManagedObject) -> Bool) {
        self.entityName = entity.name ?? ""
        self.entity = entity
        self.managedObjectHandler = handler
        super.init()
    }
}

/// The result of an `NSBatchInsertRequest`.
///
/// ```swift
/// let count = (try context.execute(insert) as? NSBatchInsertResult)?.result as? Int
/// ```
open class NSBatchInsertResult: NSPersistentStoreResult, @unchecked Sendable {
    /// `true`, the IDs written or their number, as `resultType` says.
    open private(set) var result: Any?
    /// The request's result type.
    open private(set) var resultType: NSBatchInsertRequestResultType

    init(result: Any?, resultType: NSBatchInsertRequestResultType) {
        self.result = result
        self.resultType = resultType
        super.init()
    }
}
