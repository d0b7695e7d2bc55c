import Foundation

/// How the entities of one managed object model become those of another: the plan a
/// migration follows, one `NSEntityMapping` per entity.
///
/// Lightweight migration infers one (`inferredMappingModel(forSourceModel:destinationModel:)`)
/// from the two models' differences and renaming identifiers:
///
/// ```swift
/// let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v3)
/// for entityMapping in mapping.entityMappings { print(entityMapping.name!, entityMapping.mappingType) }
/// ```
///
/// An explicit migration (`NSMigrationManager`) follows one read from an Xcode mapping model
/// (`NSMappingModel(contentsOf:)`, or found in bundles by its models with
/// `NSMappingModel(from:forSourceModel:destinationModel:)`) or built in code.
open class NSMappingModel: NSObject, @unchecked Sendable {
    /// The entity mappings, in the order a migration runs them.
    open var entityMappings: [NSEntityMapping]! = []

    /// The model paths an Xcode mapping model names (relative to the app's project), which
    /// tell the versions apart when looking it up by its models.
    var sourceModelPath: String?
    var destinationModelPath: String?
    /// Whether parts are left for the models to complete (a mapping model read from a file).
    var needsResolution = false
    /// The models an Xcode mapping model was made for, as its editor recorded them: entity
    /// name → property names (what tells versions apart when the file has no version hashes).
    var sourceEntityProperties: [String: Set<String>]?
    var destinationEntityProperties: [String: Set<String>]?

    /// The entity mappings by name.
    open var entityMappingsByName: [String: NSEntityMapping] {
        Dictionary(
            (entityMappings ?? []).compactMap { mapping in mapping.name.map { ($0, mapping) } },
            uniquingKeysWith: { first, _ in first })
    }

    public override init() { super.init() }

    /// The mapping model of an Xcode mapping model (`.xcmappingmodel`, or its
    /// `xcmapping.xml`); `nil` when the file is missing or cannot be read.
    public convenience init?(contentsOf url: URL?) {
        guard let url, let read = try? MappingModelFile.read(url) else { return nil }
        self.init()
        adopt(read)
    }

    /// The mapping model found in the bundles (the main bundle when `nil`) that migrates
    /// `sourceModel` to `destinationModel`; `nil` when none does.
    public convenience init?(
        from bundles: [Bundle]?, forSourceModel sourceModel: NSManagedObjectModel?,
        destinationModel: NSManagedObjectModel?
    ) {
        guard let sourceModel, let destinationModel,
            let found = MappingModelLookup.mappingModel(
                in: bundles ?? [Bundle.main], source: sourceModel, destination: destinationModel)
        else { return nil }
        self.init()
        adopt(found)
    }

    private func adopt(_ other: NSMappingModel) {
        entityMappings = other.entityMappings
        sourceModelPath = other.sourceModelPath
        destinationModelPath = other.destinationModelPath
        needsResolution = other.needsResolution
        sourceEntityProperties = other.sourceEntityProperties
        destinationEntityProperties = other.destinationEntityProperties
    }

    /// Equal when the entity mappings are, in order (a mapping model read twice from one file).
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSMappingModel else { return false }
        if other === self { return true }
        return (entityMappings ?? []) == (other.entityMappings ?? [])
    }

    open override var hash: Int {
        var hasher = Hasher()
        for mapping in entityMappings ?? [] { hasher.combine(mapping.hash) }
        return hasher.finalize()
    }

    /// The mapping model that migrates data from `sourceModel` to `destinationModel` as
    /// lightweight migration does, or an `NSInferredMappingModelError` (134190) naming the
    /// entity and property whose change cannot be inferred.
    ///
    /// What is inferred, following Apple's "Lightweight Migration" guide: entities and
    /// properties added and removed, renames through renaming identifiers (the destination
    /// element's `renamingIdentifier` names the source element, or both share one), optional
    /// ↔ required, to-one ↔ to-many, ordered ↔ unordered, entities moved within or out of a
    /// hierarchy, and numeric attribute types changed among themselves. Not inferred: another
    /// attribute type change, and entities of two source hierarchies merged into one.
    open class func inferredMappingModel(
        forSourceModel sourceModel: NSManagedObjectModel, destinationModel: NSManagedObjectModel
    ) throws -> NSMappingModel {
        try MappingInference(source: sourceModel, destination: destinationModel).mappingModel()
    }

    open override var description: String {
        "(<NSMappingModel>) entityMappings \((entityMappings ?? []).compactMap(\.name))"
    }
}

/// What an entity mapping does, with Core Data's raw values.
public enum NSEntityMappingType: UInt, Sendable {
    case undefinedEntityMappingType = 0x00
    /// A custom policy creates the destination objects.
    case customEntityMappingType = 0x01
    /// A new entity: no source objects.
    case addEntityMappingType = 0x02
    /// An entity that is gone: its objects are not migrated.
    case removeEntityMappingType = 0x03
    /// The same entity: objects are copied as they are.
    case copyEntityMappingType = 0x04
    /// A changed entity: objects are migrated property by property.
    case transformEntityMappingType = 0x05
}

/// How the objects of one source entity become objects of one destination entity.
open class NSEntityMapping: NSObject, @unchecked Sendable {
    /// The mapping's name, unique within its mapping model (`SourceToDestination` when inferred).
    open var name: String!
    /// What the mapping does.
    open var mappingType: NSEntityMappingType = .undefinedEntityMappingType
    /// The source entity's name (`nil` for an added entity).
    open var sourceEntityName: String?
    /// The source entity's version hash, which a migration checks against the store's.
    open var sourceEntityVersionHash: Data?
    /// The destination entity's name (`nil` for a removed entity).
    open var destinationEntityName: String?
    /// The destination entity's version hash.
    open var destinationEntityVersionHash: Data?
    /// The expression that fetches the source objects (`FETCH(…)` in Xcode's mapping models).
    open var sourceExpression: NSExpression?
    /// One mapping per destination attribute.
    open var attributeMappings: [NSPropertyMapping]?
    /// One mapping per destination relationship.
    open var relationshipMappings: [NSPropertyMapping]?
    /// The class name of the `NSEntityMigrationPolicy` subclass that runs the mapping.
    open var entityMigrationPolicyClassName: String?
    /// Arbitrary application data.
    open var userInfo: [AnyHashable: Any]?
    /// Whether the source expression is Xcode's default, made when the mapping is resolved.
    var generatesSourceExpression = false

    public override init() { super.init() }

    /// Equal when every part is (an entity mapping read twice from one file).
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSEntityMapping else { return false }
        if other === self { return true }
        return name == other.name && mappingType == other.mappingType && sourceEntityName == other.sourceEntityName
            && destinationEntityName == other.destinationEntityName
            && sourceEntityVersionHash == other.sourceEntityVersionHash
            && destinationEntityVersionHash == other.destinationEntityVersionHash
            && sourceExpression == other.sourceExpression
            && entityMigrationPolicyClassName == other.entityMigrationPolicyClassName
            && (attributeMappings ?? []) == (other.attributeMappings ?? [])
            && (relationshipMappings ?? []) == (other.relationshipMappings ?? [])
            && NSEntityMapping.sameUserInfo(userInfo, other.userInfo)
    }

    open override var hash: Int {
        var hasher = Hasher()
        hasher.combine(name)
        hasher.combine(sourceEntityName)
        hasher.combine(destinationEntityName)
        hasher.combine(mappingType.rawValue)
        return hasher.finalize()
    }

    static func sameUserInfo(_ a: [AnyHashable: Any]?, _ b: [AnyHashable: Any]?) -> Bool {
        NSDictionary(dictionary: a ?? [:]).isEqual(NSDictionary(dictionary: b ?? [:]))
    }

    open override var description: String {
        "(<NSEntityMapping>) \(name ?? "?") \(sourceEntityName ?? "-") → \(destinationEntityName ?? "-") type \(mappingType.rawValue)"
    }
}

/// How one destination property gets its value: an expression over `$source` (the source
/// object), `$manager` and `$entityPolicy`.
open class NSPropertyMapping: NSObject, @unchecked Sendable {
    /// The destination property's name.
    open var name: String?
    /// The value's expression, e.g. `$source.title`; `nil` leaves the destination value at
    /// its default.
    open var valueExpression: NSExpression?
    /// Arbitrary application data.
    open var userInfo: [AnyHashable: Any]?
    /// The source property the value is read from, when the expression is a plain
    /// `$source.<name>` or the relationship form inferred mappings use: what a migration in
    /// SQL needs, kept so that it does not parse the expression again.
    var sourcePropertyName: String?
    /// An Xcode mapping model's property mapping whose expression is Xcode's default, made
    /// when the mapping is resolved; with the source key path and entity mapping Xcode's
    /// editor recorded for a relationship, when it did.
    var generatesExpression = false
    var generatedSourceKeyPath: String?
    var generatedSourceMappingName: String?

    public override init() { super.init() }

    /// Equal when the name, expression and user info are (a property mapping read twice).
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSPropertyMapping else { return false }
        if other === self { return true }
        return name == other.name && valueExpression == other.valueExpression
            && generatesExpression == other.generatesExpression && generatedSourceKeyPath == other.generatedSourceKeyPath
            && generatedSourceMappingName == other.generatedSourceMappingName
            && NSEntityMapping.sameUserInfo(userInfo, other.userInfo)
    }

    open override var hash: Int { name?.hashValue ?? 0 }

    open override var description: String {
        "(<NSPropertyMapping>) \(name ?? "?") = \(valueExpression.map { "\($0)" } ?? "nil")"
    }
}
