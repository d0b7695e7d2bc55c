import Foundation

/// The XML attributes that stand for the typed properties of model descriptions, as Xcode
/// writes them: booleans as "YES", and nothing for a value at its default.
///
/// The writer emits these, then adds each description's `modelFileAttributes`. The reader
/// keeps in `modelFileAttributes` every attribute of the file that these do not produce:
/// unknown attributes, legacy ones such as `syncable`, and mapped ones written at their
/// default value (`usesScalarValueType="NO"`, `optional="NO"`). Both sides use the same
/// functions, so a model read from a file writes back the attributes the file had.
enum XcodeModelXMLAttributes {
    typealias Attributes = [String: String]

    // MARK: Order

    /// Xcode's order of `<entity>` attributes.
    static let entityOrder = [
        "name", "representedClassName", "parentEntity", "isAbstract", "elementID", "versionHashModifier",
        "syncable", "codeGenerationType",
    ]
    /// Xcode's order of `<attribute>` attributes.
    static let attributeOrder = [
        "name", "optional", "transient", "attributeType", "minValueString", "maxValueString",
        "regularExpressionString", "defaultValueString", "defaultDateTimeInterval", "derived",
        "derivationExpression", "allowsExternalBinaryDataStorage", "valueTransformerName", "customClassName",
        "composite", "usesScalarValueType", "preserveAfterDeletion", "allowsCloudEncryption", "indexed",
        "spotlightIndexingEnabled", "storedInTruthFile", "elementID", "versionHashModifier", "syncable",
    ]
    /// Xcode's order of `<relationship>` attributes.
    static let relationshipOrder = [
        "name", "optional", "transient", "toMany", "minCount", "maxCount", "deletionRule", "ordered",
        "destinationEntity", "inverseName", "inverseEntity", "indexed", "spotlightIndexingEnabled",
        "storedInTruthFile", "elementID", "versionHashModifier", "syncable",
    ]
    /// Xcode's order of `<fetchedProperty>` attributes.
    static let fetchedPropertyOrder = [
        "name", "optional", "transient", "indexed", "spotlightIndexingEnabled", "storedInTruthFile", "elementID",
        "versionHashModifier", "syncable",
    ]
    /// Xcode's order of `<fetchRequest>` attributes.
    static let fetchRequestOrder = [
        "name", "entity", "predicateString", "fetchLimit", "fetchBatchSize", "resultType", "includeSubentities",
        "includePropertyValues", "includesPendingChanges", "returnObjectsAsFaults", "returnDistinctResults",
    ]
    /// The `<model>` attribute order of Xcode 8 and later (files with `sourceLanguage`).
    static let modelOrder = [
        "type", "documentVersion", "lastSavedToolsVersion", "systemVersion", "minimumToolsVersion",
        "sourceLanguage", "usedWithCloudKit", "usedWithSwiftData", "userDefinedModelVersionIdentifier",
    ]
    /// The `<model>` attribute order of older Xcode versions (files without `sourceLanguage`).
    static let legacyModelOrder = [
        "name", "userDefinedModelVersionIdentifier", "type", "documentVersion", "lastSavedToolsVersion",
        "systemVersion", "minimumToolsVersion", "macOSVersion", "iOSVersion",
    ]
    /// The `<element>` (diagram layout) attribute order.
    static let layoutOrder = ["name", "positionX", "positionY", "width", "height"]

    /// The typed attributes with the extra ones added (typed ones win), in the given order;
    /// attributes the order does not know come last, by name.
    static func ordered(_ typed: Attributes, extra: Attributes = [:], order: [String]) -> [(String, String)] {
        let all = typed.merging(extra) { typedValue, _ in typedValue }
        let known = order.compactMap { name in all[name].map { (name, $0) } }
        let rest = all.filter { !order.contains($0.key) }.sorted { $0.key < $1.key }
        return known + rest.map { ($0.key, $0.value) }
    }

    /// The attributes of a file that the typed ones do not produce, to keep in
    /// `modelFileAttributes`.
    static func retained(_ fileAttributes: Attributes, typed: Attributes) -> Attributes {
        fileAttributes.filter { typed[$0.key] == nil }
    }

    // MARK: Typed attributes

    static func entity(_ entity: NSEntityDescription) -> Attributes {
        var result: Attributes = [:]
        result["name"] = entity.name
        if let className = entity.managedObjectClassName, className != "NSManagedObject" {
            result["representedClassName"] = className
        }
        result["parentEntity"] = entity.superentity?.name
        result["isAbstract"] = flag(entity.isAbstract)
        result["elementID"] = entity.renamingIdentifier
        result["versionHashModifier"] = entity.versionHashModifier
        result["codeGenerationType"] = entity.codeGenerationType
        return result
    }

    /// The attributes every kind of property shares.
    private static func property(_ property: NSPropertyDescription) -> Attributes {
        var result: Attributes = [:]
        result["name"] = property.name
        result["optional"] = flag(property.isOptional)
        result["transient"] = flag(property.isTransient)
        result["indexed"] = flag(property.isIndexed)
        result["spotlightIndexingEnabled"] = flag(property.isIndexedBySpotlight)
        result["storedInTruthFile"] = flag(property.isStoredInExternalRecord)
        result["elementID"] = property.renamingIdentifier
        result["versionHashModifier"] = property.versionHashModifier
        return result
    }

    static func attribute(_ attribute: NSAttributeDescription) -> Attributes {
        var result = property(attribute)
        result["attributeType"] = attribute.attributeType.xcodeModelName
        result["minValueString"] = attribute.minValueString
        result["maxValueString"] = attribute.maxValueString
        result["regularExpressionString"] = attribute.regularExpressionString
        let defaultKey = attribute.attributeType == .dateAttributeType ? "defaultDateTimeInterval" : "defaultValueString"
        result[defaultKey] = attribute.defaultValueString ?? attribute.invalidDefaultValueText
        if let derived = attribute as? NSDerivedAttributeDescription {
            result["derived"] = "YES"
            result["derivationExpression"] = derived.derivationExpressionFormat
        }
        result["allowsExternalBinaryDataStorage"] = flag(attribute.allowsExternalBinaryDataStorage)
        result["valueTransformerName"] = attribute.valueTransformerName
        result["customClassName"] = attribute.attributeValueClassName
        result["composite"] = attribute.compositeTypeName
        result["usesScalarValueType"] = flag(attribute.usesScalarValueType)
        result["preserveAfterDeletion"] = flag(attribute.preservesValueInHistoryOnDeletion)
        result["allowsCloudEncryption"] = flag(attribute.allowsCloudEncryption)
        return result
    }

    static func relationship(_ relationship: NSRelationshipDescription) -> Attributes {
        var result = property(relationship)
        if relationship.isToMany {
            result["toMany"] = "YES"
            if relationship.maxCount > 1 { result["maxCount"] = String(relationship.maxCount) }
        } else {
            // Xcode writes maxCount="1" on every to-one relationship.
            result["maxCount"] = "1"
        }
        if relationship.minCount != 0 { result["minCount"] = String(relationship.minCount) }
        result["deletionRule"] = relationship.deleteRule.xcodeModelName
        result["ordered"] = flag(relationship.isOrdered)
        result["destinationEntity"] = relationship.destinationName
        if let inverseName = relationship.inverseRelationshipName {
            result["inverseName"] = inverseName
            result["inverseEntity"] = inverseEntityName(of: relationship)
        }
        return result
    }

    /// The inverse's entity as the file should name it. A file may name a subentity of the
    /// entity that declares the inverse (the inverse is then inherited); that name is kept
    /// as long as it still leads to the inverse. An inverse that is not in the model keeps the
    /// entity its file named, or none: naming one it did not would make another model once
    /// read back (found by fuzzing: Fuzz/Regressions/model-xml).
    private static func inverseEntityName(of relationship: NSRelationshipDescription) -> String? {
        guard let inverse = relationship.inverseRelationship, let declaring = inverse.entity else {
            return relationship.inverseEntityName
        }
        if let written = relationship.inverseEntityName,
            let writtenEntity = relationship.entity?.managedObjectModel?.entitiesByName[written],
            writtenEntity.isKindOf(entity: declaring)
        {
            return written
        }
        return declaring.name
    }

    static func fetchedProperty(_ fetchedProperty: NSFetchedPropertyDescription) -> Attributes {
        property(fetchedProperty)
    }

    /// A model-level fetch request template (`name` is the template's name) or a fetched
    /// property's request.
    ///
    /// The five option flags are written together whenever one differs from its default,
    /// as in the Xcode files seen, and left out otherwise.
    static func fetchRequest(_ request: NSFetchRequest<NSFetchRequestResult>, name: String) -> Attributes {
        var result: Attributes = [:]
        result["name"] = name
        result["entity"] = request.entityName
        result["predicateString"] = request.predicateFormat
        if request.fetchLimit != 0 { result["fetchLimit"] = String(request.fetchLimit) }
        if request.fetchBatchSize != 0 { result["fetchBatchSize"] = String(request.fetchBatchSize) }
        if request.resultType.rawValue != 0 { result["resultType"] = String(request.resultType.rawValue) }
        let options = [
            ("includeSubentities", request.includesSubentities, true),
            ("includePropertyValues", request.includesPropertyValues, true),
            ("includesPendingChanges", request.includesPendingChanges, true),
            ("returnObjectsAsFaults", request.returnsObjectsAsFaults, true),
            ("returnDistinctResults", request.returnsDistinctResults, false),
        ]
        if options.contains(where: { $0.1 != $0.2 }) {
            for (key, value, _) in options { result[key] = value ? "YES" : "NO" }
        }
        return result
    }

    private static func flag(_ value: Bool) -> String? { value ? "YES" : nil }
}
