import Foundation
import Synchronization

/// An entity of a managed object model: a kind of object, with its properties, its place in
/// an inheritance tree, its uniqueness constraints and its fetch indexes.
///
/// ```swift
/// let book = NSEntityDescription()
/// book.name = "Book"
/// book.managedObjectClassName = "Book"
/// book.properties = [title, pages]
/// book.uniquenessConstraints = [["isbn"]]
/// ```
///
/// Subentities share their root entity's table in a SQLite store (single-table
/// inheritance), and inherit its properties, constraints and indexes.
open class NSEntityDescription: NSObject, NSCopying, @unchecked Sendable {
    // Read at every fetch, save and ID printed: not checked for exclusive access at each read.
    /// The entity's name, unique in its model.
    @exclusivity(unchecked) public var name: String?
    /// The class of the entity's objects. `NSManagedObject` unless the model names one.
    public var managedObjectClassName: String! = "NSManagedObject"
    /// Whether the entity has no objects of its own, only of its subentities.
    public var isAbstract: Bool = false
    /// The entity this one inherits from.
    public internal(set) var superentity: NSEntityDescription? {
        get { superentityAnchor?.entity }
        set { superentityAnchor = newValue?.anchor }
    }
    private weak var superentityAnchor: EntityAnchor?
    /// What the references back to the entity point at (see `EntityAnchor`).
    let anchor = EntityAnchor()
    /// The entities that inherit from this one. Setting it sets their `superentity`.
    public var subentities: [NSEntityDescription] = [] {
        didSet {
            for old in oldValue where old.superentity === self && !subentities.contains(where: { $0 === old }) {
                old.superentity = nil
                old.invalidateLayout()
            }
            for entity in subentities {
                entity.superentity = self
                entity.invalidateLayout()
            }
        }
    }
    /// The model the entity belongs to.
    public internal(set) weak var managedObjectModel: NSManagedObjectModel!
    /// Arbitrary application data attached to the entity in the model editor.
    public var userInfo: [AnyHashable: Any]?
    /// Sets of attribute names whose values must be unique among the entity's objects.
    /// Each inner array is one constraint; several names in it form a compound key.
    /// Elements are attribute names or `NSPropertyDescription`s, as in Core Data.
    public var uniquenessConstraints: [[Any]] = []
    /// The entity's fetch indexes.
    public var indexes: [NSFetchIndexDescription] = [] {
        didSet { for index in indexes { index.entity = self } }
    }
    /// Legacy multi-property indexes (`<compoundIndexes>`), as arrays of property names.
    public var compoundIndexes: [[Any]] = []
    /// The string that, when set, changes the entity's version hash without changing its shape.
    public var versionHashModifier: String?
    /// The entity's former identifier; lightweight migration uses it to follow renames.
    public var renamingIdentifier: String?
    /// How Xcode generates the entity's class: "class", "category", or `nil` for none.
    public var codeGenerationType: String?
    /// XML attributes of the model file that carry no meaning at run time (such as the
    /// legacy `syncable`), kept so that a model written back matches the file it was read from.
    public var modelFileAttributes: [String: String] = [:]
    /// The line of the model file that declared this, for error messages (and tools such as
    /// `strata model validate` that point at it).
    public internal(set) var modelFileLine: Int?

    private var ownProperties: [NSPropertyDescription] = [] {
        didSet { invalidateLayout() }
    }
    let layoutLock = NSLock()
    var cachedLayout: EntityLayout?
    /// `cachedLayout`'s address while there is one, read without the lock by `layout` (every
    /// object made takes its entity's layout: the lock cost a fetch 100 instructions a row).
    /// A layout dropped by a change of the model stays alive in `retiredLayouts`, so that an
    /// address read just before the change stays valid.
    let publishedLayout = Atomic<UInt>(0)
    var retiredLayouts: [EntityLayout] = []
    /// The root entity when it is another one; kept as inheritance changes (see `rootIdentity`).
    private var otherRoot: ObjectIdentifier?

    /// `ObjectIdentifier(rootEntity)` without walking the chain of weak references: object IDs
    /// hash by it at every lookup. Models must not change once in use.
    var rootIdentity: ObjectIdentifier { otherRoot ?? ObjectIdentifier(self) }

    private func invalidateLayout() {
        for entity in selfAndDescendants {
            entity.layoutLock.lock()
            if let retired = entity.cachedLayout { entity.retiredLayouts.append(retired) }
            entity.cachedLayout = nil
            entity.publishedLayout.store(0, ordering: .releasing)
            entity.layoutLock.unlock()
            let root = entity.rootEntity
            entity.otherRoot = root === entity ? nil : ObjectIdentifier(root)
        }
    }

    /// The entity, its superentity, and so on up to the root; stops rather than loop when a
    /// (malformed) inheritance chain goes round in a circle.
    var selfAndAncestors: [NSEntityDescription] {
        var chain: [NSEntityDescription] = []
        var seen = Set<ObjectIdentifier>()
        var current: NSEntityDescription? = self
        while let entity = current, seen.insert(ObjectIdentifier(entity)).inserted {
            chain.append(entity)
            current = entity.superentity
        }
        return chain
    }

    /// The entity and every entity below it, each once even if inheritance is circular.
    package var selfAndDescendants: [NSEntityDescription] {
        var result: [NSEntityDescription] = []
        var seen = Set<ObjectIdentifier>()
        var pending: [NSEntityDescription] = [self]
        while let entity = pending.popLast() {
            guard seen.insert(ObjectIdentifier(entity)).inserted else { continue }
            result.append(entity)
            pending += entity.subentities
        }
        return result
    }

    public override init() {
        super.init()
        anchor.entity = self
    }

    /// The entity's properties, inherited ones first. Setting it sets the entity's own
    /// properties (the inherited ones stay with the superentity).
    public var properties: [NSPropertyDescription] {
        get { selfAndAncestors.reversed().flatMap(\.ownProperties) }
        set {
            let inherited = Set(selfAndAncestors.dropFirst().flatMap(\.ownProperties).map(ObjectIdentifier.init))
            ownProperties = newValue.filter { !inherited.contains(ObjectIdentifier($0)) }
            for property in ownProperties { property.entity = self }
        }
    }

    /// The properties the entity declares itself, without inherited ones.
    public var declaredProperties: [NSPropertyDescription] { ownProperties }

    /// The properties by name, inherited ones included.
    public var propertiesByName: [String: NSPropertyDescription] {
        Dictionary(properties.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last })
    }

    /// The attributes by name, inherited ones included.
    public var attributesByName: [String: NSAttributeDescription] {
        propertiesByName.compactMapValues { $0 as? NSAttributeDescription }
    }

    /// The relationships by name, inherited ones included.
    public var relationshipsByName: [String: NSRelationshipDescription] {
        propertiesByName.compactMapValues { $0 as? NSRelationshipDescription }
    }

    /// The relationships whose destination is the given entity.
    public func relationships(forDestination entity: NSEntityDescription) -> [NSRelationshipDescription] {
        properties.compactMap { $0 as? NSRelationshipDescription }.filter { $0.destinationEntity === entity }
    }

    /// The subentities by name.
    public var subentitiesByName: [String: NSEntityDescription] {
        Dictionary(subentities.compactMap { entity in entity.name.map { ($0, entity) } }, uniquingKeysWith: { a, _ in a })
    }

    /// Whether this entity is the given one or inherits from it.
    public func isKindOf(entity: NSEntityDescription) -> Bool {
        selfAndAncestors.contains { $0 === entity }
    }

    /// The topmost ancestor (the entity itself when it has no superentity). In a SQLite
    /// store, an entity's objects live in its root entity's table.
    public var rootEntity: NSEntityDescription {
        // Walked without collecting the chain (every object ID asks); a chain too long to be
        // real may be a circle, which `selfAndAncestors` stops.
        var current = self
        for _ in 0..<64 {
            guard let parent = current.superentity else { return current }
            current = parent
        }
        return selfAndAncestors.last ?? self
    }

    /// The entity's uniqueness constraints as attribute names, its superentities' first.
    public var uniquenessConstraintNames: [[String]] {
        var names: [[String]] = []
        for entity in selfAndAncestors.reversed() {
            for constraint in entity.uniquenessConstraints {
                let constraintNames = constraint.compactMap { ($0 as? String) ?? ($0 as? NSPropertyDescription)?.name }
                if !names.contains(constraintNames) { names.append(constraintNames) }
            }
        }
        return names
    }

    /// The entity's version hash: 32 bytes that change whenever the entity changes in a way
    /// that matters to a store.
    public var versionHash: Data { VersionHash.hash(of: self) }

    /// A copy of the entity with copies of its own properties, detached from any model and
    /// inheritance tree (relationships refer to their destinations by name).
    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = NSEntityDescription()
        copy.name = name
        copy.managedObjectClassName = managedObjectClassName
        copy.isAbstract = isAbstract
        copy.userInfo = userInfo
        copy.uniquenessConstraints = uniquenessConstraints.map { constraint in
            constraint.map { ($0 as? NSPropertyDescription)?.name ?? $0 }
        }
        copy.compoundIndexes = compoundIndexes
        copy.versionHashModifier = versionHashModifier
        copy.renamingIdentifier = renamingIdentifier
        copy.codeGenerationType = codeGenerationType
        copy.modelFileAttributes = modelFileAttributes
        copy.properties = ownProperties.compactMap { $0.copy() as? NSPropertyDescription }
        copy.indexes = indexes.map { $0.copyDescription() }
        return copy
    }

    /// Structural equality: the same name, flags, superentity name, own properties,
    /// constraints and indexes.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSEntityDescription else { return false }
        return name == other.name && managedObjectClassName == other.managedObjectClassName
            && isAbstract == other.isAbstract && superentity?.name == other.superentity?.name
            && Set(subentities.compactMap(\.name)) == Set(other.subentities.compactMap(\.name))
            && UserInfo.equal(userInfo, other.userInfo)
            && uniquenessConstraintNames == other.uniquenessConstraintNames
            && compoundIndexNames == other.compoundIndexNames
            && indexes == other.indexes
            && versionHashModifier == other.versionHashModifier
            && renamingIdentifier == other.renamingIdentifier
            && codeGenerationType == other.codeGenerationType
            && ownPropertiesByName == other.ownPropertiesByName
    }

    open override var hash: Int { name?.hashValue ?? 0 }

    var compoundIndexNames: [[String]] {
        compoundIndexes.map { $0.compactMap { ($0 as? String) ?? ($0 as? NSPropertyDescription)?.name } }
    }

    private var ownPropertiesByName: [String: NSPropertyDescription] {
        Dictionary(ownProperties.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
    }

    open override var description: String {
        "(<NSEntityDescription>) name \(name ?? "nil"), managedObjectClassName \(managedObjectClassName ?? "nil"), "
            + "superentity \(superentity?.name ?? "nil"), properties \(properties.map(\.name))"
    }
}

/// What the references back to an entity (a property's, a fetch index's, a subentity's and a
/// relationship's destination) point at instead of the entity. Those references are weak, and a
/// weak reference to an object gives it a side table, through which every later retain and
/// release of that object then goes: about 45 instructions instead of 5, at each object ID and
/// each object made by a fetch, which retain their entity. The anchor takes the side table; the
/// entity owns its anchor alone, so the weak references still read `nil` once the entity is
/// gone.
final class EntityAnchor: @unchecked Sendable {
    /// Set once, when the entity is made; the anchor does not outlive it.
    unowned(unsafe) var entity: NSEntityDescription?
}
