import Foundation

/// Reads a model compiled by Apple's tools: the keyed archive of an `NSManagedObjectModel`
/// that Xcode writes as `.mom` files and that Core Data keeps, deflated, in every SQLite
/// store's `Z_MODELCACHE` table.
///
/// The archive's keys are Apple's (`NSEntities`, `NSProperties`, `NSAttributeType`…); their
/// meaning was read from the archives in the test corpus and is checked there: every decoded
/// model's version hashes equal those Apple recorded in the store's metadata. What no hash
/// covers and the corpus does not show is listed in DEVIATIONS.md.
enum CompiledModelDecoder {
    /// Fills `model` from archive data (a binary property list).
    static func read(_ data: Data, file: URL?, into model: NSManagedObjectModel) throws(ModelError) {
        let archive: KeyedArchive
        do {
            archive = try KeyedArchive(data)
        } catch {
            throw ModelError(.damagedCompiledModel(reason: error.reason), file: file)
        }
        var decoder = Decoding(archive: archive, file: file)
        try decoder.build(into: model)
        // A compiled model is a model file compiled, and XML cannot hold most control
        // characters: a text with one is damage, and would be written back as model XML that
        // no reader takes.
        if let text = XcodeModelWriter.textXMLCannotHold(in: model) {
            throw ModelError(
                .damagedCompiledModel(reason: "the text \(String(reflecting: text)) holds a character no model file can hold"),
                file: file)
        }
    }

    /// Fills `model` from the contents of a store's `Z_MODELCACHE` (raw DEFLATE of the archive).
    static func readModelCache(_ data: Data, file: URL?, into model: NSManagedObjectModel) throws(ModelError) {
        guard let archive = RawDeflate.inflate(data) else {
            throw ModelError(.damagedCompiledModel(reason: "the model cache is not a complete DEFLATE stream"), file: file)
        }
        try read(archive, file: file, into: model)
    }

    private struct Decoding {
        let archive: KeyedArchive
        let file: URL?
        /// Each entity made so far, by the index of its archived object.
        var entities: [Int: NSEntityDescription] = [:]

        init(archive: KeyedArchive, file: URL?) {
            self.archive = archive
            self.file = file
        }

        func damaged(_ reason: String, entity: String? = nil, property: String? = nil) -> ModelError {
            ModelError(.damagedCompiledModel(reason: reason), file: file, entity: entity, property: property)
        }

        mutating func build(into model: NSManagedObjectModel) throws(ModelError) {
            let root = archive.root
            guard archive.className(of: root) == "NSManagedObjectModel" else {
                throw damaged("the archive holds no NSManagedObjectModel")
            }
            guard let entityEntries = archive.entries(archive.field(root, "NSEntities")) else {
                throw damaged("the model has no entity table")
            }
            var ordered: [(index: Int, entity: NSEntityDescription)] = []
            for (_, value) in entityEntries {
                guard case .uid(let index) = value else { throw damaged("an entity is not an archived object") }
                ordered.append((index, try entity(at: index)))
            }
            // Inheritance: each entity names its superentity; subentities are attached to it
            // in the order entities are listed.
            for (index, entity) in ordered {
                let reference = archive.objects[index]["NSSuperentity"]
                guard archive.resolve(reference) != nil, case .uid(let parentIndex)? = reference else { continue }
                guard let parent = entities[parentIndex] else {
                    throw damaged("the superentity is not in the model", entity: entity.name)
                }
                parent.subentities.append(entity)
            }
            // A property is declared by the entity its `NSEntity` names; subentities list the
            // inherited ones as well.
            for (index, entity) in ordered {
                entity.properties = try properties(of: index, entity: entity)
            }
            for (index, entity) in ordered {
                try readConstraintsAndIndexes(of: archive.objects[index], into: entity)
            }
            // Each composite type once, as its first attribute in the model spells it. A model
            // file declares a composite type once and its attributes name it: an archive whose
            // attributes of one type disagree on its elements, or that has elements without a
            // type, holds what no model file can say (found by fuzzing: compiled-model).
            var compositeTypes: [String: NSCompositeAttributeDescription] = [:]
            var typeOrder: [String] = []
            func collect(_ attribute: NSAttributeDescription, entity: String?) throws(ModelError) {
                guard let composite = attribute as? NSCompositeAttributeDescription else { return }
                guard let typeName = composite.compositeTypeName else {
                    guard composite.elements.isEmpty else {
                        throw damaged(
                            "a composite attribute has elements but names no composite type", entity: entity,
                            property: composite.name)
                    }
                    return
                }
                if let type = compositeTypes[typeName] {
                    guard type.elements == composite.elements else {
                        throw damaged(
                            "the composite type \(typeName) has other elements in another attribute", entity: entity,
                            property: composite.name)
                    }
                } else {
                    let type = NSCompositeAttributeDescription()
                    type.name = typeName
                    type.elements = composite.elements.compactMap { $0.copy() as? NSAttributeDescription }
                    compositeTypes[typeName] = type
                    typeOrder.append(typeName)
                }
                for element in composite.elements { try collect(element, entity: entity) }
            }
            for (_, entity) in ordered {
                for case let attribute as NSAttributeDescription in entity.declaredProperties {
                    try collect(attribute, entity: entity.name)
                }
            }
            model.compositeTypes = typeOrder.compactMap { compositeTypes[$0] }
            model.entities = ordered.map(\.entity)
            model.versionIdentifiers = Set(
                (archive.elements(archive.field(root, "NSVersionIdentifiers")) ?? []).compactMap { value in
                    archive.plainValue(value) as? AnyHashable
                })
            for (key, value) in archive.entries(archive.field(root, "NSConfigurations")) ?? [] {
                guard let name = archive.string(key) else { continue }
                let members = (archive.elements(value) ?? []).compactMap { member -> NSEntityDescription? in
                    guard case .uid(let index) = member else { return nil }
                    return entities[index]
                }
                model.setEntities(members, forConfigurationName: name)
            }
            for (key, value) in archive.entries(archive.field(root, "NSFetchRequestTemplates")) ?? [] {
                guard let name = archive.string(key) else { continue }
                model.setFetchRequestTemplate(try fetchRequest(value, entityName: nil), forName: name)
            }
        }

        private mutating func entity(at index: Int) throws(ModelError) -> NSEntityDescription {
            if let known = entities[index] { return known }
            let object = archive.objects[index]
            guard archive.className(of: object) == "NSEntityDescription", let name = archive.string(object["NSEntityName"])
            else { throw damaged("an entity of the model is not an NSEntityDescription") }
            let entity = NSEntityDescription()
            entity.name = name
            entity.managedObjectClassName = archive.string(object["NSClassNameForEntity"]) ?? "NSManagedObject"
            entity.isAbstract = archive.bool(object["NSIsAbstract"]) ?? false
            entity.versionHashModifier = archive.string(object["NSVersionHashModifier"])
            let renaming = archive.string(object["NSRenamingIdentifier"])
            entity.renamingIdentifier = renaming == name ? nil : renaming
            entity.userInfo = userInfo(object["NSUserInfo"])
            entities[index] = entity
            return entity
        }

        private func userInfo(_ value: PropertyListValue?) -> [AnyHashable: Any]? {
            guard let dictionary = archive.plainValue(value) as? [AnyHashable: Any], !dictionary.isEmpty else {
                return nil
            }
            return dictionary
        }

        private func properties(of index: Int, entity: NSEntityDescription) throws(ModelError) -> [NSPropertyDescription] {
            // Apple archives a copy of each inherited property in every subentity: the entity
            // declares the properties whose names its superentity does not have.
            let superentity = archive.field(archive.objects[index], "NSSuperentity")
            let inherited = Set(
                (archive.entries(archive.field(superentity, "NSProperties")) ?? []).compactMap { archive.string($0.key) })
            var result: [NSPropertyDescription] = []
            for (key, value) in archive.entries(archive.field(archive.objects[index], "NSProperties")) ?? [] {
                guard let object = archive.resolve(value), let name = archive.string(key), !inherited.contains(name) else {
                    continue
                }
                result.append(try property(object, entity: entity.name))
            }
            return result
        }

        private func property(_ object: PropertyListValue, entity: String?) throws(ModelError) -> NSPropertyDescription {
            let name = archive.string(object["NSPropertyName"])
            guard let name else { throw damaged("a property has no name", entity: entity) }
            let className = archive.className(of: object)
            let property: NSPropertyDescription
            switch className {
            case "NSAttributeDescription", "NSDerivedAttributeDescription", "NSCompositeAttributeDescription":
                property = try attribute(object, className: className, name: name, entity: entity)
            case "NSRelationshipDescription":
                property = relationship(object)
            case "NSFetchedPropertyDescription":
                let fetched = NSFetchedPropertyDescription()
                fetched.fetchRequest = try fetchRequest(
                    object["NSFetchRequest"], entityName: archive.string(object["_NSFetchRequestEntityName"]),
                    entity: entity, property: name)
                property = fetched
            default:
                throw damaged("a property of class \(className ?? "?") is not known", entity: entity, property: name)
            }
            property.name = name
            // Absent flags are false in the archive (a model built in code defaults to optional).
            property.isOptional = archive.bool(object["NSIsOptional"]) ?? false
            property.isTransient = archive.bool(object["NSIsTransient"]) ?? false
            property.isIndexed = archive.bool(object["NSIsIndexed"]) ?? false
            property.isIndexedBySpotlight = archive.bool(object["NSIsIndexedBySpotlight"]) ?? false
            property.isStoredInExternalRecord = archive.bool(object["NSIsStoredInExternalRecord"]) ?? false
            property.versionHashModifier = archive.string(object["NSVersionHashModifier"])
            let renaming = archive.string(object["NSRenamingIdentifier"])
            property.renamingIdentifier = renaming == name ? nil : renaming
            property.userInfo = userInfo(object["NSUserInfo"])
            if let predicates = archive.elements(archive.field(object, "NSValidationPredicates")), !predicates.isEmpty {
                let formats = try predicates.map { value throws(ModelError) in
                    try ArchivedPredicateFormat(archive: archive).predicate(value, entity: entity, property: name)
                }
                let warnings = (archive.elements(archive.field(object, "NSValidationWarnings")) ?? []).map { value in
                    archive.string(value) ?? ""
                }
                property.setValidationPredicates(formats.map { NSPredicate(format: $0) }, withValidationWarnings: warnings)
            }
            return property
        }

        /// `NSFlagsKey`'s bits, as far as known: 4 stores binary data externally, 16 keeps the
        /// value in persistent history after deletion (the latter seen in the corpus).
        private static let externalStorageFlag = 4
        private static let preservesValueFlag = 16

        private func attribute(
            _ object: PropertyListValue, className: String?, name: String, entity: String?
        ) throws(ModelError) -> NSAttributeDescription {
            let raw = archive.integer(object["NSAttributeType"]) ?? 0
            guard let typeRaw = UInt(exactly: raw), let type = NSAttributeType(rawValue: typeRaw) else {
                throw damaged("attribute type \(raw) is not known", entity: entity, property: name)
            }
            let attribute: NSAttributeDescription
            if className == "NSDerivedAttributeDescription" {
                let derived = NSDerivedAttributeDescription()
                if let expression = archive.field(object, "NSDerivationExpression") {
                    derived.derivationExpressionFormat = try ArchivedPredicateFormat(archive: archive)
                        .derivation(expression, entity: entity, property: name)
                }
                attribute = derived
            } else if className == "NSCompositeAttributeDescription" {
                let composite = NSCompositeAttributeDescription()
                composite.compositeTypeName = archive.string(object["NSCompositeTypeName"])
                var elements: [NSAttributeDescription] = []
                for element in archive.elements(archive.field(object, "NSCompositeElements")) ?? [] {
                    guard let elementObject = archive.resolve(element),
                        let described = try property(elementObject, entity: entity) as? NSAttributeDescription
                    else { throw damaged("an element of a composite attribute is no attribute", entity: entity, property: name) }
                    elements.append(described)
                }
                composite.elements = elements
                attribute = composite
            } else {
                attribute = NSAttributeDescription()
            }
            // A model file knows a composite attribute by its type alone: a composite class of
            // another type, or a plain attribute of the composite type, is no model's.
            if className != "NSDerivedAttributeDescription"
                && (className == "NSCompositeAttributeDescription") != (type == .compositeAttributeType)
            {
                throw damaged(
                    "\(className ?? "an attribute") of attribute type \(type.xcodeModelName ?? String(raw))", entity: entity,
                    property: name)
            }
            attribute.attributeType = type
            attribute.attributeValueClassName = archive.string(object["NSAttributeValueClassName"])
            attribute.valueTransformerName = archive.string(object["NSValueTransformerName"])
            let flags = archive.integer(object["NSFlagsKey"]) ?? 0
            attribute.allowsExternalBinaryDataStorage = flags & Self.externalStorageFlag != 0
            attribute.preservesValueInHistoryOnDeletion = flags & Self.preservesValueFlag != 0
            attribute.allowsCloudEncryption = archive.bool(object["NSAllowsCloudEncryption"]) ?? false
            // An app's own class (a transformable's default) cannot be rebuilt here.
            if let value = archive.plainValue(object["NSDefaultValue"]) {
                let typed = Self.defaultValue(value, type: type)
                // A number, Boolean or date a model file cannot write as its default text ("size"
                // for a Double, NaN) is no model file's: damage, not a default that changes once
                // written as XML (found by fuzzing: compiled-model).
                if Self.numericTypes.contains(type),
                    AttributeValueText.value(from: AttributeValueText.text(for: typed, type: type), type: type) == nil
                {
                    throw damaged(
                        "the default value \(String(reflecting: value)) is no \(type.xcodeModelName ?? "") value",
                        entity: entity, property: name)
                }
                attribute.defaultValue = typed
            }
            return attribute
        }

        /// The types whose defaults are numbers, Booleans or dates in archives and text in model files.
        private static let numericTypes: Set<NSAttributeType> = [
            .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .decimalAttributeType,
            .doubleAttributeType, .floatAttributeType, .booleanAttributeType, .dateAttributeType,
        ]

        /// Archived defaults are `NSNumber`s for every numeric and Boolean type; Strata's
        /// attribute defaults take the type's own value.
        private static func defaultValue(_ value: Any, type: NSAttributeType) -> Any {
            guard let number = value as? NSNumber else { return value }
            switch type {
            case .integer16AttributeType: return Int16(truncatingIfNeeded: number.int64Value)
            case .integer32AttributeType: return Int32(truncatingIfNeeded: number.int64Value)
            case .integer64AttributeType: return number.int64Value
            case .doubleAttributeType: return number.doubleValue
            case .floatAttributeType: return number.floatValue
            case .booleanAttributeType: return number.boolValue
            case .decimalAttributeType: return value as? NSDecimalNumber ?? NSDecimalNumber(decimal: number.decimalValue)
            default: return value
            }
        }

        private func relationship(_ object: PropertyListValue) -> NSRelationshipDescription {
            let relationship = NSRelationshipDescription()
            relationship.destinationEntityName =
                archive.string(object["_NSDestinationEntityName"])
                ?? archive.string(archive.field(object, "NSDestinationEntity")?["NSEntityName"])
            relationship.inverseName =
                archive.string(object["_NSInverseRelationshipName"])
                ?? archive.string(archive.field(object, "NSInverseRelationship")?["NSPropertyName"])
            if relationship.inverseName != nil {
                relationship.inverseEntityName = relationship.destinationEntityName
            }
            relationship.minCount = max(0, archive.integer(object["NSMinCount"]) ?? 0)
            // Counts are archived as 32-bit integers: a model made in code with `Int.max` as its
            // maximum has -1 there, and its version hash covers that -1.
            let maxCount = archive.integer(object["NSMaxCount"]) ?? 1
            relationship.maxCount = maxCount < 0 ? Int.max : maxCount
            relationship.deleteRule =
                (archive.integer(object["NSDeleteRule"]).flatMap { UInt(exactly: $0) })
                .flatMap(NSDeleteRule.init(rawValue:)) ?? .nullifyDeleteRule
            relationship.isOrdered = archive.bool(object["NSIsOrdered"]) ?? false
            return relationship
        }

        private func fetchRequest(
            _ value: PropertyListValue?, entityName: String?, entity: String? = nil, property: String? = nil
        ) throws(ModelError) -> NSFetchRequest<NSFetchRequestResult> {
            let request = NSFetchRequest<NSFetchRequestResult>()
            guard let object = archive.resolve(value) else {
                request.entityName = entityName
                return request
            }
            request.entityName =
                entityName ?? archive.string(archive.field(object, "NSEntity")?["NSEntityName"])
                ?? archive.string(object["NSEntityName"])
            if let predicate = archive.field(object, "NSPredicate") {
                request.predicateFormat = try ArchivedPredicateFormat(archive: archive)
                    .predicate(predicate, entity: entity, property: property)
            }
            if let sorts = archive.elements(archive.field(object, "NSSortDescriptors")) {
                request.sortDescriptors = sorts.compactMap { sort in
                    guard let key = archive.string(archive.field(sort, "NSKey")) else { return nil }
                    let ascending = archive.bool(archive.field(sort, "NSAscending")) ?? true
                    let selector = archive.string(archive.field(sort, "NSSelector"))
                    return NSSortDescriptor(key: key, ascending: ascending, selector: selector.map { Selector($0) })
                }
            }
            request.fetchLimit = max(0, archive.integer(object["NSFetchLimit"]) ?? 0)
            request.fetchOffset = max(0, archive.integer(object["NSFetchOffset"]) ?? 0)
            request.fetchBatchSize = max(0, archive.integer(object["NSBatchSize"]) ?? 0)
            if let raw = archive.integer(object["NSResultType"]).flatMap({ UInt(exactly: $0) }) {
                request.resultType = NSFetchRequestResultType(rawValue: raw)
            }
            return request
        }

        private func readConstraintsAndIndexes(of object: PropertyListValue, into entity: NSEntityDescription) throws(ModelError)
        {
            func names(_ value: PropertyListValue) -> [Any] {
                (archive.elements(value) ?? []).compactMap { element in
                    archive.string(element) ?? archive.string(archive.field(element, "NSPropertyName"))
                }
            }
            entity.uniquenessConstraints = (archive.elements(archive.field(object, "NSUniqueTuples")) ?? []).map(names)
                .filter { !$0.isEmpty }
            entity.compoundIndexes = (archive.elements(archive.field(object, "NSCompoundIndexes")) ?? []).map(names)
                .filter { !$0.isEmpty }
            var indexes: [NSFetchIndexDescription] = []
            for value in archive.elements(archive.field(object, "NSFetchIndexDescriptions")) ?? [] {
                guard let name = archive.string(archive.field(value, "NSIndexName")) else { continue }
                var elements: [NSFetchIndexElementDescription] = []
                for element in archive.elements(archive.field(value, "NSIndexElements")) ?? [] {
                    guard let propertyName = archive.string(archive.field(element, "NSPropertyName")) else { continue }
                    let collation: NSFetchIndexElementDescription.CollationType =
                        archive.integer(archive.field(element, "NSFetchIndexElementType")) == 1 ? .rTree : .binary
                    let ascending = archive.bool(archive.field(element, "NSAscending")) ?? true
                    elements.append(
                        NSFetchIndexElementDescription(propertyName: propertyName, collationType: collation, ascending: ascending)
                    )
                }
                let index = NSFetchIndexDescription(name: name, elements: elements)
                if let partial = archive.field(value, "NSPartialIndexPredicate") {
                    index.partialIndexPredicateFormat = try ArchivedPredicateFormat(archive: archive)
                        .predicate(partial, entity: entity.name, property: nil)
                }
                indexes.append(index)
            }
            entity.indexes = indexes
        }
    }
}

/// Writes archived predicates and expressions (`NSComparisonPredicate`, `NSKeyPathExpression`…)
/// as predicate format strings, which Strata's parser reads back: fetched properties, fetch
/// request templates, validation predicates and derivations keep them in that form.
struct ArchivedPredicateFormat {
    let archive: KeyedArchive

    /// Deep enough for any predicate a model holds; deeper ones come from damaged archives.
    static let maximumDepth = 64

    func predicate(_ value: PropertyListValue?, entity: String?, property: String?) throws(ModelError) -> String {
        try predicate(value, depth: 0, entity: entity, property: property)
    }

    /// A derivation's expression, as `NSDerivedAttributeDescription` keeps it: a count is
    /// written `key.@count` as Xcode writes it.
    func derivation(_ value: PropertyListValue, entity: String?, property: String?) throws(ModelError) -> String {
        let object = archive.resolve(value)
        if archive.integer(object?["NSExpressionType"]) == 4, archive.string(object?["NSSelectorName"]) == "count:",
            let arguments = archive.elements(archive.field(object, "NSArguments")), arguments.count == 1
        {
            return try expression(arguments[0], depth: 1, entity: entity, property: property) + ".@count"
        }
        return try expression(value, depth: 0, entity: entity, property: property)
    }

    private func unreadable(_ what: String, entity: String?, property: String?) -> ModelError {
        ModelError(.damagedCompiledModel(reason: "\(what) cannot be read"), entity: entity, property: property)
    }

    private func predicate(
        _ value: PropertyListValue?, depth: Int, entity: String?, property: String?
    ) throws(ModelError) -> String {
        guard depth < Self.maximumDepth, let object = archive.resolve(value) else {
            throw unreadable("a predicate", entity: entity, property: property)
        }
        switch archive.className(of: object) {
        case "NSTruePredicate": return "TRUEPREDICATE"
        case "NSFalsePredicate": return "FALSEPREDICATE"
        case "NSCompoundPredicate":
            let parts = try (archive.elements(archive.field(object, "NSSubpredicates")) ?? []).map {
                part throws(ModelError) in
                "(" + (try predicate(part, depth: depth + 1, entity: entity, property: property)) + ")"
            }
            switch archive.integer(object["NSCompoundPredicateType"]) {
            case 0:
                guard parts.count == 1 else { throw unreadable("a NOT predicate", entity: entity, property: property) }
                return "NOT " + parts[0]
            case 1: return parts.isEmpty ? "TRUEPREDICATE" : parts.joined(separator: " AND ")
            case 2: return parts.isEmpty ? "FALSEPREDICATE" : parts.joined(separator: " OR ")
            default: throw unreadable("a compound predicate", entity: entity, property: property)
            }
        case "NSComparisonPredicate":
            let left = try expression(object["NSLeftExpression"], depth: depth + 1, entity: entity, property: property)
            let right = try expression(object["NSRightExpression"], depth: depth + 1, entity: entity, property: property)
            let operation = archive.field(object, "NSPredicateOperator")
            guard let type = archive.integer(operation?["NSOperatorType"]) else {
                throw unreadable("a comparison", entity: entity, property: property)
            }
            let negated = archive.bool(operation?["NSNegate"]) ?? false
            let symbol: String
            switch type {
            case 0: symbol = "<"
            case 1: symbol = "<="
            case 2: symbol = ">"
            case 3: symbol = ">="
            case 4: symbol = negated ? "!=" : "=="
            case 5: symbol = "!="
            case 6: symbol = "MATCHES"
            case 7: symbol = "LIKE"
            case 8: symbol = "BEGINSWITH"
            case 9: symbol = "ENDSWITH"
            case 10: symbol = "IN"
            case 99: symbol = "CONTAINS"
            case 100: symbol = "BETWEEN"
            default: throw unreadable("comparison operator \(type)", entity: entity, property: property)
            }
            let options = archive.integer(operation?["NSOptions"]) ?? 0
            var flags = ""
            if options & 1 != 0 { flags += "c" }
            if options & 2 != 0 { flags += "d" }
            if options & 4 != 0 { flags += "n" }
            let modifier: String
            switch archive.integer(operation?["NSModifier"]) ?? 0 {
            case 1: modifier = "ALL "
            case 2: modifier = "ANY "
            default: modifier = ""
            }
            let comparison = modifier + left + " " + symbol + (flags.isEmpty ? "" : "[\(flags)]") + " " + right
            return negated && type != 4 ? "NOT (\(comparison))" : comparison
        default:
            throw unreadable(
                "a predicate of class \(archive.className(of: object) ?? "?")", entity: entity, property: property)
        }
    }

    private func expression(
        _ value: PropertyListValue?, depth: Int, entity: String?, property: String?
    ) throws(ModelError) -> String {
        guard depth < Self.maximumDepth, let object = archive.resolve(value) else {
            throw unreadable("an expression", entity: entity, property: property)
        }
        let arguments = archive.elements(archive.field(object, "NSArguments")) ?? []
        switch archive.integer(object["NSExpressionType"]) {
        case 0:
            return constant(archive.plainValue(object["NSConstantValue"]))
        case 1:
            return "SELF"
        case 2:
            guard let name = archive.string(object["NSVariable"]) else {
                throw unreadable("a variable", entity: entity, property: property)
            }
            return "$" + name
        case 10:
            guard let keyPath = archive.string(object["NSKeyPath"]) else {
                throw unreadable("a key path", entity: entity, property: property)
            }
            return keyPath
        case 3, 4:
            let selector = archive.string(object["NSSelectorName"]) ?? ""
            let operand = archive.field(object, "NSOperand")
            if selector == "valueForKey:" || selector == "valueForKeyPath:", arguments.count == 1 {
                let keyPath = try expression(arguments[0], depth: depth + 1, entity: entity, property: property)
                if archive.integer(operand?["NSExpressionType"]) == 1 { return keyPath }
                let base = try expression(operand, depth: depth + 1, entity: entity, property: property)
                return base + "." + keyPath
            }
            let parts = try arguments.map { argument throws(ModelError) in
                try expression(argument, depth: depth + 1, entity: entity, property: property)
            }
            return selector + "(" + parts.joined(separator: ", ") + ")"
        case 14:
            let parts = try (archive.elements(archive.field(object, "NSCollection")) ?? []).map {
                element throws(ModelError) in
                try expression(element, depth: depth + 1, entity: entity, property: property)
            }
            return "{" + parts.joined(separator: ", ") + "}"
        default:
            throw unreadable(
                "an expression of type \(archive.integer(object["NSExpressionType"]) ?? -1)", entity: entity,
                property: property)
        }
    }

    private func constant(_ value: Any?) -> String {
        switch value {
        case nil: return "nil"
        case let text as String:
            let escaped = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            return "\"" + escaped + "\""
        case let number as NSNumber:
            return number.stringValue
        case let date as Date:
            return "CAST(\(date.timeIntervalSinceReferenceDate), \"NSDate\")"
        case let items as [Any]:
            return "{" + items.map { constant($0) }.joined(separator: ", ") + "}"
        case let other?:
            return "\"" + String(describing: other) + "\""
        }
    }
}
