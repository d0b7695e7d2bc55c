import Foundation

extension NSManagedObjectModel {
    /// Every problem of the model, in model order: names, inheritance, relationships and
    /// their inverses, constraints, indexes, derivations, default values, configurations
    /// and templates, each with its severity. An empty array means the model is clean.
    public func validationErrors() -> [ModelError] {
        var errors: [ModelError] = []
        var seenEntities = Set<String>()
        let byName = entitiesByName
        for entity in entities {
            guard let name = entity.name, !name.isEmpty else {
                errors.append(ModelError(.missingName, line: entity.modelFileLine))
                continue
            }
            if !seenEntities.insert(name).inserted {
                errors.append(ModelError(.duplicateEntityName, line: entity.modelFileLine, entity: name))
            }
            if let parent = entity.superentity, parent.name.flatMap({ byName[$0] }) !== parent {
                errors.append(ModelError(.unknownParentEntity(name: parent.name ?? ""), line: entity.modelFileLine, entity: name))
            }
            errors += ModelValidator(entity: entity, model: self).errors()
        }
        for configuration in configurations {
            for member in configurationMemberNames(configuration) where byName[member] == nil {
                errors.append(ModelError(.unknownConfigurationMember(configuration: configuration, entity: member)))
            }
        }
        for (templateName, template) in fetchRequestTemplatesByName.sorted(by: { $0.key < $1.key }) {
            if let entityName = template.entityName, byName[entityName] == nil {
                errors.append(ModelError(.unknownTemplateEntity(template: templateName, entity: entityName)))
            }
        }
        return errors
    }

    /// Throws every problem of the model together when one of them is an error (see
    /// `ModelError.severity`); a model with only warnings is valid.
    public func validate() throws(ModelErrors) {
        let errors = validationErrors()
        if errors.contains(where: { $0.severity == .error }) { throw ModelErrors(errors: errors) }
    }
}

/// The checks of one entity.
private struct ModelValidator {
    let entity: NSEntityDescription
    let model: NSManagedObjectModel

    private var entityName: String { entity.name ?? "" }

    private func error(_ kind: ModelError.Kind, _ property: NSPropertyDescription? = nil) -> ModelError {
        ModelError(kind, line: property?.modelFileLine ?? entity.modelFileLine, entity: entityName, property: property?.name)
    }

    func errors() -> [ModelError] {
        var errors: [ModelError] = []
        if hasInheritanceCycle() {
            return [error(.inheritanceCycle)]
        }
        var seen = Set<String>()
        let byName = entity.propertiesByName
        for property in entity.properties {
            if property.name.isEmpty {
                errors.append(error(.missingName, property))
            } else if !seen.insert(property.name).inserted {
                errors.append(error(.duplicatePropertyName, property))
            }
        }
        for property in entity.declaredProperties {
            switch property {
            case let derived as NSDerivedAttributeDescription: errors += derivationErrors(derived)
            case let attribute as NSAttributeDescription: errors += attributeErrors(attribute)
            case let relationship as NSRelationshipDescription: errors += relationshipErrors(relationship)
            default: break
            }
        }
        for constraint in entity.uniquenessConstraints {
            for element in constraint {
                let name = (element as? String) ?? (element as? NSPropertyDescription)?.name ?? String(describing: element)
                guard let property = byName[name] else {
                    errors.append(error(.constraintOnUnknownAttribute(name: name)))
                    continue
                }
                if property.isTransient || (property as? NSRelationshipDescription)?.isToMany == true
                    || property is NSFetchedPropertyDescription
                {
                    errors.append(error(.constraintOnUnsupportedProperty(name: name)))
                }
            }
        }
        for index in entity.indexes {
            for element in index.elements where element.expressionFormat == nil {
                let name = element.propertyName ?? ""
                if byName[name] == nil { errors.append(error(.indexOnUnknownProperty(name: name))) }
            }
        }
        for compound in entity.compoundIndexNames {
            for name in compound where byName[name] == nil {
                errors.append(error(.indexOnUnknownProperty(name: name)))
            }
        }
        return errors
    }

    private func hasInheritanceCycle() -> Bool {
        var visited = Set<ObjectIdentifier>()
        var current: NSEntityDescription? = entity
        while let candidate = current {
            if !visited.insert(ObjectIdentifier(candidate)).inserted { return true }
            current = candidate.superentity
        }
        return false
    }

    private func attributeErrors(_ attribute: NSAttributeDescription) -> [ModelError] {
        var errors: [ModelError] = []
        if attribute.attributeType == .undefinedAttributeType, !attribute.isTransient {
            errors.append(error(.undefinedAttributeType, attribute))
        }
        if let text = attribute.invalidDefaultValueText {
            errors.append(error(.invalidDefaultValue(value: text), attribute))
        }
        if attribute.attributeType == .compositeAttributeType, let name = attribute.compositeTypeName,
            !model.compositeTypes.contains(where: { $0.name == name })
        {
            errors.append(error(.unknownCompositeType(name: name), attribute))
        }
        return errors
    }

    private func relationshipErrors(_ relationship: NSRelationshipDescription) -> [ModelError] {
        var errors: [ModelError] = []
        guard let destination = relationship.destinationEntity, destination.managedObjectModel === model else {
            return [error(.missingDestination(name: relationship.destinationName), relationship)]
        }
        if relationship.maxCount > 0, relationship.minCount > relationship.maxCount {
            errors.append(error(.invalidRelationshipCount(min: relationship.minCount, max: relationship.maxCount), relationship))
        }
        if let inverseName = relationship.inverseRelationshipName {
            let inverseEntityName = relationship.inverseEntityNameInModel ?? destination.name ?? ""
            guard let inverse = relationship.inverseRelationship else {
                errors.append(error(.missingInverse(name: inverseName, entity: inverseEntityName), relationship))
                return errors
            }
            let pointsBack = inverse.inverseRelationship
            let backName = inverse.inverseRelationshipName
            if backName != relationship.name
                || (pointsBack != nil && pointsBack !== relationship)
            {
                errors.append(error(.inverseDoesNotPointBack(inverse: inverseName, pointsTo: backName), relationship))
            }
        }
        return errors
    }

    private func derivationErrors(_ attribute: NSDerivedAttributeDescription) -> [ModelError] {
        guard let format = attribute.derivationExpressionFormat else {
            return [error(.unsupportedDerivation(expression: ""), attribute)]
        }
        guard let derivation = attribute.derivation else {
            return [error(.unsupportedDerivation(expression: format), attribute)]
        }
        guard let keyPath = derivation.sourceKeyPath else { return [] }
        if !isReachable(keyPath, for: derivation) {
            return [error(.unreachableDerivationKeyPath(keyPath: keyPath), attribute)]
        }
        if case .sum(_, let attributeName) = derivation, !sumAttributeExists(derivation, attributeName) {
            return [error(.unreachableDerivationKeyPath(keyPath: format), attribute)]
        }
        return []
    }

    /// Whether a key path leads from the entity to a value: every component but the last is
    /// a to-one relationship, except for aggregates, whose path ends in a to-many relationship.
    private func isReachable(_ keyPath: String, for derivation: NSDerivedAttributeDescription.Derivation) -> Bool {
        let components = keyPath.split(separator: ".").map(String.init)
        var current = entity
        for (offset, name) in components.enumerated() {
            guard let property = current.propertiesByName[name] else { return false }
            let isLast = offset == components.count - 1
            if let relationship = property as? NSRelationshipDescription {
                guard let destination = relationship.destinationEntity else { return false }
                switch derivation {
                case .count, .sum:
                    if isLast { return relationship.isToMany }
                    if relationship.isToMany { return false }
                default:
                    if relationship.isToMany || isLast { return false }
                }
                current = destination
            } else {
                switch derivation {
                case .count, .sum: return false
                default: return isLast && property is NSAttributeDescription
                }
            }
        }
        return false
    }

    private func sumAttributeExists(_ derivation: NSDerivedAttributeDescription.Derivation, _ attributeName: String) -> Bool {
        guard case .sum(let path, _) = derivation else { return true }
        var current = entity
        for name in path.split(separator: ".").map(String.init) {
            guard let destination = (current.propertiesByName[name] as? NSRelationshipDescription)?.destinationEntity else {
                return false
            }
            current = destination
        }
        return current.attributesByName[attributeName]?.attributeType.isNumeric == true
    }
}
