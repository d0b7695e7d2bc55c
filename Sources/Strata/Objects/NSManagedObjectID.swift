import Foundation

/// The identity of a managed object: its entity, its store and its key in that store.
///
/// A new object has a temporary ID until it is saved (or `obtainPermanentIDs(for:)` is
/// called); then it gets a permanent one, whose URI names the store and the row:
///
/// ```swift
/// try context.save()
/// book.objectID.isTemporaryID            // false
/// book.objectID.uriRepresentation()      // x-coredata://6F1C…/Book/p12
/// ```
///
/// IDs are immutable and may be passed between contexts and threads.
public final class NSManagedObjectID: NSObject, NSCopying, @unchecked Sendable {
    /// The entity of the object.
    public let entity: NSEntityDescription
    /// The store the object lives in; `nil` for a temporary ID.
    public var persistentStore: NSPersistentStore? { store.value }
    /// Whether the ID will change when the object is saved.
    public var isTemporaryID: Bool { primaryKey == 0 }

    /// The row's `Z_PK`; 0 for a temporary ID.
    let primaryKey: Int64
    /// The temporary ID's number, unique in the process; 0 for a permanent ID.
    let temporaryNumber: Int64
    /// The identifier of the store (its metadata's UUID) for a permanent ID.
    let storeIdentifier: String?
    /// The store's one weak reference to itself, shared by all its IDs.
    private let store: WeakStore
    /// The root entity, which identity is relative to (subentities share their root's keys).
    private let root: ObjectIdentifier
    /// `hash`, computed once: IDs are dictionary keys in every registry and cache.
    let hashCode: Int

    /// A new temporary ID for an object of the entity.
    init(temporaryFor entity: NSEntityDescription) {
        let number = Self.temporaryNumbers.withLock { last in
            last += 1
            return last
        }
        self.entity = entity
        self.primaryKey = 0
        self.temporaryNumber = number
        self.storeIdentifier = nil
        self.store = WeakStore.none
        self.root = ObjectIdentifier(entity.rootEntity)
        self.hashCode = Int(truncatingIfNeeded: UInt64(bitPattern: number) &* 0xC2B2_AE3D_27D4_EB4F)
    }

    /// Temporary IDs are this process's UUID and a number, as Apple's are
    /// (`x-coredata:///Entity/t<UUID><n>`): unique without a random UUID per object.
    private static let temporarySession = UUID().uuidString
    private static let temporaryNumbers = Protected<Int64>(0)

    /// The permanent ID of the row `primaryKey` of the entity in the store.
    convenience init(entity: NSEntityDescription, primaryKey: Int64, store: NSPersistentStore) {
        self.init(
            entity: entity, primaryKey: primaryKey, store: store, storeIdentifier: store.identifier,
            root: ObjectIdentifier(entity.rootEntity))
    }

    /// The same, with the store's identifier and the entity's root already known: a fetch
    /// makes an ID per row, and looks those up once.
    init(
        entity: NSEntityDescription, primaryKey: Int64, store: NSPersistentStore, storeIdentifier: String?,
        root: ObjectIdentifier
    ) {
        self.entity = entity
        self.primaryKey = primaryKey
        self.temporaryNumber = 0
        self.storeIdentifier = storeIdentifier
        self.store = store.weakReference
        self.root = root
        // Keys are small consecutive numbers: spread them, and tell roots apart.
        self.hashCode =
            Int(truncatingIfNeeded: UInt64(bitPattern: primaryKey) &* 0x9E37_79B9_7F4A_7C15)
            ^ Int(bitPattern: UInt(bitPattern: root))
    }

    /// A URI that names the object: `x-coredata://STORE-UUID/Entity/pN` for a permanent ID,
    /// `x-coredata:///Entity/tUUID` for a temporary one.
    public func uriRepresentation() -> URL {
        let name = entity.name ?? ""
        let text: String
        if temporaryNumber != 0 {
            text = "x-coredata:///\(name)/t\(Self.temporarySession)\(temporaryNumber)"
        } else {
            text = "x-coredata://\(storeIdentifier ?? "")/\(name)/p\(primaryKey)"
        }
        // The parts are a UUID, an entity name (an identifier) and a number: always a valid URL.
        return URL(string: text) ?? URL(fileURLWithPath: "/")
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    public override func isEqual(_ object: Any?) -> Bool {
        // Another ID first: dictionaries of IDs ask this all the time, and a failed cast from
        // `Any` costs more than a successful one.
        guard let other = object as? NSManagedObjectID else { return (object as? RowReader)?.isEqual(self) ?? false }
        return names(sameObjectAs: other)
    }

    /// Equality without `isEqual(_:)`'s cast from `Any`, for keys of the hot dictionaries.
    @inline(__always)
    func names(sameObjectAs other: NSManagedObjectID) -> Bool {
        if other === self { return true }
        if temporaryNumber != 0 || other.temporaryNumber != 0 { return temporaryNumber == other.temporaryNumber }
        return primaryKey == other.primaryKey && root == other.root && storeIdentifier == other.storeIdentifier
    }

    public override var hash: Int { hashCode }

    public override var description: String {
        "<NSManagedObjectID: \(uriRepresentation().absoluteString)>"
    }
}

/// An object ID as a dictionary key that hashes and compares without Objective-C-style
/// dispatch: `NSObject`'s `==` goes through `isEqual(_:)` and a cast from `Any`, which the
/// registry of every context and the coordinator's row cache would pay at every lookup.
struct ObjectKey: Hashable {
    let objectID: NSManagedObjectID

    init(_ objectID: NSManagedObjectID) { self.objectID = objectID }

    static func == (lhs: ObjectKey, rhs: ObjectKey) -> Bool { lhs.objectID.names(sameObjectAs: rhs.objectID) }

    func hash(into hasher: inout Hasher) { hasher.combine(objectID.hashCode) }

    /// What `Dictionary` and `Set` ask for: the ID's own hash, already spread, mixed with the
    /// table's seed by one multiplication instead of SipHash (a third of a registry lookup).
    /// The seed still varies the order between tables, so that copying one into a smaller
    /// one does not cluster.
    func _rawHashValue(seed: Int) -> Int {
        let mixed = UInt64(bitPattern: Int64(objectID.hashCode ^ seed)) &* 0xBF58_476D_1CE4_E5B9
        return Int(truncatingIfNeeded: mixed ^ (mixed >> 31))
    }
}

/// A weak reference to a store that can be shared across threads (the reference is set
/// once, when the ID is made).
final class WeakStore: @unchecked Sendable {
    weak var value: NSPersistentStore?
    init(_ value: NSPersistentStore?) { self.value = value }

    /// The store of every temporary ID.
    static let none = WeakStore(nil)
}

extension NSManagedObjectID {
    /// The parts of an `x-coredata://STORE/Entity/pN` URI, or `nil` when it is not one.
    static func parse(uri: URL) -> (store: String, entity: String, primaryKey: Int64)? {
        guard uri.scheme == "x-coredata", let host = uri.host, !host.isEmpty else { return nil }
        let parts = uri.path.split(separator: "/").map(String.init)
        guard parts.count == 2, parts[1].hasPrefix("p"), let key = Int64(parts[1].dropFirst()), key > 0 else {
            return nil
        }
        return (host, parts[0], key)
    }
}
