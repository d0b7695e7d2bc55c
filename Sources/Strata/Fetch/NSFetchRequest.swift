import Foundation

/// The kinds of values a fetch can return. `NSManagedObject`, `NSManagedObjectID`,
/// `NSDictionary` and `NSNumber` conform, as in Core Data.
public protocol NSFetchRequestResult: AnyObject {}

extension NSDictionary: NSFetchRequestResult {}
extension NSNumber: NSFetchRequestResult {}
extension NSManagedObjectID: NSFetchRequestResult {}

/// What a fetch request returns. Raw values are Core Data's.
public struct NSFetchRequestResultType: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// Managed objects (the default).
    public static let managedObjectResultType = NSFetchRequestResultType([])
    /// Object IDs only.
    public static let managedObjectIDResultType = NSFetchRequestResultType(rawValue: 1)
    /// Dictionaries of the properties to fetch.
    public static let dictionaryResultType = NSFetchRequestResultType(rawValue: 2)
    /// The number of matching objects.
    public static let countResultType = NSFetchRequestResultType(rawValue: 4)
}

/// The common base of requests a store executes (fetches, batch requests).
open class NSPersistentStoreRequest: NSObject, @unchecked Sendable {
    /// The stores the request runs in; all stores of the coordinator (that hold its entity)
    /// when `nil`.
    open var affectedStores: [NSPersistentStore]?
}

/// A description of what to fetch: an entity, a filter, an order and a page.
///
/// The generic parameter is the type of the results (`NSFetchRequest<Book>`), or
/// `NSFetchRequestResult` for an untyped request, as Apple's code spells it.
///
/// ```swift
/// let request = NSFetchRequest<Book>(entityName: "Book")
/// request.fetchLimit = 20
/// ```
open class NSFetchRequest<ResultType>: NSPersistentStoreRequest, NSCopying, @unchecked Sendable {
    /// The name of the entity to fetch.
    public var entityName: String?
    /// The entity to fetch; setting it also sets `entityName`.
    public var entity: NSEntityDescription? {
        didSet { if let entity { entityName = entity.name } }
    }
    /// The filter: only objects for which it holds are fetched. A template read from a model
    /// file gives its `predicateFormat` parsed.
    public var predicate: NSPredicate? {
        get { storedPredicate ?? predicateFormat.map { NSPredicate(format: $0) } }
        set { storedPredicate = newValue }
    }
    private var storedPredicate: NSPredicate?
    /// The filter as a format string, as a model's fetch request template states it; used
    /// when `predicate` is nil. (A Strata addition.)
    public var predicateFormat: String?
    /// The properties that group dictionary results (`propertiesToFetch` then holds the
    /// grouped properties and aggregate `NSExpressionDescription`s).
    public var propertiesToGroupBy: [Any]?
    /// A filter on the groups of a grouped dictionary fetch.
    public var havingPredicate: NSPredicate?
    /// The order of the results: the first descriptor decides, the next ones break ties.
    public var sortDescriptors: [NSSortDescriptor]?
    /// The most results to return; 0 for no limit.
    public var fetchLimit: Int = 0
    /// How many results to skip.
    public var fetchOffset: Int = 0
    /// How many objects to load at a time when the results are walked; 0 for all at once.
    public var fetchBatchSize: Int = 0
    /// What the fetch returns.
    public var resultType: NSFetchRequestResultType = .managedObjectResultType
    /// Whether objects of subentities match too.
    public var includesSubentities: Bool = true
    /// Whether objects are loaded with their values, rather than as faults to fill later.
    public var includesPropertyValues: Bool = true
    /// Whether unsaved changes of the context are reflected in the results.
    public var includesPendingChanges: Bool = true
    /// Whether fetched objects are returned as faults.
    public var returnsObjectsAsFaults: Bool = true
    /// Whether objects the context already holds take the fetched values (keeping their
    /// unsaved changes, as `refresh(_:mergeChanges: true)` does) instead of keeping the
    /// values they had.
    public var shouldRefreshRefetchedObjects: Bool = false
    /// Whether dictionary results leave out duplicates.
    public var returnsDistinctResults: Bool = false
    /// The names of the properties to fetch, for dictionary results.
    public var propertiesToFetch: [Any]?
    /// Relationship key paths whose destinations are loaded along with the results.
    public var relationshipKeyPathsForPrefetching: [String]?

    /// A request for objects of the named entity.
    public init(entityName: String) {
        self.entityName = entityName
        super.init()
    }

    public override init() { super.init() }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSFetchRequest<ResultType> else { return false }
        return entityName == other.entityName && predicateFormat == other.predicateFormat
            && storedPredicate == other.storedPredicate
            && fetchLimit == other.fetchLimit && fetchOffset == other.fetchOffset
            && fetchBatchSize == other.fetchBatchSize && resultType == other.resultType
            && includesSubentities == other.includesSubentities
            && includesPropertyValues == other.includesPropertyValues
            && includesPendingChanges == other.includesPendingChanges
            && returnsObjectsAsFaults == other.returnsObjectsAsFaults
            && returnsDistinctResults == other.returnsDistinctResults
    }

    /// A copy of the request with the same settings.
    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = NSFetchRequest<ResultType>()
        copy.entityName = entityName
        copy.entity = entity
        copy.predicateFormat = predicateFormat
        copy.fetchLimit = fetchLimit
        copy.fetchOffset = fetchOffset
        copy.fetchBatchSize = fetchBatchSize
        copy.resultType = resultType
        copy.includesSubentities = includesSubentities
        copy.includesPropertyValues = includesPropertyValues
        copy.includesPendingChanges = includesPendingChanges
        copy.returnsObjectsAsFaults = returnsObjectsAsFaults
        copy.shouldRefreshRefetchedObjects = shouldRefreshRefetchedObjects
        copy.returnsDistinctResults = returnsDistinctResults
        copy.propertiesToFetch = propertiesToFetch
        copy.relationshipKeyPathsForPrefetching = relationshipKeyPathsForPrefetching
        copy.sortDescriptors = sortDescriptors
        copy.storedPredicate = storedPredicate
        copy.propertiesToGroupBy = propertiesToGroupBy
        copy.havingPredicate = havingPredicate
        copy.affectedStores = affectedStores
        return copy
    }

    open override var description: String {
        "<NSFetchRequest: entity: \(entityName ?? "nil"); predicate: (\(predicate?.predicateFormat ?? predicateFormat ?? "null")); "
            + "fetchLimit: \(fetchLimit); resultType: \(resultType.rawValue)>"
    }
}
