import Foundation

/// Checks the values of batch requests against the model and brings them to the form stores
/// write: a wrong type, an unknown key, a relationship, a derived or transient attribute, or
/// no value for a required attribute without default is an `NSError`, before anything is
/// written.
struct BatchRowBuilder {
    let entity: NSEntityDescription
    private let layout: EntityLayout
    /// The row every insert starts from: attribute defaults, empty to-many relationships.
    let template: ValueRow
    /// Whether a position is an attribute a batch insert sets (stored, not derived).
    let isInsertable: [Bool]
    /// Stored attributes that need a value.
    private let required: [Int]

    init(entity: NSEntityDescription) {
        self.entity = entity
        layout = entity.layout
        var template = ValueRow(shape: layout.valueShape)
        var required: [Int] = []
        for index in layout.persistentIndexes {
            switch layout.kinds[index] {
            case .attribute:
                guard let attribute = layout.properties[index] as? NSAttributeDescription else { continue }
                template[index] = attribute.defaultValue
                if !attribute.isOptional && !(attribute is NSDerivedAttributeDescription) && attribute.defaultValue == nil {
                    required.append(index)
                }
            case .toMany:
                template[index] = [NSManagedObjectID]()
            default:
                continue
            }
        }
        self.template = template
        self.required = required
        let layout = self.layout
        isInsertable = layout.properties.indices.map { index in
            let property = layout.properties[index]
            return layout.kinds[index] == .attribute && !property.isTransient && !(property is NSDerivedAttributeDescription)
        }
    }

    /// The row a dictionary describes.
    func row(from dictionary: [String: Any]) throws -> BatchRow {
        var values = template
        var given: [Int] = []
        given.reserveCapacity(dictionary.count)
        for (key, value) in dictionary {
            try set(value, forKey: key, in: &values, given: &given)
        }
        return try finished(values, given: given)
    }

    /// The row a `BatchRowDictionary` collected: values already in place (of their stored
    /// types, at `given` positions) and the keys it kept as given.
    func row(values: ValueRow, given: [Int], others: [AnyHashable: Any]) throws -> BatchRow {
        guard !others.isEmpty else { return try finished(values, given: given) }
        var values = values
        var given = given
        for (key, value) in others {
            guard let name = key.base as? String else {
                throw BatchError.invalidValue(value, key: "\(key)", entity: entity, reason: "has a key that is not a string")
            }
            try set(value, forKey: name, in: &values, given: &given)
        }
        return try finished(values, given: given)
    }

    /// The row a `BatchRowDictionary` collected with nothing kept aside: every value already
    /// in place and of its stored type, `given` in layout order.
    func row(values: ValueRow, sortedGiven given: [Int]) throws -> BatchRow {
        for index in required where values[index] == nil {
            throw BatchError.missing(layout.properties[index].name, entity: entity)
        }
        return BatchRow(values: values, given: given)
    }

    /// Checks one key and value and puts the value in the row.
    private func set(_ value: Any, forKey key: String, in values: inout ValueRow, given: inout [Int]) throws {
        let index = try attributeIndex(key, value: value)
        // A value already of the attribute's stored type (the usual case for rows built in
        // Swift) is taken as it is, without trying the casts of coercion one by one.
        if let expected = layout.storedTypes[index], ObjectIdentifier(type(of: value)) == expected {
            values[index] = value
        } else {
            values[index] = try Self.storedValue(value, for: attribute(at: index), entity: entity)
        }
        if !given.contains(index) { given.append(index) }
    }

    /// The row once every given value is in: required attributes checked, `given` in order.
    private func finished(_ values: ValueRow, given: [Int]) throws -> BatchRow {
        for index in required where values[index] == nil {
            throw BatchError.missing(layout.properties[index].name, entity: entity)
        }
        return BatchRow(values: values, given: given.sorted())
    }

    /// The row a handler's object describes: its attributes as set (others keep defaults).
    func row(from object: NSManagedObject) throws -> BatchRow {
        var dictionary: [String: Any] = [:]
        for (index, property) in layout.properties.enumerated() {
            switch layout.kinds[index] {
            case .attribute where !property.isTransient && !(property is NSDerivedAttributeDescription):
                if let value = object.value(forKey: property.name) { dictionary[property.name] = value }
            case .toOne where object.value(forKey: property.name) != nil:
                throw BatchError.invalidValue(
                    nil, key: property.name, entity: entity, reason: "is a relationship, which a batch insert cannot set")
            default:
                continue
            }
        }
        return try row(from: dictionary)
    }

    /// The position of a key a batch insert may set.
    private func attributeIndex(_ key: String, value: Any) throws -> Int {
        guard let index = layout.index(of: key) else {
            throw BatchError.invalidValue(value, key: key, entity: entity, reason: "names no property of the entity")
        }
        let property = layout.properties[index]
        guard layout.kinds[index] == .attribute else {
            throw BatchError.invalidValue(
                value, key: key, entity: entity, reason: "is for a relationship, which a batch insert cannot set")
        }
        guard !property.isTransient, !(property is NSDerivedAttributeDescription) else {
            throw BatchError.invalidValue(value, key: key, entity: entity, reason: "is for an attribute that is not stored")
        }
        return index
    }

    private func attribute(at index: Int) -> NSAttributeDescription {
        // `attributeIndex` only gives positions of attributes.
        layout.properties[index] as? NSAttributeDescription ?? NSAttributeDescription()
    }

    /// A value in an attribute's stored form (`nil` for `NSNull`), or an error when it is not
    /// of the attribute's type.
    static func storedValue(_ value: Any?, for attribute: NSAttributeDescription, entity: NSEntityDescription) throws -> Any? {
        guard let value, !ManagedValueCoercion.isNull(value) else {
            if !attribute.isOptional { throw BatchError.missing(attribute.name, entity: entity) }
            return nil
        }
        if let composite = attribute as? NSCompositeAttributeDescription {
            if let problem = CompositeValues.problem(with: value, of: composite) {
                throw BatchError.invalidValue(value, key: attribute.name, entity: entity, reason: "is not valid: \(problem)")
            }
            return CompositeValues.dictionary(value)
        }
        switch attribute.attributeType {
        case .transformableAttributeType, .undefinedAttributeType, .objectIDAttributeType, .compositeAttributeType:
            return value
        default:
            guard let stored = ManagedValueCoercion.attributeValue(value, type: attribute.attributeType) else {
                throw BatchError.invalidValue(
                    value, key: attribute.name, entity: entity,
                    reason: "is not of the attribute's type (\(attribute.attributeType.rawValue))")
            }
            return stored
        }
    }

    /// The assignments of a batch update's `propertiesToUpdate`.
    func assignments(_ properties: [AnyHashable: Any]) throws -> [BatchAssignment] {
        var result: [BatchAssignment] = []
        for (key, value) in properties {
            let name: String
            switch key.base {
            case let text as String: name = text
            case let property as NSPropertyDescription: name = property.name
            default:
                throw BatchError.invalidValue(value, key: "\(key)", entity: entity, reason: "has a key that is not a property")
            }
            guard let index = layout.indexByName[name] else {
                throw BatchError.invalidValue(value, key: name, entity: entity, reason: "names no property of the entity")
            }
            guard layout.kinds[index] == .attribute, let attribute = layout.properties[index] as? NSAttributeDescription,
                !attribute.isTransient, !(attribute is NSDerivedAttributeDescription)
            else {
                throw BatchError.invalidValue(
                    value, key: name, entity: entity, reason: "is not a stored attribute, which a batch update can set")
            }
            if let expression = value as? NSExpression {
                if case .constant = expression.node {
                    let stored = try Self.storedValue(expression.storedConstant, for: attribute, entity: entity)
                    result.append(.init(index: index, attribute: attribute, value: .constant(stored)))
                } else {
                    result.append(.init(index: index, attribute: attribute, value: .expression(expression.node)))
                }
            } else {
                let stored = try Self.storedValue(value, for: attribute, entity: entity)
                result.append(.init(index: index, attribute: attribute, value: .constant(stored)))
            }
        }
        return result.sorted { $0.index < $1.index }
    }
}
