import Foundation

/// Writes a managed object model as Apple's tools archive it: the `NSKeyedArchiver` form of a
/// `.mom`, which Core Data also keeps, deflated, in each SQLite store's `Z_MODELCACHE` table so
/// that it can migrate a store whose model the app no longer ships.
///
/// The layout follows the archives Apple's Core Data wrote in the test corpus, key for key
/// (`CompiledModelDecoder` reads both). What could not be confirmed against Apple's reader is
/// listed in DEVIATIONS.md.
struct CompiledModelEncoder {
    private var objects: [PropertyListValue] = [.string("$null")]
    private var classes: [String: Int] = [:]
    private var entityIndexes: [ObjectIdentifier: Int] = [:]
    /// Each entity's copy of each of its properties, inherited ones included: Apple's archives
    /// hold a property object per entity that has it, owned by that entity.
    private var propertyIndexes: [PropertyCopy: Int] = [:]

    private struct PropertyCopy: Hashable {
        let entity: ObjectIdentifier?
        let property: ObjectIdentifier

        init(_ entity: NSEntityDescription?, _ property: NSPropertyDescription) {
            self.entity = entity.map(ObjectIdentifier.init)
            self.property = ObjectIdentifier(property)
        }
    }
    private var entityNames: [String: Int] = [:]
    private var rootIndex = 0

    /// The archive of the model (a binary property list).
    static func archive(_ model: NSManagedObjectModel) -> Data {
        var encoder = CompiledModelEncoder()
        let root = encoder.encode(model)
        let top: PropertyListValue = .dictionary([
            "$version": .integer(100_000),
            "$archiver": .string("NSKeyedArchiver"),
            "$top": .dictionary(["root": .uid(root)]),
            "$objects": .array(encoder.objects),
        ])
        return BinaryPropertyList.write(top)
    }

    /// The content of `Z_MODELCACHE` for the model: its archive, deflated.
    static func modelCache(_ model: NSManagedObjectModel) -> Data? {
        RawDeflate.deflate(archive(model))
    }

    // MARK: Objects

    private mutating func reserve() -> Int {
        objects.append(.null)
        return objects.count - 1
    }

    private mutating func add(_ value: PropertyListValue) -> PropertyListValue {
        objects.append(value)
        return .uid(objects.count - 1)
    }

    /// The class entry of an archived object, written once per class.
    private mutating func classReference(_ name: String, _ hierarchy: [String]) -> PropertyListValue {
        if let known = classes[name] { return .uid(known) }
        let index = objects.count
        objects.append(
            .dictionary(["$classname": .string(name), "$classes": .array((hierarchy + ["NSObject"]).map { .string($0) })]))
        classes[name] = index
        return .uid(index)
    }

    private mutating func string(_ text: String?) -> PropertyListValue {
        guard let text else { return .uid(0) }
        return add(.string(text))
    }

    private mutating func array(_ items: [PropertyListValue], mutable: Bool = false) -> PropertyListValue {
        let name = mutable ? "NSMutableArray" : "NSArray"
        let classValue = classReference(name, mutable ? ["NSMutableArray", "NSArray"] : ["NSArray"])
        return add(.dictionary(["NS.objects": .array(items), "$class": classValue]))
    }

    private mutating func dictionary(
        _ entries: [(key: String, value: PropertyListValue)], mutable: Bool = false
    ) -> PropertyListValue {
        let keys = entries.map { entry in string(entry.key) }
        let classValue =
            mutable
            ? classReference("NSMutableDictionary", ["NSMutableDictionary", "NSDictionary"])
            : classReference("NSDictionary", ["NSDictionary"])
        return add(.dictionary(["NS.keys": .array(keys), "NS.objects": .array(entries.map(\.value)), "$class": classValue]))
    }

    /// Core Data's dictionary of entities: its keys in a mapping, its values in an array.
    private mutating func knownKeysDictionary(_ entries: [(key: String, value: PropertyListValue)]) -> PropertyListValue {
        let keys = array(entries.map { entry in string(entry.key) })
        let mappingClass = classReference(
            "NSKnownKeysMappingStrategy1", ["NSKnownKeysMappingStrategy1", "NSKnownKeysMappingStrategy"])
        let mapping = add(
            .dictionary([
                "$class": mappingClass, "length": .integer(Int64(entries.count)), "keys": keys, "version": .integer(1),
            ]))
        let values = array(entries.map(\.value))
        let empty = string("__empty_slot_token_4c24_98dc_ac1e_b773__")
        let dictionaryClass = classReference(
            "NSKnownKeysDictionary1",
            ["NSKnownKeysDictionary1", "NSKnownKeysDictionary", "NSMutableDictionary", "NSDictionary"])
        return add(
            .dictionary([
                "values": values, "$class": dictionaryClass, "searchMapping": mapping, "emptyToken": empty,
                "version": .integer(1),
            ]))
    }

    /// A plain value (numbers, strings, dates, data, UUIDs, URLs, collections of them) in its
    /// archived form; `$null` for what has none.
    private mutating func plain(_ value: Any?) -> PropertyListValue {
        switch value {
        case nil: return .uid(0)
        case let flag as Bool: return .bool(flag)
        case let text as String: return string(text)
        case let decimal as NSDecimalNumber: return string(decimal.stringValue)
        case let number as NSNumber:
            if let integer = Int64(exactly: number.doubleValue), "\(number)" == "\(integer)" { return .integer(integer) }
            return .real(number.doubleValue)
        case let number as any BinaryInteger: return .integer(Int64(truncatingIfNeeded: number))
        case let number as Double: return .real(number)
        case let number as Float: return .real(Double(number))
        case let date as Date:
            let dateClass = classReference("NSDate", ["NSDate"])
            return add(.dictionary(["NS.time": .real(date.timeIntervalSinceReferenceDate), "$class": dateClass]))
        case let data as Data: return add(.data(data))
        case let uuid as UUID:
            let bytes = withUnsafeBytes(of: uuid.uuid) { Data($0) }
            let uuidClass = classReference("NSUUID", ["NSUUID"])
            return add(.dictionary(["NS.uuidbytes": .data(bytes), "$class": uuidClass]))
        case let url as URL:
            let urlClass = classReference("NSURL", ["NSURL"])
            return add(.dictionary(["NS.base": .uid(0), "NS.relative": string(url.absoluteString), "$class": urlClass]))
        case let items as [Any]: return array(items.map { plain($0) })
        case let entries as [AnyHashable: Any]:
            return dictionary(
                entries.compactMap { key, item in (key.base as? String).map { (key: $0, value: plain(item)) } }
                    .sorted { $0.key < $1.key })
        default: return .uid(0)
        }
    }

    // MARK: The model

    private mutating func encode(_ model: NSManagedObjectModel) -> Int {
        rootIndex = reserve()
        for entity in model.entities {
            let index = reserve()
            entityIndexes[ObjectIdentifier(entity)] = index
            if let name = entity.name { entityNames[name] = index }
        }
        for entity in model.entities {
            for property in entity.properties { propertyIndexes[PropertyCopy(entity, property)] = reserve() }
        }
        for entity in model.entities { encode(entity) }
        let entities = knownKeysDictionary(
            model.entities.compactMap { entity in
                entityIndexes[ObjectIdentifier(entity)].map { (key: entity.name ?? "", value: .uid($0)) }
            })
        let identifiers = model.versionIdentifiers.map { plain($0.base) }
        let setClass = classReference("NSMutableSet", ["NSMutableSet", "NSSet"])
        let versionIdentifiers = add(.dictionary(["NS.objects": .array(identifiers), "$class": setClass]))
        var templates: [(key: String, value: PropertyListValue)] = []
        for (name, request) in model.fetchRequestTemplatesByName.sorted(by: { $0.key < $1.key }) {
            templates.append((name, fetchRequest(request, entity: nil)))
        }
        var fields: [String: PropertyListValue] = [
            "NSEntities": entities,
            "NSFetchRequestTemplates": templates.isEmpty ? .uid(0) : dictionary(templates, mutable: true),
            "NSVersionIdentifiers": versionIdentifiers,
            "$class": classReference("NSManagedObjectModel", ["NSManagedObjectModel"]),
        ]
        let configurations = model.configurations.sorted()
        if !configurations.isEmpty {
            var entries: [(key: String, value: PropertyListValue)] = []
            for name in configurations {
                let members = (model.entities(forConfigurationName: name) ?? []).compactMap { entity in
                    entityIndexes[ObjectIdentifier(entity)].map { PropertyListValue.uid($0) }
                }
                let setClass = classReference("NSSet", ["NSSet"])
                entries.append((name, add(.dictionary(["NS.objects": .array(members), "$class": setClass]))))
            }
            fields["NSConfigurations"] = dictionary(entries, mutable: true)
        }
        objects[rootIndex] = .dictionary(fields)
        return rootIndex
    }

    private mutating func encode(_ entity: NSEntityDescription) {
        guard let index = entityIndexes[ObjectIdentifier(entity)] else { return }
        let properties = entity.properties.compactMap { property in
            propertyIndexes[PropertyCopy(entity, property)].map { (key: property.name, value: PropertyListValue.uid($0)) }
        }
        for property in entity.properties { encode(property, of: index, in: entity) }
        let subentities = entity.subentities.compactMap { subentity in
            entityIndexes[ObjectIdentifier(subentity)].map { (key: subentity.name ?? "", value: PropertyListValue.uid($0)) }
        }
        var fields: [String: PropertyListValue] = [
            "NSEntityName": string(entity.name),
            "NSClassNameForEntity": string(entity.managedObjectClassName),
            "NSUserInfo": dictionary(userInfoEntries(entity.userInfo)),
            "NSSubentities": subentities.isEmpty ? .uid(0) : dictionary(subentities, mutable: true),
            "NSVersionHashModifier": string(entity.versionHashModifier),
            "NSProperties": dictionary(properties, mutable: true),
            "NSRenamingIdentifier": string(entity.renamingIdentifier ?? entity.name),
            "NSManagedObjectModel": .uid(rootIndex),
            "NSSuperentity": entity.superentity.flatMap { entityIndexes[ObjectIdentifier($0)] }.map { .uid($0) } ?? .uid(0),
            "$class": classReference("NSEntityDescription", ["NSEntityDescription"]),
        ]
        if entity.isAbstract { fields["NSIsAbstract"] = .bool(true) }
        func nameLists(_ lists: [[Any]]) -> PropertyListValue {
            array(
                lists.map { list in
                    array(
                        list.compactMap { ($0 as? String) ?? ($0 as? NSPropertyDescription)?.name }.map { string($0) },
                        mutable: true)
                }, mutable: true)
        }
        if !entity.uniquenessConstraints.isEmpty { fields["NSUniqueTuples"] = nameLists(entity.uniquenessConstraints) }
        if !entity.indexes.isEmpty || !entity.compoundIndexes.isEmpty {
            fields["NSCompoundIndexes"] = nameLists(entity.compoundIndexes)
            fields["NSFetchIndexDescriptions"] = array(entity.indexes.map { fetchIndex($0, entity: index) }, mutable: true)
        }
        objects[index] = .dictionary(fields)
    }

    private mutating func userInfoEntries(_ userInfo: [AnyHashable: Any]?) -> [(key: String, value: PropertyListValue)] {
        (userInfo ?? [:]).compactMap { key, value in (key.base as? String).map { (key: $0, value: plain(value)) } }
            .sorted { $0.key < $1.key }
    }

    private mutating func fetchIndex(_ index: NSFetchIndexDescription, entity: Int) -> PropertyListValue {
        let indexObject = reserve()
        let elementClass = classReference("NSFetchIndexElementDescription", ["NSFetchIndexElementDescription"])
        let elements = index.elements.map { element in
            add(
                .dictionary([
                    "NSPropertyName": string(element.propertyName ?? element.expressionFormat),
                    "NSFetchIndexElementType": .integer(Int64(element.collationType.rawValue)),
                    "NSAscending": .bool(element.isAscending),
                    "NSFetchIndexDescription": .uid(indexObject),
                    "$class": elementClass,
                ]))
        }
        objects[indexObject] = .dictionary([
            "NSIndexName": string(index.name),
            "NSPartialIndexPredicate": index.partialIndexPredicateFormat.map { predicate(NSPredicate(format: $0)) }
                ?? .uid(0),
            "NSIndexElements": array(elements, mutable: true),
            "NSEntity": .uid(entity),
            "$class": classReference("NSFetchIndexDescription", ["NSFetchIndexDescription"]),
        ])
        return .uid(indexObject)
    }

    private mutating func encode(_ property: NSPropertyDescription, of entity: Int, in owner: NSEntityDescription?) {
        guard let index = propertyIndexes[PropertyCopy(owner, property)] else { return }
        let predicates = property.validationPredicates
        let warnings = property.validationWarnings.compactMap { $0 as? String }
        let hasUserInfo = !(property.userInfo ?? [:]).isEmpty
        // `_P` repeats the flags and tells which optional parts are absent, as Apple writes it.
        var flags = 1
        if property.isOptional { flags |= 2 }
        if property.isReadOnly { flags |= 4 }
        if property.isTransient { flags |= 8 }
        if predicates.isEmpty { flags |= 16 }
        if warnings.isEmpty { flags |= 32 }
        if !hasUserInfo { flags |= 64 }
        if property.versionHashModifier == nil { flags |= 128 }
        var fields: [String: PropertyListValue] = [
            "NSPropertyName": string(property.name),
            "NSEntity": .uid(entity),
            "NSRenamingIdentifier": string(property.renamingIdentifier ?? property.name),
        ]
        if property.isOptional { fields["NSIsOptional"] = .bool(true) }
        if property.isTransient { fields["NSIsTransient"] = .bool(true) }
        if property.isReadOnly { fields["NSIsReadOnly"] = .bool(true) }
        if property.isIndexed { fields["NSIsIndexed"] = .bool(true) }
        if let modifier = property.versionHashModifier { fields["NSVersionHashModifier"] = string(modifier) }
        if hasUserInfo { fields["NSUserInfo"] = dictionary(userInfoEntries(property.userInfo)) }
        if !predicates.isEmpty {
            fields["NSValidationPredicates"] = array(predicates.map { predicate($0) })
            fields["NSValidationWarnings"] = array(warnings.map { string($0) })
        }
        switch property {
        case let relationship as NSRelationshipDescription:
            if relationship.isOrdered { flags |= 1024 }
            fields["NSDestinationEntity"] =
                relationship.destinationEntity.flatMap { entityIndexes[ObjectIdentifier($0)] }.map { .uid($0) } ?? .uid(0)
            fields["_NSDestinationEntityName"] = string(relationship.destinationName)
            fields["NSInverseRelationship"] =
                relationship.inverseRelationship.flatMap { inverse in
                    propertyIndexes[PropertyCopy(relationship.destinationEntity, inverse)]
                        ?? propertyIndexes[PropertyCopy(inverse.entity, inverse)]
                }.map { .uid($0) }
                ?? .uid(0)
            fields["_NSInverseRelationshipName"] = string(relationship.inverseRelationshipName)
            fields["NSMinCount"] = .integer(Int64(relationship.minCount))
            fields["NSMaxCount"] = .integer(Int64(Int32(truncatingIfNeeded: relationship.maxCount)))
            fields["NSDeleteRule"] = .integer(Int64(relationship.deleteRule.rawValue))
            if relationship.isOrdered { fields["NSIsOrdered"] = .bool(true) }
            fields["$class"] = classReference(
                "NSRelationshipDescription", ["NSRelationshipDescription", "NSPropertyDescription"])
        case let fetched as NSFetchedPropertyDescription:
            fields["_NSFetchRequestEntityName"] = string(fetched.fetchRequest?.entityName)
            fields["NSFetchRequest"] = fetched.fetchRequest.map { fetchRequest($0, entity: nil) } ?? .uid(0)
            fields["$class"] = classReference(
                "NSFetchedPropertyDescription", ["NSFetchedPropertyDescription", "NSPropertyDescription"])
        case let attribute as NSAttributeDescription:
            var attributeFlags = 0
            if attribute.allowsExternalBinaryDataStorage { attributeFlags |= 4 }
            if attribute.preservesValueInHistoryOnDeletion { attributeFlags |= 16 }
            fields["NSFlagsKey"] = .integer(Int64(attributeFlags))
            fields["NSAttributeType"] = .integer(Int64(attribute.attributeType.rawValue))
            fields["NSAttributeValueClassName"] = string(
                attribute.attributeValueClassName ?? Self.valueClassName(of: attribute.attributeType))
            fields["NSValueTransformerName"] = string(attribute.valueTransformerName)
            fields["NSDefaultValue"] = plain(attribute.defaultValue)
            if attribute.allowsCloudEncryption { fields["NSAllowsCloudEncryption"] = .bool(true) }
            if let composite = attribute as? NSCompositeAttributeDescription {
                fields["NSCompositeTypeName"] = string(composite.compositeTypeName)
                fields["NSCompositeElements"] = array(composite.elements.map { compositeElement($0) })
                fields["$class"] = classReference(
                    "NSCompositeAttributeDescription",
                    ["NSCompositeAttributeDescription", "NSAttributeDescription", "NSPropertyDescription"])
            } else if let derived = attribute as? NSDerivedAttributeDescription {
                fields["NSDerivationExpression"] =
                    derived.derivationExpressionFormat.map { expression(NSExpression(format: $0)) } ?? .uid(0)
                fields["NSFilteringPredicate"] = .uid(0)
                fields["$class"] = classReference(
                    "NSDerivedAttributeDescription",
                    ["NSDerivedAttributeDescription", "NSAttributeDescription", "NSPropertyDescription"])
            } else {
                fields["$class"] = classReference("NSAttributeDescription", ["NSAttributeDescription", "NSPropertyDescription"])
            }
        default:
            fields["$class"] = classReference("NSPropertyDescription", ["NSPropertyDescription"])
        }
        fields["_P"] = .integer(Int64(flags))
        objects[index] = .dictionary(fields)
    }

    /// An element of a composite attribute: an attribute of no entity, archived in place.
    private mutating func compositeElement(_ element: NSAttributeDescription) -> PropertyListValue {
        let index = reserve()
        propertyIndexes[PropertyCopy(nil, element)] = index
        encode(element, of: 0, in: nil)
        return .uid(index)
    }

    private mutating func fetchRequest(_ request: NSFetchRequest<NSFetchRequestResult>, entity: Int?) -> PropertyListValue {
        let sortClass = classReference("NSSortDescriptor", ["NSSortDescriptor"])
        let sorts = request.sortDescriptors.map { descriptors in
            array(
                descriptors.map { descriptor in
                    add(
                        .dictionary([
                            "NSKey": string(descriptor.key), "NSAscending": .bool(descriptor.ascending),
                            "NSSelector": string(descriptor.selectorName ?? "compare:"),
                            "NSReverseNullOrder": .bool(false), "$class": sortClass,
                        ]))
                })
        }
        let entityReference = request.entityName.flatMap { entityNames[$0] }.map { PropertyListValue.uid($0) } ?? .uid(0)
        return add(
            .dictionary([
                "NSEntityName": string(request.entityName),
                "NSEntity": entityReference,
                "NSPredicate": request.predicate.map { predicate($0) } ?? .uid(0),
                "NSSortDescriptors": sorts ?? .uid(0),
                "NSFetchLimit": .integer(Int64(request.fetchLimit)),
                "NSFetchOffset": .integer(Int64(request.fetchOffset)),
                "NSBatchSize": .integer(Int64(request.fetchBatchSize)),
                "NSResultType": .integer(Int64(request.resultType.rawValue)),
                "$class": classReference("NSFetchRequest", ["NSFetchRequest", "NSPersistentStoreRequest"]),
            ]))
    }

    /// The class of an attribute type's values, as Apple's archives name it.
    static func valueClassName(of type: NSAttributeType) -> String? {
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .doubleAttributeType,
            .floatAttributeType, .booleanAttributeType:
            "NSNumber"
        case .decimalAttributeType: "NSDecimalNumber"
        case .stringAttributeType: "NSString"
        case .dateAttributeType: "NSDate"
        case .binaryDataAttributeType: "NSData"
        case .UUIDAttributeType: "NSUUID"
        case .URIAttributeType: "NSURL"
        case .objectIDAttributeType: "NSManagedObjectID"
        default: nil
        }
    }

    // MARK: Predicates and expressions

    private mutating func predicate(_ predicate: NSPredicate) -> PropertyListValue {
        switch predicate {
        case let compound as Foundation.NSCompoundPredicate:
            let parts = compound.subpredicates.map { part in self.predicate(part) }
            return add(
                .dictionary([
                    "NSCompoundPredicateType": .integer(Int64(compound.compoundPredicateType.rawValue)),
                    "NSSubpredicates": array(parts),
                    "$class": classReference("NSCompoundPredicate", ["NSCompoundPredicate", "NSPredicate"]),
                ]))
        case let comparison as NSComparisonPredicate:
            let type = comparison.predicateOperatorType.rawValue
            let operatorClass: PropertyListValue
            var operatorFields: [String: PropertyListValue] = [
                "NSModifier": .integer(Int64(comparison.comparisonPredicateModifier.rawValue)),
                "NSOperatorType": .integer(Int64(type)),
                "NSOptions": .integer(Int64(comparison.options.rawValue)),
            ]
            switch comparison.predicateOperatorType {
            case .equalTo, .notEqualTo:
                operatorFields["NSNegate"] = .bool(comparison.predicateOperatorType == .notEqualTo)
                operatorFields["NSOperatorType"] = .integer(4)
                operatorClass = classReference(
                    "NSEqualityPredicateOperator", ["NSEqualityPredicateOperator", "NSPredicateOperator"])
            case .in, .contains:
                operatorFields["NSFlags"] = .integer(0)
                operatorClass = classReference("NSInPredicateOperator", ["NSInPredicateOperator", "NSPredicateOperator"])
            default:
                operatorFields["NSVariant"] = .integer(Int64(type))
                operatorClass = classReference(
                    "NSComparisonPredicateOperator", ["NSComparisonPredicateOperator", "NSPredicateOperator"])
            }
            operatorFields["$class"] = operatorClass
            let operation = add(.dictionary(operatorFields))
            return add(
                .dictionary([
                    "NSLeftExpression": expression(comparison.leftExpression),
                    "NSRightExpression": expression(comparison.rightExpression),
                    "NSPredicateOperator": operation,
                    "$class": classReference("NSComparisonPredicate", ["NSComparisonPredicate", "NSPredicate"]),
                ]))
        default:
            let value = predicate.evaluate(with: nil)
            let name = value ? "NSTruePredicate" : "NSFalsePredicate"
            return add(.dictionary(["$class": classReference(name, [name, "NSPredicate"])]))
        }
    }

    private mutating func keyPathSpecifier(_ keyPath: String) -> PropertyListValue {
        add(
            .dictionary([
                "NSExpressionType": .integer(10), "NSKeyPath": string(keyPath),
                "$class": classReference("NSKeyPathSpecifierExpression", ["NSKeyPathSpecifierExpression", "NSExpression"]),
            ]))
    }

    private mutating func expression(_ expression: NSExpression) -> PropertyListValue {
        switch expression.expressionType {
        case .constantValue:
            return add(
                .dictionary([
                    "NSExpressionType": .integer(0), "NSConstantValue": plain(expression.storedConstant),
                    "$class": classReference("NSConstantValueExpression", ["NSConstantValueExpression", "NSExpression"]),
                ]))
        case .evaluatedObject:
            return add(
                .dictionary([
                    "NSExpressionType": .integer(1),
                    "$class": classReference("NSSelfExpression", ["NSSelfExpression", "NSExpression"]),
                ]))
        case .variable:
            return add(
                .dictionary([
                    "NSExpressionType": .integer(2), "NSVariable": string(expression.variable),
                    "$class": classReference("NSVariableExpression", ["NSVariableExpression", "NSExpression"]),
                ]))
        case .keyPath:
            let selfExpression = self.expression(NSExpression.expressionForEvaluatedObject())
            return add(
                .dictionary([
                    "NSExpressionType": .integer(3), "NSOperand": selfExpression,
                    "NSSelectorName": string("valueForKey:"),
                    "NSArguments": array([keyPathSpecifier(expression.keyPath)], mutable: true),
                    "$class": classReference(
                        "NSKeyPathExpression", ["NSKeyPathExpression", "NSFunctionExpression", "NSExpression"]),
                ]))
        case .function:
            let utilities = add(
                .dictionary([
                    "NSExpressionType": .integer(0), "NSConstantValueClassName": string("_NSPredicateUtilities"),
                    "$class": classReference("NSConstantValueExpression", ["NSConstantValueExpression", "NSExpression"]),
                ]))
            let arguments = (expression.arguments ?? []).map { self.expression($0) }
            return add(
                .dictionary([
                    "NSExpressionType": .integer(4), "NSOperand": utilities, "NSSelectorName": string(expression.function),
                    "NSArguments": array(arguments),
                    "$class": classReference("NSFunctionExpression", ["NSFunctionExpression", "NSExpression"]),
                ]))
        case .aggregate:
            let items = ((expression.collection as? [NSExpression]) ?? []).map { self.expression($0) }
            return add(
                .dictionary([
                    "NSExpressionType": .integer(14), "NSCollection": array(items),
                    "$class": classReference("NSAggregateExpression", ["NSAggregateExpression", "NSExpression"]),
                ]))
        default:
            // Other kinds have no archived form here; their format keeps them readable.
            return add(
                .dictionary([
                    "NSExpressionType": .integer(0), "NSConstantValue": string(expression.description),
                    "$class": classReference("NSConstantValueExpression", ["NSConstantValueExpression", "NSExpression"]),
                ]))
        }
    }
}
