import Foundation

/// Infers the mapping model of a lightweight migration from two models, following Apple's
/// "Lightweight Migration" guide: each destination entity and property is matched with the
/// source element of the same canonical name (its renaming identifier, else its name), and
/// every change must be one the guide lists as inferable.
struct MappingInference {
    let source: NSManagedObjectModel
    let destination: NSManagedObjectModel

    /// The inferred mapping model, or 134190 naming what cannot be inferred.
    func mappingModel() throws -> NSMappingModel {
        let pairs = try matchedEntities()
        try checkHierarchies(pairs)
        var mappings: [NSEntityMapping] = []
        var mappedSources = Set<ObjectIdentifier>()
        for entity in SQLiteSchema.numbered(destination) {
            let sourceEntity = pairs[ObjectIdentifier(entity)]
            if let sourceEntity { mappedSources.insert(ObjectIdentifier(sourceEntity)) }
            mappings.append(try entityMapping(destination: entity, source: sourceEntity))
        }
        for entity in SQLiteSchema.numbered(source) where !mappedSources.contains(ObjectIdentifier(entity)) {
            let mapping = NSEntityMapping()
            mapping.name = "Remove\(entity.name ?? "")"
            mapping.mappingType = .removeEntityMappingType
            mapping.sourceEntityName = entity.name
            mapping.sourceEntityVersionHash = entity.versionHash
            mappings.append(mapping)
        }
        let model = NSMappingModel()
        model.entityMappings = mappings
        return model
    }

    // MARK: Matching

    /// The name an element is known by across versions: its renaming identifier, else its name.
    static func canonicalName(_ name: String?, renamingIdentifier: String?) -> String {
        renamingIdentifier.flatMap { $0.isEmpty ? nil : $0 } ?? name ?? ""
    }

    /// Destination entity → the source entity it continues, each source entity used once.
    private func matchedEntities() throws -> [ObjectIdentifier: NSEntityDescription] {
        var result: [ObjectIdentifier: NSEntityDescription] = [:]
        var taken = Set<ObjectIdentifier>()
        let sources = SQLiteSchema.numbered(source)
        for entity in SQLiteSchema.numbered(destination) {
            let found = Self.match(
                name: entity.name ?? "", renamingIdentifier: entity.renamingIdentifier,
                among: sources.filter { !taken.contains(ObjectIdentifier($0)) },
                name: { $0.name ?? "" }, renamingIdentifier: { $0.renamingIdentifier })
            guard let found else { continue }
            taken.insert(ObjectIdentifier(found))
            result[ObjectIdentifier(entity)] = found
        }
        return result
    }

    /// The candidate a destination element continues: the one sharing its canonical name,
    /// else the one its renaming identifier names, else the one of its name.
    static func match<T>(
        name: String, renamingIdentifier: String?, among candidates: [T], name candidateName: (T) -> String,
        renamingIdentifier candidateRenaming: (T) -> String?
    ) -> T? {
        let canonical = canonicalName(name, renamingIdentifier: renamingIdentifier)
        if let found = candidates.first(where: {
            canonicalName(candidateName($0), renamingIdentifier: candidateRenaming($0)) == canonical
        }) {
            return found
        }
        if let renamingIdentifier, let found = candidates.first(where: { candidateName($0) == renamingIdentifier }) {
            return found
        }
        return candidates.first { candidateName($0) == name }
    }

    /// Apple's guide: "you cannot merge entity hierarchies; if two existing entities do not
    /// share a common parent in the source, they cannot share a common parent in the
    /// destination". The objects of one destination table come from one source table.
    private func checkHierarchies(_ pairs: [ObjectIdentifier: NSEntityDescription]) throws {
        for root in destination.entities where root.superentity == nil {
            let hierarchy = destination.entities.filter { $0.rootEntity === root }
            var sourceRoots: [String: String] = [:]
            for entity in hierarchy {
                guard let sourceEntity = pairs[ObjectIdentifier(entity)] else { continue }
                sourceRoots[sourceEntity.rootEntity.name ?? "", default: entity.name ?? ""] = entity.name ?? ""
            }
            guard sourceRoots.count > 1 else { continue }
            throw Self.error(
                "Cannot merge the entity hierarchies of \(sourceRoots.keys.sorted().joined(separator: " and ")) into \(root.name ?? "?").",
                entity: root.name)
        }
    }

    // MARK: Entity mappings

    private func entityMapping(
        destination entity: NSEntityDescription, source sourceEntity: NSEntityDescription?
    ) throws
        -> NSEntityMapping
    {
        let mapping = NSEntityMapping()
        mapping.destinationEntityName = entity.name
        mapping.destinationEntityVersionHash = entity.versionHash
        let persistent = entity.properties.filter { !$0.isTransient }
        guard let sourceEntity else {
            mapping.name = "Add\(entity.name ?? "")"
            mapping.mappingType = .addEntityMappingType
            mapping.attributeMappings = persistent.compactMap { $0 as? NSAttributeDescription }.map { emptyMapping($0.name) }
            mapping.relationshipMappings = persistent.compactMap { $0 as? NSRelationshipDescription }.map {
                emptyMapping($0.name)
            }
            return mapping
        }
        mapping.name = "\(sourceEntity.name ?? "")To\(entity.name ?? "")"
        mapping.sourceEntityName = sourceEntity.name
        mapping.sourceEntityVersionHash = sourceEntity.versionHash
        mapping.mappingType =
            sourceEntity.versionHash == entity.versionHash ? .copyEntityMappingType : .transformEntityMappingType
        mapping.sourceExpression = try? NSExpression.parse(
            format:
                "FETCH(FUNCTION($manager, \"fetchRequestForSourceEntityNamed:predicateString:\" , \"\(sourceEntity.name ?? "")\", \"TRUEPREDICATE\"), $manager.sourceContext, NO)"
        )
        let sourceProperties = sourceEntity.properties.filter { !$0.isTransient }
        var attributes: [NSPropertyMapping] = []
        var relationships: [NSPropertyMapping] = []
        for property in persistent {
            let found = Self.match(
                name: property.name, renamingIdentifier: property.renamingIdentifier, among: sourceProperties,
                name: \.name, renamingIdentifier: \.renamingIdentifier)
            switch property {
            case let attribute as NSAttributeDescription:
                guard let found else {
                    attributes.append(emptyMapping(attribute.name))
                    continue
                }
                guard let sourceAttribute = found as? NSAttributeDescription else {
                    throw Self.error(
                        "\(sourceEntity.name ?? "?").\(found.name) is a relationship and \(entity.name ?? "?").\(attribute.name) an attribute.",
                        entity: entity.name, property: attribute.name)
                }
                try checkType(from: sourceAttribute, to: attribute, entity: entity)
                attributes.append(propertyMapping(attribute.name, source: sourceAttribute.name, relationship: false))
            case let relationship as NSRelationshipDescription:
                guard let found else {
                    relationships.append(emptyMapping(relationship.name))
                    continue
                }
                guard found is NSRelationshipDescription else {
                    throw Self.error(
                        "\(sourceEntity.name ?? "?").\(found.name) is an attribute and \(entity.name ?? "?").\(relationship.name) a relationship.",
                        entity: entity.name, property: relationship.name)
                }
                relationships.append(propertyMapping(relationship.name, source: found.name, relationship: true))
            default:
                continue
            }
        }
        mapping.attributeMappings = attributes
        mapping.relationshipMappings = relationships
        return mapping
    }

    /// The attribute types whose stored values convert among themselves by SQLite's numeric
    /// affinity: a lightweight migration may change an attribute among these.
    static let numericTypes: Set<NSAttributeType> = [
        .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .decimalAttributeType,
        .doubleAttributeType, .floatAttributeType, .booleanAttributeType,
    ]

    private func checkType(
        from old: NSAttributeDescription, to new: NSAttributeDescription, entity: NSEntityDescription
    )
        throws
    {
        let (from, to) = (old.attributeType, new.attributeType)
        if from == to || (Self.numericTypes.contains(from) && Self.numericTypes.contains(to)) { return }
        if old is NSDerivedAttributeDescription || new is NSDerivedAttributeDescription { return }
        throw Self.error(
            "\(entity.name ?? "?").\(new.name) changes type from \(from.xcodeModelName ?? "\(from.rawValue)") to \(to.xcodeModelName ?? "\(to.rawValue)"), which a lightweight migration cannot infer.",
            entity: entity.name, property: new.name)
    }

    private func emptyMapping(_ name: String) -> NSPropertyMapping {
        let mapping = NSPropertyMapping()
        mapping.name = name
        return mapping
    }

    /// `$source.<name>` for an attribute; for a relationship, the form Apple's inferred
    /// mappings use, which looks up the destination objects of the source's related objects.
    private func propertyMapping(_ name: String, source: String, relationship: Bool) -> NSPropertyMapping {
        let mapping = NSPropertyMapping()
        mapping.name = name
        mapping.sourcePropertyName = source
        let format =
            relationship
            ? "FUNCTION($manager, \"destinationInstancesForSourceRelationshipNamed:sourceInstances:\" , \"\(source)\", $source.\(source))"
            : "$source.\(source)"
        mapping.valueExpression =
            (try? NSExpression.parse(format: format)) ?? (try? NSExpression.parse(format: "$source.\(source)"))
        return mapping
    }

    static func error(_ reason: String, entity: String?, property: String? = nil) -> NSError {
        var info: [String: Any] = ["reason": reason]
        if let entity { info["entity"] = entity }
        if let property { info["property"] = property }
        return CoreDataError.make(
            NSInferredMappingModelError, "Can't find or automatically infer mapping model for migration: \(reason)",
            userInfo: info)
    }
}
