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
    /// Posted after a save, with the object IDs (not the objects) of what it inserted, updated
    /// and deleted under `NotificationKey.insertedObjectIDs` and its siblings: safe to read
    /// on any queue.
    public static let didSaveObjectIDsNotification = Notification.Name("NSManagedObjectContextDidSaveObjectIDsNotification")
    /// Posted after a context merged changes saved elsewhere, with the merged object IDs under
    /// `NotificationKey.insertedObjectIDs` and its siblings.
    public static let didMergeChangesObjectIDsNotification = Notification.Name(
        "NSManagedObjectContextDidMergeChangesObjectIDsNotification")

    /// The user-info keys of the context's notifications, with Apple's raw values.
    public struct NotificationKey: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The context that posted (in notifications another context forwards).
        public static let sourceContext = NotificationKey(rawValue: "managedObjectContext")
        /// The query generation the context moved to.
        public static let queryGeneration = NotificationKey(rawValue: "newQueryGeneration")
        /// Objects no longer valid.
        public static let invalidatedObjects = NotificationKey(rawValue: NSInvalidatedObjectsKey)
        /// Present when every object of the context was invalidated.
        public static let invalidatedAllObjects = NotificationKey(rawValue: NSInvalidatedAllObjectsKey)
        /// Objects inserted.
        public static let insertedObjects = NotificationKey(rawValue: NSInsertedObjectsKey)
        /// Objects updated.
        public static let updatedObjects = NotificationKey(rawValue: NSUpdatedObjectsKey)
        /// Objects deleted.
        public static let deletedObjects = NotificationKey(rawValue: NSDeletedObjectsKey)
        /// Objects refreshed.
        public static let refreshedObjects = NotificationKey(rawValue: NSRefreshedObjectsKey)
        /// IDs of objects inserted.
        public static let insertedObjectIDs = NotificationKey(rawValue: "inserted_objectIDs")
        /// IDs of objects updated.
        public static let updatedObjectIDs = NotificationKey(rawValue: "updated_objectIDs")
        /// IDs of objects deleted.
        public static let deletedObjectIDs = NotificationKey(rawValue: "deleted_objectIDs")
        /// IDs of objects refreshed.
        public static let refreshedObjectIDs = NotificationKey(rawValue: "refreshed_objectIDs")
        /// IDs of objects no longer valid.
        public static let invalidatedObjectIDs = NotificationKey(rawValue: "invalidated_objectIDs")
    }

    /// Posts an object-ID notification for the IDs of the three kinds of change; none when
    /// nothing changed.
    func postObjectIDs(
        _ name: Notification.Name, inserted: [NSManagedObjectID], updated: [NSManagedObjectID], deleted: [NSManagedObjectID]
    ) {
        guard !inserted.isEmpty || !updated.isEmpty || !deleted.isEmpty else { return }
        NotificationCenter.default.post(
            name: name, object: self,
            userInfo: [
                NotificationKey.insertedObjectIDs.rawValue: Set(inserted),
                NotificationKey.updatedObjectIDs.rawValue: Set(updated),
                NotificationKey.deletedObjectIDs.rawValue: Set(deleted),
            ])
    }
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
    /// The objects in the order they were added; a removed object leaves a hole.
    private var list: [NSManagedObject?] = []
    /// Each member's place in `list`.
    private var positions = IdentityPositions()

    var isEmpty: Bool { positions.isEmpty }
    var count: Int { positions.count }

    func contains(_ object: NSManagedObject) -> Bool { positions[ObjectIdentifier(object)] != nil }

    mutating func insert(_ object: NSManagedObject) {
        guard positions.insert(ObjectIdentifier(object), list.count) else { return }
        list.append(object)
    }

    mutating func remove(_ object: NSManagedObject) {
        guard let position = positions.removeValue(forKey: ObjectIdentifier(object)) else { return }
        list[position] = nil
        if positions.isEmpty {
            list.removeAll(keepingCapacity: true)
        } else if list.count > 64 && positions.count * 2 < list.count {
            // Mostly holes: closed up, so that `objects` stays proportional to the members.
            let members = list.compactMap { $0 }
            list = members
            positions = IdentityPositions()
            for (position, member) in members.enumerated() { positions.insert(ObjectIdentifier(member), position) }
        }
    }

    mutating func removeAll() {
        list.removeAll()
        positions.removeAll()
    }

    /// The objects in the order they were added.
    var objects: [NSManagedObject] { list.compactMap { $0 } }

    var set: Set<NSManagedObject> { Set(objects) }
}

/// The object sets of the last `ObjectsDidChange`, with the objects each was made from. A save
/// mostly posts `DidSave` with the very objects its own `processPendingChanges` just posted
/// (insert, then save): that notification's set is reused instead of hashing every object
/// again (`NSObject`'s `isEqual` and `hash`, 1,000 instructions an object on Linux). Replaced
/// at each `ObjectsDidChange` and cleared with the context's changes (save, rollback, reset).
struct NotifiedSets {
    struct Memo {
        var objects: [NSManagedObject]
        var set: Set<NSManagedObject>
    }

    var inserted: Memo?
    var updated: Memo?
    var deleted: Memo?

    /// The set of `objects`, remembered under `key`.
    mutating func remember(_ objects: [NSManagedObject], in key: WritableKeyPath<Self, Memo?>) -> Set<NSManagedObject> {
        let set = Set(objects)
        self[keyPath: key] = Memo(objects: objects, set: set)
        return set
    }

    /// The set of `objects`: the remembered one when it was made from the same objects in the
    /// same order, otherwise a new one.
    func set(of objects: [NSManagedObject], in key: KeyPath<Self, Memo?>) -> Set<NSManagedObject> {
        if let memo = self[keyPath: key], memo.objects.count == objects.count,
            zip(memo.objects, objects).allSatisfy({ $0 === $1 })
        {
            return memo.set
        }
        return Set(objects)
    }
}
