import Foundation

/// What an object says about its own state without loading anything: its faulting state,
/// whether a relationship is still a fault, the IDs a relationship holds; and the hooks Core
/// Data calls around set mutations and snapshot events.
extension NSManagedObject {
    /// 0 when the object's values are loaded, 1 while it is a fault.
    public var faultingState: Int { isFault ? 1 : 0 }

    /// Whether the relationship's destinations are not loaded yet: the object is a fault, or
    /// the to-many relationship has not been read since the object was loaded. A name that is
    /// not a relationship of the entity reads as false.
    public func hasFault(forRelationshipNamed key: String) -> Bool {
        guard let index = layout.index(of: key), layout.properties[index] is NSRelationshipDescription else { return false }
        if isFault { return true }
        return layout.isToMany(index) && index < values.count && values[index] is RelationshipFault
    }

    /// The IDs of the relationship's destinations, read without firing the destinations'
    /// faults (and, for an unloaded to-many, from the store without loading it into the
    /// object). Empty for a name that is not a relationship.
    public func objectIDs(forRelationshipNamed key: String) -> [NSManagedObjectID] {
        guard let index = layout.index(of: key),
            let relationship = layout.properties[index] as? NSRelationshipDescription
        else { return [] }
        if isFault || (layout.isToMany(index) && index < values.count && values[index] is RelationshipFault) {
            if let saved = savedValues, relationship.isToMany, let ids = saved[index] as? [NSManagedObjectID] { return ids }
            if let saved = savedValues, !relationship.isToMany {
                return (saved[index] as? NSManagedObjectID).map { [$0] } ?? []
            }
            guard !objectID.isTemporaryID, let store = managedObjectContext?.objectStore else { return [] }
            if relationship.isToMany {
                return (try? store.relatedObjectIDs(of: objectID, relationship: relationship)) ?? []
            }
        }
        if relationship.isToMany { return toManyObjects(at: index).map(\.objectID) }
        return (primitiveValue(at: index) as? NSManagedObject).map { [$0.objectID] } ?? []
    }

    /// Called before a to-many relationship changes by a set mutation; calls
    /// `willChangeValue(forKey:)`. Overrides must call `super`.
    public func willChangeValue(
        forKey inKey: String, withSetMutation inMutationKind: NSKeyValueSetMutationKind, using inObjects: Set<AnyHashable>
    ) {
        willChangeValue(forKey: inKey)
    }

    /// Called after a to-many relationship changed by a set mutation; calls
    /// `didChangeValue(forKey:)`, which records the change.
    public func didChangeValue(
        forKey inKey: String, withSetMutation inMutationKind: NSKeyValueSetMutationKind, using inObjects: Set<AnyHashable>
    ) {
        didChangeValue(forKey: inKey)
    }
}

/// How a set changed, in the set-mutation hooks (Foundation's key-value observing names,
/// which Foundation on Linux does not declare).
public enum NSKeyValueSetMutationKind: UInt, Sendable {
    case union = 1
    case minus = 2
    case intersect = 3
    case set = 4
}

/// The events after which `awakeFromSnapshotEvents(_:)` is called.
public struct NSSnapshotEventType: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    public static let undoInsertion = NSSnapshotEventType(rawValue: 1 << 1)
    public static let undoDeletion = NSSnapshotEventType(rawValue: 1 << 2)
    public static let undoUpdate = NSSnapshotEventType(rawValue: 1 << 3)
    public static let rollback = NSSnapshotEventType(rawValue: 1 << 4)
    public static let refresh = NSSnapshotEventType(rawValue: 1 << 5)
    public static let mergePolicy = NSSnapshotEventType(rawValue: 1 << 6)
}

extension NSFetchRequest {
    /// Fetches in the context whose `perform` or `performAndWait` block is running on this
    /// thread, as Apple's `execute()` does; throws `NSCoreDataError` outside such a block.
    ///
    /// ```swift
    /// try context.performAndWait { try TodoEntity.fetchRequest().execute() }
    /// ```
    public func execute() throws -> [ResultType] {
        guard let context = NSManagedObjectContext.current else {
            throw CoreDataError.make(
                NSCoreDataError, "NSFetchRequest.execute() runs inside a context's perform or performAndWait block.")
        }
        return try context.fetch(self)
    }
}
