import Foundation

extension NSManagedObjectModel {
    /// Builds a model in code, concisely:
    ///
    /// ```swift
    /// let model = NSManagedObjectModel {
    ///     Entity("Todo") {
    ///         Attribute("todoId", .UUIDAttributeType, optional: false)
    ///         Attribute("title", .stringAttributeType, optional: false, defaultValue: "")
    ///         Relationship("tags", to: "Tag", inverse: "todos", toMany: true)
    ///         Unique("todoId")
    ///         FetchIndex("byTitle", "title")
    ///     }
    ///     Entity("Tag") {
    ///         Attribute("title", .stringAttributeType)
    ///         Relationship("todos", to: "Todo", inverse: "tags", toMany: true)
    ///     }
    /// }
    /// ```
    ///
    /// Relationships name their destination and inverse; they are resolved once all entities
    /// exist, and `validationErrors()` reports any that do not resolve.
    public convenience init(@ModelBuilder _ entities: () -> [Entity]) {
        self.init()
        let specs = entities()
        let built = specs.map { $0.makeEntity() }
        let byName = Dictionary(built.compactMap { entity in entity.name.map { ($0, entity) } }, uniquingKeysWith: { a, _ in a })
        for (spec, entity) in zip(specs, built) {
            if let parent = spec.parent, let parentEntity = byName[parent] {
                parentEntity.subentities.append(entity)
            }
        }
        self.entities = built
        adoptEntities()
        declareCompositeTypes()
    }
}

extension NSManagedObjectModel {
    /// Declares, in `compositeTypes`, the composite type of every composite attribute (and of
    /// composites nested in them) that names a type the model does not declare yet: a model built
    /// in code declares its types through its attributes, as a model file does with `<composite>`.
    /// A composite whose type name is declared with other elements (two Swift types of one
    /// name) gets a name of its own (`Place2`): a model file holds one type per name.
    package func declareCompositeTypes() {
        var declared = Dictionary(compositeTypes.map { ($0.name, $0.elements) }, uniquingKeysWith: { first, _ in first })
        func visit(_ attribute: NSAttributeDescription, depth: Int) {
            guard depth < CompositeValues.depthLimit, let composite = attribute as? NSCompositeAttributeDescription else {
                return
            }
            for element in composite.elements { visit(element, depth: depth + 1) }
            guard let base = composite.compositeTypeName else { return }
            var name = base
            var suffix = 1
            while let elements = declared[name], elements != composite.elements {
                suffix += 1
                name = base + String(suffix)
            }
            composite.compositeTypeName = name
            guard declared[name] == nil else { return }
            let type = NSCompositeAttributeDescription()
            type.name = name
            type.elements = composite.elements.compactMap { $0.copy() as? NSAttributeDescription }
            declared[name] = type.elements
            compositeTypes.append(type)
        }
        for entity in entities {
            for case let attribute as NSAttributeDescription in entity.declaredProperties { visit(attribute, depth: 0) }
        }
    }
}

/// The result builder of `NSManagedObjectModel.init(_:)`.
@resultBuilder
public enum ModelBuilder {
    public static func buildExpression(_ entity: Entity) -> [Entity] { [entity] }
    public static func buildBlock(_ parts: [Entity]...) -> [Entity] { parts.flatMap { $0 } }
    public static func buildOptional(_ part: [Entity]?) -> [Entity] { part ?? [] }
    public static func buildEither(first: [Entity]) -> [Entity] { first }
    public static func buildEither(second: [Entity]) -> [Entity] { second }
    public static func buildArray(_ parts: [[Entity]]) -> [Entity] { parts.flatMap { $0 } }
}

/// The result builder of an entity's members in `Entity(_:parent:abstract:className:_:)`.
@resultBuilder
public enum EntityMemberBuilder {
    public static func buildExpression(_ member: some EntityMember) -> [any EntityMember] { [member] }
    public static func buildBlock(_ parts: [any EntityMember]...) -> [any EntityMember] { parts.flatMap { $0 } }
    public static func buildOptional(_ part: [any EntityMember]?) -> [any EntityMember] { part ?? [] }
    public static func buildEither(first: [any EntityMember]) -> [any EntityMember] { first }
    public static func buildEither(second: [any EntityMember]) -> [any EntityMember] { second }
    public static func buildArray(_ parts: [[any EntityMember]]) -> [any EntityMember] { parts.flatMap { $0 } }
}

/// Something declared inside an `Entity` of a model built in code.
public protocol EntityMember {
    /// Adds the member to the entity being built.
    func add(to entity: NSEntityDescription)
}

/// An entity of a model built in code; `parent` names its superentity.
public struct Entity {
    let name: String
    let parent: String?
    let isAbstract: Bool
    let className: String?
    let members: [any EntityMember]

    public init(
        _ name: String, parent: String? = nil, abstract: Bool = false, className: String? = nil,
        @EntityMemberBuilder _ members: () -> [any EntityMember] = { [] }
    ) {
        self.name = name
        self.parent = parent
        self.isAbstract = abstract
        self.className = className
        self.members = members()
    }

    func makeEntity() -> NSEntityDescription {
        let entity = NSEntityDescription()
        entity.name = name
        entity.isAbstract = isAbstract
        entity.managedObjectClassName = className ?? "NSManagedObject"
        for member in members { member.add(to: entity) }
        return entity
    }
}

/// An attribute of an entity built in code. `defaultValue` is of the type's Swift type
/// (`String`, `Int16`, `Date`…).
public struct Attribute: EntityMember {
    let attribute = NSAttributeDescription()

    public init(
        _ name: String, _ type: NSAttributeType, optional: Bool = true, transient: Bool = false,
        defaultValue: Any? = nil, configure: (NSAttributeDescription) -> Void = { _ in }
    ) {
        attribute.name = name
        attribute.attributeType = type
        attribute.isOptional = optional
        attribute.isTransient = transient
        attribute.defaultValue = defaultValue
        configure(attribute)
    }

    public func add(to entity: NSEntityDescription) { entity.properties.append(attribute) }
}

/// A composite attribute of an entity built in code, with its elements (attributes, and
/// composites nested in it): `CompositeAttribute("magnitude") { Attribute("richter", .doubleAttributeType) }`.
public struct CompositeAttribute: EntityMember {
    let attribute = NSCompositeAttributeDescription()

    /// `type` names the composite type (as a model file's `<composite name>`); by default the
    /// attribute's name with its first letter upper-cased.
    public init(
        _ name: String, type: String? = nil, optional: Bool = true, @EntityMemberBuilder elements: () -> [any EntityMember]
    ) {
        attribute.name = name
        attribute.compositeTypeName = type ?? name.prefix(1).uppercased() + name.dropFirst()
        attribute.isOptional = optional
        attribute.elements = elements().compactMap { element in
            (element as? Attribute)?.attribute ?? (element as? CompositeAttribute)?.attribute
        }
    }

    public func add(to entity: NSEntityDescription) { entity.properties.append(attribute) }
}

/// A derived attribute computed at save from an expression (`"uppercase:(title)"`,
/// `"tags.@count"`, `"now()"`…).
public struct DerivedAttribute: EntityMember {
    let attribute = NSDerivedAttributeDescription()

    public init(_ name: String, _ type: NSAttributeType, expression: String, optional: Bool = true) {
        attribute.name = name
        attribute.attributeType = type
        attribute.derivationExpressionFormat = expression
        attribute.isOptional = optional
    }

    public func add(to entity: NSEntityDescription) { entity.properties.append(attribute) }
}

/// A relationship to the entity named `destination`: to-many when `toMany` (with no upper
/// bound unless `maxCount` says otherwise), to-one otherwise.
public struct Relationship: EntityMember {
    let relationship = NSRelationshipDescription()

    public init(
        _ name: String, to destination: String, inverse: String? = nil, toMany: Bool = false,
        ordered: Bool = false, optional: Bool = true, deleteRule: NSDeleteRule = .nullifyDeleteRule,
        minCount: Int = 0, maxCount: Int? = nil
    ) {
        relationship.name = name
        relationship.destinationEntityName = destination
        relationship.inverseName = inverse
        relationship.inverseEntityName = inverse == nil ? nil : destination
        relationship.maxCount = maxCount ?? (toMany ? 0 : 1)
        relationship.minCount = minCount
        relationship.isOrdered = ordered
        relationship.isOptional = optional
        relationship.deleteRule = deleteRule
    }

    public func add(to entity: NSEntityDescription) { entity.properties.append(relationship) }
}

/// A uniqueness constraint over one attribute or, with several, a compound key.
public struct Unique: EntityMember {
    let attributes: [String]

    public init(_ attributes: String...) { self.attributes = attributes }

    public func add(to entity: NSEntityDescription) { entity.uniquenessConstraints.append(attributes) }
}

/// An ascending B-tree fetch index over the given properties.
public struct FetchIndex: EntityMember {
    let name: String
    let properties: [String]

    public init(_ name: String, _ properties: String...) {
        self.name = name
        self.properties = properties
    }

    public func add(to entity: NSEntityDescription) {
        let elements = properties.map { NSFetchIndexElementDescription(propertyName: $0, collationType: .binary) }
        entity.indexes.append(NSFetchIndexDescription(name: name, elements: elements))
    }
}
