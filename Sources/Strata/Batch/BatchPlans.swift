import Foundation

/// A batch insert as a store runs it: rows already checked against the model, read one at a
/// time so that a handler's rows are never all in memory at once.
struct BatchInsertPlan {
    var entity: NSEntityDescription
    /// Decides what happens to a row whose unique values another row already has.
    var policy: NSMergePolicyType
    /// Whether the IDs of the rows written are wanted (they cost memory for large inserts).
    var collectsIDs: Bool
    /// The next row, or `nil` when there are no more; throws when a row is invalid.
    var nextRow: () throws -> BatchRow?

    /// Whether a row matching a stored one replaces its values (object-trump, overwrite) or is
    /// dropped (error, store-trump, rollback): the table of issue 20.
    var replacesStoredRow: Bool {
        policy == .mergeByPropertyObjectTrumpMergePolicyType || policy == .overwriteMergePolicyType
    }
    /// Who runs the request, for the transaction persistent history records.
    var author = HistoryAuthor()
}

/// One row of a batch insert, in the entity's layout (store form: defaults filled in, empty
/// to-many relationships).
struct BatchRow {
    var values: ValueRow
    /// Positions of the attributes the row gave, in layout order: an object-trump upsert
    /// writes only these over a stored row.
    var given: [Int]
}

/// One property a batch update sets, with its new value.
struct BatchAssignment {
    enum Value {
        /// A constant, already in the attribute's stored form.
        case constant(Any?)
        /// An expression evaluated for each row.
        case expression(ExpressionNode)
    }

    var index: Int
    var attribute: NSAttributeDescription
    var value: Value
}

/// A batch update as a store runs it.
struct BatchUpdatePlan {
    /// The rows to update: entity, subentities and predicate (no order, no limit).
    var fetch: FetchPlan
    var assignments: [BatchAssignment]
    var collectsIDs: Bool
    /// Who runs the request, for the transaction persistent history records.
    var author = HistoryAuthor()
}

/// A batch delete as a store runs it: the rows of a fetch, or given objects.
struct BatchDeletePlan {
    var fetch: FetchPlan?
    var objectIDs: [NSManagedObjectID]
    var collectsIDs: Bool
    /// Who runs the request, for the transaction persistent history records.
    var author = HistoryAuthor()
}

/// What a store reports back from a batch request.
struct BatchOutcome {
    var objectIDs: [NSManagedObjectID] = []
    var count = 0

    mutating func add(_ other: BatchOutcome) {
        objectIDs += other.objectIDs
        count += other.count
    }
}

/// Stores that run batch requests on their own rows, in one transaction, without contexts.
protocol BatchStore: NSPersistentStore {
    func batchInsert(_ plan: BatchInsertPlan) throws -> BatchOutcome
    func batchUpdate(_ plan: BatchUpdatePlan) throws -> BatchOutcome
    func batchDelete(_ plan: BatchDeletePlan) throws -> BatchOutcome
}

/// The errors batch requests report, all `NSError`s in `NSCocoaErrorDomain`.
enum BatchError {
    static func invalidValue(_ value: Any?, key: String, entity: NSEntityDescription, reason: String) -> NSError {
        CoreDataError.make(
            NSManagedObjectValidationError,
            "The value \(value.map { String(describing: $0) } ?? "nil") for \(entity.name ?? "?").\(key) \(reason).",
            userInfo: [NSValidationKeyErrorKey: key, NSValidationValueErrorKey: value ?? NSNull()])
    }

    static func missing(_ key: String, entity: NSEntityDescription) -> NSError {
        CoreDataError.make(
            NSValidationMissingMandatoryPropertyError, "\(entity.name ?? "?").\(key) is required and has no value or default.",
            userInfo: [NSValidationKeyErrorKey: key])
    }

    static func denied(_ relationship: NSRelationshipDescription, of id: NSManagedObjectID) -> NSError {
        CoreDataError.make(
            NSValidationRelationshipDeniedDeleteError,
            "\(id) cannot be deleted: its relationship \(relationship.name) has the deny rule and is not empty.",
            userInfo: [NSValidationKeyErrorKey: relationship.name, NSValidationObjectErrorKey: id])
    }

    static func unsupported(_ reason: String) -> NSError {
        CoreDataError.make(NSPersistentStoreUnsupportedRequestTypeError, reason)
    }
}
