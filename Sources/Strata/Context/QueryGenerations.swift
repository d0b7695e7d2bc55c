import Foundation
internal import GRDB
import Synchronization

/// A generation of the stores' data, as a context pinned to it reads it.
///
/// ```swift
/// try context.setQueryGenerationFrom(.current)   // pin: reads now see one snapshot
/// let token = context.queryGenerationToken        // share it with another context
/// try other.setQueryGenerationFrom(token)
/// ```
///
/// `current` asks for the generation of the stores as they are at the context's next read;
/// the token a pinned context reports names that generation, and other contexts of the same
/// coordinator can be pinned to it too.
open class NSQueryGenerationToken: NSObject, NSCopying, @unchecked Sendable {
    /// The generation a token names; `nil` for `current`.
    let generation: QueryGeneration?

    init(generation: QueryGeneration?) {
        self.generation = generation
        super.init()
    }

    /// A token that asks a context to use the current generation (and to move to the next
    /// one each time it saves, merges, refreshes all objects or resets).
    public class var current: NSQueryGenerationToken { currentToken }
    private static let currentToken = NSQueryGenerationToken(generation: nil)

    open func copy(with zone: NSZone? = nil) -> Any { self }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSQueryGenerationToken else { return false }
        return other.generation === generation
    }

    open override var hash: Int { generation.map { ObjectIdentifier($0).hashValue } ?? 0 }

    open override var description: String {
        generation.map { "<NSQueryGenerationToken: generation \($0.number)>" } ?? "<NSQueryGenerationToken: current>"
    }
}

/// One generation: for each SQLite store read while it is current, a read transaction kept
/// open on a connection of its own (GRDB's `DatabaseSnapshot`, made at the first read), so
/// that every later read of the generation sees the store as it was then, whatever other
/// contexts and processes write meanwhile (SQLite's WAL keeps the old pages for it).
final class QueryGeneration: @unchecked Sendable {
    private static let counter = Mutex<Int>(0)
    /// A number for descriptions.
    let number: Int
    weak var coordinator: NSPersistentStoreCoordinator?
    private let readers = Mutex<[ObjectIdentifier: any DatabaseReader]>([:])

    init(coordinator: NSPersistentStoreCoordinator?) {
        self.coordinator = coordinator
        number = Self.counter.withLock { value in
            value += 1
            return value
        }
    }

    /// The generation's reader of a store: made at the store's first read.
    func reader(for store: SQLiteStore, database: any DatabaseWriter) throws -> any DatabaseReader {
        try readers.withLock { readers in
            if let reader = readers[ObjectIdentifier(store)] { return reader }
            let reader: any DatabaseReader
            if let pool = database as? DatabasePool {
                reader = try pool.makeSnapshot()
            } else if store.isReadOnly {
                // Nothing in this process writes it.
                reader = database
            } else {
                throw CoreDataError.make(
                    NSPersistentStoreUnsupportedRequestTypeError,
                    "Query generations need a SQLite store in a file (in WAL mode); \(store.url?.path ?? "this store") is in memory."
                )
            }
            readers[ObjectIdentifier(store)] = reader
            return reader
        }
    }

    // MARK: The generation of the running read

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// The generation the reads on this thread belong to, if any.
    static var current: QueryGeneration? {
        pthread_getspecific(key).map { Unmanaged<QueryGeneration>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Runs `body` with `generation` as the current one (restoring the outer one after).
    static func reading<T>(_ generation: QueryGeneration, _ body: () throws -> T) rethrows -> T {
        let outer = pthread_getspecific(key)
        pthread_setspecific(key, Unmanaged.passUnretained(generation).toOpaque())
        defer { pthread_setspecific(key, outer) }
        return try body()
    }
}

/// The store of a pinned context: the layer beneath, read within the context's generation.
/// Saves are not reads: they run as always (and the context moves to a new generation).
final class GenerationStore: ObjectStore {
    let inner: any ObjectStore
    let generation: QueryGeneration

    init(_ inner: any ObjectStore, generation: QueryGeneration) {
        self.inner = inner
        self.generation = generation
    }

    /// Runs a read within the generation. Stores other than SQLite have no generations: a
    /// pinned read of a coordinator with one of them fails rather than read the present.
    private func read<T>(_ body: () throws -> T) throws -> T {
        if let other = generation.coordinator?.persistentStores.first(where: { !($0 is SQLiteStore) }) {
            throw CoreDataError.make(
                NSPersistentStoreUnsupportedRequestTypeError,
                "Query generations need SQLite stores; the \(other.type) store has none. Unpin the context to read it.")
        }
        return try QueryGeneration.reading(generation, body)
    }

    var managedObjectModel: NSManagedObjectModel { inner.managedObjectModel }

    func fetchSnapshots(_ plan: FetchPlan, affectedStores: [NSPersistentStore]?) throws -> [Snapshot] {
        try read { try inner.fetchSnapshots(plan, affectedStores: affectedStores) }
    }

    func fetchObjectIDs(_ plan: FetchPlan, affectedStores: [NSPersistentStore]?) throws -> [NSManagedObjectID] {
        try read { try inner.fetchObjectIDs(plan, affectedStores: affectedStores) }
    }

    func fetchObjectKeys(
        _ plan: FetchPlan, affectedStores: [NSPersistentStore]?, batchSize: Int
    ) throws -> FetchedObjectKeys {
        try read { try inner.fetchObjectKeys(plan, affectedStores: affectedStores, batchSize: batchSize) }
    }

    func count(_ plan: FetchPlan, affectedStores: [NSPersistentStore]?) throws -> Int {
        try read { try inner.count(plan, affectedStores: affectedStores) }
    }

    func snapshot(for objectID: NSManagedObjectID) throws -> Snapshot? {
        try read { try inner.snapshot(for: objectID) }
    }

    func relatedObjectIDs(
        of objectID: NSManagedObjectID, relationship: NSRelationshipDescription
    ) throws -> [NSManagedObjectID] {
        try read { try inner.relatedObjectIDs(of: objectID, relationship: relationship) }
    }

    func relatedRows(of objectID: NSManagedObjectID, relationship: NSRelationshipDescription) throws -> [Snapshot]? {
        try read { try inner.relatedRows(of: objectID, relationship: relationship) }
    }

    func snapshots(for objectIDs: [NSManagedObjectID]) throws -> [Snapshot] {
        try read { try inner.snapshots(for: objectIDs) }
    }

    func relatedObjectIDs(
        of objectIDs: [NSManagedObjectID], relationship: NSRelationshipDescription
    ) throws -> [NSManagedObjectID: [NSManagedObjectID]] {
        try read { try inner.relatedObjectIDs(of: objectIDs, relationship: relationship) }
    }

    func relatedRows(
        of objectIDs: [NSManagedObjectID], relationship: NSRelationshipDescription
    ) throws -> [NSManagedObjectID: [Snapshot]]? {
        try read { try inner.relatedRows(of: objectIDs, relationship: relationship) }
    }

    func fetchDictionaries(_ fetch: DictionaryFetch, affectedStores: [NSPersistentStore]?) throws -> [[String: Any]] {
        try read { try inner.fetchDictionaries(fetch, affectedStores: affectedStores) }
    }

    func obtainPermanentIDs(
        for objects: [(entity: NSEntityDescription, store: NSPersistentStore?)]
    ) throws -> [NSManagedObjectID] {
        try inner.obtainPermanentIDs(for: objects)
    }

    func save(_ request: StoreSaveRequest, assignments: [NSManagedObjectID: NSPersistentStore]) throws -> StoreSaveResult {
        try inner.save(request, assignments: assignments)
    }
}

extension NSManagedObjectContext {
    /// The token of the generation the context is pinned to; `nil` when it reads the
    /// stores as they are at each read.
    public var queryGenerationToken: NSQueryGenerationToken? { generationToken }

    /// Pins the context to a generation of its stores' data (`.current`, or another
    /// context's `queryGenerationToken`), or unpins it (`nil`). A pinned context's fetches
    /// and faults read one consistent snapshot while other contexts save, until it saves,
    /// merges a save, refreshes all objects or resets, which move it to the then current
    /// generation. Only SQLite stores in a file support generations; pinning a context whose
    /// stores include another kind throws `NSPersistentStoreUnsupportedRequestTypeError`
    /// (134091) at its first read.
    public func setQueryGenerationFrom(_ generation: NSQueryGenerationToken?) throws {
        guard let generation else {
            generationToken = nil
            return
        }
        if let pinned = generation.generation {
            guard pinned.coordinator === persistentStoreCoordinator, parent == nil else {
                throw CoreDataError.make(
                    NSCoreDataError, "The query generation token belongs to another coordinator's contexts.")
            }
            generationToken = generation
        } else {
            guard parent == nil else {
                throw CoreDataError.make(
                    NSPersistentStoreUnsupportedRequestTypeError,
                    "A child context reads its parent's objects: pin the context on the coordinator instead.")
            }
            generationToken = NSQueryGenerationToken(generation: QueryGeneration(coordinator: persistentStoreCoordinator))
        }
    }

    /// A pinned context moves to the generation current now (after a save, a merge, a reset
    /// or a refresh of all objects).
    func advanceQueryGeneration() {
        guard generationToken != nil else { return }
        generationToken = NSQueryGenerationToken(generation: QueryGeneration(coordinator: persistentStoreCoordinator))
    }
}
