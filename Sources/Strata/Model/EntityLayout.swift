import Foundation

/// An entity's properties by position, computed once: objects and snapshots keep their
/// values in arrays indexed by these positions, so value access needs no per-object
/// dictionaries.
final class EntityLayout: @unchecked Sendable {
    enum Kind: Equatable {
        case attribute
        case toOne
        case toMany(ordered: Bool)
        /// Fetched properties and other properties without a stored value.
        case other
    }

    let properties: [NSPropertyDescription]
    let indexByName: [String: Int]
    /// Each property's name and its UTF-8 length, for `index(of:)`.
    private let names: [String]
    private let nameLengths: [Int]
    let kinds: [Kind]
    /// The values a new object starts with: attribute defaults, empty relationships.
    let initialValues: [Any?]
    /// Indexes of the properties a store keeps (not transient, not fetched properties).
    let persistentIndexes: [Int]
    /// For each attribute, the Swift type its values are stored as, if there is one; a value
    /// set with exactly that type is stored without coercion.
    let storedTypes: [ObjectIdentifier?]
    /// Whether the property is a stored attribute with no rule but "required": any value it
    /// holds is valid, so that validation looks no further than whether there is one.
    let isRuleFreeAttribute: [Bool]
    /// The properties a save validates: attributes and relationships, not derived attributes
    /// (the store computes them) or fetched properties.
    let validatedIndexes: [Int]
    /// The positions whose value in an object is not the snapshot's: relationships (objects
    /// instead of IDs), transient attributes (their defaults) and fetched properties.
    let objectOnlyIndexes: [Int]

    init(entity: NSEntityDescription) {
        properties = entity.properties
        var indexByName: [String: Int] = [:]
        for (index, property) in properties.enumerated() where indexByName[property.name] == nil {
            indexByName[property.name] = index
        }
        self.indexByName = indexByName
        names = properties.map(\.name)
        nameLengths = names.map(\.utf8.count)
        let properties = self.properties
        let kinds: [Kind] = properties.map { property in
            switch property {
            case is NSAttributeDescription: .attribute
            case let relationship as NSRelationshipDescription:
                relationship.isToMany ? .toMany(ordered: relationship.isOrdered) : .toOne
            default: .other
            }
        }
        self.kinds = kinds
        initialValues = zip(properties, kinds).map { property, kind -> Any? in
            switch kind {
            case .attribute: (property as? NSAttributeDescription)?.defaultValue
            case .toMany: [NSManagedObject]()
            default: nil
            }
        }
        persistentIndexes = properties.indices.filter { index in
            !properties[index].isTransient && kinds[index] != .other
        }
        isRuleFreeAttribute = properties.map { property in
            guard let attribute = property as? NSAttributeDescription, !(attribute is NSDerivedAttributeDescription)
            else { return false }
            return !AttributeValidation.hasRules(attribute)
        }
        validatedIndexes = properties.indices.filter { index in
            kinds[index] != .other && !(properties[index] is NSDerivedAttributeDescription)
        }
        objectOnlyIndexes = properties.indices.filter { index in
            kinds[index] != .attribute || properties[index].isTransient
        }
        storedTypes = properties.map { property in
            guard let attribute = property as? NSAttributeDescription,
                let type = ManagedValueCoercion.storedType(of: attribute.attributeType)
            else { return nil }
            return ObjectIdentifier(type)
        }
    }

    /// The position of a property by name, as `indexByName` gives it. Most entities have a
    /// few properties, whose names are scanned: comparing a short string with names of other
    /// lengths costs less than hashing it (and typed accessors ask at every read and write).
    func index(of name: String) -> Int? {
        guard properties.count <= 16 else { return indexByName[name] }
        let length = name.utf8.count
        for index in names.indices where nameLengths[index] == length && names[index] == name {
            return index
        }
        return nil
    }

    func isToMany(_ index: Int) -> Bool {
        if case .toMany = kinds[index] { return true }
        return false
    }
}

extension NSEntityDescription {
    /// The entity's layout. Computed on first use; models must not change after that.
    /// Changing the entity's or an ancestor's properties, or its subentities, drops it.
    var layout: EntityLayout {
        layoutLock.lock()
        defer { layoutLock.unlock() }
        if let cached = cachedLayout { return cached }
        let layout = EntityLayout(entity: self)
        cachedLayout = layout
        return layout
    }
}
