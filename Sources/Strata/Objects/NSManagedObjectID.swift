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
    // Three words besides the object's header (40 bytes, where six took 80): a fetch makes an
    // ID for every row and every to-one it points to, and keeps them as long as the objects.
    /// The entity of the object.
    public let entity: NSEntityDescription
    /// The row's `Z_PK` for a permanent ID; for a temporary one, its number, unique in the
    /// process.
    let number: Int64
    /// The store and its identifier as they were when the ID was made, shared by the IDs the
    /// store makes; `StoreReference.temporary` for every temporary ID.
    let origin: StoreReference

    /// The store the object lives in; `nil` for a temporary ID.
    public var persistentStore: NSPersistentStore? { origin.store }
    /// Whether the ID will change when the object is saved.
    public var isTemporaryID: Bool { origin.isTemporary }

    /// The row's `Z_PK`; 0 for a temporary ID.
    var primaryKey: Int64 { origin.isTemporary ? 0 : number }
    /// The identifier of the store (its metadata's UUID) for a permanent ID.
    var storeIdentifier: String? { origin.identifier }

    /// `hash`: IDs are dictionary keys in every registry and cache. Keys are small consecutive
    /// numbers, so they are spread by a multiplication, and the root entity (which identity is
    /// relative to: subentities share their root's keys) tells tables apart.
    var hashCode: Int {
        let spread = UInt64(bitPattern: number)
        if origin.isTemporary { return Int(truncatingIfNeeded: spread &* 0xC2B2_AE3D_27D4_EB4F) }
        return Int(truncatingIfNeeded: spread &* 0x9E37_79B9_7F4A_7C15)
            ^ Int(bitPattern: UInt(bitPattern: entity.rootIdentity))
    }

    /// A new temporary ID for an object of the entity.
    init(temporaryFor entity: NSEntityDescription) {
        self.entity = entity
        self.number = Self.temporaryNumbers.withLock { last in
            last += 1
            return last
        }
        self.origin = StoreReference.temporary
    }

    /// Temporary IDs are this process's UUID and a number, as Apple's are
    /// (`x-coredata:///Entity/t<UUID><n>`): unique without a random UUID per object.
    private static let temporarySession = UUID().uuidString
    private static let temporaryNumbers = Protected<Int64>(0)

    /// The permanent ID of the row `primaryKey` of the entity in the store.
    convenience init(entity: NSEntityDescription, primaryKey: Int64, store: NSPersistentStore) {
        self.init(entity: entity, primaryKey: primaryKey, origin: store.idOrigin)
    }

    /// The same, with the store's shared reference already known: a fetch makes an ID per row,
    /// and looks that up once.
    init(entity: NSEntityDescription, primaryKey: Int64, origin: StoreReference) {
        self.entity = entity
        self.number = primaryKey
        self.origin = origin
    }

    /// A URI that names the object: `x-coredata://STORE-UUID/Entity/pN` for a permanent ID,
    /// `x-coredata:///Entity/tUUID` for a temporary one.
    public func uriRepresentation() -> URL {
        let name = entity.name ?? ""
        let text: String
        if origin.isTemporary {
            text = "x-coredata:///\(name)/t\(Self.temporarySession)\(number)"
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
        guard number == other.number else { return false }
        if origin !== other.origin {
            // IDs made by two store objects with one identifier (a store removed and added
            // again) name the same rows; temporary IDs are of one origin.
            guard !origin.isTemporary, !other.origin.isTemporary, origin.identifier == other.origin.identifier else {
                return false
            }
        } else if origin.isTemporary {
            return true
        }
        return entity === other.entity || entity.rootIdentity == other.entity.rootIdentity
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

/// What the object IDs of one store share: a weak reference to the store (set once, so it may
/// be read from any thread) and the store's identifier when they were made.
final class StoreReference: @unchecked Sendable {
    private(set) weak var store: NSPersistentStore?
    let identifier: String?
    let isTemporary: Bool

    init(store: NSPersistentStore?, identifier: String?, isTemporary: Bool = false) {
        self.store = store
        self.identifier = identifier
        self.isTemporary = isTemporary
    }

    /// The origin of every temporary ID.
    static let temporary = StoreReference(store: nil, identifier: nil, isTemporary: true)
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
