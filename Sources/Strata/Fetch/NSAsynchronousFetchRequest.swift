import Foundation

/// The result of a request given to `NSManagedObjectContext.execute(_:)`.
open class NSPersistentStoreResult: NSObject, @unchecked Sendable {}

/// The result of a request that runs later: its progress, its error, and a way to cancel it.
open class NSPersistentStoreAsynchronousResult: NSPersistentStoreResult, @unchecked Sendable {
    /// The context the request runs in.
    open private(set) var managedObjectContext: NSManagedObjectContext
    /// The error the request ended with, or `nil`.
    open internal(set) var operationError: (any Error)?
    /// The request's progress: units are results, the total is the request's estimate.
    open private(set) var progress: Progress?

    init(context: NSManagedObjectContext, progress: Progress) {
        self.managedObjectContext = context
        self.progress = progress
        super.init()
    }

    /// Cancels the request if it has not run yet; it then ends with `NSUserCancelledError`.
    open func cancel() {
        progress?.cancel()
    }
}

/// The result of an `NSAsynchronousFetchRequest`: `finalResult` holds the fetched objects once
/// the request ran.
open class NSAsynchronousFetchResult<ResultType>: NSPersistentStoreAsynchronousResult, @unchecked Sendable {
    /// The request this is the result of.
    open private(set) var fetchRequest: NSAsynchronousFetchRequest<ResultType>
    /// The results, or `nil` before the request ran and when it failed or was cancelled.
    open internal(set) var finalResult: [ResultType]?

    init(request: NSAsynchronousFetchRequest<ResultType>, context: NSManagedObjectContext, progress: Progress) {
        self.fetchRequest = request
        super.init(context: context, progress: progress)
    }
}

/// A fetch that runs after `execute(_:)` returns, on the context's queue, and hands its
/// result to a completion block there; the result reports progress and can be cancelled.
///
/// ```swift
/// let request = NSFetchRequest<Todo>(entityName: "Todo")
/// let asynchronous = NSAsynchronousFetchRequest(fetchRequest: request) { result in
///     show(result.finalResult ?? [])
/// }
/// let result = try context.execute(asynchronous) as? NSAsynchronousFetchResult<Todo>
/// ```
open class NSAsynchronousFetchRequest<ResultType>: NSPersistentStoreRequest, @unchecked Sendable {
    /// The fetch to run.
    public let fetchRequest: NSFetchRequest<ResultType>
    /// Called on the context's queue with the result once the fetch ran (or failed, or was
    /// cancelled).
    public var completionBlock: ((NSAsynchronousFetchResult<ResultType>) -> Void)?
    /// The number of results expected: the total of the result's progress (0 when unknown).
    public var estimatedResultCount: Int = 0

    /// A request for the fetch, with the block that receives its result.
    public init(
        fetchRequest request: NSFetchRequest<ResultType>,
        completionBlock blk: ((NSAsynchronousFetchResult<ResultType>) -> Void)? = nil
    ) {
        self.fetchRequest = request
        self.completionBlock = blk
        super.init()
    }
}

/// Requests `execute(_:)` starts and lets run.
protocol AsynchronousStoreRequest {
    func start(in context: NSManagedObjectContext) -> NSPersistentStoreAsynchronousResult
}

extension NSAsynchronousFetchRequest: AsynchronousStoreRequest {
    func start(in context: NSManagedObjectContext) -> NSPersistentStoreAsynchronousResult {
        let progress = Progress(totalUnitCount: Int64(max(estimatedResultCount, 0)))
        let result = NSAsynchronousFetchResult(request: self, context: context, progress: progress)
        context.perform {
            if progress.isCancelled {
                result.operationError = CocoaError(.userCancelled)
            } else {
                do {
                    let objects = try context.fetch(self.fetchRequest)
                    result.finalResult = objects
                    if progress.totalUnitCount < Int64(objects.count) { progress.totalUnitCount = Int64(objects.count) }
                    progress.completedUnitCount = Int64(objects.count)
                } catch {
                    result.operationError = error
                }
            }
            self.completionBlock?(result)
        }
        return result
    }
}

extension NSManagedObjectContext {
    /// Runs a request in the context's stores without changing the context's objects, and
    /// returns its result. An `NSAsynchronousFetchRequest` returns at once: its fetch runs
    /// later on the context's queue. Batch requests (`NSBatchInsertRequest`,
    /// `NSBatchUpdateRequest`, `NSBatchDeleteRequest`) write the stores directly and return
    /// their `NSBatch…Result`; batch inserts resolve unique values by this context's merge
    /// policy.
    ///
    /// ```swift
    /// let result = try context.execute(NSBatchDeleteRequest(objectIDs: ids)) as? NSBatchDeleteResult
    /// ```
    ///
    /// Throws `NSPersistentStoreUnsupportedRequestTypeError` (134091) for requests Strata
    /// cannot run this way.
    public func execute(_ request: NSPersistentStoreRequest) throws -> NSPersistentStoreResult {
        if let asynchronous = request as? any AsynchronousStoreRequest {
            return asynchronous.start(in: self)
        }
        // SQLite's errors are Core Data's: a batch request's are save errors (134030).
        if let batch = request as? any BatchRequest {
            guard let coordinator = persistentStoreCoordinator else { throw noStoreError }
            return try StoreFile.translatingSQLiteErrors(nil, code: NSPersistentStoreSaveError) {
                try batch.execute(in: coordinator, context: self)
            }
        }
        if let history = request as? NSPersistentHistoryChangeRequest {
            guard let coordinator = persistentStoreCoordinator else { throw noStoreError }
            return try StoreFile.translatingSQLiteErrors(nil) { try coordinator.execute(history) }
        }
        throw CoreDataError.make(
            NSPersistentStoreUnsupportedRequestTypeError, "\(type(of: request)) cannot be executed by a context.")
    }
}
