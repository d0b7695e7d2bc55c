import Foundation

/// An attribute made of named elements (Xcode 15's composite attributes), each of which is
/// itself an attribute. The model file declares composite types once, with `<composite>`,
/// and attributes of type Composite refer to them by name.
open class NSCompositeAttributeDescription: NSAttributeDescription, @unchecked Sendable {
    /// The attributes that make up a value of this composite.
    public var elements: [NSAttributeDescription] = []

    public override init() {
        super.init()
        attributeType = .compositeAttributeType
    }

    override class func makeEmpty() -> NSPropertyDescription { NSCompositeAttributeDescription() }

    open override func copy(with zone: NSZone? = nil) -> Any {
        let copy = super.copy(with: zone)
        (copy as? NSCompositeAttributeDescription)?.elements = elements.compactMap {
            $0.copy() as? NSAttributeDescription
        }
        return copy
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard super.isEqual(object), let other = object as? NSCompositeAttributeDescription else { return false }
        return elements == other.elements
    }
}
