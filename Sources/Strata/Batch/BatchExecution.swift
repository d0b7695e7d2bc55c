import Foundation

/// Running batch requests: the request is checked against the model, turned into a plan, and
/// handed to the store that holds its entity, which writes it in one transaction of its own.
/// No context changes: the app merges the returned IDs when it wants them seen.
protocol BatchRequest {
    func execute(
        in coordinator: NSPersistentStoreCoordinator, context: NSManagedObjectContext
    ) throws
        -> NSPersistentStoreResult
}

extension NSPersistentStoreCoordinator {
    /// Runs a request in the coordinator's stores for the context: batch insert, update and
    /// delete requests return their `NSBatch…Result`, an `NSAsynchronousFetchRequest` its
    /// asynchronous result.
    ///
    /// ```swift
    /// let result = try coordinator.execute(NSBatchDeleteRequest(objectIDs: ids), with: context)
    /// ```
    ///
    /// Throws `NSPersistentStoreUnsupportedRequestTypeError` (134091) for other requests.
    public func execute(_ request: NSPersistentStoreRequest, with context: NSManagedObjectContext) throws -> Any {
        // SQLite's errors are Core Data's: a batch request's are save errors (134030).
        if let batch = request as? any BatchRequest {
            return try StoreFile.translatingSQLiteErrors(nil, code: NSPersistentStoreSaveError) {
                try batch.execute(in: self, context: context)
            }
        }
        if let asynchronous = request as? any AsynchronousStoreRequest { return asynchronous.start(in: context) }
        if let history = request as? NSPersistentHistoryChangeRequest {
            return try StoreFile.translatingSQLiteErrors(nil) { try execute(history) }
        }
        throw BatchError.unsupported("\(type(of: request)) cannot be executed by a coordinator.")
    }

    /// The model's entity a request names.
    fileprivate func batchEntity(named name: String, given entity: NSEntityDescription?) throws -> NSEntityDescription {
        let found = entity.flatMap { managedObjectModel.entity(named: $0.name ?? "") } ?? managedObjectModel.entity(named: name)
        guard let found else {
            throw CoreDataError.make(NSCoreDataError, "The batch request's entity \"\(name)\" is not in the coordinator's model.")
        }
        return found
    }

    /// The stores that run a batch request of the entity.
    fileprivate func batchStores(for entity: NSEntityDescription, affectedStores: [NSPersistentStore]?) throws -> [any BatchStore]
    {
        let stores = stores(for: entity, affectedStores: affectedStores)
        guard !stores.isEmpty else {
            throw CoreDataError.make(
                NSPersistentStoreOperationError, "No persistent store holds entity \(entity.name ?? "?").")
        }
        return try stores.map { store in
            guard let batch = store as? any BatchStore else {
                throw BatchError.unsupported("The \(store.type) store does not run batch requests.")
            }
            if store.isReadOnly {
                throw CoreDataError.make(
                    NSPersistentStoreSaveError, "The store at \(store.url?.path ?? "?") is read-only.",
                    userInfo: [NSAffectedStoresErrorKey: [store]])
            }
            return batch
        }
    }
}

extension NSBatchInsertRequest: BatchRequest {
    func execute(
        in coordinator: NSPersistentStoreCoordinator, context: NSManagedObjectContext
    ) throws
        -> NSPersistentStoreResult
    {
        let entity = try coordinator.batchEntity(named: entityName, given: self.entity)
        guard !entity.isAbstract else {
            throw CoreDataError.make(NSCoreDataError, "Entity \(entity.name ?? "?") is abstract: rows cannot be inserted.")
        }
        // Inserts go to the first store that holds the entity (of `affectedStores`, when set),
        // as a context's inserts do.
        guard let store = try coordinator.batchStores(for: entity, affectedStores: affectedStores).first else {
            throw CoreDataError.make(NSPersistentStoreOperationError, "No persistent store holds entity \(entity.name ?? "?").")
        }
        var plan = BatchInsertPlan(
            entity: entity, policy: context.resolvedMergePolicy.mergeType, collectsIDs: resultType == .objectIDs,
            nextRow: try rowSource(BatchRowBuilder(entity: entity)))
        plan.author = context.historyAuthor
        let outcome = try store.batchInsert(plan)
        switch resultType {
        case .statusOnly: return NSBatchInsertResult(result: true, resultType: resultType)
        case .count: return NSBatchInsertResult(result: outcome.count, resultType: resultType)
        case .objectIDs: return NSBatchInsertResult(result: outcome.objectIDs, resultType: resultType)
        }
    }

    /// Reads the request's rows one at a time, from its array or its handler.
    private func rowSource(_ builder: BatchRowBuilder) throws -> () throws -> BatchRow? {
        if let objects = objectsToInsert {
            var iterator = objects.makeIterator()
            return { try iterator.next().map(builder.row(from:)) }
        }
        if let handler = dictionaryHandler {
            let source = DictionaryRowSource(builder: builder, handler: handler)
            return { try source.next() }
        }
        if let handler = managedObjectHandler {
            let type = ManagedObjectClasses.objectClass(for: builder.entity)
            return {
                let object = type.init(entity: builder.entity, insertInto: nil)
                if handler(object) { return nil }
                return try builder.row(from: object)
            }
        }
        throw CoreDataError.make(NSCoreDataError, "The batch insert request has no objects and no handler.")
    }
}

extension NSBatchUpdateRequest: BatchRequest {
    func execute(
        in coordinator: NSPersistentStoreCoordinator, context: NSManagedObjectContext
    ) throws
        -> NSPersistentStoreResult
    {
        let entity = try coordinator.batchEntity(named: entityName, given: self.entity)
        let assignments = try BatchRowBuilder(entity: entity).assignments(propertiesToUpdate ?? [:])
        var predicate: PredicateNode?
        if let given = self.predicate { predicate = try PredicateConversion.node(of: given) }
        let fetch = FetchPlan(
            entity: entity, includesSubentities: includesSubentities, sortKeys: [], limit: 0, offset: 0,
            predicate: predicate)
        var plan = BatchUpdatePlan(
            fetch: fetch, assignments: assignments, collectsIDs: resultType == .updatedObjectIDsResultType)
        plan.author = context.historyAuthor
        var outcome = BatchOutcome()
        if !assignments.isEmpty {
            for store in try coordinator.batchStores(for: entity, affectedStores: affectedStores) {
                outcome.add(try store.batchUpdate(plan))
            }
        }
        switch resultType {
        case .statusOnlyResultType: return NSBatchUpdateResult(result: true, resultType: resultType)
        case .updatedObjectsCountResultType: return NSBatchUpdateResult(result: outcome.count, resultType: resultType)
        case .updatedObjectIDsResultType: return NSBatchUpdateResult(result: outcome.objectIDs, resultType: resultType)
        }
    }
}

extension NSBatchDeleteRequest: BatchRequest {
    func execute(
        in coordinator: NSPersistentStoreCoordinator, context: NSManagedObjectContext
    ) throws
        -> NSPersistentStoreResult
    {
        var outcome = BatchOutcome()
        if let objectIDs {
            // Each store deletes its own objects; IDs of other coordinators are left alone.
            var byStore: [ObjectIdentifier: (store: any BatchStore, ids: [NSManagedObjectID])] = [:]
            for id in objectIDs where !id.isTemporaryID {
                guard let store = id.persistentStore, store.persistentStoreCoordinator === coordinator,
                    affectedStores?.contains(where: { $0 === store }) ?? true
                else { continue }
                guard let batch = try coordinator.batchStores(for: id.entity, affectedStores: [store]).first else { continue }
                byStore[ObjectIdentifier(store), default: (batch, [])].ids.append(id)
            }
            for (_, group) in byStore {
                var plan = BatchDeletePlan(fetch: nil, objectIDs: group.ids, collectsIDs: resultType == .resultTypeObjectIDs)
                plan.author = context.historyAuthor
                outcome.add(try group.store.batchDelete(plan))
            }
        } else {
            let fetch = try context.fetchPlan(for: fetchRequest)
            var plan = BatchDeletePlan(fetch: fetch, objectIDs: [], collectsIDs: resultType == .resultTypeObjectIDs)
            plan.author = context.historyAuthor
            // The request's own stores, else those of its fetch request.
            let stores = affectedStores ?? fetchRequest.affectedStores
            for store in try coordinator.batchStores(for: fetch.entity, affectedStores: stores) {
                outcome.add(try store.batchDelete(plan))
            }
        }
        switch resultType {
        case .resultTypeStatusOnly: return NSBatchDeleteResult(result: true, resultType: resultType)
        case .resultTypeCount: return NSBatchDeleteResult(result: outcome.count, resultType: resultType)
        case .resultTypeObjectIDs: return NSBatchDeleteResult(result: outcome.objectIDs, resultType: resultType)
        }
    }
}

extension NSManagedObjectContext {
    /// The context's author and name, which persistent history records for its requests.
    var historyAuthor: HistoryAuthor { HistoryAuthor(author: transactionAuthor, contextName: name) }
}

/// The rows of a dictionary handler. Each row starts from an empty dictionary that keeps values
/// in the row's own layout: the last row's, emptied, unless the handler kept a reference to it
/// (then what it kept stays as the handler left it, and the next row gets a new one).
///
/// The state is a class's, read without checks of exclusive access (only `next()` touches it,
/// one row at a time): as `var`s captured by the row closure it cost six run-time checks a row,
/// 1.3% of batch-inserting 100k rows (B2).
private final class DictionaryRowSource {
    private let builder: BatchRowBuilder
    private let handler: (NSMutableDictionary) -> Bool
    @exclusivity(unchecked) private var dictionary: BatchRowDictionary
    @exclusivity(unchecked) private var isFresh = true

    init(builder: BatchRowBuilder, handler: @escaping (NSMutableDictionary) -> Bool) {
        self.builder = builder
        self.handler = handler
        dictionary = BatchRowDictionary.make(for: builder)
    }

    func next() throws -> BatchRow? {
        if !isFresh {
            if isKnownUniquelyReferenced(&dictionary) {
                dictionary.clear()
            } else {
                dictionary = BatchRowDictionary.make(for: builder)
            }
        }
        isFresh = false
        if handler(dictionary) { return nil }
        return try dictionary.row()
    }
}
