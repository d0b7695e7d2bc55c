import Foundation
import Strata

/// The identity of a model's row: Core Data's object ID underneath (`x-coredata://…` URI
/// form), temporary until the row is first saved, as in Core Data. Equal identifiers name the
/// same row of the same store; an identifier survives encoding (`Codable`) and is resolved
/// again by `ModelContext.model(for:)`.
public struct PersistentIdentifier: Hashable, Identifiable, Comparable, Codable, Sendable, CustomStringConvertible,
    _PredicateArgumentConvertible
{
    /// What identifies the row: the object ID's URI (made when first compared or encoded: a
    /// save's notification makes an identifier for every saved row), or for a model no
    /// context holds yet a token of its own.
    var key: String { storedKey ?? objectID?.uriRepresentation().absoluteString ?? "" }
    /// The key of a decoded identifier or of an unsaved model's.
    private let storedKey: String?
    /// The model's entity (the class's name).
    public let entityName: String
    /// The identifier of the store that holds the row, once it has been saved.
    public let storeIdentifier: String?
    /// The object ID it was made from, while the process that made it runs.
    let objectID: NSManagedObjectID?

    public var id: PersistentIdentifier { self }

    init(_ objectID: NSManagedObjectID) {
        self.objectID = objectID
        storedKey = nil
        entityName = objectID.entity.name ?? ""
        storeIdentifier = objectID.isTemporaryID ? nil : objectID.persistentStore?.identifier
    }

    init(unsaved token: UUID, entityName: String) {
        objectID = nil
        storedKey = "x-swiftdata-unsaved:///\(entityName)/\(token.uuidString)"
        self.entityName = entityName
        storeIdentifier = nil
    }

    /// Whether the identifier is temporary (its model has never been saved).
    public var isTemporary: Bool { storeIdentifier == nil }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        if let left = lhs.objectID, let right = rhs.objectID { return left == right }
        return lhs.key == rhs.key
    }
    public func hash(into hasher: inout Hasher) { hasher.combine(key) }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.key < rhs.key }

    public var description: String { "PersistentIdentifier(\(key))" }

    /// In a predicate, the row's object ID.
    public var _predicateArgument: Any? { objectID }

    private enum CodingKeys: String, CodingKey {
        case uri
        case entityName
        case storeIdentifier
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        storedKey = try container.decode(String.self, forKey: .uri)
        entityName = try container.decode(String.self, forKey: .entityName)
        storeIdentifier = try container.decodeIfPresent(String.self, forKey: .storeIdentifier)
        objectID = nil
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(key, forKey: .uri)
        try container.encode(entityName, forKey: .entityName)
        try container.encodeIfPresent(storeIdentifier, forKey: .storeIdentifier)
    }
}
