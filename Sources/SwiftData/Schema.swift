import Foundation
import Strata

/// The entities of a set of model classes: what `ModelContainer` makes its Core Data model
/// from. The classes named bring the model classes their relationships reach.
public final class Schema: @unchecked Sendable, Hashable, CustomDebugStringConvertible {
    /// A schema's version (`VersionedSchema.versionIdentifier`).
    public struct Version: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
        public var major: Int
        public var minor: Int
        public var patch: Int

        public init(_ major: Int, _ minor: Int, _ patch: Int) {
            (self.major, self.minor, self.patch) = (major, minor, patch)
        }

        public static func < (lhs: Self, rhs: Self) -> Bool {
            (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
        }

        public var description: String { "\(major).\(minor).\(patch)" }
    }

    /// What `@Model` says of one persisted property.
    public struct PropertyMetadata: @unchecked Sendable {
        public var name: String
        public var keypath: AnyKeyPath
        public var defaultValue: Any?
        /// A `Schema.Attribute` or `Schema.Relationship` made from the property's macro, or nil.
        public var metadata: Any?

        public init(name: String, keypath: AnyKeyPath, defaultValue: Any?, metadata: Any?) {
            self.name = name
            self.keypath = keypath
            self.defaultValue = defaultValue
            self.metadata = metadata
        }
    }

    public let entities: [Entity]
    public let version: Version
    /// The model classes, by entity name.
    let types: [String: any PersistentModel.Type]
    /// The Core Data model of the entities, made once.
    let managedObjectModel: NSManagedObjectModel

    /// The schema of the classes and of every model class their relationships reach.
    public init(_ types: [any PersistentModel.Type], version: Version = Version(1, 0, 0)) {
        let order = Self.reachable(from: types)
        let found = Dictionary(order.map { (ModelTypeInfo.of($0).entityName, $0) }, uniquingKeysWith: { first, _ in first })
        self.types = found
        self.version = version
        let built = SchemaModelBuilder.build(order, objectClassName: _ModelObject.className)
        entities = built.entities
        managedObjectModel = built.model
    }

    public convenience init(_ types: any PersistentModel.Type..., version: Version = Version(1, 0, 0)) {
        self.init(types, version: version)
    }

    /// The schema of a versioned schema: its models, its version.
    public convenience init(versionedSchema: any VersionedSchema.Type) {
        self.init(versionedSchema.models, version: versionedSchema.versionIdentifier)
    }

    public var entitiesByName: [String: Entity] {
        Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    public static func == (lhs: Schema, rhs: Schema) -> Bool {
        lhs.version == rhs.version && lhs.entities.map(\.name) == rhs.entities.map(\.name)
            && lhs.managedObjectModel.entityVersionHashesByName == rhs.managedObjectModel.entityVersionHashesByName
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(version)
        hasher.combine(entities.map(\.name))
    }

    public var debugDescription: String {
        "Schema(version: \(version), entities: \(entities.map(\.name).sorted()))"
    }

    /// An entity of the schema: one model class.
    public final class Entity: @unchecked Sendable, Hashable, CustomDebugStringConvertible {
        public let name: String
        public internal(set) var attributes: Set<Attribute> = []
        public internal(set) var relationships: Set<Relationship> = []
        /// Each a list of property names whose values together are unique.
        public internal(set) var uniquenessConstraints: [[String]] = []
        /// Each a list of property names an index of the store covers.
        public internal(set) var indices: [[String]] = []
        public internal(set) weak var superentity: Entity?
        public internal(set) var subentities: Set<Entity> = []

        init(name: String) { self.name = name }

        /// The attributes and relationships, by name.
        public var properties: [any SchemaProperty] {
            (attributes.map { $0 as any SchemaProperty } + relationships.map { $0 as any SchemaProperty })
                .sorted { $0.name < $1.name }
        }

        public var storedProperties: [any SchemaProperty] { properties.filter { !$0.isTransient } }

        public static func == (lhs: Entity, rhs: Entity) -> Bool { lhs === rhs }
        public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
        public var debugDescription: String { "Schema.Entity(\(name))" }
    }

    /// A persisted value of a model: what `@Attribute` says of it, and the type Strata stores.
    public final class Attribute: SchemaProperty, @unchecked Sendable, Hashable, CustomDebugStringConvertible {
        /// What `@Attribute` may ask of a property.
        public struct Option: Hashable, @unchecked Sendable {
            enum Kind: Hashable {
                case unique
                case externalStorage
                case transformable(String)
                case preserveValueOnDeletion
                case ephemeral
                case spotlight
                case allowsCloudEncryption
            }

            let kind: Kind
            /// The transformer of `.transformable(by:)` given as a type.
            let transformer: ValueTransformer.Type?

            init(_ kind: Kind, transformer: ValueTransformer.Type? = nil) {
                self.kind = kind
                self.transformer = transformer
            }

            public static func == (lhs: Option, rhs: Option) -> Bool { lhs.kind == rhs.kind }
            public func hash(into hasher: inout Hasher) { hasher.combine(kind) }

            /// The value is unique among the entity's rows: inserting a model with a value
            /// some row has updates that row (an upsert).
            public static let unique = Option(.unique)
            /// Large data is kept in a file beside the store (`allowsExternalBinaryDataStorage`).
            public static let externalStorage = Option(.externalStorage)
            /// The value survives its row's deletion in the history (a tombstone).
            public static let preserveValueOnDeletion = Option(.preserveValueOnDeletion)
            /// The value is not saved (a transient attribute).
            public static let ephemeral = Option(.ephemeral)
            /// The value is indexed for Spotlight (recorded; Linux has no Spotlight).
            public static let spotlight = Option(.spotlight)
            /// The value is encrypted in CloudKit (recorded; the sync server stores it as is).
            public static let allowsCloudEncryption = Option(.allowsCloudEncryption)

            /// The value is stored through a value transformer registered under this name.
            public static func transformable(by transformerName: String) -> Option {
                Option(.transformable(transformerName))
            }

            /// The value is stored through the value transformer registered under the
            /// class's name (`ValueTransformer.setValueTransformer(_:forName:)`).
            public static func transformable(by transformerType: ValueTransformer.Type) -> Option {
                Option(.transformable(String(describing: transformerType)), transformer: transformerType)
            }
        }

        public internal(set) var name: String
        public let options: [Option]
        public let originalName: String?
        public let hashModifier: String?
        public internal(set) var valueType: Any.Type = Any.self
        public internal(set) var defaultValue: Any?
        public internal(set) var isOptional = false

        public init(_ options: Option..., originalName: String? = nil, hashModifier: String? = nil) {
            self.name = ""
            self.options = options
            self.originalName = originalName
            self.hashModifier = hashModifier
        }

        init(copying other: Attribute?, name: String) {
            self.name = name
            options = other?.options ?? []
            originalName = other?.originalName
            hashModifier = other?.hashModifier
        }

        public var isUnique: Bool { options.contains(.unique) }
        public var isTransient: Bool { options.contains(.ephemeral) }
        public var isRelationship: Bool { false }

        public static func == (lhs: Attribute, rhs: Attribute) -> Bool { lhs === rhs }
        public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
        public var debugDescription: String { "Schema.Attribute(\(name): \(valueType))" }
    }

    /// A relationship of a model to another: what `@Relationship` says of it.
    public final class Relationship: SchemaProperty, @unchecked Sendable, Hashable, CustomDebugStringConvertible {
        public enum Option: Hashable, Sendable {
            /// The relationship's destination is unique (recorded, as Apple's).
            case unique
        }

        /// What deleting the model does to the models the relationship reaches.
        public enum DeleteRule: String, Hashable, Codable, Sendable {
            /// Nothing (the other side keeps pointing at the deleted row until it is changed).
            case noAction
            /// The other side stops pointing at the deleted model (the default).
            case nullify
            /// The models reached are deleted too.
            case cascade
            /// The deletion fails while the relationship reaches a model.
            case deny
        }

        public internal(set) var name: String
        public let options: [Option]
        public let deleteRule: DeleteRule
        public let minimumModelCount: Int?
        public let maximumModelCount: Int?
        public let originalName: String?
        public let hashModifier: String?
        /// The key path of the inverse given to `@Relationship(inverse:)`.
        public let inverseKeyPath: AnyKeyPath?
        public internal(set) var destination: String = ""
        public internal(set) var inverseName: String?
        public internal(set) var isToOneRelationship = true
        public internal(set) var isOptional = true

        public init(
            _ options: Option..., deleteRule: DeleteRule = .nullify, minimumModelCount: Int? = 0,
            maximumModelCount: Int? = 0, originalName: String? = nil, inverse: AnyKeyPath? = nil,
            hashModifier: String? = nil
        ) {
            name = ""
            self.options = options
            self.deleteRule = deleteRule
            self.minimumModelCount = minimumModelCount
            self.maximumModelCount = maximumModelCount
            self.originalName = originalName
            self.inverseKeyPath = inverse
            self.hashModifier = hashModifier
        }

        public var isTransient: Bool { false }
        public var isRelationship: Bool { true }

        public static func == (lhs: Relationship, rhs: Relationship) -> Bool { lhs === rhs }
        public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
        public var debugDescription: String {
            "Schema.Relationship(\(name) → \(destination)\(isToOneRelationship ? "" : " (to-many)"))"
        }
    }
}

/// An attribute or a relationship of a schema's entity.
public protocol SchemaProperty: AnyObject {
    var name: String { get }
    var isTransient: Bool { get }
    var isRelationship: Bool { get }
}

extension NSManagedObjectModel {
    /// The Core Data model of model classes (and those their relationships reach): the model
    /// a `ModelContainer` of the same classes opens its stores with, for opening them through
    /// `NSPersistentContainer`.
    public static func makeManagedObjectModel(for types: [any PersistentModel.Type]) -> NSManagedObjectModel? {
        guard !types.isEmpty else { return nil }
        return SchemaModelBuilder.build(Schema.reachable(from: types)).model
    }
}

extension Schema {
    /// The classes, those their relationships reach and the model classes they inherit from,
    /// the named first.
    static func reachable(from types: [any PersistentModel.Type]) -> [any PersistentModel.Type] {
        var seen: Set<String> = []
        var order: [any PersistentModel.Type] = []
        var queue = types
        while !queue.isEmpty {
            let type = queue.removeFirst()
            let info = ModelTypeInfo.of(type)
            guard seen.insert(info.entityName).inserted else { continue }
            order.append(type)
            if let superType = info.superType { queue.append(superType) }
            queue += info.properties.compactMap(\.destination)
        }
        return order
    }
}
