import Foundation

/// What a context needs from the layer beneath it: the persistent store coordinator, or
/// (for a child context) a parent context. Contexts are written against this interface only.
protocol ObjectStore: AnyObject {
    var managedObjectModel: NSManagedObjectModel { get }

    /// The rows of a fetch, as snapshots (also cached for faults).
    func fetchSnapshots(_ plan: FetchPlan, affectedStores: [NSPersistentStore]?) throws -> [Snapshot]
    /// The IDs of a fetch's rows, without their values.
    func fetchObjectIDs(_ plan: FetchPlan, affectedStores: [NSPersistentStore]?) throws -> [NSManagedObjectID]
    /// The IDs of a fetch's rows in a compact list, batch by batch (`LazyFetchResults`).
    func fetchObjectKeys(
        _ plan: FetchPlan, affectedStores: [NSPersistentStore]?, batchSize: Int
    ) throws
        -> FetchedObjectKeys
    /// The number of a fetch's rows.
    func count(_ plan: FetchPlan, affectedStores: [NSPersistentStore]?) throws -> Int
    /// The committed values of an object, or `nil` when the store has no such row.
    func snapshot(for objectID: NSManagedObjectID) throws -> Snapshot?
    /// The destinations of a to-many relationship of an object, in order.
    func relatedObjectIDs(
        of objectID: NSManagedObjectID, relationship: NSRelationshipDescription
    ) throws -> [NSManagedObjectID]
    /// The destination rows of a to-many relationship of an object, in order, for the faults
    /// of the destinations to keep (also cached for other contexts' faults); `nil` when the
    /// store reads destinations as IDs only.
    func relatedRows(of objectID: NSManagedObjectID, relationship: NSRelationshipDescription) throws -> [Snapshot]?
    /// The committed values of several objects, read together (missing rows are left out).
    func snapshots(for objectIDs: [NSManagedObjectID]) throws -> [Snapshot]
    /// The destinations of a to-many relationship of several objects, read together.
    func relatedObjectIDs(
        of objectIDs: [NSManagedObjectID], relationship: NSRelationshipDescription
    ) throws -> [NSManagedObjectID: [NSManagedObjectID]]
    /// The destination rows of a to-many relationship of several objects, read together, in
    /// each object's order; `nil` when a store involved reads destinations as IDs only. The
    /// rows are not cached: the caller hands them to the destinations' faults.
    func relatedRows(
        of objectIDs: [NSManagedObjectID], relationship: NSRelationshipDescription
    ) throws -> [NSManagedObjectID: [Snapshot]]?
    /// The rows of a dictionary fetch, computed as `DictionaryFetch` describes.
    func fetchDictionaries(_ fetch: DictionaryFetch, affectedStores: [NSPersistentStore]?) throws -> [[String: Any]]
    /// Permanent IDs for new objects of the given entities, in the given stores (or the
    /// first store that holds each entity).
    func obtainPermanentIDs(
        for objects: [(entity: NSEntityDescription, store: NSPersistentStore?)]
    ) throws
        -> [NSManagedObjectID]
    /// Writes a save's changes. Inserted objects go to their assigned store or the first
    /// store holding their entity. Throws `VersionConflictError` when optimistic locking fails.
    func save(_ request: StoreSaveRequest, assignments: [NSManagedObjectID: NSPersistentStore]) throws -> StoreSaveResult
}
