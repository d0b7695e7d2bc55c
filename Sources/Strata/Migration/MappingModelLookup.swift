import Foundation

extension NSMappingModel {
    /// Completes a mapping model read from an Xcode file against the two models, as Xcode's
    /// compiler does when it writes the `.cdm`: mapping types written `Undefined` become add
    /// (no source entity), remove (no destination entity) or transform; unnamed entity
    /// mappings are named `SourceToDestination` (`AddDestination`, `RemoveSource`); the
    /// source expression fetches the source entity's objects; an attribute mapping with no
    /// expression takes `$source.<name>` when the source entity has that attribute; a
    /// relationship mapping with no expression maps the source relationship of the same
    /// name (or the key path Xcode recorded) through the entity mappings of its objects.
    ///
    /// A mapping model built in code is only checked: each entity mapping must name entities
    /// the models have (134110 otherwise).
    func resolve(sourceModel: NSManagedObjectModel, destinationModel: NSManagedObjectModel) throws {
        let sources = sourceModel.entitiesByName
        let destinations = destinationModel.entitiesByName
        for mapping in entityMappings ?? [] {
            if let name = mapping.sourceEntityName, sources[name] == nil {
                throw NSMigrationManager.error(
                    "The entity mapping \(mapping.name ?? "?") names the source entity \(name), which the source model does not have.",
                    entity: name)
            }
            if let name = mapping.destinationEntityName, destinations[name] == nil {
                throw NSMigrationManager.error(
                    "The entity mapping \(mapping.name ?? "?") names the destination entity \(name), which the destination model does not have.",
                    entity: name)
            }
        }
        guard needsResolution else { return }
        for mapping in entityMappings ?? [] {
            let source = mapping.sourceEntityName
            let destination = mapping.destinationEntityName
            if mapping.mappingType == .undefinedEntityMappingType {
                mapping.mappingType =
                    source == nil
                    ? .addEntityMappingType : destination == nil ? .removeEntityMappingType : .transformEntityMappingType
            }
            if mapping.name == nil {
                switch (source, destination) {
                case (let source?, let destination?): mapping.name = source + "To" + destination
                case (nil, let destination?): mapping.name = "Add" + destination
                case (let source?, nil): mapping.name = "Remove" + source
                case (nil, nil): mapping.name = "Mapping"
                }
            }
            if mapping.sourceExpression == nil, mapping.generatesSourceExpression, let source {
                mapping.sourceExpression = NSExpression(
                    forFunction: NSExpression(forVariable: NSMigrationManagerKey),
                    selectorName: "fetchRequestForSourceEntityNamed:predicateString:",
                    arguments: [NSExpression(forConstantValue: source), NSExpression(forConstantValue: "TRUEPREDICATE")])
            }
        }
        for mapping in entityMappings ?? [] {
            let sourceEntity = mapping.sourceEntityName.flatMap { sources[$0] }
            for property in mapping.attributeMappings ?? [] where property.valueExpression == nil && property.generatesExpression
            {
                guard let name = property.name, sourceEntity?.attributesByName[name] != nil else { continue }
                property.valueExpression = NSExpression(
                    node: .member(.variable(NSMigrationSourceObjectKey), name))
                property.sourcePropertyName = name
            }
            for property in mapping.relationshipMappings ?? []
            where property.valueExpression == nil && property.generatesExpression {
                guard let name = property.name else { continue }
                let manager = NSExpression(forVariable: NSMigrationManagerKey)
                if let keyPath = property.generatedSourceKeyPath, let mappingName = property.generatedSourceMappingName,
                    let objects = try? NSExpression.parse(format: keyPath)
                {
                    property.valueExpression = NSExpression(
                        forFunction: manager, selectorName: "destinationInstancesForEntityMappingNamed:sourceInstances:",
                        arguments: [NSExpression(forConstantValue: mappingName), objects])
                } else if sourceEntity?.relationshipsByName[name] != nil {
                    property.valueExpression = NSExpression(
                        forFunction: manager, selectorName: "destinationInstancesForSourceRelationshipNamed:sourceInstances:",
                        arguments: [
                            NSExpression(forConstantValue: name),
                            NSExpression(node: .member(.variable(NSMigrationSourceObjectKey), name)),
                        ])
                    property.sourcePropertyName = name
                }
            }
        }
        needsResolution = false
    }
}

/// Finds the mapping model of two models among the mapping models in bundles.
///
/// Apple's compiled mapping models (`.cdm`) record each entity mapping's source and
/// destination version hashes, and Core Data takes one whose source hashes are all among the
/// source model's entity version hashes and whose destination hashes are all among the
/// destination model's (`matchesVersionHashes`). Xcode's `.xcmappingmodel`, which Strata's
/// build plugin copies into a target's resources, has no hashes: it records the models' paths,
/// the two models as its editor knew them (entity and property names), and per entity mapping
/// the entity names and every destination property. It matches when the entities its mappings
/// name have, in the two models, exactly the properties its recorded models gave them, its
/// destination entities are the destination model's (abstract ones may be left out), each with
/// exactly the properties the mapping lists, and its source entities are among the source
/// model's, with every source property its expressions read; when several match, the one
/// whose model paths end with the models' file names wins.
enum MappingModelLookup {
    static func mappingModel(
        in bundles: [Bundle], source: NSManagedObjectModel, destination: NSManagedObjectModel
    ) -> NSMappingModel? {
        var found: [NSMappingModel] = []
        for url in mappingModelURLs(in: bundles) {
            guard let model = try? MappingModelFile.read(url), Self.matches(model, source: source, destination: destination)
            else { continue }
            found.append(model)
        }
        return found.first { namesFiles($0, source: source, destination: destination) } ?? found.first
    }

    /// Whether a mapping model read from a file is the one of the two models.
    static func matches(_ mapping: NSMappingModel, source: NSManagedObjectModel, destination: NSManagedObjectModel) -> Bool {
        let entityMappings = mapping.entityMappings ?? []
        if entityMappings.contains(where: { $0.sourceEntityVersionHash != nil || $0.destinationEntityVersionHash != nil }) {
            return matchesVersionHashes(mapping, source: source, destination: destination)
        }
        return fits(mapping, source: source, destination: destination)
            && matchesRecordedModels(mapping, source: source, destination: destination)
    }

    /// Core Data's rule for compiled mapping models: the entity mappings' source version hashes
    /// (at least one) are all the source model's, and their destination hashes (at least one)
    /// all the destination model's. A mapping made for another version of either model has a
    /// hash that model does not.
    static func matchesVersionHashes(
        _ mapping: NSMappingModel, source: NSManagedObjectModel, destination: NSManagedObjectModel
    ) -> Bool {
        let entityMappings = mapping.entityMappings ?? []
        let sourceHashes = Set(entityMappings.compactMap(\.sourceEntityVersionHash))
        let destinationHashes = Set(entityMappings.compactMap(\.destinationEntityVersionHash))
        guard !sourceHashes.isEmpty, !destinationHashes.isEmpty else { return false }
        return sourceHashes.isSubset(of: Set(source.entityVersionHashesByName.values))
            && destinationHashes.isSubset(of: Set(destination.entityVersionHashesByName.values))
    }

    /// Whether each entity the mappings name has, in the model, the properties the mapping
    /// model's recorded copy of that model gave it (true when nothing was recorded).
    static func matchesRecordedModels(
        _ mapping: NSMappingModel, source: NSManagedObjectModel, destination: NSManagedObjectModel
    ) -> Bool {
        func same(_ recorded: [String: Set<String>]?, _ names: [String], _ model: NSManagedObjectModel) -> Bool {
            guard let recorded else { return true }
            for name in Set(names) {
                guard let properties = recorded[name] else { continue }
                guard let entity = model.entitiesByName[name] else { return false }
                let declared = Set(entity.properties.map(\.name))
                guard properties == declared || properties == Set(entity.declaredProperties.map(\.name)) else {
                    return false
                }
            }
            return true
        }
        let entityMappings = mapping.entityMappings ?? []
        return same(mapping.sourceEntityProperties, entityMappings.compactMap(\.sourceEntityName), source)
            && same(mapping.destinationEntityProperties, entityMappings.compactMap(\.destinationEntityName), destination)
    }

    /// The `.xcmappingmodel` folders and compiled `.cdm` files in the bundles' resources and
    /// their resource folders (`Resources`, `*.resources`, `*.bundle`), two levels deep.
    static func mappingModelURLs(in bundles: [Bundle]) -> [URL] {
        var urls: [URL] = []
        var seen = Set<String>()
        for bundle in bundles {
            for root in [bundle.resourceURL, bundle.bundleURL].compactMap({ $0?.standardizedFileURL }) {
                for url in find(under: root, depth: 2) where seen.insert(url.path).inserted { urls.append(url) }
            }
        }
        return urls
    }

    private static func find(under directory: URL, depth: Int) -> [URL] {
        guard depth >= 0, let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else {
            return []
        }
        var urls: [URL] = []
        for name in names.sorted() {
            let url = directory.appendingPathComponent(name)
            if name.hasSuffix(".xcmappingmodel") || name.hasSuffix(".cdm") {
                urls.append(url)
            } else if name == "Resources" || name == "MappingModels" || name.hasSuffix(".bundle")
                || name.hasSuffix(".resources")
            {
                // Resource folders only, as models are looked for: an executable's folder
                // may hold thousands of other files.
                urls += find(under: url, depth: depth - 1)
            }
        }
        return urls
    }

    /// Whether the mapping model's entities and properties are those of the two models.
    static func fits(_ mapping: NSMappingModel, source: NSManagedObjectModel, destination: NSManagedObjectModel) -> Bool {
        let entityMappings = mapping.entityMappings ?? []
        let sourceNames = Set(entityMappings.compactMap(\.sourceEntityName))
        let destinationNames = Set(entityMappings.compactMap(\.destinationEntityName))
        // Xcode lists a mapping for every entity but abstract ones, which have no objects.
        func covers(_ names: Set<String>, _ model: NSManagedObjectModel) -> Bool {
            let all = Set(model.entitiesByName.keys)
            let concrete = Set(model.entities.filter { !$0.isAbstract }.compactMap(\.name))
            return names.isSubset(of: all) && concrete.isSubset(of: names)
        }
        // Removed entities may have no mapping (Moody 4 → 5 drops Continent without one).
        guard sourceNames.isSubset(of: Set(source.entitiesByName.keys)), covers(destinationNames, destination) else {
            return false
        }
        for entityMapping in entityMappings {
            // Every `$source.<key>` the expressions read is a property of the source entity.
            if let name = entityMapping.sourceEntityName, let entity = source.entitiesByName[name] {
                let expressions = ((entityMapping.attributeMappings ?? []) + (entityMapping.relationshipMappings ?? []))
                    .compactMap(\.valueExpression)
                for expression in expressions {
                    for key in sourceKeys(expression.node) where entity.propertiesByName[key] == nil { return false }
                }
            }
            guard let name = entityMapping.destinationEntityName, let entity = destination.entitiesByName[name] else {
                continue
            }
            let listed = Set(
                ((entityMapping.attributeMappings ?? []) + (entityMapping.relationshipMappings ?? [])).compactMap(\.name))
            let properties = Set(entity.properties.filter { !($0 is NSFetchedPropertyDescription) }.map(\.name))
            guard listed == properties else { return false }
        }
        return true
    }

    /// The first keys of the key paths an expression reads from `$source`.
    private static func sourceKeys(_ node: ExpressionNode) -> [String] {
        switch node {
        case .member(.variable(NSMigrationSourceObjectKey), let path):
            return [String(path.prefix { $0 != "." })]
        case .member(let base, _): return sourceKeys(base)
        case .function(_, let arguments), .aggregate(let arguments): return arguments.flatMap(sourceKeys)
        default: return []
        }
    }

    /// Whether the mapping model's recorded paths end with the models' version files.
    private static func namesFiles(
        _ mapping: NSMappingModel, source: NSManagedObjectModel, destination: NSManagedObjectModel
    )
        -> Bool
    {
        func ends(_ path: String?, _ url: URL?) -> Bool {
            guard let path, let url else { return false }
            var name = url.standardizedFileURL
            if name.lastPathComponent == "contents" { name = name.deletingLastPathComponent() }
            let version = name.deletingPathExtension().lastPathComponent
            return (path as NSString).lastPathComponent.hasPrefix(version + ".")
        }
        return ends(mapping.sourceModelPath, source.fileURL) && ends(mapping.destinationModelPath, destination.fileURL)
    }
}
