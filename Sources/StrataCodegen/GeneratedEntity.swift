import Foundation
import Strata

/// What is generated for one entity: its class (for "Class Definition"), its properties
/// extension and its to-many accessors.
struct GeneratedEntity {
    /// Xcode's code generation choices that produce code.
    enum Kind {
        /// "Class Definition": the class and its properties.
        case classDefinition
        /// "Category/Extension": the properties; the application declares the class.
        case category
    }

    let entityName: String
    let className: String
    let superclassName: String
    let kind: Kind
    /// Whether the entity declares `Identifiable` (root entities only: subclasses inherit
    /// the conformance, and restating it is an error in Swift).
    let declaresIdentifiable: Bool
    let properties: [GeneratedProperty]
    let toManyRelationships: [GeneratedProperty.ToMany]

    /// The entities of the model that generate code, in name order.
    static func plan(_ model: NSManagedObjectModel, moduleName: String?) throws(CodegenError) -> [GeneratedEntity] {
        let entities = model.entities.sorted { ($0.name ?? "") < ($1.name ?? "") }
        var classOwners: [String: String] = [:]
        var planned: [GeneratedEntity] = []
        for entity in entities {
            guard let name = entity.name, let kind = Kind(codeGenerationType: entity.codeGenerationType) else { continue }
            let className = try ClassNaming.className(of: entity)
            if let other = classOwners[className] {
                throw CodegenError(.duplicateClassName(className, otherEntity: other), entity: name)
            }
            classOwners[className] = name
            let properties = try GeneratedProperty.properties(of: entity, moduleName: moduleName)
            planned.append(
                GeneratedEntity(
                    entityName: name,
                    className: className,
                    superclassName: try entity.superentity.map(ClassNaming.className(of:)) ?? "NSManagedObject",
                    kind: kind,
                    declaresIdentifiable: entity.superentity == nil,
                    properties: properties,
                    toManyRelationships: properties.compactMap(\.toMany)
                )
            )
        }
        return planned
    }
}

extension GeneratedEntity.Kind {
    /// The kind for a model file's `codeGenerationType`; `nil` for "Manual/None".
    init?(codeGenerationType: String?) {
        switch codeGenerationType {
        case "class": self = .classDefinition
        case "category": self = .category
        default: return nil
        }
    }
}

/// The Swift class names of entities.
enum ClassNaming {
    /// The Swift class of an entity's objects: the model's class name without module
    /// qualification. An entity whose code is generated but whose class is left as
    /// `NSManagedObject` gets a class named after the entity, as Xcode's editor does.
    ///
    /// Throws when the name cannot be a Swift class name, since generated code refers to it.
    static func className(of entity: NSEntityDescription) throws(CodegenError) -> String {
        var className = SwiftIdentifier.unqualifiedClassName(entity.managedObjectClassName ?? "")
        let isGenerated = GeneratedEntity.Kind(codeGenerationType: entity.codeGenerationType) != nil
        if isGenerated, className.isEmpty || className == "NSManagedObject", let name = entity.name {
            className = name
        } else if className.isEmpty {
            className = "NSManagedObject"
        }
        guard SwiftIdentifier.isValid(className) else {
            throw CodegenError(.invalidClassName(className), entity: entity.name ?? "")
        }
        return className
    }
}
