import Foundation

// Typed fetches: Foundation's `#Predicate` and `SortDescriptor` for managed objects,
// translated into the same predicate tree (and so the same SQL) as format strings.

extension _StrataPredicateFactory where Self == NSPredicate {
    /// The predicate of a `#Predicate`, or `nil` when it uses a form the predicate language
    /// has no equivalent for (as Apple's initializer does).
    ///
    /// ```swift
    /// request.predicate = NSPredicate(#Predicate<Todo> { $0.priority > 2 && $0.title != nil })
    /// ```
    public init?<Input>(_ predicate: Predicate<Input>) {
        guard let node = try? FoundationPredicateTranslation.node(from: predicate) else { return nil }
        self = PredicateObjects.predicate(for: node)
    }
}

extension NSSortDescriptor {
    /// The sort descriptor of a Foundation `SortDescriptor` (`SortDescriptor(\Todo.title)`).
    public convenience init<Compared>(_ sortDescriptor: SortDescriptor<Compared>) {
        let key = try? FoundationPredicateTranslation.sortKeys(from: [sortDescriptor]).first
        self.init(key: key?.key, ascending: key?.ascending ?? true, selector: key.map { Selector($0.comparison.rawValue) })
    }
}

extension NSManagedObjectContext {
    /// The objects of a class's entity that match a `#Predicate`, in the order of the sort
    /// descriptors: a typed fetch that runs in the store as a format-string fetch does.
    /// (A Strata addition.)
    ///
    /// ```swift
    /// let urgent = try context.fetch(Todo.self, predicate: #Predicate { $0.priority > 2 },
    ///                                sortBy: [SortDescriptor(\.title)], fetchLimit: 20)
    /// ```
    public func fetch<T: NSManagedObject>(
        _ type: T.Type, predicate: Predicate<T>? = nil, sortBy: [SortDescriptor<T>] = [], fetchLimit: Int = 0,
        fetchOffset: Int = 0
    ) throws -> [T] {
        try fetch(typedRequest(type, predicate: predicate, sortBy: sortBy, fetchLimit: fetchLimit, fetchOffset: fetchOffset))
    }

    /// The number of objects of a class's entity that match a `#Predicate`. (A Strata addition.)
    public func count<T: NSManagedObject>(_ type: T.Type, predicate: Predicate<T>? = nil) throws -> Int {
        try count(for: typedRequest(type, predicate: predicate, sortBy: [], fetchLimit: 0, fetchOffset: 0))
    }

    private func typedRequest<T: NSManagedObject>(
        _ type: T.Type, predicate: Predicate<T>?, sortBy: [SortDescriptor<T>], fetchLimit: Int, fetchOffset: Int
    ) throws -> NSFetchRequest<T> {
        guard let entity = T.entity(in: model) else {
            throw CoreDataError.make(NSCoreDataError, "\(T.self) is the class of no entity of the context's model.")
        }
        let request = NSFetchRequest<T>()
        request.entity = entity
        if let predicate {
            let model = model
            let node = try FoundationPredicateTranslation.node(from: predicate) { type in
                (type as? NSManagedObject.Type)?.entity(in: model)?.selfAndDescendants
            }
            request.predicate = PredicateObjects.predicate(for: node)
        }
        request.sortDescriptors = try FoundationPredicateTranslation.sortKeys(from: sortBy).map { key in
            NSSortDescriptor(key: key.key, ascending: key.ascending, selector: Selector(key.comparison.rawValue))
        }
        request.fetchLimit = fetchLimit
        request.fetchOffset = fetchOffset
        return request
    }
}

/// Typed predicates and sort descriptors as a fetch request's, throwing what the translation
/// finds (the SwiftData module's fetch descriptors).
package enum TypedFetchTranslation {
    /// `entities` answers the entities of a class's instances, for `is` and `as?`.
    package static func predicate<Input>(
        _ predicate: Predicate<Input>, entities: ((Any.Type) -> [NSEntityDescription]?)? = nil
    ) throws -> NSPredicate {
        PredicateObjects.predicate(for: try FoundationPredicateTranslation.node(from: predicate, entities: entities))
    }

    package static func sortDescriptors<Compared>(_ descriptors: [SortDescriptor<Compared>]) throws -> [NSSortDescriptor] {
        try FoundationPredicateTranslation.sortKeys(from: descriptors).map { key in
            NSSortDescriptor(key: key.key, ascending: key.ascending, selector: Selector(key.comparison.rawValue))
        }
    }
}

/// `#Predicate` and `SortDescriptor` name properties through key paths. A managed object's
/// properties are `@Managed` accessors, whose key paths Swift cannot name on Linux, so the
/// name is found by reading the key path on a probe object that records the keys it is
/// asked for.
extension NSManagedObject: _PredicateKeyPathNaming {
    public static func _predicateKeyName(for keyPath: AnyKeyPath) -> String? {
        KeyPathProbe.name(of: keyPath, root: self)
    }
}

/// Reads a key path on a stand-in object of its root class to learn the property names it
/// reads: `\Todo.owner?.name` reads `owner`, then `name` on the stand-in owner.
final class KeyPathProbe {
    private(set) var keys: [String] = []

    static func name(of keyPath: AnyKeyPath, root: NSManagedObject.Type) -> String? {
        guard let entity = ManagedObjectClasses.entity(for: root) else { return nil }
        let recorder = KeyPathProbe()
        let probe = recorder.object(of: root, entity: entity)
        _ = probe[keyPath: keyPath]
        return recorder.keys.isEmpty ? nil : recorder.keys.joined(separator: ".")
    }

    func object(of type: NSManagedObject.Type, entity: NSEntityDescription) -> NSManagedObject {
        let object = type.init(entity: entity, insertInto: nil)
        object.probe = self
        return object
    }

    /// Records a key read on a probe object and answers with a value of the property's type:
    /// a probe for a to-one destination, an empty collection for a to-many, a placeholder of
    /// the attribute's type otherwise (never nil, so non-optional accessors read safely).
    func read(_ key: String, on object: NSManagedObject) -> Any? {
        keys.append(key)
        guard let index = object.layout.indexByName[key] else { return nil }
        switch object.layout.kinds[index] {
        case .toOne:
            guard let destination = (object.layout.properties[index] as? NSRelationshipDescription)?.destinationEntity else {
                return nil
            }
            return self.object(of: ManagedObjectClasses.objectClass(for: destination), entity: destination)
        case .toMany(let ordered):
            return ordered ? NSOrderedSet() : NSSet()
        case .attribute:
            let attribute = object.layout.properties[index] as? NSAttributeDescription
            return attribute?.defaultValue ?? Self.placeholder(for: attribute?.attributeType ?? .undefinedAttributeType)
        case .other:
            return nil
        }
    }

    private static func placeholder(for type: NSAttributeType) -> Any? {
        switch type {
        case .integer16AttributeType: Int16(0)
        case .integer32AttributeType: Int32(0)
        case .integer64AttributeType: Int64(0)
        case .decimalAttributeType: Decimal(0)
        case .doubleAttributeType: Double(0)
        case .floatAttributeType: Float(0)
        case .stringAttributeType: ""
        case .booleanAttributeType: false
        case .dateAttributeType: Date(timeIntervalSinceReferenceDate: 0)
        case .binaryDataAttributeType: Data()
        case .UUIDAttributeType: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        case .URIAttributeType: URL(fileURLWithPath: "/")
        default: nil
        }
    }
}
