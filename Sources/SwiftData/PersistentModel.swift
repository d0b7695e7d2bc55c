import Foundation
import Observation
import Strata

/// A class that SwiftData persists: what `@Model` makes of a class.
///
/// The macro turns each stored property into accessors that read and write the model's
/// backing data (`persistentBackingData`), lists the properties in `schemaMetadata`, and adds
/// `init(backingData:)`, through which a context makes the model of a fetched row. A model
/// compares and hashes by identity, as Apple's do.
public protocol PersistentModel: AnyObject, Observable, Hashable, Identifiable, _PredicateKeyPathNaming,
    _PredicateArgumentConvertible, _PredicateIdentityKeyPath
{
    /// Where the model's values live: in the model until it is inserted into a context, then
    /// in the context's object of the same row.
    var persistentBackingData: any BackingData<Self> { get set }

    /// The persisted properties, in declaration order: names, key paths, default values and
    /// the options of `@Attribute` and `@Relationship`.
    static var schemaMetadata: [Schema.PropertyMetadata] { get }

    /// A model over existing backing data (a fetched row).
    init(backingData: any BackingData<Self>)

    /// The `#Unique` and `#Index` of the class (written by `@Model`).
    static var _$constraints: _ModelConstraints { get }

    /// The backing data of each class of the model's hierarchy, its root class's first
    /// (written by `@Model` for classes that may have subclasses; a final class has one).
    func _$backingDataChain() -> [_StrataBackingStorage]

    /// A model of a fetched row's object in a context (written by `@Model` for final classes,
    /// whose model keeps only its row until its backing data is asked for; others make theirs
    /// through `init(backingData:)` here).
    static func _$model(object: AnyObject, context: ModelContext) -> Self

    /// The row the model keeps (written by `@Model` for root classes, whose models keep their
    /// row, or their values before insertion, in themselves); nil for other classes.
    func _$row() -> _ModelRow?

    /// Makes the model keep the row just inserted for it instead of the values set before, and
    /// answers those (written by `@Model` for root classes); nil when the model keeps backing
    /// data, or its class keeps neither.
    func _$keepRow(_ row: _ModelRow) -> _PendingValues?
}

extension PersistentModel {
    public static var _$constraints: _ModelConstraints { _ModelConstraints() }

    public func _$backingDataChain() -> [_StrataBackingStorage] { [_strataBacking] }

    public static func _$model(object: AnyObject, context: ModelContext) -> Self {
        Self(backingData: _StrataBackingData<Self>(object: object as? NSManagedObject, context: context))
    }

    public func _$row() -> _ModelRow? { nil }

    public func _$keepRow(_ row: _ModelRow) -> _PendingValues? { nil }

    /// The model's identifier: temporary until its context first saves it, then the row's.
    public var persistentModelID: PersistentIdentifier {
        if let object = _strataRow.object { return PersistentIdentifier(object.objectID) }
        return _strataBacking.unsavedIdentifier(entityName: ModelTypeInfo.of(type(of: self)).entityName)
    }

    /// The context the model was inserted into or fetched by; `nil` before insertion, after its
    /// insertion is rolled back and after its deletion is saved.
    public var modelContext: ModelContext? { _strataRow.context }

    /// Whether the model has changes its context has not saved (an unsaved insertion included).
    public var hasChanges: Bool { _strataRow.object?.hasChanges ?? false }

    /// Whether the model was deleted from its context (and the deletion not yet saved).
    public var isDeleted: Bool { _strataRow.object?.isDeleted ?? false }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs === rhs }

    /// In predicates, a model stands for its context's object of its row.
    public var _predicateArgument: Any? { _strataRow.object }

    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// The value of a persisted property, by key path.
    public func getValue<Value>(forKey keyPath: KeyPath<Self, Value>) -> Value {
        self[keyPath: keyPath]
    }

    /// Sets a persisted property, by key path.
    public func setValue<Value>(forKey keyPath: ReferenceWritableKeyPath<Self, Value>, to newValue: Value) {
        self[keyPath: keyPath] = newValue
    }

    /// The backing data of the model's root class (Strata's: `@Model` always makes it). Read
    /// through the class-independent storage, as a model of a subclass answers its root
    /// class's backing data where one of its own class is expected. (A class conforming by
    /// hand with backing data of its own gets an empty one, as before it is inserted.)
    var _strataBacking: _StrataBackingStorage {
        // A class cast of the reference (the runtime's class cast), not of the existential
        // (its general cast, several times dearer).
        let backing: AnyObject = persistentBackingData
        return (backing as? _StrataBackingStorage) ?? _StrataBackingData<Self>()
    }

    /// The row's object and context, wherever the model keeps them (in its storage, or in its
    /// backing data): what asks no backing data to be made.
    var _strataRow: _ModelRow {
        if let row = _$row() { return row }
        let backing = _strataBacking
        return _ModelRow(object: backing.object, context: backing.context)
    }

    /// `persistentModelID` in a predicate stands for the model (its row).
    public static func _predicateIsIdentity(_ keyPath: AnyKeyPath) -> Bool { keyPath == \Self.persistentModelID }

    /// The names of key paths in predicates and sort descriptors: a persisted property's name
    /// (`\Trip.name` is a computed property once `@Model` has expanded it, and Swift names
    /// computed key paths on no platform but Apple's).
    public static func _predicateKeyName(for keyPath: AnyKeyPath) -> String? {
        ModelTypeInfo.of(Self.self).name(of: keyPath) ?? ComputedKeyPathNames.path(of: keyPath)
    }
}

extension PersistentModel {
    /// A model's identity for `Identifiable`: its `persistentModelID`, unless the class
    /// declares an `id` of its own.
    public var id: PersistentIdentifier { persistentModelID }
}

/// The storage a model's properties read and write (Apple's protocol; Strata's models all use
/// `_StrataBackingData`).
public protocol BackingData<Model>: AnyObject {
    associatedtype Model: PersistentModel
    /// The identifier of the row behind the model, once it has one.
    var persistentModelID: PersistentIdentifier? { get }
    init(for modelType: Model.Type)
}

/// What the storage a `@Model` macro gives each persisted property holds: nothing (the value
/// lives in the backing data).
public struct _SwiftDataNoType: Sendable {
    public init() {}
}

/// The `#Unique` and `#Index` declarations of a model class, gathered by `@Model`.
public struct _ModelConstraints: @unchecked Sendable {
    public var unique: [[AnyKeyPath]]
    public var indexes: [[AnyKeyPath]]

    public init(unique: [[AnyKeyPath]] = [], indexes: [[AnyKeyPath]] = []) {
        self.unique = unique
        self.indexes = indexes
    }
}

/// The observation registrar of a model (what `@Model` gives each class): Observation's
/// registrar, made when one of the model's properties is first read while an observation
/// tracking (`withObservationTracking`, `Observations`) records reads on the reading thread.
/// Until then no observer can have been registered (observers come only from reads under
/// tracking), so changes report to nobody and reads have nothing to report: a model fetched
/// and read, or made and inserted, outside any tracking costs no registrar and no key path.
/// A model is used on one thread at a time, its context's.
///
/// The registrar lives in an object of its own: `ObservationRegistrar` is a resilient type,
/// and an optional one would be copied through its value witnesses at every read. The key
/// paths are autoclosures, so that a read or change nobody tracks does not make one.
///
/// Each registrar keeps the probe it asks (`_ObservationTrackingProbe.Handle`), taken once when
/// its model is made: the shared probe is a lazy global, which each read would otherwise reach
/// through the runtime's once-only initialisation check.
public struct _ModelObservationRegistrar: Sendable {
    @usableFromInline var box: _ObservationRegistrarBox?
    @usableFromInline let probe: _ObservationTrackingProbe.Handle

    @inlinable
    public init() { probe = _ObservationTrackingProbe.handle }

    /// Reports a read of a property to the observation tracking under way, if any. Only the
    /// test is inlined into each property's getter: what a tracked read does is out of line,
    /// so that an untracked one does not reach Observation's types (the resilient registrar's
    /// metadata, a copy of it on the stack) at all.
    @inlinable
    public mutating func access<Subject: Observable, Member>(
        _ subject: Subject, keyPath: @autoclosure () -> KeyPath<Subject, Member>
    ) {
        if box == nil, !probe.isTracking() { return }
        _trackedAccess(subject, keyPath: keyPath())
    }

    /// `access(_:keyPath:)` of a read a tracking may record: makes the registrar if the model
    /// has none yet, and reports the read to it.
    @usableFromInline @inline(never)
    mutating func _trackedAccess<Subject: Observable, Member>(_ subject: Subject, keyPath: KeyPath<Subject, Member>) {
        if box == nil { box = _ObservationRegistrarBox() }
        box.unsafelyUnwrapped.registrar.access(subject, keyPath: keyPath)
    }

    /// Runs a change of a property, reporting it to the property's observers.
    @inlinable
    public func withMutation<Subject: Observable, Member, T>(
        of subject: Subject, keyPath: @autoclosure () -> KeyPath<Subject, Member>, _ mutation: () throws -> T
    ) rethrows -> T {
        guard let box else { return try mutation() }
        return try box.registrar.withMutation(of: subject, keyPath: keyPath(), mutation)
    }

    @inlinable
    public func willSet<Subject: Observable, Member>(_ subject: Subject, keyPath: @autoclosure () -> KeyPath<Subject, Member>) {
        box?.registrar.willSet(subject, keyPath: keyPath())
    }

    @inlinable
    public func didSet<Subject: Observable, Member>(_ subject: Subject, keyPath: @autoclosure () -> KeyPath<Subject, Member>) {
        box?.registrar.didSet(subject, keyPath: keyPath())
    }
}

/// Where a model's observation registrar lives once made.
public final class _ObservationRegistrarBox: Sendable {
    public let registrar = ObservationRegistrar()

    @inlinable
    public init() {}
}

/// What `ModelContext.model(for:)` answers for an identifier whose entity is no model of the
/// container's schema (decoded from another app's or container's data): a model holding no
/// values, in no context, of a class no app model is, so that `as? Trip` answers nil where
/// Apple's documentation promises a model and the identifier can name none.
public final class _UnknownModel: PersistentModel {
    private var backing: _StrataBackingData<_UnknownModel>

    public var persistentBackingData: any BackingData<_UnknownModel> {
        get { backing }
        set { backing = _StrataBackingData<_UnknownModel>.adopting(newValue) }
    }

    public static var schemaMetadata: [Schema.PropertyMetadata] { [] }

    public init(backingData: any BackingData<_UnknownModel>) {
        backing = _StrataBackingData<_UnknownModel>.adopting(backingData)
    }
}
