import Foundation
import Strata

/// A `@Managed` property of a generated properties extension.
struct GeneratedProperty {
    /// A to-many relationship, which also gets Xcode's generated accessors.
    struct ToMany {
        /// The relationship's name: the key the accessors change.
        let key: String
        /// The class of the relationship's objects.
        let elementClassName: String
        let isOrdered: Bool
    }

    /// The property's name as declared (in backticks when it is a keyword).
    let declaredName: String
    /// The property's Swift type, as Xcode's generated classes spell it.
    let swiftType: String
    let toMany: ToMany?

    /// The entity's own attributes and relationships, attributes first, each in name order
    /// as Xcode lists them. Inherited properties belong to the superclass; fetched
    /// properties get no generated property.
    static func properties(of entity: NSEntityDescription, moduleName: String?) throws(CodegenError) -> [GeneratedProperty] {
        let own = entity.declaredProperties.sorted { $0.name < $1.name }
        var properties: [GeneratedProperty] = []
        for attribute in own.compactMap({ $0 as? NSAttributeDescription }) {
            try check(attribute, of: entity)
            properties.append(
                GeneratedProperty(
                    declaredName: SwiftIdentifier.declared(attribute.name),
                    swiftType: SwiftTypeMapping.swiftType(of: attribute, moduleName: moduleName),
                    toMany: nil
                )
            )
        }
        for relationship in own.compactMap({ $0 as? NSRelationshipDescription }) {
            try check(relationship, of: entity)
            let destination = try relationship.destinationEntity.map(ClassNaming.className(of:)) ?? "NSManagedObject"
            properties.append(
                GeneratedProperty(
                    declaredName: SwiftIdentifier.declared(relationship.name),
                    swiftType: SwiftTypeMapping.swiftType(of: relationship, destinationClassName: destination),
                    toMany: relationship.isToMany
                        ? ToMany(key: relationship.name, elementClassName: destination, isOrdered: relationship.isOrdered)
                        : nil
                )
            )
        }
        return properties
    }

    private static func check(_ property: NSPropertyDescription, of entity: NSEntityDescription) throws(CodegenError) {
        guard SwiftIdentifier.isValid(property.name) else {
            throw CodegenError(.invalidPropertyName(property.name), entity: entity.name ?? "", property: property.name)
        }
    }
}
