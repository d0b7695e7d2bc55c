import Foundation
internal import GRDB

/// A container whose stores sync with a server, as Apple's syncs them with CloudKit: every
/// store records persistent history, and each store whose description has
/// `cloudKitContainerOptions` with a server URL is mirrored to a zone of a Strata sync server.
///
/// ```swift
/// class PersistenceController: NSPersistentCloudKitContainer {}   // subclassable, as apps do
///
/// let container = PersistenceController(name: "Habits")
/// let options = NSPersistentCloudKitContainerOptions(containerIdentifier: "iCloud.com.example.Habits")
/// options.serverURL = URL(string: "http://localhost:8080")
/// options.tokenProvider = { jwt }
/// container.persistentStoreDescriptions.first?.cloudKitContainerOptions = options
/// container.loadPersistentStores { _, error in … }
/// ```
///
/// Without options (or without a server URL) the container is a plain container with history
/// on, so that switching sync off is building a new container without options on the same
/// store; building one with options again resumes from the tokens kept in the store.
open class NSPersistentCloudKitContainer: NSPersistentContainer, @unchecked Sendable {
    /// The transaction author of the importer's saves (Apple's name), which the exporter never
    /// sends back and apps filter out of their own history processing.
    public static let importAuthor = "NSCloudKitMirroringDelegate.import"

    /// Posted (object: the container) when a setup, import or export starts and when it ends.
    public static let eventChangedNotification = Notification.Name("NSPersistentCloudKitContainerEventChangedNotification")
    /// The user-info key of the notification's `Event`.
    public static let eventNotificationUserInfoKey = "event"

    /// The kind of work an event reports.
    @objc public enum EventType: Int, Sendable {
        case setup = 0
        case `import` = 1
        case export = 2
    }

    /// One piece of sync work: posted when it starts (no end date) and again, with the same
    /// identifier, when it ends.
    open class Event: NSObject, @unchecked Sendable {
        public let identifier: UUID
        public let storeIdentifier: String
        public let type: EventType
        public let startDate: Date
        public let endDate: Date?
        public let succeeded: Bool
        public let error: (any Error)?

        init(
            identifier: UUID = UUID(), type: EventType, storeIdentifier: String, startDate: Date = Date(),
            endDate: Date? = nil, succeeded: Bool = false, error: (any Error)? = nil
        ) {
            self.identifier = identifier
            self.type = type
            self.storeIdentifier = storeIdentifier
            self.startDate = startDate
            self.endDate = endDate
            self.succeeded = succeeded
            self.error = error
            super.init()
        }

        /// The same event, ended now.
        func ended(error: (any Error)?) -> Event {
            Event(
                identifier: identifier, type: type, storeIdentifier: storeIdentifier, startDate: startDate,
                endDate: Date(), succeeded: error == nil, error: error)
        }

        open override var description: String {
            let kind = ["setup", "import", "export"][type.rawValue]
            let end = endDate.map { "ended \($0), \(succeeded ? "succeeded" : "failed")" } ?? "started"
            return "<NSPersistentCloudKitContainer.Event \(kind) \(identifier) \(end)\(error.map { ": \($0)" } ?? "")>"
        }
    }

    private let engines = Protected<[ObjectIdentifier: SyncEngine]>([:])
    private static let registry = Protected<[String: WeakContainer]>([:])

    /// Loads the stores with history on (and remote change notifications for synced ones),
    /// then starts syncing each store whose options name a server.
    open override func loadPersistentStores(
        completionHandler block: @escaping (NSPersistentStoreDescription, (any Error)?) -> Void
    ) {
        for description in persistentStoreDescriptions where description.type == NSSQLiteStoreType {
            description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)
            if description.cloudKitContainerOptions != nil {
                description.setOption(true as NSNumber, forKey: NSPersistentStoreRemoteChangeNotificationPostOptionKey)
                // Updates keep the values before and after, so that the exporter tells a real
                // change from a property written with the value it had (see `SyncExporter`).
                description.setOption(true as NSNumber, forKey: StrataPersistentHistoryValuesKey)
            }
        }
        super.loadPersistentStores { [weak self] description, error in
            if error == nil, let self { self.startSyncing(description) }
            block(description, error)
        }
    }

    deinit {
        for engine in engines.withLock({ $0.values }) { engine.stop() }
    }

    private func startSyncing(_ description: NSPersistentStoreDescription) {
        guard let options = description.cloudKitContainerOptions else { return }
        Self.registry.withLock { $0[options.containerIdentifier] = WeakContainer(container: self, options: options) }
        guard let serverURL = options.serverURL,
            let store = persistentStoreCoordinator.persistentStores.first(where: { $0.url == description.url }),
            let metadata = try? SyncMetadata(store: store)
        else { return }
        let engine = SyncEngine(container: self, store: store, metadata: metadata, options: options, serverURL: serverURL)
        engines.withLock { $0[ObjectIdentifier(store)] = engine }
        engine.start()
    }

    /// Stops syncing (beyond Apple): the stores stay open and keep recording history, which
    /// a container built later on them with options exports. Apps switch sync off by building
    /// a container without options; this stops the old one at once.
    open func stopSyncing() {
        let stopped = engines.withLock { engines -> [SyncEngine] in
            defer { engines = [:] }
            return Array(engines.values)
        }
        for engine in stopped { engine.stop() }
    }

    /// Exports every local change, pushes it and pulls until the server has nothing newer
    /// (beyond Apple): what a command-line program calls before it exits, and tests call to
    /// wait for sync. Throws the first failure (offline, refused…).
    open func syncNow() async throws {
        for engine in engines.withLock({ Array($0.values) }) { try await engine.synchronize() }
    }

    /// Checks that the model can sync as CloudKit's mirroring requires (no uniqueness
    /// constraints, optional relationships with inverses, no Deny delete rule) and, with
    /// `.printSchema`, prints the record types and fields it makes and the fields it indexes.
    /// Strata's server takes additive schema changes from pushes; what it is told here is
    /// which fields to index: each attribute the model indexes (`isIndexed`, or an element of
    /// a fetch index) becomes a queryable and sortable field on every store's sync server
    /// (`PUT /v1/schema`; not with `.dryRun`), as CloudKit's dashboard marks them. Blocks
    /// until the servers answer, as Apple's does; throws the first failure.
    open func initializeCloudKitSchema(options: NSPersistentCloudKitContainerSchemaInitializationOptions = []) throws {
        var problems: [String] = []
        var lines: [String] = []
        for entity in managedObjectModel.entities.sorted(by: { ($0.name ?? "") < ($1.name ?? "") }) {
            let name = entity.name ?? "?"
            if !entity.uniquenessConstraints.isEmpty { problems.append("\(name) has uniqueness constraints") }
            for relationship in entity.relationshipsByName.values.sorted(by: { $0.name < $1.name }) {
                if !relationship.isOptional { problems.append("\(name).\(relationship.name) is not optional") }
                if relationship.inverseRelationship == nil { problems.append("\(name).\(relationship.name) has no inverse") }
                if relationship.deleteRule == .denyDeleteRule { problems.append("\(name).\(relationship.name) denies deletes") }
            }
            if entity.superentity == nil {
                var fields = SyncRecordMapping.syncedAttributes(of: entity).map(SyncRecordMapping.field(of:))
                fields += SyncRecordMapping.syncedRelationships(of: entity).filter {
                    SyncRecordMapping.form(of: $0) == .reference
                }
                .map(SyncRecordMapping.field(of:))
                lines.append(
                    "\(SyncRecordMapping.recordType(of: entity)): \(([SyncRecordMapping.entityNameField] + fields.sorted()).joined(separator: ", "))"
                )
            }
        }
        let indexes = SyncRecordMapping.indexes(of: managedObjectModel)
        if options.contains(.printSchema) {
            lines.append("CDMR: CD_entity1, CD_entity2, CD_recordName1, CD_recordName2, CD_relationship1, CD_relationship2")
            if !indexes.isEmpty {
                lines.append(
                    "Indexed (queryable, sortable): "
                        + indexes.map { "\($0.recordType).\($0.field) (\($0.kind.rawValue))" }.joined(separator: ", "))
            }
            print(lines.joined(separator: "\n"))
        }
        guard problems.isEmpty else {
            throw CoreDataError.make(
                NSValidationMultipleErrorsError,
                "The model cannot be mirrored: \(problems.joined(separator: "; ")).")
        }
        guard !options.contains(.dryRun), !indexes.isEmpty else { return }
        var servers: [URL: SyncServerClient] = [:]
        for description in persistentStoreDescriptions {
            guard let sync = description.cloudKitContainerOptions, let url = sync.serverURL else { continue }
            servers[url] = SyncServerClient(serverURL: url, tokenProvider: sync.tokenProvider)
        }
        for client in servers.values {
            _ = try BlockingWait.run { try await client.addIndexes(indexes) }
        }
    }

    /// Whether the object's record may be changed (always, for the private database).
    open func canUpdateRecord(forManagedObjectWith objectID: NSManagedObjectID) -> Bool { true }
    /// Whether the object's record may be deleted (always, for the private database).
    open func canDeleteRecord(forManagedObjectWith objectID: NSManagedObjectID) -> Bool { true }
    /// Whether the store's objects may be changed (always, for the private database).
    open func canModifyManagedObjects(in store: NSPersistentStore) -> Bool { true }

    /// The record name of an object that was exported or imported (beyond Apple, which gives
    /// the `CKRecord.ID`; the `CloudKit` module adds `recordID(for:)` from it).
    open func recordName(for objectID: NSManagedObjectID) -> String? {
        guard let store = objectID.persistentStore, !objectID.isTemporaryID,
            let metadata = try? SyncMetadata.existing(in: store)
        else { return nil }
        return try? metadata.read { db in
            try SyncMetadata.recordName(entity: objectID.entity.name ?? "", primaryKey: objectID.primaryKey, in: db)
        }
    }

    /// The object that has a record name, if any in the container's stores.
    open func managedObjectID(forRecordName recordName: String) -> NSManagedObjectID? {
        for store in persistentStoreCoordinator.persistentStores {
            guard let metadata = try? SyncMetadata.existing(in: store),
                let found = try? metadata.read({ db in try SyncMetadata.object(named: recordName, in: db) }),
                let entity = managedObjectModel.entitiesByName[found.entity]
            else { continue }
            return NSManagedObjectID(entity: entity, primaryKey: found.primaryKey, store: store)
        }
        return nil
    }

    /// Where a store's sync stands (beyond Apple, whose users build this from events).
    open func syncStatus(for store: NSPersistentStore) -> SyncStatus? {
        try? Self.syncStatus(of: store)
    }

    /// Where a store's sync stands, read from the store, whichever container opened it; nil
    /// for a store that never synced.
    public static func syncStatus(of store: NSPersistentStore) throws -> SyncStatus? {
        guard let metadata = try SyncMetadata.existing(in: store) else { return nil }
        let pendingHistory = try pendingTransactions(of: store, metadata: metadata)
        return try metadata.read { db in
            SyncStatus(
                clientID: try SyncMetadata.value(.clientID, in: db),
                pendingChanges: pendingHistory + (try SyncMetadata.outboxChangeCount(in: db)),
                lastImport: try SyncMetadata.date(.lastImport, in: db),
                lastExport: try SyncMetadata.date(.lastExport, in: db),
                lastError: try SyncMetadata.value(.lastError, in: db))
        }
    }

    /// The local changes in history not yet turned into batches.
    private static func pendingTransactions(of store: NSPersistentStore, metadata: SyncMetadata) throws -> Int {
        guard let storeID = store.identifier, let coordinator = store.persistentStoreCoordinator, store.tracksHistory else {
            return 0
        }
        let cursor = try metadata.read { db in try SyncMetadata.int(.exportedHistory, in: db) } ?? 0
        let request = NSPersistentHistoryChangeRequest.fetchHistory(
            after: NSPersistentHistoryToken(transactionNumbers: [storeID: cursor]))
        let result = try coordinator.execute(request)
        let transactions = (result.result as? [NSPersistentHistoryTransaction]) ?? []
        return transactions.filter { $0.storeID == storeID && $0.author != importAuthor }.reduce(0) {
            $0 + ($1.changes?.count ?? 0)
        }
    }

    /// The server and token of the container registered with an identifier (the `CloudKit`
    /// module's `CKContainer(identifier:)` reads them).
    public static func syncConnection(
        forContainerIdentifier identifier: String
    ) -> (
        serverURL: URL, tokenProvider: (@Sendable () async throws -> String)?, zoneName: String
    )? {
        registry.withLock { registry in
            guard let entry = registry[identifier], let url = entry.options.serverURL else { return nil }
            return (url, entry.options.tokenProvider, entry.options.zoneName)
        }
    }

    /// Where a store's sync stands.
    public struct SyncStatus: Sendable, Equatable, Codable {
        /// The client ID the store syncs as.
        public var clientID: String?
        /// Local changes (object and link changes) not yet accepted by the server.
        public var pendingChanges: Int
        /// When changes were last imported and last exported.
        public var lastImport: Date?
        public var lastExport: Date?
        /// The last failure, until a later import or export succeeds.
        public var lastError: String?
    }
}

/// A registered container's options, without keeping the container alive.
private struct WeakContainer {
    weak var container: NSPersistentCloudKitContainer?
    var options: NSPersistentCloudKitContainerOptions
}
