import Foundation

/// Reads the elements of a model file that describe one thing each: entities, their
/// properties, indexes and constraints, composite types and fetch requests.
///
/// Every typed property is read from its XML attribute; whatever the typed properties do
/// not reproduce on writing is kept in `modelFileAttributes` (see `XcodeModelXMLAttributes`).
struct XcodeModelElementReader {
    let file: URL?

    /// An error located at an element of the file.
    func error(
        _ kind: ModelError.Kind, _ element: XcodeModelXMLElement, entity: String? = nil, property: String? = nil
    ) -> ModelError {
        ModelError(kind, file: file, line: element.line, entity: entity, property: property)
    }

    // MARK: Entities

    func entity(_ element: XcodeModelXMLElement) throws(ModelError) -> NSEntityDescription {
        guard let name = element.attributes["name"] else {
            throw error(.missingXMLAttribute(element: "entity", attribute: "name"), element)
        }
        let entity = NSEntityDescription()
        let attributes = element.attributes
        entity.name = name
        entity.managedObjectClassName = attributes["representedClassName"] ?? "NSManagedObject"
        entity.isAbstract = element.flag("isAbstract")
        entity.renamingIdentifier = attributes["elementID"]
        entity.versionHashModifier = attributes["versionHashModifier"]
        entity.codeGenerationType = attributes["codeGenerationType"]
        entity.modelFileLine = element.line

        var properties: [NSPropertyDescription] = []
        for child in element.children {
            switch child.name {
            case "attribute": properties.append(try attribute(child, entity: name))
            case "relationship": properties.append(try relationship(child, entity: name))
            case "fetchedProperty": properties.append(try fetchedProperty(child, entity: name))
            case "uniquenessConstraints":
                entity.uniquenessConstraints += child.children(named: "uniquenessConstraint").map { constraint in
                    constraint.children(named: "constraint").compactMap { $0.attributes["value"] }
                }
            case "fetchIndex": entity.indexes.append(try fetchIndex(child, entity: name))
            case "compoundIndexes":
                entity.compoundIndexes += child.children(named: "compoundIndex").map { index in
                    index.children(named: "index").compactMap { $0.attributes["value"] }
                }
            default: break
            }
        }
        entity.properties = properties
        entity.userInfo = userInfo(in: element)

        var typed = XcodeModelXMLAttributes.entity(entity)
        // The parent is linked once every entity is read; its name counts as reproduced.
        typed["parentEntity"] = attributes["parentEntity"]
        entity.modelFileAttributes = XcodeModelXMLAttributes.retained(attributes, typed: typed)
        return entity
    }

    private func fetchIndex(_ element: XcodeModelXMLElement, entity: String) throws(ModelError) -> NSFetchIndexDescription {
        guard let name = element.attributes["name"] else {
            throw error(.missingXMLAttribute(element: "fetchIndex", attribute: "name"), element, entity: entity)
        }
        var elements: [NSFetchIndexElementDescription] = []
        for child in element.children(named: "fetchIndexElement") {
            let attributes = child.attributes
            let collation: NSFetchIndexElementDescription.CollationType
            switch attributes["type"] {
            case nil, "Binary": collation = .binary
            case "RTree": collation = .rTree
            case let other?: throw error(.invalidXMLValue(attribute: "type", value: other), child, entity: entity)
            }
            let ascending: Bool
            switch attributes["order"] {
            case nil, "ascending": ascending = true
            case "descending": ascending = false
            case let other?: throw error(.invalidXMLValue(attribute: "order", value: other), child, entity: entity)
            }
            let indexElement: NSFetchIndexElementDescription
            if let property = attributes["property"] {
                indexElement = NSFetchIndexElementDescription(propertyName: property, collationType: collation)
            } else if let expression = attributes["expression"] {
                indexElement = NSFetchIndexElementDescription(
                    expressionFormat: expression, expressionTypeName: attributes["expressionType"],
                    collationType: collation)
            } else {
                throw error(
                    .missingXMLAttribute(element: "fetchIndexElement", attribute: "property"), child, entity: entity)
            }
            indexElement.isAscending = ascending
            elements.append(indexElement)
        }
        return NSFetchIndexDescription(name: name, elements: elements)
    }

    /// The entries of the element's `<userInfo>` children, or `nil` when it has none.
    /// Keys and values are strings, as model files hold them.
    private func userInfo(in element: XcodeModelXMLElement) -> [AnyHashable: Any]? {
        let containers = element.children(named: "userInfo")
        guard !containers.isEmpty else { return nil }
        var result: [AnyHashable: Any] = [:]
        for entry in containers.flatMap({ $0.children(named: "entry") }) {
            guard let key = entry.attributes["key"] else { continue }
            result[key] = entry.attributes["value"] ?? ""
        }
        return result
    }

    // MARK: Properties

    /// An `<attribute>` of an entity or of a composite type (`owner` names either).
    func attribute(_ element: XcodeModelXMLElement, entity owner: String?) throws(ModelError) -> NSAttributeDescription {
        let attributes = element.attributes
        guard let name = attributes["name"] else {
            throw error(.missingXMLAttribute(element: "attribute", attribute: "name"), element, entity: owner)
        }
        var type = NSAttributeType.undefinedAttributeType
        if let typeName = attributes["attributeType"] {
            guard let known = NSAttributeType(xcodeModelName: typeName) else {
                throw error(
                    .invalidXMLValue(attribute: "attributeType", value: typeName), element, entity: owner,
                    property: name)
            }
            type = known
        }
        let attribute: NSAttributeDescription
        if element.flag("derived") {
            let derived = NSDerivedAttributeDescription()
            derived.derivationExpressionFormat = attributes["derivationExpression"]
            attribute = derived
        } else if type == .compositeAttributeType {
            attribute = NSCompositeAttributeDescription()
        } else {
            attribute = NSAttributeDescription()
        }
        readCommonFields(of: attribute, from: element, name: name)
        attribute.attributeType = type
        readDefaultValue(of: attribute, from: attributes)
        attribute.attributeValueClassName = attributes["customClassName"]
        attribute.valueTransformerName = attributes["valueTransformerName"]
        attribute.allowsExternalBinaryDataStorage = element.flag("allowsExternalBinaryDataStorage")
        attribute.preservesValueInHistoryOnDeletion = element.flag("preserveAfterDeletion")
        attribute.allowsCloudEncryption = element.flag("allowsCloudEncryption")
        attribute.usesScalarValueType = element.flag("usesScalarValueType")
        attribute.minValueString = attributes["minValueString"]
        attribute.maxValueString = attributes["maxValueString"]
        attribute.regularExpressionString = attributes["regularExpressionString"]
        attribute.compositeTypeName = attributes["composite"]
        attribute.modelFileAttributes = XcodeModelXMLAttributes.retained(
            attributes, typed: XcodeModelXMLAttributes.attribute(attribute))
        return attribute
    }

    /// Dates take their default from `defaultDateTimeInterval` (seconds since 2001), other
    /// types from `defaultValueString`. A text that is no plain value of the type gets the
    /// value Core Data reads from it (`AttributeValueText.defaultValue(from:type:)`) and is
    /// kept for validation to warn about; an empty one means "no default" except for strings.
    private func readDefaultValue(of attribute: NSAttributeDescription, from attributes: [String: String]) {
        let type = attribute.attributeType
        let key = type == .dateAttributeType ? "defaultDateTimeInterval" : "defaultValueString"
        guard let text = attributes[key], !(text.isEmpty && type != .stringAttributeType) else { return }
        let reading = AttributeValueText.defaultValue(from: text, type: type)
        if let value = reading.value {
            attribute.defaultValue = value
            attribute.defaultValueSourceText = text
        }
        if !reading.isExact { attribute.invalidDefaultValueText = text }
    }

    func relationship(_ element: XcodeModelXMLElement, entity: String) throws(ModelError) -> NSRelationshipDescription {
        let attributes = element.attributes
        guard let name = attributes["name"] else {
            throw error(.missingXMLAttribute(element: "relationship", attribute: "name"), element, entity: entity)
        }
        let relationship = NSRelationshipDescription()
        readCommonFields(of: relationship, from: element, name: name)
        let minCount = try integer("minCount", of: element, entity: entity, property: name)
        let maxCount = try integer("maxCount", of: element, entity: entity, property: name)
        relationship.minCount = minCount ?? 0
        relationship.maxCount = maxCount ?? (element.flag("toMany") ? 0 : 1)
        if let ruleName = attributes["deletionRule"] {
            guard let rule = NSDeleteRule(xcodeModelName: ruleName) else {
                throw error(.invalidXMLValue(attribute: "deletionRule", value: ruleName), element, entity: entity, property: name)
            }
            relationship.deleteRule = rule
        } else {
            relationship.deleteRule = .nullifyDeleteRule
        }
        relationship.isOrdered = element.flag("ordered")
        relationship.destinationEntityName = attributes["destinationEntity"]
        relationship.inverseName = attributes["inverseName"]
        relationship.inverseEntityName = attributes["inverseEntity"]
        relationship.modelFileAttributes = XcodeModelXMLAttributes.retained(
            attributes, typed: XcodeModelXMLAttributes.relationship(relationship))
        return relationship
    }

    func fetchedProperty(_ element: XcodeModelXMLElement, entity: String) throws(ModelError) -> NSFetchedPropertyDescription {
        guard let name = element.attributes["name"] else {
            throw error(.missingXMLAttribute(element: "fetchedProperty", attribute: "name"), element, entity: entity)
        }
        let property = NSFetchedPropertyDescription()
        readCommonFields(of: property, from: element, name: name)
        if let request = element.children(named: "fetchRequest").first {
            property.fetchRequest = try fetchRequest(request, entity: entity, property: name)
        }
        property.modelFileAttributes = XcodeModelXMLAttributes.retained(
            element.attributes, typed: XcodeModelXMLAttributes.fetchedProperty(property))
        return property
    }

    /// What every kind of property reads alike. An absent `optional` means required, unlike
    /// the default of a description built in code.
    private func readCommonFields(of property: NSPropertyDescription, from element: XcodeModelXMLElement, name: String) {
        property.name = name
        property.isOptional = element.flag("optional")
        property.isTransient = element.flag("transient")
        property.isIndexed = element.flag("indexed")
        property.isIndexedBySpotlight = element.flag("spotlightIndexingEnabled")
        property.isStoredInExternalRecord = element.flag("storedInTruthFile")
        property.renamingIdentifier = element.attributes["elementID"]
        property.versionHashModifier = element.attributes["versionHashModifier"]
        property.userInfo = userInfo(in: element)
        property.modelFileLine = element.line
    }

    // MARK: Composite types and fetch requests

    /// A `<composite>`: a composite type named by the element, whose elements are its
    /// `<attribute>` children.
    func compositeType(_ element: XcodeModelXMLElement) throws(ModelError) -> NSCompositeAttributeDescription {
        guard let name = element.attributes["name"] else {
            throw error(.missingXMLAttribute(element: "composite", attribute: "name"), element)
        }
        let type = NSCompositeAttributeDescription()
        type.name = name
        type.elements = try element.children(named: "attribute").map { child throws(ModelError) in
            try attribute(child, entity: name)
        }
        return type
    }

    /// A `<fetchRequest>`: a model's template or a fetched property's request. Options that
    /// are absent keep `NSFetchRequest`'s defaults.
    func fetchRequest(
        _ element: XcodeModelXMLElement, entity: String? = nil, property: String? = nil
    ) throws(ModelError) -> NSFetchRequest<NSFetchRequestResult> {
        let attributes = element.attributes
        let request = NSFetchRequest<NSFetchRequestResult>()
        request.entityName = attributes["entity"]
        request.predicateFormat = attributes["predicateString"]
        request.fetchLimit = try integer("fetchLimit", of: element, entity: entity, property: property) ?? 0
        request.fetchBatchSize = try integer("fetchBatchSize", of: element, entity: entity, property: property) ?? 0
        if let resultType = try integer("resultType", of: element, entity: entity, property: property) {
            guard let raw = UInt(exactly: resultType) else {
                throw error(
                    .invalidXMLValue(attribute: "resultType", value: String(resultType)), element, entity: entity,
                    property: property)
            }
            request.resultType = NSFetchRequestResultType(rawValue: raw)
        }
        func option(_ names: String..., default value: Bool) -> Bool {
            guard let name = names.first(where: { attributes[$0] != nil }) else { return value }
            return element.flag(name)
        }
        request.includesSubentities = option("includeSubentities", default: true)
        request.includesPropertyValues = option("includePropertyValues", default: true)
        // Xcode spells it "includesPendingChanges"; some third-party tools drop the "s".
        request.includesPendingChanges = option("includesPendingChanges", "includePendingChanges", default: true)
        request.returnsObjectsAsFaults = option("returnObjectsAsFaults", default: true)
        request.returnsDistinctResults = option("returnDistinctResults", default: false)
        return request
    }

    /// An integer XML attribute, `nil` when absent.
    private func integer(
        _ name: String, of element: XcodeModelXMLElement, entity: String?, property: String?
    ) throws(ModelError) -> Int? {
        guard let text = element.attributes[name] else { return nil }
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)) else {
            throw error(.invalidXMLValue(attribute: name, value: text), element, entity: entity, property: property)
        }
        return value
    }
}
