import Foundation

extension Notification.Name {
    /// Posted when pending changes are processed: the objects inserted, updated, deleted
    /// and refreshed since the last time, under `NSInsertedObjectsKey` and its siblings.
    public static let NSManagedObjectContextObjectsDidChange = Notification.Name(
        "NSManagedObjectContextObjectsDidChangeNotification")
    /// Posted at the start of a save, before validation.
    public static let NSManagedObjectContextWillSave = Notification.Name("NSManagedObjectContextWillSaveNotification")
    /// Posted after a save, with the saved objects under `NSInsertedObjectsKey`,
    /// `NSUpdatedObjectsKey` and `NSDeletedObjectsKey`.
    public static let NSManagedObjectContextDidSave = Notification.Name("NSManagedObjectContextDidSaveNotification")
}

extension NSManagedObjectContext {
    /// The change notification, in the iOS 14 spelling.
    public static let didChangeObjectsNotification = Notification.Name.NSManagedObjectContextObjectsDidChange
    /// The will-save notification, in the iOS 14 spelling.
    public static let willSaveObjectsNotification = Notification.Name.NSManagedObjectContextWillSave
    /// The did-save notification, in the iOS 14 spelling.
    public static let didSaveObjectsNotification = Notification.Name.NSManagedObjectContextDidSave
}

/// Notification user-info key: the inserted objects (`Set<NSManagedObject>`).
public let NSInsertedObjectsKey = "inserted"
/// Notification user-info key: the updated objects.
public let NSUpdatedObjectsKey = "updated"
/// Notification user-info key: the deleted objects.
public let NSDeletedObjectsKey = "deleted"
/// Notification user-info key: the refreshed objects.
public let NSRefreshedObjectsKey = "refreshed"
/// Notification user-info key: objects that are no longer valid.
public let NSInvalidatedObjectsKey = "invalidated"
/// Notification user-info key: present when every object of the context was invalidated.
public let NSInvalidatedAllObjectsKey = "invalidatedAll"

/// Objects of a context by identity, in the order they were added.
struct ObjectSet {
    private var members: [ObjectIdentifier: (order: Int, object: NSManagedObject)] = [:]
    private var next = 0

    var isEmpty: Bool { members.isEmpty }
    var count: Int { members.count }

    func contains(_ object: NSManagedObject) -> Bool { members[ObjectIdentifier(object)] != nil }

    mutating func insert(_ object: NSManagedObject) {
        guard members[ObjectIdentifier(object)] == nil else { return }
        members[ObjectIdentifier(object)] = (next, object)
        next += 1
    }

    mutating func remove(_ object: NSManagedObject) { members[ObjectIdentifier(object)] = nil }

    mutating func removeAll() { members.removeAll() }

    /// The objects in the order they were added.
    var objects: [NSManagedObject] { members.values.sorted { $0.order < $1.order }.map(\.object) }

    var set: Set<NSManagedObject> { Set(members.values.map(\.object)) }
}
