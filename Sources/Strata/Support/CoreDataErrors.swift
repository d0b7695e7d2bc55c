import Foundation

// Core Data's error codes in `NSCocoaErrorDomain`, with Apple's names and values
// (CoreDataErrors.h).

/// A generic validation error.
public let NSManagedObjectValidationError = 1550
/// A uniqueness constraint was violated.
public let NSManagedObjectConstraintValidationError = 1551
/// Several validation errors; they are in `userInfo[NSDetailedErrorsKey]`.
public let NSValidationMultipleErrorsError = 1560
/// A non-optional property is nil.
public let NSValidationMissingMandatoryPropertyError = 1570
/// A to-many relationship has fewer objects than its minimum count.
public let NSValidationRelationshipLacksMinimumCountError = 1580
/// A to-many relationship has more objects than its maximum count.
public let NSValidationRelationshipExceedsMaximumCountError = 1590
/// An object was deleted while a Deny relationship still had destination objects.
public let NSValidationRelationshipDeniedDeleteError = 1600
/// A number is above the attribute's maximum.
public let NSValidationNumberTooLargeError = 1610
/// A number is below the attribute's minimum.
public let NSValidationNumberTooSmallError = 1620
/// A date is after the attribute's maximum.
public let NSValidationDateTooLateError = 1630
/// A date is before the attribute's minimum.
public let NSValidationDateTooSoonError = 1640
/// A value is not a valid date.
public let NSValidationInvalidDateError = 1650
/// A string is longer than the attribute allows.
public let NSValidationStringTooLongError = 1660
/// A string is shorter than the attribute allows.
public let NSValidationStringTooShortError = 1670
/// A string does not match the attribute's regular expression.
public let NSValidationStringPatternMatchingError = 1680
/// A value is not a valid URI.
public let NSValidationInvalidURIError = 1690

/// A context could not be locked (Apple's confinement contexts used from another thread).
public let NSManagedObjectContextLockingError = 132000
/// A coordinator could not be locked.
public let NSPersistentStoreCoordinatorLockingError = 132010

/// An object refers to an object that no longer exists.
public let NSManagedObjectReferentialIntegrityError = 133000
/// An object has a relationship to an object in another store.
public let NSManagedObjectExternalRelationshipError = 133010
/// Optimistic locking failed; `userInfo["conflictList"]` lists the `NSMergeConflict`s.
public let NSManagedObjectMergeError = 133020
/// Uniqueness constraints failed; `userInfo["conflictList"]` lists the `NSConstraintConflict`s.
public let NSManagedObjectConstraintMergeError = 133021

/// The store's type is unknown.
public let NSPersistentStoreInvalidTypeError = 134000
/// The store's file is of another type than the one asked for.
public let NSPersistentStoreTypeMismatchError = 134010
/// The store's schema does not match what the model requires.
public let NSPersistentStoreIncompatibleSchemaError = 134020
/// The store could not save.
public let NSPersistentStoreSaveError = 134030
/// Some stores could not save.
public let NSPersistentStoreIncompleteSaveError = 134040
/// Unresolved conflicts at save.
public let NSPersistentStoreSaveConflictsError = 134050
/// A general Core Data error.
public let NSCoreDataError = 134060
/// An operation on the store failed.
public let NSPersistentStoreOperationError = 134070
/// The store could not be opened.
public let NSPersistentStoreOpenError = 134080
/// The store timed out.
public let NSPersistentStoreTimeoutError = 134090
/// The store does not support the request.
public let NSPersistentStoreUnsupportedRequestTypeError = 134091
/// The store was made by another model than the coordinator's.
public let NSPersistentStoreIncompatibleVersionHashError = 134100
/// A migration failed.
public let NSMigrationError = 134110
/// A constraint was violated while migrating.
public let NSMigrationConstraintViolationError = 134111
/// A migration was cancelled.
public let NSMigrationCancelledError = 134120
/// No source model was found for a migration.
public let NSMigrationMissingSourceModelError = 134130
/// No mapping model was found for a migration.
public let NSMigrationMissingMappingModelError = 134140
/// The source store of a migration could not be read.
public let NSMigrationManagerSourceStoreError = 134150
/// The destination store of a migration could not be written.
public let NSMigrationManagerDestinationStoreError = 134160
/// An entity migration policy failed.
public let NSEntityMigrationPolicyError = 134170
/// SQLite reported an error; its code is in `userInfo[NSSQLiteErrorDomain]`.
public let NSSQLiteError = 134180
/// A mapping model could not be inferred.
public let NSInferredMappingModelError = 134190
/// Importing external records failed.
public let NSExternalRecordImportError = 134200
/// A persistent history token is older than the history the store keeps.
public let NSPersistentHistoryTokenExpiredError = 134301
/// A staged migration was made by another version of the framework.
public let NSStagedMigrationFrameworkVersionMismatchError = 134504

/// The user-info key of the errors in an `NSValidationMultipleErrorsError`.
public let NSDetailedErrorsKey = "NSDetailedErrors"
/// The user-info key of the object that failed validation.
public let NSValidationObjectErrorKey = "NSValidationErrorObject"
/// The user-info key of the property that failed validation.
public let NSValidationKeyErrorKey = "NSValidationErrorKey"
/// The user-info key of the validation predicate a value failed.
public let NSValidationPredicateErrorKey = "NSValidationErrorPredicate"
/// The user-info key of the value that failed validation.
public let NSValidationValueErrorKey = "NSValidationErrorValue"
/// The user-info key of the stores an error concerns.
public let NSAffectedStoresErrorKey = "NSAffectedStoresErrorKey"
/// The user-info key of the objects an error concerns.
public let NSAffectedObjectsErrorKey = "NSAffectedObjectsErrorKey"
/// The user-info key of the merge conflicts of an `NSPersistentStoreSaveConflictsError`.
public let NSPersistentStoreSaveConflictsErrorKey = "NSPersistentStoreSaveConflictsErrorKey"
/// The error domain of SQLite result codes, and the user-info key that carries one.
public let NSSQLiteErrorDomain = "NSSQLiteErrorDomain"

/// Builds Core Data errors in `NSCocoaErrorDomain`.
enum CoreDataError {
    static func make(_ code: Int, _ reason: String, userInfo: [String: Any] = [:]) -> NSError {
        var info = userInfo
        info[NSLocalizedDescriptionKey] = reason
        return NSError(domain: NSCocoaErrorDomain, code: code, userInfo: info)
    }

    static func validation(
        _ code: Int, object: NSManagedObject, key: String?, value: Any? = nil, _ reason: String
    ) -> NSError {
        var info: [String: Any] = [NSValidationObjectErrorKey: object]
        if let key { info[NSValidationKeyErrorKey] = key }
        if let value { info[NSValidationValueErrorKey] = value }
        return make(code, reason, userInfo: info)
    }

    /// One validation error as it is, several wrapped in `NSValidationMultipleErrorsError`.
    static func combined(_ errors: [NSError]) -> NSError? {
        guard let first = errors.first else { return nil }
        guard errors.count > 1 else { return first }
        return make(
            NSValidationMultipleErrorsError, "Multiple validation errors occurred.",
            userInfo: [NSDetailedErrorsKey: errors])
    }
}
