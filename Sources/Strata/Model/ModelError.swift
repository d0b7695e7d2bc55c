import Foundation

/// An error in a managed object model or its model file: what is wrong, and where.
///
/// Every error names the file and line when it comes from a model file and they are known,
/// and the entity and property it concerns.
///
/// ```swift
/// do {
///     let model = try NSManagedObjectModel.load(contentsOf: url)
/// } catch let error as ModelError {
///     print(error)   // Model.xcdatamodel/contents:12: entity Book, property author: …
/// }
/// ```
public struct ModelError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong.
    public enum Kind: Hashable, Sendable {
        /// The file could not be read.
        case unreadableFile(reason: String)
        /// The path is not an `.xcdatamodeld`, `.xcdatamodel`, `.momd`, `.mom` or `contents` file.
        case notAModelFile
        /// A model compiled by Apple's tools (a binary `.mom`, or a store's `Z_MODELCACHE`) is
        /// damaged or holds something that is not a managed object model.
        case damagedCompiledModel(reason: String)
        /// A versioned bundle names a current version it does not contain, or has no version.
        case missingModelVersion(name: String?)
        /// The XML is not well formed, or is not a Core Data model.
        case malformedXML(reason: String)
        /// A required XML attribute is missing from an element.
        case missingXMLAttribute(element: String, attribute: String)
        /// An XML attribute has a value that is not allowed there.
        case invalidXMLValue(attribute: String, value: String)
        /// Two entities have the same name.
        case duplicateEntityName
        /// An entity has two properties with the same name (inherited ones included).
        case duplicatePropertyName
        /// An entity has no name, or a property has none.
        case missingName
        /// An entity's parent entity is not in the model.
        case unknownParentEntity(name: String)
        /// Inheritance goes round in a circle.
        case inheritanceCycle
        /// A relationship has no destination entity, or one that is not in the model.
        case missingDestination(name: String?)
        /// A relationship's inverse does not exist on the destination entity.
        case missingInverse(name: String, entity: String)
        /// A relationship's inverse exists but does not point back to the relationship.
        case inverseDoesNotPointBack(inverse: String, pointsTo: String?)
        /// A uniqueness constraint names an attribute the entity does not have.
        case constraintOnUnknownAttribute(name: String)
        /// A uniqueness constraint names a property that cannot be constrained (a to-many
        /// relationship or a transient property).
        case constraintOnUnsupportedProperty(name: String)
        /// A fetch index names a property the entity does not have.
        case indexOnUnknownProperty(name: String)
        /// A derived attribute's expression is not one of the supported forms.
        case unsupportedDerivation(expression: String)
        /// A derived attribute's key path does not lead from the entity to a value.
        case unreachableDerivationKeyPath(keyPath: String)
        /// A default value is not a plain value of the attribute's type ("YES" for an
        /// integer); the attribute's default is what Core Data reads from it.
        case invalidDefaultValue(value: String)
        /// A non-transient attribute has the undefined type.
        case undefinedAttributeType
        /// A configuration lists an entity that is not in the model.
        case unknownConfigurationMember(configuration: String, entity: String)
        /// A fetch request template names an entity that is not in the model.
        case unknownTemplateEntity(template: String, entity: String)
        /// A composite attribute names a composite type the model does not declare.
        case unknownCompositeType(name: String)
        /// The minimum count of a relationship exceeds its maximum.
        case invalidRelationshipCount(min: Int, max: Int)
    }

    /// How serious a problem is.
    public enum Severity: Hashable, Sendable {
        /// The model cannot be used.
        case error
        /// Xcode warns about the problem but compiles the model, and Core Data runs with it
        /// (real apps ship such models), so Strata loads it too.
        case warning
    }

    public var kind: Kind
    /// The model file, when the error comes from one.
    public var file: URL?
    /// The line in the file, when known.
    public var line: Int?
    /// The entity concerned.
    public var entity: String?
    /// The property concerned.
    public var property: String?

    public init(_ kind: Kind, file: URL? = nil, line: Int? = nil, entity: String? = nil, property: String? = nil) {
        self.kind = kind
        self.file = file
        self.line = line
        self.entity = entity
        self.property = property
    }

    /// Whether the problem prevents using the model. What Xcode compiles, and Core Data
    /// runs with, is only a warning (apps ship such models): an inverse that does not point
    /// back or does not exist (the relationship then has no inverse), a default value that
    /// is no plain value of its type (it is read as Core Data reads it), relationship
    /// counts that no number satisfies (saves report them), and configurations or fetch
    /// request templates that name entities the model lacks (those names are skipped).
    /// DEVIATIONS.md lists which of these Xcode's behaviour could not be confirmed for.
    public var severity: Severity {
        switch kind {
        case .inverseDoesNotPointBack, .missingInverse, .invalidDefaultValue, .invalidRelationshipCount,
            .unknownConfigurationMember, .unknownTemplateEntity:
            .warning
        default: .error
        }
    }

    public var description: String {
        var location: [String] = []
        if let file { location.append(file.path + (line.map { ":\($0)" } ?? "")) }
        if let entity { location.append("entity \(entity)") }
        if let property { location.append("property \(property)") }
        let prefix = location.isEmpty ? "" : location.joined(separator: ", ") + ": "
        return prefix + message
    }

    /// What is wrong, in words.
    public var message: String {
        switch kind {
        case .unreadableFile(let reason): "the model file cannot be read (\(reason))"
        case .notAModelFile: "not an .xcdatamodeld bundle, .xcdatamodel directory, .momd, .mom or model contents file"
        case .damagedCompiledModel(let reason): "the compiled model cannot be read: \(reason)"
        case .missingModelVersion(let name?): "the model bundle has no version named \"\(name)\""
        case .missingModelVersion(nil): "the model bundle has no model version"
        case .malformedXML(let reason): "malformed model XML: \(reason)"
        case .missingXMLAttribute(let element, let attribute): "<\(element)> lacks the \(attribute) attribute"
        case .invalidXMLValue(let attribute, let value): "\(attribute)=\"\(value)\" is not a valid value"
        case .duplicateEntityName: "two entities have this name"
        case .duplicatePropertyName: "the entity has two properties with this name"
        case .missingName: "a name is required"
        case .unknownParentEntity(let name): "the parent entity \"\(name)\" is not in the model"
        case .inheritanceCycle: "the entity inherits from itself"
        case .missingDestination(let name?): "the destination entity \"\(name)\" is not in the model"
        case .missingDestination(nil): "the relationship has no destination entity"
        case .missingInverse(let name, let entity): "the inverse relationship \"\(name)\" does not exist on \(entity)"
        case .inverseDoesNotPointBack(let inverse, let pointsTo):
            "the inverse \"\(inverse)\" points back to \(pointsTo.map { "\"\($0)\"" } ?? "nothing"), not to this relationship"
        case .constraintOnUnknownAttribute(let name):
            "the uniqueness constraint names \"\(name)\", which the entity does not have"
        case .constraintOnUnsupportedProperty(let name):
            "the uniqueness constraint names \"\(name)\", which is transient or to-many and cannot be constrained"
        case .indexOnUnknownProperty(let name): "the fetch index names \"\(name)\", which the entity does not have"
        case .unsupportedDerivation(let expression): "the derivation \"\(expression)\" is not a supported form"
        case .unreachableDerivationKeyPath(let keyPath): "the derivation key path \"\(keyPath)\" is not reachable from the entity"
        case .invalidDefaultValue(let value):
            "the default value \"\(value)\" is not a value of the attribute's type; it is read as Core Data reads it"
        case .undefinedAttributeType: "a stored attribute must have a type (Undefined is only for transient attributes)"
        case .unknownConfigurationMember(let configuration, let entity):
            "configuration \"\(configuration)\" lists \"\(entity)\", which is not in the model"
        case .unknownTemplateEntity(let template, let entity):
            "fetch request template \"\(template)\" names \"\(entity)\", which is not in the model"
        case .unknownCompositeType(let name): "the composite type \"\(name)\" is not declared in the model"
        case .invalidRelationshipCount(let min, let max): "the minimum count \(min) exceeds the maximum count \(max)"
        }
    }
}

/// Several model errors found together; validation reports every problem at once.
public struct ModelErrors: Error, Sendable, CustomStringConvertible {
    public var errors: [ModelError]
    public var description: String { errors.map(\.description).joined(separator: "\n") }
}
