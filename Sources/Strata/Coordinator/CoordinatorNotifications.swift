import Foundation

extension Notification.Name {
    /// Posted before stores are added to or removed from a coordinator (the notification's
    /// object), with the stores about to come or go under `NSAddedPersistentStoresKey` and
    /// `NSRemovedPersistentStoresKey`.
    public static let NSPersistentStoreCoordinatorStoresWillChange = Notification.Name(
        "NSPersistentStoreCoordinatorStoresWillChangeNotification")
    /// Posted after stores were added to or removed from a coordinator, with the stores under
    /// `NSAddedPersistentStoresKey` and `NSRemovedPersistentStoresKey`.
    public static let NSPersistentStoreCoordinatorStoresDidChange = Notification.Name(
        "NSPersistentStoreCoordinatorStoresDidChangeNotification")
    /// Posted before a store is removed from a coordinator; the notification's object is the store.
    public static let NSPersistentStoreCoordinatorWillRemoveStore = Notification.Name(
        "NSPersistentStoreCoordinatorWillRemoveStoreNotification")
}

/// User-info key of the coordinator's store notifications: the stores added.
public let NSAddedPersistentStoresKey = "added"
/// User-info key of the coordinator's store notifications: the stores removed.
public let NSRemovedPersistentStoresKey = "removed"
/// User-info key of the coordinator's store notifications: a store whose UUID changed, with
/// the store it became.
public let NSUUIDChangedPersistentStoresKey = "changedUUID"
/// User-info key of remote change notifications: the URL of the store that changed.
public let NSPersistentStoreURLKey = "storeURL"

extension NSPersistentStoreCoordinator {
    /// Posts the will-change notification for stores about to be added or removed.
    func postStoresWillChange(added: [NSPersistentStore] = [], removed: [NSPersistentStore] = []) {
        NotificationCenter.default.post(
            name: .NSPersistentStoreCoordinatorStoresWillChange, object: self,
            userInfo: storeChangeInfo(added: added, removed: removed))
    }

    /// Posts the did-change notification for stores added or removed.
    func postStoresDidChange(added: [NSPersistentStore] = [], removed: [NSPersistentStore] = []) {
        NotificationCenter.default.post(
            name: .NSPersistentStoreCoordinatorStoresDidChange, object: self,
            userInfo: storeChangeInfo(added: added, removed: removed))
    }

    private func storeChangeInfo(added: [NSPersistentStore], removed: [NSPersistentStore]) -> [String: Any] {
        var info: [String: Any] = [:]
        if !added.isEmpty { info[NSAddedPersistentStoresKey] = added }
        if !removed.isEmpty { info[NSRemovedPersistentStoresKey] = removed }
        return info
    }
}
