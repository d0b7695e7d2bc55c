import Foundation

/// A managed object model: the entities of an app's data, their configurations and fetch
/// request templates. Usually read from an Xcode model file; also built in code.
///
/// ```swift
/// let url = URL(fileURLWithPath: "Model.xcdatamodeld")
/// guard let model = NSManagedObjectModel(contentsOf: url) else { … }
/// let book = model.entitiesByName["Book"]
/// ```
///
/// A model is editable until a persistent store coordinator uses it; it is shared between
/// threads afterwards, hence `@unchecked Sendable`.
open class NSManagedObjectModel: NSObject, @unchecked Sendable {
    /// The name of the configuration every model has, which holds all its entities.
    public static let defaultConfigurationName = "Default"

    /// The model's entities. Setting them resolves relationships whose destination or
    /// inverse was given by name.
    public var entities: [NSEntityDescription] = [] {
        didSet {
            entityIndex.withLock { $0 = nil }
            adoptEntities()
        }
    }
    /// Identifiers the developer gave this model version (`userDefinedModelVersionIdentifier`).
    public var versionIdentifiers: Set<AnyHashable> = []
    /// Localized names of entities and properties, keyed as Core Data keys them.
    public var localizationDictionary: [String: String]?
    /// Fetch request templates by name.
    public private(set) var fetchRequestTemplatesByName: [String: NSFetchRequest<NSFetchRequestResult>] = [:]
    /// Composite attribute types declared by the model (`<composite>` elements), in order.
    public var compositeTypes: [NSCompositeAttributeDescription] = []
    /// Attributes of the model file's root element that carry no meaning at run time
    /// (tool versions, source language…), kept so that a model writes back as it was read.
    public var modelFileAttributes: [String: String] = [:]
    /// Attributes of each `<configuration>` element besides its name (`usedWithCloudKit`).
    public var configurationAttributes: [String: [String: String]] = [:]
    /// The model editor's diagram layout (`<elements>`): no meaning at run time, kept so
    /// that a model writes back as it was read. Each element maps XML attribute names to values.
    public var diagramLayout: [[String: String]] = []

    /// The modules the model's unqualified class names most likely live in (the target a
    /// build plugin copied the model for), tried first when classes are looked up by name.
    var classModuleNames: [String] = []
    /// The model file the model was read from, whose other versions are the first place a
    /// lightweight migration looks for a store's source model.
    var fileURL: URL?

    private var configurationMembers: [String: [String]] = [:]
    private var configurationOrder: [String] = []

    public override init() { super.init() }

    /// The entities by name.
    public var entitiesByName: [String: NSEntityDescription] {
        Dictionary(entities.compactMap { entity in entity.name.map { ($0, entity) } }, uniquingKeysWith: { a, _ in a })
    }

    /// `entitiesByName` as last made, for `entity(named:)`; dropped when the entities change.
    private let entityIndex = Protected<[String: NSEntityDescription]?>(nil)

    /// The entity named `name`, as `entitiesByName[name]` gives it, without making that
    /// dictionary at each call (every fetch asks: a tenth of a small query's work in Strata,
    /// B6). The index is made again when the entity found no longer has the name (an entity
    /// renamed while the model is edited) or no entity has it.
    func entity(named name: String) -> NSEntityDescription? {
        if let found = entityIndex.withLock({ $0?[name] }), found.name == name { return found }
        let index = entitiesByName
        entityIndex.withLock { $0 = index }
        return index[name]
    }

    // MARK: Configurations

    /// The names of the model's configurations, besides the implicit "Default".
    public var configurations: [String] { configurationOrder }

    /// The entities of a configuration; all entities for `nil` or "Default".
    public func entities(forConfigurationName configuration: String?) -> [NSEntityDescription]? {
        guard let configuration, configuration != Self.defaultConfigurationName else { return entities }
        guard let names = configurationMembers[configuration] else { return nil }
        let byName = entitiesByName
        return names.compactMap { byName[$0] }
    }

    /// Makes the given entities the members of a configuration, creating it if needed.
    public func setEntities(_ entities: [NSEntityDescription], forConfigurationName configuration: String) {
        if configurationMembers[configuration] == nil { configurationOrder.append(configuration) }
        configurationMembers[configuration] = entities.compactMap(\.name)
    }

    /// A configuration's member names as stored, including names not in the model.
    func configurationMemberNames(_ configuration: String) -> [String] {
        configurationMembers[configuration] ?? []
    }

    // MARK: Fetch request templates

    /// The template with the given name.
    public func fetchRequestTemplate(forName name: String) -> NSFetchRequest<NSFetchRequestResult>? {
        fetchRequestTemplatesByName[name]
    }

    /// Stores a template under a name; `nil` removes it.
    public func setFetchRequestTemplate(_ fetchRequest: NSFetchRequest<NSFetchRequestResult>?, forName name: String) {
        fetchRequestTemplatesByName[name] = fetchRequest
        if let fetchRequest, fetchRequest.entity == nil, let entityName = fetchRequest.entityName {
            fetchRequest.entity = entitiesByName[entityName]
        }
    }

    // MARK: Version hashes

    /// Each entity's version hash by entity name, as stores record them in their metadata.
    public var entityVersionHashesByName: [String: Data] {
        Dictionary(
            entities.compactMap { entity in entity.name.map { ($0, entity.versionHash) } }, uniquingKeysWith: { a, _ in a })
    }

    /// Whether a store with the given metadata holds data of this model's configuration:
    /// its `NSStoreModelVersionHashes` has the same hash for every entity of the configuration.
    public func isConfiguration(withName configuration: String?, compatibleWithStoreMetadata metadata: [String: Any]) -> Bool {
        guard let stored = metadata[NSStoreModelVersionHashesKey] as? [String: Any],
            let entities = entities(forConfigurationName: configuration)
        else { return false }
        return entities.allSatisfy { entity in
            guard let name = entity.name, let hash = stored[name] as? Data else { return false }
            return hash == entity.versionHash
        }
    }

    // MARK: Merging

    /// A model holding the entities, configurations and templates of all the given models,
    /// or `nil` when two of them declare an entity of the same name.
    public convenience init?(byMerging models: [NSManagedObjectModel]?) {
        self.init()
        var entities: [NSEntityDescription] = []
        var names = Set<String>()
        for model in models ?? [] {
            let copies = model.copiedEntities()
            for entity in copies {
                guard let name = entity.name, names.insert(name).inserted else { return nil }
                entities.append(entity)
            }
            versionIdentifiers.formUnion(model.versionIdentifiers)
            for (name, template) in model.fetchRequestTemplatesByName {
                fetchRequestTemplatesByName[name] = template.copy() as? NSFetchRequest<NSFetchRequestResult>
            }
            for configuration in model.configurationOrder {
                if configurationMembers[configuration] == nil { configurationOrder.append(configuration) }
                configurationMembers[configuration, default: []] += model.configurationMembers[configuration] ?? []
            }
            compositeTypes += model.compositeTypes
        }
        self.entities = entities
        adoptEntities()
        for template in fetchRequestTemplatesByName.values {
            if let entityName = template.entityName { template.entity = entitiesByName[entityName] }
        }
    }

    /// The merge of the models among `models` whose entity version hashes match the store
    /// metadata, or `nil` when no combination matches.
    public convenience init?(byMerging models: [NSManagedObjectModel], forStoreMetadata metadata: [String: Any]) {
        guard let stored = metadata[NSStoreModelVersionHashesKey] as? [String: Any] else { return nil }
        let matching = models.filter { model in
            model.entities.allSatisfy { entity in
                guard let name = entity.name else { return false }
                return (stored[name] as? Data) == entity.versionHash
            }
        }
        let covered = Set(matching.flatMap { $0.entities.compactMap(\.name) })
        guard !matching.isEmpty, covered == Set(stored.keys) else { return nil }
        self.init(byMerging: matching)
    }

    /// The merge of every model found in the given bundles (the main bundle for `nil`, with
    /// the resource bundles beside it, where SwiftPM puts each target's resources): each
    /// `.momd` and `.xcdatamodeld` contributes its current version, each lone `.mom` and
    /// `.xcdatamodel` itself. `nil` when none is found or two declare the same entity.
    open class func mergedModel(from bundles: [Bundle]?) -> NSManagedObjectModel? {
        let models = distinct(
            ModelFileLocator.modelURLs(in: bundles ?? [Bundle.main]).compactMap {
                NSManagedObjectModel(contentsOf: $0)
            })
        guard !models.isEmpty else { return nil }
        return NSManagedObjectModel(byMerging: models)
    }

    /// The merge of the model versions in the given bundles that match the store metadata.
    open class func mergedModel(from bundles: [Bundle]?, forStoreMetadata metadata: [String: Any]) -> NSManagedObjectModel? {
        let urls = ModelFileLocator.modelURLs(in: bundles ?? [Bundle.main], allVersions: true)
        let models = distinct(urls.compactMap { NSManagedObjectModel(contentsOf: $0) })
        return NSManagedObjectModel(byMerging: models, forStoreMetadata: metadata)
    }

    /// The models without repeats: Strata's build plugin puts a model both in the target's
    /// resource bundle and beside the executables, and one model found twice counts once.
    private static func distinct(_ models: [NSManagedObjectModel]) -> [NSManagedObjectModel] {
        var kept: [NSManagedObjectModel] = []
        for model in models where !kept.contains(where: { $0.isEqual(model) }) { kept.append(model) }
        return kept
    }

    // MARK: Equality

    /// Structural equality: the same entities, configurations, templates and identifiers.
    /// What only concerns the model file (tool versions, diagram layout) does not count.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSManagedObjectModel else { return false }
        let mine = entitiesByName
        let theirs = other.entitiesByName
        guard mine.count == theirs.count, entities.count == other.entities.count else { return false }
        for (name, entity) in mine {
            guard let counterpart = theirs[name], entity.isEqual(counterpart) else { return false }
        }
        guard fetchRequestTemplatesByName.count == other.fetchRequestTemplatesByName.count else { return false }
        for (name, template) in fetchRequestTemplatesByName {
            guard let counterpart = other.fetchRequestTemplatesByName[name], template.isEqual(counterpart) else {
                return false
            }
        }
        return versionIdentifiers == other.versionIdentifiers
            && configurationOrder == other.configurationOrder
            && configurationMembers == other.configurationMembers
            && configurationAttributes == other.configurationAttributes
            && compositeTypes == other.compositeTypes
    }

    open override var hash: Int { entities.count }

    open override var description: String {
        "(<NSManagedObjectModel>) entities \(entities.compactMap(\.name)), configurations \(configurations)"
    }

    // MARK: Internals

    /// Copies of the entities with their inheritance rebuilt among the copies.
    func copiedEntities() -> [NSEntityDescription] {
        let copies = entities.compactMap { $0.copy() as? NSEntityDescription }
        let byName = Dictionary(copies.compactMap { copy in copy.name.map { ($0, copy) } }, uniquingKeysWith: { a, _ in a })
        for (original, copy) in zip(entities, copies) {
            copy.subentities = original.subentities.compactMap { $0.name.flatMap { byName[$0] } }
        }
        return copies
    }

    /// Makes the entities this model's and resolves their references. Called whenever
    /// `entities` is set (property observers do not run in the model's own initializers).
    func adoptEntities() {
        for entity in entities { entity.managedObjectModel = self }
        resolveReferences()
    }

    /// Links relationships to their destination and inverse, and index elements to their
    /// properties, where only names are known (models read from files, copies, merges).
    func resolveReferences() {
        let byName = entitiesByName
        for entity in entities {
            for case let relationship as NSRelationshipDescription in entity.declaredProperties {
                if relationship.destinationEntity == nil, let name = relationship.destinationEntityName {
                    relationship.destinationEntity = byName[name]
                }
                if relationship.inverseRelationship == nil, let inverseName = relationship.inverseName {
                    let inverseEntity = relationship.inverseEntityName.flatMap { byName[$0] } ?? relationship.destinationEntity
                    relationship.inverseRelationship = inverseEntity?.relationshipsByName[inverseName]
                }
            }
            for index in entity.indexes {
                for element in index.elements where element.property == nil {
                    element.property = element.propertyName.flatMap { entity.propertiesByName[$0] }
                }
            }
        }
    }
}

/// The key of `NSStoreModelVersionHashes` in store metadata: entity version hashes by name.
public let NSStoreModelVersionHashesKey = "NSStoreModelVersionHashes"
/// The key of the model version identifiers in store metadata.
public let NSStoreModelVersionIdentifiersKey = "NSStoreModelVersionIdentifiers"
