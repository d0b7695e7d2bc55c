import Foundation
import Strata
import Synchronization

/// What Strata reads once from a model class's `schemaMetadata`: its entity's name and each
/// persisted property's kind, found from the type of its key path.
final class ModelTypeInfo: @unchecked Sendable {
    /// A persisted property.
    struct Property {
        enum Kind {
            /// A value (the Swift type without its optional).
            case attribute(Any.Type)
            /// One model (`Trip` or `Trip?`).
            case toOne(any PersistentModel.Type)
            /// Several (`[Stop]`, `[Stop]?`).
            case toMany(any PersistentModel.Type)
        }

        var name: String
        var keyPath: AnyKeyPath
        var kind: Kind
        var isOptional: Bool
        var defaultValue: Any?
        var attribute: Schema.Attribute?
        var relationship: Schema.Relationship?

        /// The model class a relationship reaches.
        var destination: (any PersistentModel.Type)? {
            switch kind {
            case .attribute: nil
            case .toOne(let type), .toMany(let type): type
            }
        }
    }

    let type: any PersistentModel.Type
    /// The entity's name: the class's name, without its module or enclosing types.
    let entityName: String
    /// Every persisted property, the inherited ones (of model superclasses) included.
    let properties: [Property]
    /// The model class this one inherits from (`Trip` for `@Model class BusinessTrip: Trip`).
    let superType: (any PersistentModel.Type)?
    /// The properties the class declares itself (its entity's own; the inherited ones belong
    /// to its superclass's entity).
    let ownProperties: [Property]
    private let names: [AnyKeyPath: String]
    let propertiesByName: [String: Property]

    private init(_ type: any PersistentModel.Type) {
        self.type = type
        entityName = Self.entityName(of: type)
        var properties: [Property] = []
        for metadata in type.schemaMetadata {
            let valueType = Swift.type(of: metadata.keypath).valueType
            let (unwrapped, isOptional) = Self.unwrapped(valueType)
            let kind: Property.Kind
            if let model = unwrapped as? any PersistentModel.Type {
                kind = .toOne(model)
            } else if let collection = unwrapped as? any _ModelCollection.Type {
                kind = .toMany(collection._modelElementType)
            } else {
                kind = .attribute(unwrapped)
            }
            properties.append(
                Property(
                    name: metadata.name, keyPath: metadata.keypath, kind: kind, isOptional: isOptional,
                    defaultValue: metadata.defaultValue, attribute: metadata.metadata as? Schema.Attribute,
                    relationship: metadata.metadata as? Schema.Relationship))
        }
        self.properties = properties
        superType = Self.modelSuperclass(of: type)
        if let superType {
            let inherited = Set(ModelTypeInfo.of(superType).properties.map(\.name))
            ownProperties = properties.filter { !inherited.contains($0.name) }
        } else {
            ownProperties = properties
        }
        ComputedKeyPathNames.record(properties.map { ($0.keyPath, $0.name) })
        names = Dictionary(properties.map { ($0.keyPath, $0.name) }, uniquingKeysWith: { first, _ in first })
        propertiesByName = Dictionary(properties.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The model class a model class inherits from, if any.
    static func modelSuperclass(of type: any PersistentModel.Type) -> (any PersistentModel.Type)? {
        guard let superclass = _getSuperclass(type) else { return nil }
        return superclass as? any PersistentModel.Type
    }

    /// The property a key path of the class reads, by name.
    func name(of keyPath: AnyKeyPath) -> String? { names[keyPath] }

    static func entityName(of type: Any.Type) -> String {
        let full = String(describing: type)
        // `String(describing:)` gives the bare name of a class, even a nested one.
        return full.split(separator: ".").last.map(String.init) ?? full
    }

    /// The type inside an optional, and whether there was one.
    static func unwrapped(_ type: Any.Type) -> (Any.Type, Bool) {
        if let optional = type as? any _OptionalType.Type { return (optional._wrappedType, true) }
        return (type, false)
    }

    private static let cache = Mutex<[ObjectIdentifier: ModelTypeInfo]>([:])

    static func of(_ type: any PersistentModel.Type) -> ModelTypeInfo {
        let key = ObjectIdentifier(type)
        if let info = cache.withLock({ $0[key] }) { return info }
        // Made outside the lock: `schemaMetadata` may name other model classes.
        let info = ModelTypeInfo(type)
        return cache.withLock { cache in
            if let existing = cache[key] { return existing }
            cache[key] = info
            return info
        }
    }
}

/// `Optional`, seen from a type that may be one.
protocol _OptionalType {
    static var _wrappedType: Any.Type { get }
}

extension Optional: _OptionalType {
    static var _wrappedType: Any.Type { Wrapped.self }
}

/// A collection of models a to-many relationship property holds (`[Stop]`, `Set<Stop>`).
public protocol _ModelCollection {
    static var _modelElementType: any PersistentModel.Type { get }
    init(_models: [any PersistentModel])
    var _models: [any PersistentModel] { get }
}

extension Array: _ModelCollection where Element: PersistentModel {
    public static var _modelElementType: any PersistentModel.Type { Element.self }
    public init(_models: [any PersistentModel]) { self = _models.compactMap { $0 as? Element } }
    public var _models: [any PersistentModel] { self }
}

extension Set: _ModelCollection where Element: PersistentModel {
    public static var _modelElementType: any PersistentModel.Type { Element.self }
    public init(_models: [any PersistentModel]) { self = Set(_models.compactMap { $0 as? Element }) }
    public var _models: [any PersistentModel] { Array(self) }
}

/// The names of key paths through several models (`\Stop.trip?.name` in a sort descriptor).
/// `@Model` makes persisted properties computed, and Swift describes a computed component by
/// its accessor's address (`\Stop.<computed 0x… (Optional<Trip>)>?.<computed 0x… (String)>?`);
/// each model's persisted properties are recorded by that address when its type is first read,
/// so that a chain is named component by component (`trip.name`).
enum ComputedKeyPathNames {
    private static let names = Mutex<[String: String]>([:])

    static func record(_ keyPaths: [(AnyKeyPath, String)]) {
        let tokens = keyPaths.compactMap { keyPath, name in components(of: keyPath).first.map { ($0, name) } }
        names.withLock { names in
            for (token, name) in tokens where token.hasPrefix("<computed ") { names[token] = name }
        }
    }

    /// The dotted path of a key path whose components are all persisted properties (or stored
    /// properties, which Swift names itself); nil otherwise.
    static func path(of keyPath: AnyKeyPath) -> String? {
        let components = components(of: keyPath)
        guard !components.isEmpty else { return nil }
        let known = names.withLock { $0 }
        var path: [String] = []
        for component in components {
            if component.hasPrefix("<computed ") {
                guard let name = known[component] else { return nil }
                path.append(name)
            } else {
                guard component.allSatisfy({ $0 == "_" || $0.isLetter || $0.isNumber }) else { return nil }
                path.append(component)
            }
        }
        return path.joined(separator: ".")
    }

    /// The components after the root: a computed one as `<computed 0x…` (its accessor), a
    /// stored one by name.
    private static func components(of keyPath: AnyKeyPath) -> [String] {
        let description = String(describing: keyPath)
        let components =
            FoundationPredicateKeyPaths.components(fromDescription: description, rootType: type(of: keyPath).rootType) ?? []
        return components.map { component in
            if component.hasPrefix("<computed "), let space = component.dropFirst(10).firstIndex(of: " ") {
                return String(component[..<space])
            }
            return String(component)
        }
    }
}
