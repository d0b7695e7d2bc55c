import Foundation

/// How a merge policy resolves conflicts, with Apple's raw values.
public enum NSMergePolicyType: UInt, Sendable {
    /// The save fails and lists the conflicts (the default).
    case errorMergePolicyType = 0
    /// Property by property, the store's changes win over the context's.
    case mergeByPropertyStoreTrumpMergePolicyType = 1
    /// Property by property, the context's changes win over the store's.
    case mergeByPropertyObjectTrumpMergePolicyType = 2
    /// The context's objects are written over the store's rows.
    case overwriteMergePolicyType = 3
    /// The context's changes to conflicting objects are discarded.
    case rollbackMergePolicyType = 4
}

/// Resolves the conflicts of a save: optimistic-locking conflicts (`NSMergeConflict`, a row
/// changed in the store since the context read it) first, then uniqueness-constraint
/// conflicts (`NSConstraintConflict`).
///
/// ```swift
/// context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy   // an upsert on unique ids
/// ```
///
/// Subclass it and override `resolve(optimisticLockingConflicts:)` or
/// `resolve(constraintConflicts:)` for custom resolution; call `super` for the policy's own.
open class NSMergePolicy: NSObject, @unchecked Sendable {
    /// The policy's kind.
    open private(set) var mergeType: NSMergePolicyType

    public init(merge type: NSMergePolicyType) {
        self.mergeType = type
        super.init()
    }

    /// The save fails with every conflict listed.
    public class var error: NSMergePolicy { NSMergePolicy(merge: .errorMergePolicyType) }
    /// The context's changes to conflicting objects are discarded.
    public class var rollback: NSMergePolicy { NSMergePolicy(merge: .rollbackMergePolicyType) }
    /// The context's objects are written over the store's rows.
    public class var overwrite: NSMergePolicy { NSMergePolicy(merge: .overwriteMergePolicyType) }
    /// Property by property, the context's changes win.
    public class var mergeByPropertyObjectTrump: NSMergePolicy {
        NSMergePolicy(merge: .mergeByPropertyObjectTrumpMergePolicyType)
    }
    /// Property by property, the store's changes win.
    public class var mergeByPropertyStoreTrump: NSMergePolicy {
        NSMergePolicy(merge: .mergeByPropertyStoreTrumpMergePolicyType)
    }

    /// Resolves a save's conflicts: optimistic-locking ones, then constraint ones. Throws
    /// (`NSManagedObjectMergeError` 133020 or `NSManagedObjectConstraintMergeError` 133021 for
    /// the error policy) when they cannot be resolved.
    open func resolve(mergeConflicts list: [Any]) throws {
        let locking = list.compactMap { $0 as? NSMergeConflict }
        let constraints = list.compactMap { $0 as? NSConstraintConflict }
        if !locking.isEmpty { try resolve(optimisticLockingConflicts: locking) }
        if !constraints.isEmpty { try resolve(constraintConflicts: constraints) }
    }

    /// Resolves optimistic-locking conflicts by bringing each object up to the store's
    /// version, keeping or discarding its changes as the policy says.
    open func resolve(optimisticLockingConflicts list: [NSMergeConflict]) throws {
        guard mergeType != .errorMergePolicyType else { throw Self.mergeError(list) }
        for conflict in list { OptimisticLockingResolution.resolve(conflict, policy: mergeType) }
    }

    /// Resolves uniqueness-constraint conflicts: which object survives, and with which values.
    open func resolve(constraintConflicts list: [NSConstraintConflict]) throws {
        guard mergeType != .errorMergePolicyType else { throw Self.constraintError(list) }
        for conflict in list { ConstraintResolution.resolve(conflict, policy: mergeType) }
    }

    static func mergeError(_ conflicts: [NSMergeConflict]) -> NSError {
        CoreDataError.make(
            NSManagedObjectMergeError,
            "Could not merge changes: \(conflicts.count) objects changed in the store since the context read them.",
            userInfo: ["conflictList": conflicts])
    }

    static func constraintError(_ conflicts: [NSConstraintConflict]) -> NSError {
        CoreDataError.make(
            NSManagedObjectConstraintMergeError,
            "Uniqueness constraints are violated: \(conflicts.map(\.description).joined(separator: "; ")).",
            userInfo: ["conflictList": conflicts])
    }

    open override var description: String { "<NSMergePolicy: type \(mergeType.rawValue)>" }
}

/// The error policy: a conflict fails the save. The default of every context.
nonisolated(unsafe) public let NSErrorMergePolicy: Any = NSMergePolicy(merge: .errorMergePolicyType)
/// Property by property, the store's changes win.
nonisolated(unsafe) public let NSMergeByPropertyStoreTrumpMergePolicy: Any = NSMergePolicy(
    merge: .mergeByPropertyStoreTrumpMergePolicyType)
/// Property by property, the context's changes win (an upsert on uniqueness constraints).
nonisolated(unsafe) public let NSMergeByPropertyObjectTrumpMergePolicy: Any = NSMergePolicy(
    merge: .mergeByPropertyObjectTrumpMergePolicyType)
/// The context's objects are written over the store's rows.
nonisolated(unsafe) public let NSOverwriteMergePolicy: Any = NSMergePolicy(merge: .overwriteMergePolicyType)
/// The context's changes to conflicting objects are discarded.
nonisolated(unsafe) public let NSRollbackMergePolicy: Any = NSMergePolicy(merge: .rollbackMergePolicyType)
