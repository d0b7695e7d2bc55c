import Foundation
import Strata

/// A model reduced to what a diagram draws: entities with their attributes, relationships
/// paired with their inverses (one line per pair), and inheritance.
///
/// Everything is in name order, so a model always draws the same diagram.
struct ModelGraph {
    /// An entity's box.
    struct Entity {
        var name: String
        var isAbstract: Bool
        var parent: String?
        /// `(name, type)` of the attributes it declares.
        var attributes: [(name: String, type: String)]
    }

    /// One side of a link: the relationship from `source` (nil when the link has no
    /// relationship in that direction).
    struct End {
        var name: String
        var isToMany: Bool
        /// Whether the end may be empty: an optional to-one, or a to-many without a minimum.
        var isOptional: Bool

        init(_ relationship: NSRelationshipDescription) {
            name = relationship.name
            isToMany = relationship.isToMany
            isOptional = relationship.isToMany ? relationship.minCount == 0 : relationship.isOptional
        }
    }

    /// A relationship and its inverse, drawn as one line between `from` and `to`. `forward`
    /// is the relationship of `from` (it ends at `to`); `backward` the inverse, if any.
    struct Link {
        var from: String
        var to: String
        var forward: End
        var backward: End?

        /// "tags / todos", or "tags" without inverse.
        var label: String { forward.name + (backward.map { " / \($0.name)" } ?? "") }
    }

    var name: String
    var entities: [Entity]
    var links: [Link]

    init(_ model: NSManagedObjectModel, name: String) {
        self.name = name
        let sorted = model.entities.sorted { ($0.name ?? "") < ($1.name ?? "") }
        entities = sorted.map { entity in
            let attributes = entity.declaredProperties.compactMap { $0 as? NSAttributeDescription }.sorted { $0.name < $1.name }
            return Entity(
                name: entity.name ?? "", isAbstract: entity.isAbstract, parent: entity.superentity?.name,
                attributes: attributes.map {
                    ($0.name, ($0.attributeType.xcodeModelName ?? "Undefined") + ($0.isOptional ? "?" : ""))
                })
        }
        var links: [Link] = []
        var drawn = Set<String>()
        for entity in sorted {
            let relationships = entity.declaredProperties.compactMap { $0 as? NSRelationshipDescription }.sorted {
                $0.name < $1.name
            }
            for relationship in relationships {
                let from = entity.name ?? ""
                let to = relationship.destinationName ?? "?"
                guard drawn.insert("\(from).\(relationship.name)").inserted else { continue }
                var backward: End?
                if let inverse = relationship.inverseRelationship, inverse.inverseRelationship === relationship,
                    let inverseEntity = inverse.entity?.name
                {
                    drawn.insert("\(inverseEntity).\(inverse.name)")
                    backward = End(inverse)
                }
                links.append(
                    Link(
                        from: from, to: to,
                        forward: End(relationship),
                        backward: backward))
            }
        }
        self.links = links
    }
}
