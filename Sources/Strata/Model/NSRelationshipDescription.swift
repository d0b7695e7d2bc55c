import Foundation

/// What happens to the objects at the other end of a relationship when its source is deleted.
/// Raw values are Core Data's.
public enum NSDeleteRule: UInt, Sendable, CaseIterable {
    /// Do nothing; the destination keeps a reference to the deleted object.
    case noActionDeleteRule = 0
    /// Remove the deleted object from the destination's inverse relationship.
    case nullifyDeleteRule = 1
    /// Delete the destination objects too.
    case cascadeDeleteRule = 2
    /// Refuse the delete while the relationship has destination objects.
    case denyDeleteRule = 3

    /// Xcode's spelling in a model file's `deletionRule`.
    public var xcodeModelName: String {
        switch self {
        case .noActionDeleteRule: "No Action"
        case .nullifyDeleteRule: "Nullify"
        case .cascadeDeleteRule: "Cascade"
        case .denyDeleteRule: "Deny"
        }
    }

    /// Reads Xcode's spelling; `nil` for an unknown one.
    public init?(xcodeModelName: String) {
        guard let rule = Self.allCases.first(where: { $0.xcodeModelName == xcodeModelName }) else { return nil }
        self = rule
    }
}

/// A relationship from one entity to another (or to itself): to-one, to-many, or ordered
/// to-many, usually with an inverse.
///
/// ```swift
/// let tags = NSRelationshipDescription()
/// tags.name = "tags"
/// tags.destinationEntity = tagEntity
/// tags.maxCount = 0            // 0 = no limit: a to-many relationship
/// tags.deleteRule = .nullifyDeleteRule
/// ```
open class NSRelationshipDescription: NSPropertyDescription, @unchecked Sendable {
    /// The entity of the objects the relationship points to.
    public var destinationEntity: NSEntityDescription? {
        get { destinationAnchor?.entity }
        set { destinationAnchor = newValue?.anchor }
    }
    private weak var destinationAnchor: EntityAnchor?
    /// The relationship of the destination entity that points back.
    public weak var inverseRelationship: NSRelationshipDescription?
    /// The least number of destination objects; 0 for no minimum.
    public var minCount: Int = 0
    /// The most destination objects; 0 for no limit. A relationship is to-one when this is 1.
    public var maxCount: Int = 1
    /// What deleting the source does to the destination objects.
    public var deleteRule: NSDeleteRule = .nullifyDeleteRule
    /// Whether a to-many relationship keeps its objects in order (an `NSOrderedSet`).
    public var isOrdered: Bool = false

    /// Whether the relationship holds a collection of objects rather than one.
    public var isToMany: Bool { maxCount != 1 }

    /// Names kept from a model file until the entities they refer to are known.
    var destinationEntityName: String?
    var inverseEntityName: String?
    var inverseName: String?

    /// The name of the destination entity, resolved or as written in the model.
    public var destinationName: String? { destinationEntity?.name ?? destinationEntityName }
    /// The inverse's name, resolved or as written in the model.
    public var inverseRelationshipName: String? { inverseRelationship?.name ?? inverseName }
    /// The inverse's entity name, resolved or as written in the model.
    public var inverseEntityNameInModel: String? { inverseRelationship?.entity?.name ?? inverseEntityName }

    override class func makeEmpty() -> NSPropertyDescription { NSRelationshipDescription() }

    /// A copy that refers to its destination and inverse by name, to be resolved in the
    /// model the copy is added to.
    open override func copy(with zone: NSZone? = nil) -> Any {
        let copy = super.copy(with: zone)
        if let copy = copy as? NSRelationshipDescription {
            copy.destinationEntityName = destinationName
            copy.inverseName = inverseRelationshipName
            copy.inverseEntityName = inverseEntityNameInModel
            copy.minCount = minCount
            copy.maxCount = maxCount
            copy.deleteRule = deleteRule
            copy.isOrdered = isOrdered
        }
        return copy
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard super.isEqual(object), let other = object as? NSRelationshipDescription else { return false }
        return destinationName == other.destinationName
            && inverseRelationshipName == other.inverseRelationshipName
            && inverseEntityNameInModel == other.inverseEntityNameInModel
            && minCount == other.minCount && maxCount == other.maxCount
            && deleteRule == other.deleteRule && isOrdered == other.isOrdered
    }

    open override var description: String {
        "\(super.description), destination \(destinationName ?? "nil"), inverse \(inverseRelationshipName ?? "nil"), "
            + "toMany \(isToMany), ordered \(isOrdered), deleteRule \(deleteRule.xcodeModelName)"
    }
}
