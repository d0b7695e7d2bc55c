import Foundation
import Strata

/// Everything `strata model describe` shows of a model, as plain values: the same structure
/// serves the text for people and the JSON for scripts, so both always say the same.
///
/// Entities, properties and configurations come in name order, so the output of a model is
/// the same on every run. Version hashes are base64, as Core Data shows them in a store's
/// metadata (`NSStoreModelVersionHashes`).
struct ModelDescription: Encodable {
    var source: String
    var kind: String
    var version: String?
    var versions: [String]?
    var versionIdentifiers: [String]
    var versionChecksum: String
    var configurations: [Configuration]
    var entities: [Entity]
    var fetchRequestTemplates: [FetchRequestTemplate]

    /// A named configuration and its entities.
    struct Configuration: Encodable {
        var name: String
        var entities: [String]
    }

    /// An entity with its own (not inherited) properties.
    struct Entity: Encodable {
        var name: String
        var className: String
        var isAbstract: Bool
        var parent: String?
        var subentities: [String]
        var versionHash: String
        var versionHashModifier: String?
        var renamingIdentifier: String?
        var attributes: [Attribute]
        var relationships: [Relationship]
        var fetchedProperties: [FetchedProperty]
        var indexes: [Index]
        var uniquenessConstraints: [[String]]
    }

    /// An attribute; absent keys are the defaults (not transient, no default value…).
    struct Attribute: Encodable {
        var name: String
        var type: String
        var isOptional: Bool
        var isTransient: Bool
        var isIndexed: Bool
        var defaultValue: String?
        var derivation: String?
        var allowsExternalBinaryDataStorage: Bool
        var valueTransformerName: String?
        var valueClassName: String?
        var compositeType: String?
        var minValue: String?
        var maxValue: String?
        var regularExpression: String?
        var preservesValueInHistoryOnDeletion: Bool
        var versionHash: String
        var renamingIdentifier: String?
    }

    /// A relationship: its destination, cardinality, inverse and delete rule.
    struct Relationship: Encodable {
        var name: String
        var destination: String
        var isToMany: Bool
        var isOrdered: Bool
        var isOptional: Bool
        var isTransient: Bool
        var inverse: String?
        var deleteRule: String
        var minCount: Int
        var maxCount: Int
        var versionHash: String
        var renamingIdentifier: String?
    }

    /// A fetched property: the entity it fetches and the predicate.
    struct FetchedProperty: Encodable {
        var name: String
        var entity: String?
        var predicate: String?
    }

    /// A fetch index: its elements (`title`, `createdAt desc`) and partial predicate.
    struct Index: Encodable {
        var name: String
        var elements: [String]
        var partialPredicate: String?
    }

    /// A fetch request template of the model.
    struct FetchRequestTemplate: Encodable {
        var name: String
        var entity: String?
        var predicate: String?
    }
}

/// Building the description from a model read by `ModelSource`.
extension ModelDescription {
    /// The description of a model read by `ModelSource`.
    init(_ source: ModelSource) {
        let model = source.model
        self.source = source.path
        kind = source.kind
        version = source.versionName
        versions = source.versionNames.isEmpty ? nil : source.versionNames
        versionIdentifiers = model.versionIdentifiers.map { "\($0.base)" }.sorted()
        versionChecksum = model.versionChecksum
        configurations = model.configurations.sorted().map { name in
            Configuration(name: name, entities: (model.entities(forConfigurationName: name) ?? []).compactMap(\.name).sorted())
        }
        entities = model.entities.sorted { ($0.name ?? "") < ($1.name ?? "") }.map(Entity.init)
        fetchRequestTemplates = model.fetchRequestTemplatesByName.sorted { $0.key < $1.key }.map { name, request in
            FetchRequestTemplate(
                name: name, entity: request.entityName, predicate: request.predicateFormat ?? request.predicate?.description)
        }
    }
}

/// An entity's description, its own properties sorted by name.
extension ModelDescription.Entity {
    init(_ entity: NSEntityDescription) {
        name = entity.name ?? ""
        className = entity.managedObjectClassName ?? "NSManagedObject"
        isAbstract = entity.isAbstract
        parent = entity.superentity?.name
        subentities = entity.subentities.compactMap(\.name).sorted()
        versionHash = entity.versionHash.base64EncodedString()
        versionHashModifier = entity.versionHashModifier
        renamingIdentifier = entity.renamingIdentifier
        let properties = entity.declaredProperties.sorted { $0.name < $1.name }
        attributes = properties.compactMap { $0 as? NSAttributeDescription }.map(ModelDescription.Attribute.init)
        relationships = properties.compactMap { $0 as? NSRelationshipDescription }.map(ModelDescription.Relationship.init)
        fetchedProperties = properties.compactMap { $0 as? NSFetchedPropertyDescription }.map { property in
            ModelDescription.FetchedProperty(
                name: property.name, entity: property.fetchRequest?.entityName,
                predicate: property.fetchRequest.flatMap { $0.predicateFormat ?? $0.predicate?.description })
        }
        indexes = entity.indexes.map { index in
            ModelDescription.Index(
                name: index.name,
                elements: index.elements.map { element in
                    let subject = element.propertyName ?? element.expressionFormat ?? "?"
                    let kind = element.collationType == .rTree ? " (R-tree)" : ""
                    return subject + (element.isAscending ? "" : " desc") + kind
                },
                partialPredicate: index.partialIndexPredicateFormat)
        }
        uniquenessConstraints = entity.uniquenessConstraintNames
    }
}

/// An attribute's description, as the model file spells its type.
extension ModelDescription.Attribute {
    init(_ attribute: NSAttributeDescription) {
        name = attribute.name
        type = attribute.attributeType.xcodeModelName ?? "Undefined"
        isOptional = attribute.isOptional
        isTransient = attribute.isTransient
        isIndexed = attribute.isIndexed
        defaultValue = attribute.defaultValueString
        derivation = (attribute as? NSDerivedAttributeDescription)?.derivationExpressionFormat
        allowsExternalBinaryDataStorage = attribute.allowsExternalBinaryDataStorage
        valueTransformerName = attribute.valueTransformerName
        valueClassName = attribute.attributeValueClassName
        compositeType = attribute.compositeTypeName
        minValue = attribute.minValueString
        maxValue = attribute.maxValueString
        regularExpression = attribute.regularExpressionString
        preservesValueInHistoryOnDeletion = attribute.preservesValueInHistoryOnDeletion
        versionHash = attribute.versionHash.base64EncodedString()
        renamingIdentifier = attribute.renamingIdentifier
    }
}

/// A relationship's description; a maximum count of 0 means no maximum.
extension ModelDescription.Relationship {
    init(_ relationship: NSRelationshipDescription) {
        name = relationship.name
        destination = relationship.destinationName ?? "?"
        isToMany = relationship.isToMany
        isOrdered = relationship.isOrdered
        isOptional = relationship.isOptional
        isTransient = relationship.isTransient
        inverse = relationship.inverseRelationshipName
        deleteRule = relationship.deleteRule.xcodeModelName
        minCount = relationship.minCount
        maxCount = relationship.maxCount
        versionHash = relationship.versionHash.base64EncodedString()
        renamingIdentifier = relationship.renamingIdentifier
    }
}
