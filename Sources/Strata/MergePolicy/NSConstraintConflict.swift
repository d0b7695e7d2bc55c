import Foundation

/// A uniqueness-constraint conflict found at save: several objects of the context share a
/// constrained value (`databaseObject` is nil), or an object shares it with a row already in
/// the store (`databaseObject` is that row's object).
open class NSConstraintConflict: NSObject, @unchecked Sendable {
    /// The attribute names of the constraint.
    open private(set) var constraint: [String]
    /// The constrained values the objects share, by attribute name.
    open private(set) var constraintValues: [String: Any]
    /// The object of the row already in the store, if the conflict is with the store.
    open private(set) var databaseObject: NSManagedObject?
    /// The stored values of that row, by property name.
    open private(set) var databaseSnapshot: [String: Any]?
    /// The objects of the context that conflict.
    open private(set) var conflictingObjects: [NSManagedObject]
    /// Their last saved values (`NSNull` for objects never saved), in the same order.
    open private(set) var conflictingSnapshots: [[AnyHashable: Any]]

    public init(
        constraint contraint: [String], database databaseObject: NSManagedObject?,
        databaseSnapshot snapshot: [String: Any]?, conflicting conflictingObjects: [NSManagedObject],
        conflictingSnapshots snapshots: [Any]
    ) {
        self.constraint = contraint
        self.databaseObject = databaseObject
        self.databaseSnapshot = snapshot
        self.conflictingObjects = conflictingObjects
        self.conflictingSnapshots = snapshots.map { ($0 as? [AnyHashable: Any]) ?? [:] }
        var values: [String: Any] = [:]
        if let first = conflictingObjects.first {
            for name in contraint { values[name] = first.value(forKey: name) ?? NSNull() }
        }
        self.constraintValues = values
        super.init()
    }

    open override var description: String {
        let values = constraint.map { "\($0) = \(constraintValues[$0].map { "\($0)" } ?? "nil")" }.joined(separator: ", ")
        let against = databaseObject.map { " and the stored \($0.objectID.uriRepresentation().absoluteString)" } ?? ""
        return "\(conflictingObjects.count) objects share \(values)\(against)"
    }
}
