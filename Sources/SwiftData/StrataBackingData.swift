import Foundation
import Strata

/// What the backing data of a model holds, whatever its model class: the values set before
/// insertion, and after, the row's object and its context.
///
/// A model of a subclass (`@Model class BusinessTrip: Trip`) has one backing data per class
/// of its hierarchy (each class's accessors read their own, which its initialiser can set
/// before `super.init`); `PersistentModel._$backingDataChain()` lists them, and the context
/// inserts, detaches and fills them together. Non-generic, so that the backing data of one
/// class of a hierarchy is read where another's is expected.
public class _StrataBackingStorage {
    // A model's backing data is used where its model is, on one thread at a time (the model's
    // context's), and no access to these properties is long: they are read once per property
    // access, so without the runtime's exclusivity bookkeeping.

    /// The row's object, once the model is inserted or was fetched.
    @exclusivity(unchecked) @usableFromInline final var object: NSManagedObject?
    /// The context that holds the object.
    @exclusivity(unchecked) @usableFromInline final var context: ModelContext?
    /// The values set before insertion (models as models).
    @exclusivity(unchecked) @usableFromInline final var pending = _PendingValues()
    /// The object, for a read or write that ends before anything could replace it (the backing
    /// data holds it meanwhile): an unretained reference, so that the access does not retain
    /// and release it.
    @inlinable
    final var _unretainedObject: Unmanaged<NSManagedObject>? {
        guard let object else { return nil }
        return Unmanaged.passUnretained(object)
    }
    /// The token of the identifier of a model no context holds yet.
    @usableFromInline final var unsavedToken: UUID?

    @inlinable
    init() {}

    init(object: NSManagedObject?, context: ModelContext?) {
        self.object = object
        self.context = context
    }

    public var persistentModelID: PersistentIdentifier? { object.map { PersistentIdentifier($0.objectID) } }

    func unsavedIdentifier(entityName: String) -> PersistentIdentifier {
        let token = unsavedToken ?? UUID()
        unsavedToken = token
        return PersistentIdentifier(unsaved: token, entityName: entityName)
    }
}

/// What a `@Model` class keeps for its values (its `_$backingData`): its backing data, or, for
/// the model of a fetched row that nothing has asked the backing data of, only the row's
/// object and context, so that fetching a row makes one object (the model) rather than two.
///
/// A model made by the app keeps the values its initialiser sets here too, and a context
/// inserting it writes them to the row's object and leaves the model keeping only its row, as
/// a fetched one: an inserted model makes no backing data either.
///
/// The row, or those values, move into a backing data made for them when anything asks for
/// the backing data (`_prepareBacking`: `persistentBackingData`, identifiers of models not yet
/// inserted, subclasses' hierarchies, a relationship read, a value of a type the store does not
/// keep as it is, a value read before insertion), and the model reads and writes that from then
/// on: the state of a model is always in one place.
public struct _ModelStorage<Model: PersistentModel> {
    /// The backing data, once made.
    @usableFromInline var backing: _StrataBackingData<Model>?
    /// The row's object and context while there is no backing data (a fetched or inserted model).
    @usableFromInline var object: NSManagedObject?
    @usableFromInline var context: ModelContext?
    /// The values set before insertion while there is no backing data (models as models): none
    /// (nil) for a fetched model, whose storage then neither makes nor frees a list.
    @usableFromInline var pending: _PendingValues?

    /// No values yet: a model made by the app gets its backing data at the first value set.
    @inlinable
    public init() {}

    /// The model of a fetched row's object (an `NSManagedObject`) in a context.
    @inlinable
    public init(object: AnyObject, context: ModelContext) {
        self.object = object as? NSManagedObject
        self.context = context
    }

    /// Over backing data given to `init(backingData:)` or `persistentBackingData` (Strata's, or
    /// an empty one when it is not).
    @inlinable
    public init(adopting backingData: any BackingData<Model>) {
        backing = _StrataBackingData<Model>.adopting(backingData)
    }

    /// A subclass's storage over the backing data its `init(backingData:)` was given (made for
    /// its root class): the same backing data when it is of this class, else one of the same row.
    @inlinable
    public init<Other>(inheriting backingData: any BackingData<Other>) {
        backing = _StrataBackingData<Model>.adopting(inherited: backingData)
    }

    /// Neither backing data nor a row nor values: nothing was set.
    @inlinable
    public var isEmpty: Bool { backing == nil && object == nil && pending?.isEmpty ?? true }

    /// Neither backing data nor a row: a model not inserted, whose values are kept here.
    @inlinable
    var keepsValues: Bool { backing == nil && object == nil }

    /// The row's object and context, wherever the model keeps them.
    @inlinable
    var row: _ModelRow {
        if let backing { return _ModelRow(object: backing.object, context: backing.context) }
        return _ModelRow(object: object, context: context)
    }

    /// Makes a model that kept its values here keep the row just inserted for it instead, and
    /// answers the values, for the context to write to the row's object; nil when the model has
    /// backing data, which the context attaches instead.
    @inlinable
    mutating func keepRow(_ row: _ModelRow) -> _PendingValues? {
        guard backing == nil else { return nil }
        let values = pending.take() ?? _PendingValues()
        object = row.object
        context = row.context
        return values
    }

    /// Keeps an attribute's value set before insertion, or removes it (nil). An optional
    /// property's implicit initial value (nil) is set this way in every initialiser,
    /// `init(backingData:)` included, before any value was: nothing to remove, no list made.
    @inlinable
    mutating func keepAttribute<Value>(_ value: Value?, forKey key: String) {
        guard let value else {
            pending?.remove(key)
            return
        }
        if pending == nil { pending = _PendingValues() }
        pending?.set(_PendingValues.attribute(value), forKey: key)
    }

    /// Keeps a relationship's value set before insertion, or removes it (nil).
    mutating func keepRelationship<Value>(_ value: Value?, forKey key: String) {
        guard value != nil || pending != nil else { return }
        if pending == nil { pending = _PendingValues() }
        pending?.setTyped(value, forKey: key, isAttribute: false)
    }

    /// The row's object while the model keeps only its row, for an access that ends before
    /// anything could replace it: unretained.
    @inlinable
    var _unretainedRowObject: Unmanaged<NSManagedObject>? {
        guard let object else { return nil }
        return Unmanaged.passUnretained(object)
    }
}

/// The backing data of a model (made, with the row the model kept if any, when it has none
/// yet). A fetched model keeps its row until this is asked; a model made by the app gets its
/// backing data when its initialiser sets the first value.
@inlinable
public func _prepareBacking<Model: PersistentModel>(_ storage: inout _ModelStorage<Model>) -> _StrataBackingData<Model> {
    if let backing = storage.backing { return backing }
    let backing = _StrataBackingData<Model>(object: storage.object, context: storage.context)
    storage.object = nil
    storage.context = nil
    if let values = storage.pending.take(), !values.isEmpty { backing.pending = values }
    storage.backing = backing
    return backing
}

/// A row's object and its context, as a model keeps them. Not generic, so that the context's
/// code, generic over models and not specialised for them, passes it with no type metadata
/// made at run time (a view of a `_ModelStorage<Model>` there took a lookup of the runtime's
/// cache of generic types at each use).
public struct _ModelRow {
    @usableFromInline let object: NSManagedObject?
    @usableFromInline let context: ModelContext?

    @inlinable
    init(object: NSManagedObject?, context: ModelContext?) {
        self.object = object
        self.context = context
    }
}

/// The row a model keeps (`@Model`'s `_$row()` of a root class).
@inlinable
public func _row<Model: PersistentModel>(of storage: inout _ModelStorage<Model>) -> _ModelRow? {
    storage.row
}

/// Makes a model keep the row just inserted for it (`@Model`'s `_$keepRow(_:)` of a root class).
@inlinable
public func _keepRow<Model: PersistentModel>(_ row: _ModelRow, in storage: inout _ModelStorage<Model>) -> _PendingValues? {
    storage.keepRow(row)
}

/// Runs `body` with a view of a model's values: what every property read and write of a
/// `@Model` class comes through. The view holds the storage's address, which is the model's
/// for as long as the accessor runs, so that no access retains or releases the backing data
/// or the object.
@inlinable
public func _withBacking<Model: PersistentModel, Result>(
    _ storage: inout _ModelStorage<Model>, _ body: (_ModelValues<Model>) throws -> Result
) rethrows -> Result {
    try withUnsafeMutablePointer(to: &storage) { try body(_ModelValues(storage: $0)) }
}

/// The values of a model, as its property accessors read and write them: while the model keeps
/// only its row, an attribute of a type the store keeps as it is through the row's object's
/// typed storage; everything else through the backing data (`_StrataBackingData`, made if the
/// model kept only its row), whose accessors read the object's typed storage in turn. The
/// overloads are the backing data's, which the property's type selects.
public struct _ModelValues<Model: PersistentModel> {
    @usableFromInline let storage: UnsafeMutablePointer<_ModelStorage<Model>>

    @inlinable
    init(storage: UnsafeMutablePointer<_ModelStorage<Model>>) { self.storage = storage }

    /// The backing data, made if the model kept only its row.
    @inlinable
    var backing: _StrataBackingData<Model> { _prepareBacking(&storage.pointee) }

    // MARK: Attributes

    /// An optional attribute.
    @inlinable
    public func getValue<Value: Codable>(forKey key: String) -> Value? {
        if ModelValues.isStoredAsIs(Value.self), let object = storage.pointee._unretainedRowObject {
            return object._withUnsafeGuaranteedRef { $0._managedValue(forKey: key) }
        }
        return backing.getValue(forKey: key)
    }

    /// A non-optional attribute (see `_StrataBackingData.getValue(forKey:)`).
    @inlinable
    @_disfavoredOverload
    public func getValue<Value: Codable>(forKey key: String) -> Value {
        if ModelValues.isStoredAsIs(Value.self), let object = storage.pointee._unretainedRowObject,
            let value: Value = object._withUnsafeGuaranteedRef({ $0._managedValue(forKey: key) })
        {
            return value
        }
        return backing.getValue(forKey: key)
    }

    /// Sets an attribute (nil clears it): before insertion, kept in the model's storage.
    @inlinable
    public func setValue<Value: Codable>(_ value: Value?, forKey key: String) {
        if ModelValues.isStoredAsIs(Value.self), let object = storage.pointee._unretainedRowObject {
            object._withUnsafeGuaranteedRef { $0._setManagedValue(value, forKey: key) }
            storage.pointee.context?.noteChange()
            return
        }
        if storage.pointee.keepsValues {
            storage.pointee.keepAttribute(value, forKey: key)
            return
        }
        backing.setValue(value, forKey: key)
    }

    // MARK: Relationships (through the backing data, but for those set before insertion)

    /// Keeps a relationship's value set before insertion in the model's storage (as its
    /// backing data would: `_setPending`), so that a model whose initialiser sets one (an
    /// empty to-many's `= []`) makes no backing data either; false when the model has backing
    /// data or a row.
    func keptBeforeInsertion<Value>(_ value: Value?, forKey key: String) -> Bool {
        guard storage.pointee.keepsValues else { return false }
        storage.pointee.keepRelationship(value, forKey: key)
        return true
    }

    public func getValue<Value: PersistentModel>(forKey key: String) -> Value? { backing._toOne(forKey: key) }

    @_disfavoredOverload
    public func getValue<Value: PersistentModel>(forKey key: String) -> Value { backing._requiredToOne(forKey: key) }

    public func getValue<Value: PersistentModel>(forKey key: String) -> [Value] { backing._toMany(forKey: key) }

    public func getValue<Value: PersistentModel>(forKey key: String) -> [Value]? { backing._optionalToMany(forKey: key) }

    public func setValue<Value: PersistentModel>(_ value: Value?, forKey key: String) {
        if keptBeforeInsertion(value, forKey: key) { return }
        backing._setToOne(value, forKey: key)
    }

    public func setValue<Value: PersistentModel>(_ value: [Value], forKey key: String) {
        if keptBeforeInsertion(value, forKey: key) { return }
        backing._setToMany(value, forKey: key)
    }

    public func setValue<Value: PersistentModel>(_ value: [Value]?, forKey key: String) {
        setValue(value ?? [], forKey: key)
    }

    public func getValue<Value: PersistentModel & Codable>(forKey key: String) -> Value? { backing._toOne(forKey: key) }

    @_disfavoredOverload
    public func getValue<Value: PersistentModel & Codable>(forKey key: String) -> Value {
        backing._requiredToOne(forKey: key)
    }

    public func getValue<Value: PersistentModel & Codable>(forKey key: String) -> [Value] { backing._toMany(forKey: key) }

    public func getValue<Value: PersistentModel & Codable>(forKey key: String) -> [Value]? {
        backing._optionalToMany(forKey: key)
    }

    public func setValue<Value: PersistentModel & Codable>(_ value: Value?, forKey key: String) {
        if keptBeforeInsertion(value, forKey: key) { return }
        backing._setToOne(value, forKey: key)
    }

    public func setValue<Value: PersistentModel & Codable>(_ value: [Value], forKey key: String) {
        if keptBeforeInsertion(value, forKey: key) { return }
        backing._setToMany(value, forKey: key)
    }

    public func setValue<Value: PersistentModel & Codable>(_ value: [Value]?, forKey key: String) {
        setValue(value ?? [], forKey: key)
    }
}

/// The backing data of Strata's models: the values a model holds before it is inserted, and
/// after, the context's object of its row, which every property reads and writes.
///
/// `@Model`'s accessors (through `_ModelValues`) and classes conforming by hand call
/// `getValue(forKey:)` and `setValue(_:forKey:)`; the overload the property's type selects
/// reads an attribute (typed, through the object's storage, as a `@Managed` property of an
/// `NSManagedObject` subclass does), one model or a collection of models (the context's models
/// of the related objects).
public final class _StrataBackingData<Model: PersistentModel>: _StrataBackingStorage, BackingData {
    /// Inlinable, as a model made by the app makes one at its first value (`_prepareBacking`).
    @inlinable
    public override init() { super.init() }

    public init(for modelType: Model.Type) { super.init() }

    /// Strata's backing data for a model: the given one when it is Strata's (always, for
    /// `@Model` classes), else a new, empty one. Inlinable, so that the cast is one to a class
    /// the caller knows (each model made for a fetched row comes through here).
    @inlinable
    public static func adopting(_ backingData: any BackingData<Model>) -> _StrataBackingData<Model> {
        adopting(inherited: backingData)
    }

    /// The backing data of a subclass's own properties, from the backing data its
    /// `init(backingData:)` was given (made for the model's class, or for its root class):
    /// the same when it is of this class, else one of the same row.
    /// (The class is final, so the test is of the exact class: cheaper than a cast from the
    /// existential, which goes through the runtime's general casting.)
    @inlinable
    public static func adopting<Other>(inherited backingData: any BackingData<Other>) -> _StrataBackingData<Model> {
        let object: AnyObject = backingData
        if type(of: object) == _StrataBackingData<Model>.self {
            return unsafeDowncast(object, to: _StrataBackingData<Model>.self)
        }
        return _StrataBackingData<Model>(sharing: backingData)
    }

    /// A backing data of the same row (and context) as another class's, or an empty one when
    /// it is not Strata's.
    @usableFromInline
    convenience init(sharing other: AnyObject) {
        let storage = other as? _StrataBackingStorage
        self.init(object: storage?.object, context: storage?.context)
    }

    @usableFromInline
    override init(object: NSManagedObject?, context: ModelContext?) {
        super.init(object: object, context: context)
    }

    // MARK: Attributes
    //
    // The accessors run once per property read or write, the hottest paths of all. They are
    // inlinable, so that each is specialised for its property's type in the model's module:
    // an attribute of a type the store keeps as it is (`Int16`, `Double`, `String`, `Date`…)
    // is then read and written as a `@Managed` property of an `NSManagedObject` subclass is,
    // through the object's typed storage, with no generic metadata to look up at run time.
    // Other types (raw values, `Codable` values) and models not yet inserted take the general
    // paths, out of line.

    /// An optional attribute.
    @inlinable
    public func getValue<Value: Codable>(forKey key: String) -> Value? {
        if ModelValues.isStoredAsIs(Value.self), let object = _unretainedObject {
            return object._withUnsafeGuaranteedRef { $0._managedValue(forKey: key) }
        }
        return _optionalValue(forKey: key)
    }

    /// A non-optional attribute. A row without a value (a store written by other code) reads
    /// as the type's empty value where it has one (0, "", false, empty data or collection).
    @inlinable
    @_disfavoredOverload
    public func getValue<Value: Codable>(forKey key: String) -> Value {
        if ModelValues.isStoredAsIs(Value.self), let object = _unretainedObject,
            let value: Value = object._withUnsafeGuaranteedRef({ $0._managedValue(forKey: key) })
        {
            return value
        }
        return _nonOptionalValue(forKey: key)
    }

    /// Sets an attribute (nil clears it).
    @inlinable
    public func setValue<Value: Codable>(_ value: Value?, forKey key: String) {
        guard let object = _unretainedObject else {
            pending.setAttribute(value, forKey: key)
            return
        }
        if ModelValues.isStoredAsIs(Value.self) {
            object._withUnsafeGuaranteedRef { $0._setManagedValue(value, forKey: key) }
            context?.noteChange()
            return
        }
        _setValue(value, forKey: key)
    }

    /// `getValue(forKey:) -> Value?` the general way.
    @usableFromInline
    func _optionalValue<Value>(forKey key: String) -> Value? {
        if let object { return ModelValues.read(object, key, as: Value.self) }
        return _pendingValue(forKey: key)
    }

    /// `getValue(forKey:) -> Value` the general way.
    @usableFromInline
    func _nonOptionalValue<Value>(forKey key: String) -> Value {
        let value: Value? = object.map { ModelValues.read($0, key, as: Value.self) } ?? _pendingValue(forKey: key)
        if let value { return value }
        return ModelValues.emptyValue(of: Value.self, in: Model.self, key: key)
    }

    /// `setValue(_:forKey:)` the general way.
    @usableFromInline
    func _setValue<Value>(_ value: Value?, forKey key: String) {
        guard let object else {
            _setPending(value, forKey: key, isAttribute: true)
            return
        }
        ModelValues.write(value, to: object, key)
        context?.noteChange()
    }

    // MARK: Relationships

    /// An optional to-one relationship.
    public func getValue<Value: PersistentModel>(forKey key: String) -> Value? { _toOne(forKey: key) }

    /// A non-optional to-one relationship.
    @_disfavoredOverload
    public func getValue<Value: PersistentModel>(forKey key: String) -> Value { _requiredToOne(forKey: key) }

    /// A to-many relationship.
    public func getValue<Value: PersistentModel>(forKey key: String) -> [Value] { _toMany(forKey: key) }

    /// An optional to-many relationship (nil reads as no models once inserted, as Apple's).
    public func getValue<Value: PersistentModel>(forKey key: String) -> [Value]? { _optionalToMany(forKey: key) }

    /// Sets a to-one relationship; a model not yet inserted is inserted into this model's
    /// context, as SwiftData does.
    public func setValue<Value: PersistentModel>(_ value: Value?, forKey key: String) { _setToOne(value, forKey: key) }

    /// Sets a to-many relationship to the models (inserting those not yet inserted).
    public func setValue<Value: PersistentModel>(_ value: [Value], forKey key: String) { _setToMany(value, forKey: key) }

    public func setValue<Value: PersistentModel>(_ value: [Value]?, forKey key: String) {
        _setToMany(value ?? [], forKey: key)
    }

    // A model class that is also `Codable` (apps make models Codable to export them) matches
    // the attribute accessors too; these, more specific than both, keep it a relationship.

    public func getValue<Value: PersistentModel & Codable>(forKey key: String) -> Value? { _toOne(forKey: key) }

    @_disfavoredOverload
    public func getValue<Value: PersistentModel & Codable>(forKey key: String) -> Value { _requiredToOne(forKey: key) }

    public func getValue<Value: PersistentModel & Codable>(forKey key: String) -> [Value] { _toMany(forKey: key) }

    public func getValue<Value: PersistentModel & Codable>(forKey key: String) -> [Value]? {
        _optionalToMany(forKey: key)
    }

    public func setValue<Value: PersistentModel & Codable>(_ value: Value?, forKey key: String) {
        _setToOne(value, forKey: key)
    }

    public func setValue<Value: PersistentModel & Codable>(_ value: [Value], forKey key: String) {
        _setToMany(value, forKey: key)
    }

    public func setValue<Value: PersistentModel & Codable>(_ value: [Value]?, forKey key: String) {
        _setToMany(value ?? [], forKey: key)
    }

    // A model with an object but no context (its insertion was rolled back) keeps the
    // relationships set since in its pending values, as a model never inserted does.

    func _toOne<Value: PersistentModel>(forKey key: String) -> Value? {
        guard let object, let context else { return _pendingValue(forKey: key) }
        guard let related: NSManagedObject = object._managedValue(forKey: key) else { return nil }
        return context.model(for: related, as: Value.self)
    }

    func _requiredToOne<Value: PersistentModel>(forKey key: String) -> Value {
        if let value: Value = _toOne(forKey: key) { return value }
        // A row written by other code without the relationship: a model of the class holding no
        // values and in no context, rather than a stop (Core Data would answer nil).
        return ModelContext.detached(Value.self)
    }

    func _toMany<Value: PersistentModel>(forKey key: String) -> [Value] {
        guard let object, let context else { return _pendingValue(forKey: key) ?? [] }
        guard let members: [NSManagedObject] = object._managedValue(forKey: key) else { return [] }
        return members.compactMap { context.model(for: $0, as: Value.self) }
    }

    func _optionalToMany<Value: PersistentModel>(forKey key: String) -> [Value]? {
        guard object != nil, context != nil else { return _pendingValue(forKey: key) }
        let models: [Value] = _toMany(forKey: key)
        return models
    }

    func _setToOne<Value: PersistentModel>(_ value: Value?, forKey key: String) {
        guard let object, let context else {
            _setPending(value, forKey: key)
            return
        }
        let related = value.map { context.insertedObject(of: $0) }
        object._setManagedValue(related, forKey: key)
        context.noteChange()
    }

    func _setToMany<Value: PersistentModel>(_ value: [Value], forKey key: String) {
        guard let object, let context else {
            _setPending(value, forKey: key)
            return
        }
        let related = Set(value.map { context.insertedObject(of: $0) })
        object._setManagedValue(related, forKey: key)
        context.noteChange()
    }

    // MARK: Values before insertion

    func _pendingValue<Value>(forKey key: String) -> Value? {
        pending.value(forKey: key)?.anyValue as? Value
    }

    func _setPending<Value>(_ value: Value?, forKey key: String, isAttribute: Bool = false) {
        pending.setTyped(value, forKey: key, isAttribute: isAttribute)
    }
}

/// The values of a model set before its insertion, in the order they were set: a short list
/// (a model's properties), cheaper to fill than a dictionary, each value kept with its type so
/// that insertion writes it through the object's typed setter.
public struct _PendingValues {
    /// A key and its value (which says whether it is an attribute's: 56 bytes, so that the
    /// list a model's initialiser fills, 16 entries, is a block the C library keeps at hand
    /// when it is freed at insertion; with a flag beside the value it took 64 bytes, and the
    /// list a block too large for the per-thread cache, allocated the slow way for each model).
    @usableFromInline
    struct Entry {
        @usableFromInline let key: String
        @usableFromInline var value: any _PendingValue

        @inlinable
        init(key: String, value: any _PendingValue) {
            self.key = key
            self.value = value
        }
    }

    /// The entries, in the order they were set. A lookup reads their keys where they are
    /// (through the buffer): an entry copied out holds its value as an existential, which a
    /// copy retains or copies through its value witnesses.
    @usableFromInline var entries: [Entry] = []
    /// A bit for each length of key set (`mark(of:)`): a key whose bit is clear was not set,
    /// which an initialiser setting each property once mostly learns without looking at the
    /// other keys (it made 45 comparisons for ten properties).
    @usableFromInline var marks: UInt64 = 0

    @inlinable
    init() {}

    @inlinable
    var isEmpty: Bool { entries.isEmpty }

    /// The key's bit in `marks`: of its length in UTF-8 (its first byte too would tell more
    /// keys apart, but reading it costs more than the comparisons it saves).
    @inlinable
    static func mark(of key: String) -> UInt64 { 1 &<< UInt64(key.utf8.count & 63) }

    /// The position of the key. Keys of other lengths are told apart by their lengths: `==` of
    /// two different strings takes the runtime's general comparison (they might be equal once
    /// normalised).
    @inlinable
    func index(of key: String) -> Int? {
        guard marks & Self.mark(of: key) != 0 else { return nil }
        let length = key.utf8.count
        return entries.withUnsafeBufferPointer { entries in
            for index in entries.indices where entries[index].key.utf8.count == length && entries[index].key == key {
                return index
            }
            return nil
        }
    }

    /// The keys set, in the order they were.
    var keys: [String] { entries.map(\.key) }

    @inlinable
    mutating func set(_ value: any _PendingValue, forKey key: String) {
        if let index = index(of: key) {
            entries[index].value = value
            return
        }
        // Room for a model's values at the first, so that the list is not grown at each
        // doubling while an initialiser sets them one by one.
        if entries.isEmpty { entries.reserveCapacity(16) }
        entries.append(Entry(key: key, value: value))
        marks |= Self.mark(of: key)
    }

    /// Sets an attribute's value, or removes it (nil). An optional property's implicit initial
    /// value (nil) is set this way in every initialiser, `init(backingData:)` included, before
    /// any value was: nothing to remove.
    @inlinable
    mutating func setAttribute<Value>(_ value: Value?, forKey key: String) {
        guard let value else {
            if !isEmpty { remove(key) }
            return
        }
        set(Self.attribute(value), forKey: key)
    }

    /// Sets a value (a relationship's, or an attribute's the general way), or removes it (nil).
    mutating func setTyped<Value>(_ value: Value?, forKey key: String, isAttribute: Bool) {
        guard let value else {
            remove(key)
            return
        }
        if isAttribute {
            set(_TypedPendingValue(value), forKey: key)
        } else {
            set(_PendingRelationship(value), forKey: key)
        }
    }

    @inlinable
    mutating func remove(_ key: String) {
        guard let index = index(of: key) else { return }
        entries.remove(at: index)
    }

    func value(forKey key: String) -> (any _PendingValue)? {
        index(of: key).map { entries[$0].value }
    }

    /// An attribute's value to keep: a value of a type the store keeps as it is (exactly that
    /// type: no bridging) is its own pending value (its conformance, not generic, writes it through the object's setter of
    /// its type); others are wrapped. Inlinable, so that in a property's specialised setter
    /// all but one branch fold away.
    @inlinable @inline(__always)
    static func attribute<Value>(_ value: Value) -> any _PendingValue {
        if Value.self == Int.self, let plain = value as? Int { return plain }
        if Value.self == Int64.self, let plain = value as? Int64 { return plain }
        if Value.self == Int32.self, let plain = value as? Int32 { return plain }
        if Value.self == Int16.self, let plain = value as? Int16 { return plain }
        if Value.self == Double.self, let plain = value as? Double { return plain }
        if Value.self == Float.self, let plain = value as? Float { return plain }
        if Value.self == Bool.self, let plain = value as? Bool { return plain }
        if Value.self == String.self, let plain = value as? String { return plain }
        if Value.self == Date.self, let plain = value as? Date { return plain }
        if Value.self == Data.self, let plain = value as? Data { return plain }
        if Value.self == UUID.self, let plain = value as? UUID { return plain }
        if Value.self == URL.self, let plain = value as? URL { return plain }
        if Value.self == Decimal.self, let plain = value as? Decimal { return plain }
        return _TypedPendingValue(value)
    }
}

/// The types the store keeps as they are (`ModelValues.isStoredAsIs`), each writing itself
/// through the object's typed setter.
@usableFromInline
protocol _PlainPendingValue: _PendingValue {}

extension _PlainPendingValue {
    @usableFromInline
    var anyValue: Any { self }
}

extension Int: _PlainPendingValue {
    @usableFromInline
    func writeAttribute(to object: NSManagedObject, key: String) { object._setManagedValue(self, forKey: key) }
}

extension Int64: _PlainPendingValue {
    @usableFromInline
    func writeAttribute(to object: NSManagedObject, key: String) { object._setManagedValue(self, forKey: key) }
}

extension Int32: _PlainPendingValue {
    @usableFromInline
    func writeAttribute(to object: NSManagedObject, key: String) { object._setManagedValue(self, forKey: key) }
}

extension Int16: _PlainPendingValue {
    @usableFromInline
    func writeAttribute(to object: NSManagedObject, key: String) { object._setManagedValue(self, forKey: key) }
}

extension Double: _PlainPendingValue {
    @usableFromInline
    func writeAttribute(to object: NSManagedObject, key: String) { object._setManagedValue(self, forKey: key) }
}

extension Float: _PlainPendingValue {
    @usableFromInline
    func writeAttribute(to object: NSManagedObject, key: String) { object._setManagedValue(self, forKey: key) }
}

extension Bool: _PlainPendingValue {
    @usableFromInline
    func writeAttribute(to object: NSManagedObject, key: String) { object._setManagedValue(self, forKey: key) }
}

extension String: _PlainPendingValue {
    @usableFromInline
    func writeAttribute(to object: NSManagedObject, key: String) { object._setManagedValue(self, forKey: key) }
}

extension Date: _PlainPendingValue {
    @usableFromInline
    func writeAttribute(to object: NSManagedObject, key: String) { object._setManagedValue(self, forKey: key) }
}

extension Data: _PlainPendingValue {
    @usableFromInline
    func writeAttribute(to object: NSManagedObject, key: String) { object._setManagedValue(self, forKey: key) }
}

extension UUID: _PlainPendingValue {
    @usableFromInline
    func writeAttribute(to object: NSManagedObject, key: String) { object._setManagedValue(self, forKey: key) }
}

extension URL: _PlainPendingValue {
    @usableFromInline
    func writeAttribute(to object: NSManagedObject, key: String) { object._setManagedValue(self, forKey: key) }
}

extension Decimal: _PlainPendingValue {
    @usableFromInline
    func writeAttribute(to object: NSManagedObject, key: String) { object._setManagedValue(self, forKey: key) }
}

/// A value set before insertion, with its type.
@usableFromInline
protocol _PendingValue {
    var anyValue: Any { get }
    /// Whether it is an attribute's value (else a model or a collection of models).
    var isAttribute: Bool { get }
    /// Sets the value as the object's attribute, through the setter of its type.
    func writeAttribute(to object: NSManagedObject, key: String)
}

extension _PendingValue {
    @usableFromInline
    var isAttribute: Bool { true }
}

/// A relationship's value set before insertion: a model or a collection of models.
struct _PendingRelationship<Value>: _PendingValue {
    let value: Value

    init(_ value: Value) { self.value = value }

    var anyValue: Any { value }

    var isAttribute: Bool { false }

    func writeAttribute(to object: NSManagedObject, key: String) {
        ModelValues.write(value, to: object, key)
    }
}

@usableFromInline
struct _TypedPendingValue<Value>: _PendingValue {
    @usableFromInline let value: Value

    @inlinable
    init(_ value: Value) { self.value = value }

    @usableFromInline
    var anyValue: Any { value }

    @usableFromInline
    func writeAttribute(to object: NSManagedObject, key: String) {
        ModelValues.write(value, to: object, key)
    }
}
