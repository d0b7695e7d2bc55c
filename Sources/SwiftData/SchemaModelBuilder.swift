import Foundation
import Strata

/// Makes the Core Data model of model classes: an entity per class (named as the class), an
/// attribute per persisted value and a relationship per persisted model or collection of
/// models, with the options of `@Attribute`, `@Relationship`, `#Unique` and `#Index`, the
/// inverses named or inferred, as SwiftData lays out its store. A model subclass's entity is a
/// subentity of its superclass's, with the properties the subclass declares.
enum SchemaModelBuilder {
    /// `objectClassName` is the class of the entities' objects: SwiftData's own (`_ModelObject`)
    /// for a schema's model, `NSManagedObject` for one an app opens through Core Data.
    static func build(
        _ types: [any PersistentModel.Type], objectClassName: String = "NSManagedObject"
    ) -> (model: NSManagedObjectModel, entities: [Schema.Entity]) {
        let infos = types.map { ModelTypeInfo.of($0) }
        var descriptions: [String: NSEntityDescription] = [:]
        var entities: [String: Schema.Entity] = [:]
        var relationships: [(info: ModelTypeInfo, property: ModelTypeInfo.Property, description: NSRelationshipDescription)] = []

        for info in infos {
            let entity = NSEntityDescription()
            entity.name = info.entityName
            entity.managedObjectClassName = objectClassName
            let schemaEntity = Schema.Entity(name: info.entityName)
            var properties: [NSPropertyDescription] = []
            for property in info.ownProperties {
                switch property.kind {
                case .attribute(let valueType):
                    // A value given to a transformer is never a composite.
                    let transformed = property.attribute?.options.contains { option in
                        if case .transformable = option.kind { return true }
                        return false
                    }
                    var stored = StoredValueType.of(valueType)
                    if transformed == true, stored.composite != nil { stored = .encoded }
                    let attribute =
                        stored.composite.map { CompositeCoding.description(of: $0, name: property.name) }
                        ?? NSAttributeDescription()
                    attribute.name = property.name
                    attribute.attributeType = stored.attributeType
                    attribute.isOptional = property.isOptional
                    let schemaAttribute = Schema.Attribute(copying: property.attribute, name: property.name)
                    schemaAttribute.valueType = valueType
                    schemaAttribute.isOptional = property.isOptional
                    schemaAttribute.defaultValue = property.defaultValue
                    if let defaultValue = property.defaultValue, let value = stored.storedValue(defaultValue) {
                        attribute.defaultValue = value
                    }
                    for option in schemaAttribute.options {
                        switch option.kind {
                        case .unique: schemaEntity.uniquenessConstraints.append([property.name])
                        case .externalStorage: attribute.allowsExternalBinaryDataStorage = true
                        case .preserveValueOnDeletion: attribute.preservesValueInHistoryOnDeletion = true
                        case .ephemeral: attribute.isTransient = true
                        case .spotlight: attribute.isIndexedBySpotlight = true
                        case .allowsCloudEncryption: attribute.allowsCloudEncryption = true
                        case .transformable(let name):
                            attribute.attributeType = .transformableAttributeType
                            attribute.valueTransformerName = name
                        }
                    }
                    attribute.renamingIdentifier = schemaAttribute.originalName
                    attribute.versionHashModifier = schemaAttribute.hashModifier
                    schemaEntity.attributes.insert(schemaAttribute)
                    properties.append(attribute)
                case .toOne(let destination), .toMany(let destination):
                    let relationship = NSRelationshipDescription()
                    relationship.name = property.name
                    let options = property.relationship
                    let schemaRelationship = Schema.Relationship(
                        deleteRule: options?.deleteRule ?? .nullify,
                        minimumModelCount: options?.minimumModelCount, maximumModelCount: options?.maximumModelCount,
                        originalName: options?.originalName, inverse: options?.inverseKeyPath,
                        hashModifier: options?.hashModifier)
                    schemaRelationship.name = property.name
                    schemaRelationship.destination = ModelTypeInfo.entityName(of: destination)
                    schemaRelationship.isOptional = property.isOptional
                    relationship.deleteRule = Self.deleteRule(schemaRelationship.deleteRule)
                    relationship.renamingIdentifier = options?.originalName
                    relationship.versionHashModifier = options?.hashModifier
                    if case .toMany = property.kind {
                        schemaRelationship.isToOneRelationship = false
                        relationship.minCount = max(0, options?.minimumModelCount ?? 0)
                        relationship.maxCount = max(0, options?.maximumModelCount ?? 0)
                        relationship.isOptional = true
                    } else {
                        relationship.maxCount = 1
                        relationship.minCount = property.isOptional ? 0 : 1
                        relationship.isOptional = property.isOptional
                    }
                    schemaEntity.relationships.insert(schemaRelationship)
                    properties.append(relationship)
                    relationships.append((info, property, relationship))
                }
            }
            entity.properties = properties
            let constraints = info.type._$constraints
            for unique in constraints.unique {
                let names = unique.compactMap { info.name(of: $0) }
                if !names.isEmpty, !schemaEntity.uniquenessConstraints.contains(names) {
                    schemaEntity.uniquenessConstraints.append(names)
                }
            }
            entity.uniquenessConstraints = schemaEntity.uniquenessConstraints.map { $0 as [Any] }
            var indexes: [NSFetchIndexDescription] = []
            for index in constraints.indexes {
                let names = index.compactMap { info.name(of: $0) }
                guard !names.isEmpty else { continue }
                schemaEntity.indices.append(names)
                indexes.append(
                    NSFetchIndexDescription(
                        name: "\(info.entityName)_\(names.joined(separator: "_"))_index",
                        elements: names.map { NSFetchIndexElementDescription(propertyName: $0, collationType: .binary) }))
            }
            entity.indexes = indexes
            descriptions[info.entityName] = entity
            entities[info.entityName] = schemaEntity
        }

        for info in infos {
            guard let superType = info.superType, let entity = descriptions[info.entityName] else { continue }
            let superName = ModelTypeInfo.entityName(of: superType)
            descriptions[superName]?.subentities.append(entity)
            if let parent = entities[superName], let child = entities[info.entityName] {
                child.superentity = parent
                parent.subentities.insert(child)
            }
        }

        // Destinations, then inverses: those named by `inverse:` (on either side), then, for a
        // relationship still without one, the only relationship of its destination that
        // points back at its class and has none either.
        for (_, property, relationship) in relationships {
            guard let destination = property.destination else { continue }
            relationship.destinationEntity = descriptions[ModelTypeInfo.entityName(of: destination)]
        }
        func description(_ entityName: String, _ name: String) -> NSRelationshipDescription? {
            descriptions[entityName]?.relationshipsByName[name]
        }
        for (_, property, relationship) in relationships {
            guard let keyPath = property.relationship?.inverseKeyPath, let destination = property.destination,
                let inverseName = ModelTypeInfo.of(destination).name(of: keyPath),
                let inverse = description(ModelTypeInfo.entityName(of: destination), inverseName)
            else { continue }
            relationship.inverseRelationship = inverse
            inverse.inverseRelationship = relationship
        }
        for (info, property, relationship) in relationships where relationship.inverseRelationship == nil {
            guard let destination = property.destination else { continue }
            let destinationInfo = ModelTypeInfo.of(destination)
            let candidates = destinationInfo.properties.filter { candidate in
                guard let back = candidate.destination, ModelTypeInfo.entityName(of: back) == info.entityName,
                    let other = description(destinationInfo.entityName, candidate.name)
                else { return false }
                return other !== relationship && other.inverseRelationship == nil
            }
            guard candidates.count == 1, let inverse = description(destinationInfo.entityName, candidates[0].name) else {
                continue
            }
            relationship.inverseRelationship = inverse
            inverse.inverseRelationship = relationship
        }
        for (info, property, relationship) in relationships {
            entities[info.entityName]?.relationships.first { $0.name == property.name }?.inverseName =
                relationship.inverseRelationship?.name
        }

        let model = NSManagedObjectModel()
        model.entities = infos.compactMap { descriptions[$0.entityName] }
        model.declareCompositeTypes()
        return (model, infos.compactMap { entities[$0.entityName] })
    }

    static func deleteRule(_ rule: Schema.Relationship.DeleteRule) -> NSDeleteRule {
        switch rule {
        case .noAction: .noActionDeleteRule
        case .nullify: .nullifyDeleteRule
        case .cascade: .cascadeDeleteRule
        case .deny: .denyDeleteRule
        }
    }
}

/// How a Swift value type is stored: the attribute type, and the conversion of a value to
/// what the attribute holds (`Int` as `Int64`…).
struct StoredValueType {
    var attributeType: NSAttributeType
    /// Whether values of the type are stored as they are (not as a raw value or encoded).
    var isPlain = true
    /// The elements of a type stored as a composite attribute.
    var composite: CompositeCoding.Shape?
    /// The stored form of a Swift value of the type; nil when it is not one.
    var storedValue: (Any) -> Any?

    static func of(_ type: Any.Type) -> StoredValueType {
        func plain(_ attributeType: NSAttributeType) -> StoredValueType {
            StoredValueType(attributeType: attributeType, storedValue: { $0 })
        }
        func integer<T: BinaryInteger>(_ attributeType: NSAttributeType, _: T.Type) -> StoredValueType {
            StoredValueType(attributeType: attributeType) { value in
                guard let value = value as? T else { return nil }
                switch attributeType {
                case .integer16AttributeType: return Int16(truncatingIfNeeded: value)
                case .integer32AttributeType: return Int32(truncatingIfNeeded: value)
                default: return Int64(truncatingIfNeeded: value)
                }
            }
        }
        switch type {
        case is String.Type: return plain(.stringAttributeType)
        case is Bool.Type: return plain(.booleanAttributeType)
        case is Int.Type: return integer(.integer64AttributeType, Int.self)
        case is Int64.Type: return plain(.integer64AttributeType)
        case is Int32.Type: return plain(.integer32AttributeType)
        case is Int16.Type: return plain(.integer16AttributeType)
        case is Int8.Type: return integer(.integer16AttributeType, Int8.self)
        case is UInt.Type: return integer(.integer64AttributeType, UInt.self)
        case is UInt64.Type: return integer(.integer64AttributeType, UInt64.self)
        case is UInt32.Type: return integer(.integer64AttributeType, UInt32.self)
        case is UInt16.Type: return integer(.integer32AttributeType, UInt16.self)
        case is UInt8.Type: return integer(.integer16AttributeType, UInt8.self)
        case is Double.Type: return plain(.doubleAttributeType)
        case is Float.Type: return plain(.floatAttributeType)
        case is Date.Type: return plain(.dateAttributeType)
        case is Data.Type: return plain(.binaryDataAttributeType)
        case is UUID.Type: return plain(.UUIDAttributeType)
        case is URL.Type: return plain(.URIAttributeType)
        case is Decimal.Type: return plain(.decimalAttributeType)
        default:
            // An enumeration with a raw value keeps its raw value; any other `Codable` value
            // (a struct, an array or a set of values) its binary property list.
            if let raw = type as? any RawRepresentable.Type, isPrimitive(raw._rawValueType) {
                let rawType = of(raw._rawValueType)
                return StoredValueType(attributeType: rawType.attributeType, isPlain: false) { value in
                    (value as? any RawRepresentable).flatMap { rawType.storedValue($0._rawValueAsAny) }
                }
            }
            // A struct whose `Codable` conformance writes keyed values: a composite attribute.
            // (`isPrimitive` asks this at every read and write of such a property: the
            // composite's description is made only when a value is converted.)
            if let shape = CompositeCoding.shape(of: type) {
                return StoredValueType(attributeType: .compositeAttributeType, isPlain: false, composite: shape) { value in
                    (value as? any Encodable).flatMap {
                        try? CompositeCoding.encode($0, as: CompositeCoding.description(of: shape, name: ""))
                    }
                }
            }
            return .encoded
        }
    }

    /// A `Codable` value kept as its binary property list.
    static var encoded: StoredValueType {
        StoredValueType(attributeType: .binaryDataAttributeType, isPlain: false) { CodableValues.encode($0) }
    }
}
