import Foundation

/// A scratch pad of managed objects: it tracks the objects inserted into it and their
/// changes.
open class NSManagedObjectContext: NSObject, @unchecked Sendable {
    /// How a context runs the work given to `perform`.
    public enum ConcurrencyType: UInt, Sendable {
        /// The context's work runs on a private serial queue.
        case privateQueueConcurrencyType = 1
        /// The context's work runs on the main queue.
        case mainQueueConcurrencyType = 2
    }

    /// How the context runs its work.
    public let concurrencyType: ConcurrencyType
    private var inserted: [ObjectIdentifier: NSManagedObject] = [:]

    public init(concurrencyType: ConcurrencyType) {
        self.concurrencyType = concurrencyType
        super.init()
    }

    /// Registers a new object with the context; it is stored at the next save.
    open func insert(_ object: NSManagedObject) {
        object.managedObjectContext = self
        inserted[ObjectIdentifier(object)] = object
    }

    /// The objects inserted since the last save.
    open var insertedObjects: Set<NSManagedObject> { Set(inserted.values) }

    /// Whether the context has unsaved changes.
    open var hasChanges: Bool { !inserted.isEmpty }
}
