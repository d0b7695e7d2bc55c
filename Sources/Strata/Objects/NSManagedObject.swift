import Foundation

/// An object of a managed object model: the values of one instance of an entity, with
/// key-value access by property name.
///
/// Subclasses declare typed properties with `@Managed` (or get them generated from a model
/// file by Strata's build plugin):
///
/// ```swift
/// final class Book: NSManagedObject {
///     @Managed var title: String?
///     @Managed var pages: Int32
/// }
/// ```
open class NSManagedObject: NSObject, NSFetchRequestResult {
    /// The object's entity.
    public let entity: NSEntityDescription
    /// The context the object was inserted into or fetched by.
    public internal(set) weak var managedObjectContext: NSManagedObjectContext?

    /// Current values by property position (see `EntityLayout`). To-many relationships hold
    /// `NSSet` or `NSOrderedSet` of objects; to-one relationships hold the object.
    var values: [Any?]
    let layout: EntityLayout

    /// Creates an object of the entity and inserts it into the context, if one is given.
    /// Attributes start at their model default values.
    public required init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) {
        self.entity = entity
        self.layout = entity.layout
        self.values = layout.properties.map { property in
            (property as? NSAttributeDescription)?.defaultValue
        }
        super.init()
        if let context { context.insert(self) }
    }

    /// The base class's untyped request; a subclass's generated `fetchRequest()` returns a
    /// typed one and is preferred over this.
    @_disfavoredOverload
    public class func fetchRequest() -> NSFetchRequest<NSFetchRequestResult> {
        NSFetchRequest<NSFetchRequestResult>(entityName: entityNameForClass)
    }

    /// The entity name assumed for the class: its unqualified name.
    class var entityNameForClass: String {
        let name = String(describing: self)
        return name.split(separator: ".").last.map(String.init) ?? name
    }

    // MARK: Key-value access

    /// The value of a property: an attribute's value, a to-one relationship's object, or a
    /// to-many relationship's `NSSet` (`NSOrderedSet` when ordered).
    ///
    /// An unknown key returns `nil`; use `validateKey(_:)` to tell it from a nil value.
    open func value(forKey key: String) -> Any? {
        willAccessValue(forKey: key)
        defer { didAccessValue(forKey: key) }
        return primitiveValue(forKey: key)
    }

    /// Sets a property's value, with change notifications and relationship maintenance.
    open func setValue(_ value: Any?, forKey key: String) {
        willChangeValue(forKey: key)
        setPrimitiveValue(value, forKey: key)
        didChangeValue(forKey: key)
    }

    /// The stored value of a property, without access notifications.
    open func primitiveValue(forKey key: String) -> Any? {
        guard let index = layout.indexByName[key] else { return nil }
        let value = values[index]
        if value == nil, let relationship = layout.properties[index] as? NSRelationshipDescription, relationship.isToMany {
            return relationship.isOrdered ? NSOrderedSet() : NSSet()
        }
        return value
    }

    /// Sets the stored value of a property, without notifications. An unknown key is ignored.
    open func setPrimitiveValue(_ value: Any?, forKey key: String) {
        guard let index = layout.indexByName[key] else { return }
        values[index] = ManagedValueCoercion.storedValue(value, for: layout.properties[index])
    }

    /// The value at a key path such as `author.name`; to-many steps collect the values of
    /// each object into a set.
    open func value(forKeyPath keyPath: String) -> Any? {
        KeyPathValue.value(of: self, at: keyPath.split(separator: ".").map(String.init))
    }

    /// Sets the value at the end of a key path.
    open func setValue(_ value: Any?, forKeyPath keyPath: String) {
        var components = keyPath.split(separator: ".").map(String.init)
        guard let last = components.popLast() else { return }
        guard !components.isEmpty else {
            setValue(value, forKey: last)
            return
        }
        (self.value(forKeyPath: components.joined(separator: ".")) as? NSManagedObject)?.setValue(value, forKey: last)
    }

    /// Whether the entity has a property with this name.
    public func validateKey(_ key: String) -> Bool { layout.indexByName[key] != nil }

    /// A mutable set whose changes apply to the to-many relationship `key`.
    open func mutableSetValue(forKey key: String) -> NSMutableSet {
        ToManyRelationshipSet(object: self, key: key)
    }

    /// A mutable ordered set whose changes apply to the ordered to-many relationship `key`.
    open func mutableOrderedSetValue(forKey key: String) -> NSMutableOrderedSet {
        OrderedToManyRelationshipSet(object: self, key: key)
    }

    // MARK: Observation hooks

    /// Called before a property is read; overrides must call `super`.
    open func willAccessValue(forKey key: String?) {}
    /// Called after a property is read; overrides must call `super`.
    open func didAccessValue(forKey key: String?) {}
    /// Called before a property changes; overrides must call `super`.
    open func willChangeValue(forKey key: String) {}
    /// Called after a property changed; overrides must call `super`.
    open func didChangeValue(forKey key: String) {}

    open override var description: String {
        let pairs = layout.properties.enumerated().map { index, property -> String in
            let value = values[index]
            if let object = value as? NSManagedObject { return "\(property.name) = <\(object.entity.name ?? "?")>" }
            if let set = value as? NSSet { return "\(property.name) = <\(set.count) objects>" }
            if let set = value as? NSOrderedSet { return "\(property.name) = <\(set.count) ordered objects>" }
            return "\(property.name) = \(value.map { String(describing: $0) } ?? "nil")"
        }
        return "<\(type(of: self)): entity: \(entity.name ?? "?"); data: {\(pairs.joined(separator: "; "))}>"
    }
}

/// Reading values along key paths, across to-one and to-many relationships.
enum KeyPathValue {
    static func value(of object: NSManagedObject, at components: [String]) -> Any? {
        guard let first = components.first else { return object }
        let value = object.value(forKey: first)
        let rest = Array(components.dropFirst())
        guard !rest.isEmpty else { return value }
        switch value {
        case let next as NSManagedObject: return Self.value(of: next, at: rest)
        case let set as NSSet: return NSSet(array: set.allObjects.compactMap { collect($0, rest) })
        case let set as NSOrderedSet: return NSOrderedSet(array: set.array.compactMap { collect($0, rest) })
        default: return nil
        }
    }

    private static func collect(_ element: Any, _ rest: [String]) -> Any? {
        (element as? NSManagedObject).flatMap { value(of: $0, at: rest) }
    }
}
