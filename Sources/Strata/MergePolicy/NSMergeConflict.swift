import Foundation

/// An optimistic-locking conflict found at save: the object's row changed in the store
/// (or was deleted) since the context last read it.
///
/// With the default error merge policy the save fails with `NSManagedObjectMergeError`
/// (133020) and `userInfo["conflictList"]` holds one conflict per object.
open class NSMergeConflict: NSObject, @unchecked Sendable {
    /// The object whose save conflicted.
    open private(set) var sourceObject: NSManagedObject
    /// The object's values in the context, by property name.
    open private(set) var objectSnapshot: [String: Any]?
    /// The values the context last read, by property name.
    open private(set) var cachedSnapshot: [String: Any]?
    /// The values now in the store, by property name; `nil` when the row was deleted.
    open private(set) var persistedSnapshot: [String: Any]?
    /// The store's version of the row; 0 when it was deleted.
    open private(set) var newVersionNumber: Int
    /// The version the context last read.
    open private(set) var oldVersionNumber: Int

    public init(
        source srcObject: NSManagedObject, newVersion newvers: Int, oldVersion oldvers: Int,
        cachedSnapshot cachesnap: [String: Any]?, persistedSnapshot persnap: [String: Any]?
    ) {
        sourceObject = srcObject
        newVersionNumber = newvers
        oldVersionNumber = oldvers
        cachedSnapshot = cachesnap
        persistedSnapshot = persnap
        super.init()
    }

    func setObjectSnapshot(_ snapshot: [String: Any]) { objectSnapshot = snapshot }

    /// The store's row as a snapshot (nil when it was deleted), for resolution.
    var storedSnapshot: Snapshot?

    open override var description: String {
        "<NSMergeConflict: source \(sourceObject.objectID); old version \(oldVersionNumber); new version \(newVersionNumber)>"
    }
}
