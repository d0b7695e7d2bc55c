import Foundation
import Testing

@testable import Strata

/// The references back to an entity (a property's `entity`, a relationship's destination, a
/// subentity's `superentity`, a fetch index's `entity`) go through the entity's anchor, so that
/// the entity itself has no weak reference (see `EntityAnchor`). They must still read as weak
/// references do: the entity while it lives, `nil` once it is gone.
@Suite struct EntityBackReferenceTests {
    @Test func backReferencesNameTheEntityWhileItLives() {
        let (parent, child, title, owner, index) = Self.entities()
        #expect(title.entity === child)
        #expect(owner.entity === child)
        #expect(owner.destinationEntity === parent)
        #expect(child.superentity === parent)
        #expect(index.entity === child)
        owner.destinationEntity = child
        #expect(owner.destinationEntity === child)
        owner.destinationEntity = nil
        #expect(owner.destinationEntity == nil)
        parent.subentities = []
        #expect(child.superentity == nil)
    }

    @Test func backReferencesReadNilOnceTheEntityIsGone() {
        weak var goneParent: NSEntityDescription?
        weak var goneChild: NSEntityDescription?
        let kept: (NSAttributeDescription, NSRelationshipDescription, NSFetchIndexDescription) = {
            let (parent, child, title, owner, index) = Self.entities()
            goneParent = parent
            goneChild = child
            return (title, owner, index)
        }()
        #expect(goneParent == nil)
        #expect(goneChild == nil)
        let (title, owner, index) = kept
        #expect(title.entity == nil)
        #expect(owner.entity == nil)
        #expect(owner.destinationEntity == nil)
        #expect(index.entity == nil)
    }

    /// A parent entity with a subentity that has an attribute, a relationship to the parent and
    /// a fetch index on the attribute. Only the returned values hold them.
    private static func entities() -> (
        NSEntityDescription, NSEntityDescription, NSAttributeDescription, NSRelationshipDescription,
        NSFetchIndexDescription
    ) {
        let parent = NSEntityDescription()
        parent.name = "Parent"
        let child = NSEntityDescription()
        child.name = "Child"
        parent.subentities = [child]
        let title = NSAttributeDescription()
        title.name = "title"
        title.attributeType = .stringAttributeType
        let owner = NSRelationshipDescription()
        owner.name = "owner"
        owner.destinationEntity = parent
        child.properties = [title, owner]
        let index = NSFetchIndexDescription(
            name: "byTitle", elements: [NSFetchIndexElementDescription(property: title, collationType: .binary)])
        child.indexes = [index]
        return (parent, child, title, owner, index)
    }
}
