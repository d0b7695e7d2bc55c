import Foundation

/// The type name of the SQLite store.
public let NSSQLiteStoreType = "SQLite"
/// The type name of the in-memory store.
public let NSInMemoryStoreType = "InMemory"
/// The type name of the binary store (the whole graph in one file).
public let NSBinaryStoreType = "Binary"

/// Metadata key: the store's type.
public let NSStoreTypeKey = "NSStoreType"
/// Metadata key: the store's UUID, the host part of its object URIs.
public let NSStoreUUIDKey = "NSStoreUUID"
/// Option: open the store read-only.
public let NSReadOnlyPersistentStoreOption = "NSReadOnlyPersistentStoreOption"
/// Option: a dictionary of SQLite pragmas (name → value) to run on every connection.
public let NSSQLitePragmasOption = "NSSQLitePragmasOption"
/// Option: how long, in seconds (an `NSNumber`), the store waits for another connection's
/// lock on its file before the operation fails (`NSPersistentStoreTimeoutError` when opening).
public let NSPersistentStoreTimeoutOption = "NSPersistentStoreTimeoutOption"
/// Option: record persistent history.
public let NSPersistentHistoryTrackingKey = "NSPersistentHistoryTracking"
/// Option: migrate a store of an older model version automatically.
public let NSMigratePersistentStoresAutomaticallyOption = "NSMigratePersistentStoresAutomaticallyOption"
/// Option: infer a mapping model when migrating automatically.
public let NSInferMappingModelAutomaticallyOption = "NSInferMappingModelAutomaticallyOption"
/// Option: file protection (accepted and ignored on Linux).
public let NSPersistentStoreFileProtectionKey = "NSPersistentStoreFileProtectionKey"
/// Option: post a notification when another process changes the store.
public let NSPersistentStoreRemoteChangeNotificationPostOptionKey = "NSPersistentStoreRemoteChangeNotificationOptionKey"
/// Metadata key: the Core Data framework version that wrote the store.
public let NSPersistenceFrameworkVersionKey = "NSPersistenceFrameworkVersion"

/// A place where a coordinator keeps objects: a SQLite file, memory, or a binary file.
///
/// Stores are created by `NSPersistentStoreCoordinator.addPersistentStore(…)`; their class
/// depends on the type (`NSSQLiteStoreType`, `NSInMemoryStoreType`, `NSBinaryStoreType`).
open class NSPersistentStore: NSObject, @unchecked Sendable {
    /// The store types by name, in the iOS 15 spelling.
    public struct StoreType: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let sqlite = StoreType(rawValue: NSSQLiteStoreType)
        public static let inMemory = StoreType(rawValue: NSInMemoryStoreType)
        public static let binary = StoreType(rawValue: NSBinaryStoreType)
    }

    /// The coordinator the store was added to.
    open internal(set) weak var persistentStoreCoordinator: NSPersistentStoreCoordinator?
    /// The configuration whose entities the store holds ("Default" for all).
    open private(set) var configurationName: String
    /// The options the store was added with.
    open private(set) var options: [AnyHashable: Any]?
    /// The store's location.
    open var url: URL?
    /// The store's unique identifier, the host part of its object URIs.
    open var identifier: String!
    /// Whether the store refuses saves.
    open var isReadOnly: Bool
    /// The store's metadata: model version hashes, type, UUID, and keys set by the app. Set
    /// here (or through the coordinator's `setMetadata(_:for:)`), it is written at the next
    /// save of a context, as Apple's is.
    open var metadata: [String: Any]! {
        get { metadataLock.withLock { $0 } }
        set {
            metadataLock.withLock { $0 = newValue ?? [:] }
            metadataNeedsSaving = true
        }
    }

    /// Sets the metadata as read from the store's file: nothing to write back.
    func loadMetadata(_ loaded: [String: Any]) {
        metadataLock.withLock { $0 = loaded }
    }
    private let metadataLock = Protected([String: Any]())
    /// Whether `metadata` changed since it was last written.
    var metadataNeedsSaving = false
    /// What the store's object IDs share (see `idOrigin`).
    private let origin = Protected<StoreReference?>(nil)

    /// The reference to the store and its current identifier that the IDs it makes share: made
    /// again when the identifier changed, so that IDs made before keep the one they had.
    var idOrigin: StoreReference {
        let identifier: String? = self.identifier
        return origin.withLock { current in
            if let current, current.identifier == identifier { return current }
            let made = StoreReference(store: self, identifier: identifier)
            current = made
            return made
        }
    }

    /// The store's type name.
    open var type: String { "" }

    /// Creates a store object; `addPersistentStore` opens it.
    public init(
        persistentStoreCoordinator root: NSPersistentStoreCoordinator?, configurationName name: String?, at url: URL,
        options: [AnyHashable: Any]? = nil
    ) {
        self.persistentStoreCoordinator = root
        self.configurationName = name ?? NSManagedObjectModel.defaultConfigurationName
        self.url = url
        self.options = options
        self.isReadOnly = (options?[NSReadOnlyPersistentStoreOption] as? Bool) ?? false
        super.init()
    }

    /// Reads the store's metadata from its file.
    open func loadMetadata() throws {}
    /// Called after the store was added to a coordinator.
    open func didAdd(to coordinator: NSPersistentStoreCoordinator) {}
    /// Called before the store is removed from a coordinator.
    open func willRemove(from coordinator: NSPersistentStoreCoordinator?) {}

    /// The metadata of the store file at the URL, without adding it to a coordinator.
    open class func metadataForPersistentStore(with url: URL) throws -> [String: Any] {
        try SQLiteStore.readMetadata(at: url)
    }

    // MARK: What stores do for the coordinator (overridden by each store type)

    /// The model the store holds objects of.
    var model: NSManagedObjectModel { persistentStoreCoordinator?.managedObjectModel ?? NSManagedObjectModel() }

    /// The entities this store holds (its configuration's).
    var entities: [NSEntityDescription] { model.entities(forConfigurationName: configurationName) ?? [] }

    func holds(_ entity: NSEntityDescription) -> Bool {
        entities.contains { $0 === entity }
    }

    /// Opens the store, creating it when it does not exist yet.
    func open(model: NSManagedObjectModel) throws {}
    /// Closes files and connections.
    func close() {}

    func fetchSnapshots(_ plan: FetchPlan) throws -> [Snapshot] { throw unsupported("fetch") }
    func fetchObjectIDs(_ plan: FetchPlan) throws -> [NSManagedObjectID] { try fetchSnapshots(plan).map(\.objectID) }
    /// The IDs of a fetch's rows, appended to a compact list; stores override this to read
    /// keys without making an ID object for each row.
    func fetchObjectKeys(_ plan: FetchPlan, into keys: inout FetchedObjectKeys) throws {
        for id in try fetchObjectIDs(plan) { keys.append(id) }
    }
    func count(_ plan: FetchPlan) throws -> Int { try fetchObjectIDs(plan).count }
    func snapshot(for objectID: NSManagedObjectID) throws -> Snapshot? { throw unsupported("fault") }
    func relatedObjectIDs(
        of objectID: NSManagedObjectID, relationship: NSRelationshipDescription
    ) throws -> [NSManagedObjectID] { throw unsupported("relationship fault") }
    /// Several rows at once; stores override this to read them in one query.
    func snapshots(for objectIDs: [NSManagedObjectID]) throws -> [Snapshot] {
        try objectIDs.compactMap { try snapshot(for: $0) }
    }
    /// A to-many relationship of several objects at once; stores override this to read
    /// them in one query.
    func relatedObjectIDs(
        of objectIDs: [NSManagedObjectID], relationship: NSRelationshipDescription
    ) throws -> [NSManagedObjectID: [NSManagedObjectID]] {
        var result: [NSManagedObjectID: [NSManagedObjectID]] = [:]
        for id in objectIDs { result[id] = try relatedObjectIDs(of: id, relationship: relationship) }
        return result
    }
    /// The destination rows of a to-many relationship, in order, for the row cache; `nil`
    /// from stores that read destinations as IDs only.
    func relatedSnapshots(of objectID: NSManagedObjectID, relationship: NSRelationshipDescription) throws -> [Snapshot]? {
        nil
    }
    /// The destination rows of a to-many relationship of several objects; `nil` as above.
    func relatedSnapshots(
        of objectIDs: [NSManagedObjectID], relationship: NSRelationshipDescription
    ) throws -> [NSManagedObjectID: [Snapshot]]? { nil }
    func allocatePermanentIDs(for entities: [NSEntityDescription]) throws -> [NSManagedObjectID] {
        throw unsupported("permanent IDs")
    }
    func save(_ request: StoreSaveRequest) throws -> StoreSaveResult { throw unsupported("save") }
    /// Writes `metadata` to the store.
    func saveMetadata() throws {}

    private func unsupported(_ what: String) -> NSError {
        CoreDataError.make(NSPersistentStoreUnsupportedRequestTypeError, "The \(type) store does not support \(what).")
    }

    /// The permanent ID of row `primaryKey` of the entity with number... in this store.
    func objectID(entity: NSEntityDescription, primaryKey: Int64) -> NSManagedObjectID {
        NSManagedObjectID(entity: entity, primaryKey: primaryKey, store: self)
    }

    /// The metadata Core Data writes for a model: version hashes and identifiers.
    static func modelMetadata(for model: NSManagedObjectModel, type: String) -> [String: Any] {
        [
            NSStoreTypeKey: type,
            NSStoreModelVersionHashesKey: model.entityVersionHashesByName,
            "NSStoreModelVersionHashesVersion": 3,
            NSStoreModelVersionIdentifiersKey: model.versionIdentifiers.compactMap { $0 as? String }.sorted(),
            NSPersistenceFrameworkVersionKey: 1344,
            "NSStoreModelVersionChecksumKey": model.versionChecksum,
        ]
    }

    /// Throws 134100 unless the metadata's version hashes are the model's for this store's
    /// configuration.
    func checkCompatibility(of metadata: [String: Any], with model: NSManagedObjectModel) throws {
        let configuration = configurationName == NSManagedObjectModel.defaultConfigurationName ? nil : configurationName
        guard model.isConfiguration(withName: configuration, compatibleWithStoreMetadata: metadata) else {
            throw CoreDataError.make(
                NSPersistentStoreIncompatibleVersionHashError,
                "The model used to open the store is incompatible with the one used to create the store.",
                userInfo: [NSURLErrorKey: url as Any, "metadata": metadata])
        }
    }
}
