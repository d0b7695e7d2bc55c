import Foundation

/// An index the store keeps to make fetches fast (`<fetchIndex>` in a model file), made of
/// one or more elements.
///
/// ```swift
/// let byTitle = NSFetchIndexDescription(name: "byTitle",
///     elements: [NSFetchIndexElementDescription(property: title, collationType: .binary)])
/// entity.indexes = [byTitle]
/// ```
open class NSFetchIndexDescription: NSObject, @unchecked Sendable {
    /// The index's name; the SQLite index is `Z_<Entity>_<name>`.
    public var name: String
    /// The columns of the index, in order.
    public var elements: [NSFetchIndexElementDescription] {
        didSet { for element in elements { element.indexDescription = self } }
    }
    /// The entity the index belongs to.
    public internal(set) var entity: NSEntityDescription? {
        get { entityAnchor?.entity }
        set { entityAnchor = newValue?.anchor }
    }
    private weak var entityAnchor: EntityAnchor?
    /// A filter for a partial index, as a format string.
    public var partialIndexPredicateFormat: String?

    public init(name: String, elements: [NSFetchIndexElementDescription]?) {
        self.name = name
        self.elements = elements ?? []
        super.init()
        for element in self.elements { element.indexDescription = self }
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSFetchIndexDescription else { return false }
        return name == other.name && elements == other.elements
            && partialIndexPredicateFormat == other.partialIndexPredicateFormat
    }

    open override var hash: Int { name.hashValue }

    func copyDescription() -> NSFetchIndexDescription {
        let copy = NSFetchIndexDescription(name: name, elements: elements.map { $0.copyElement() })
        copy.partialIndexPredicateFormat = partialIndexPredicateFormat
        return copy
    }
}

/// One column of a fetch index: a property (or an expression), its order and collation.
open class NSFetchIndexElementDescription: NSObject, @unchecked Sendable {
    /// The kind of index structure. Raw values are Core Data's.
    public enum CollationType: UInt, Sendable {
        /// A B-tree, for equality and range queries.
        case binary = 0
        /// An R-tree, for spatial (bounding box) queries.
        case rTree = 1
    }

    /// The indexed property, once the element is part of an entity's index.
    public internal(set) weak var property: NSPropertyDescription?
    /// The indexed property's name, or `nil` for an expression element.
    public var propertyName: String?
    /// The expression of an expression-based element, as a format string.
    public var expressionFormat: String?
    /// The result type of an expression-based element (Xcode's `expressionType`).
    public var expressionTypeName: String?
    /// B-tree or R-tree.
    public var collationType: CollationType
    /// Whether the column is sorted ascending.
    public var isAscending: Bool = true
    /// The index the element belongs to.
    public internal(set) weak var indexDescription: NSFetchIndexDescription?

    /// An element for a property of the entity.
    public init(property: NSPropertyDescription, collationType: CollationType) {
        self.property = property
        self.propertyName = property.name
        self.collationType = collationType
        super.init()
    }

    /// An element for a property named in a model file, resolved when the model is complete.
    public init(propertyName: String, collationType: CollationType, ascending: Bool = true) {
        self.propertyName = propertyName
        self.collationType = collationType
        self.isAscending = ascending
        super.init()
    }

    /// An element for an expression.
    public init(expressionFormat: String, expressionTypeName: String?, collationType: CollationType) {
        self.expressionFormat = expressionFormat
        self.expressionTypeName = expressionTypeName
        self.collationType = collationType
        super.init()
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSFetchIndexElementDescription else { return false }
        return propertyName == other.propertyName && expressionFormat == other.expressionFormat
            && expressionTypeName == other.expressionTypeName && collationType == other.collationType
            && isAscending == other.isAscending
    }

    open override var hash: Int { propertyName?.hashValue ?? 0 }

    func copyElement() -> NSFetchIndexElementDescription {
        let copy: NSFetchIndexElementDescription
        if let expressionFormat {
            copy = NSFetchIndexElementDescription(
                expressionFormat: expressionFormat, expressionTypeName: expressionTypeName, collationType: collationType)
        } else {
            copy = NSFetchIndexElementDescription(propertyName: propertyName ?? "", collationType: collationType)
        }
        copy.isAscending = isAscending
        return copy
    }
}
