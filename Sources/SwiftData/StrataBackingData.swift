import Foundation
import Strata

/// The backing data of Strata's models: the values a model holds before it is inserted, and
/// after, the context's object of its row, which every property reads and writes.
///
/// `@Model`'s accessors call `getValue(forKey:)` and `setValue(_:forKey:)`; the overload the
/// property's type selects reads an attribute (typed, through the object's storage, as a
/// `@Managed` property of an `NSManagedObject` subclass does), one model or a collection of
/// models (the context's models of the related objects).
public final class _StrataBackingData<Model: PersistentModel>: BackingData {
    /// The row's object, once the model is inserted or was fetched.
    var object: NSManagedObject?
    /// The context that holds the object.
    var context: ModelContext?
    /// The values set before insertion, by property name (models as models).
    var pending: [String: Any] = [:]
    /// The token of the identifier of a model no context holds yet.
    private var unsavedToken: UUID?

    public init() {}

    public init(for modelType: Model.Type) {}

    init(object: NSManagedObject, context: ModelContext) {
        self.object = object
        self.context = context
    }

    /// Strata's backing data for a model: the given one when it is Strata's (always, for
    /// `@Model` classes), else a new, empty one.
    public static func adopting(_ backingData: any BackingData<Model>) -> _StrataBackingData<Model> {
        (backingData as? _StrataBackingData<Model>) ?? _StrataBackingData<Model>()
    }

    public var persistentModelID: PersistentIdentifier? { object.map { PersistentIdentifier($0.objectID) } }

    func unsavedIdentifier(entityName: String) -> PersistentIdentifier {
        let token = unsavedToken ?? UUID()
        unsavedToken = token
        return PersistentIdentifier(unsaved: token, entityName: entityName)
    }

    // MARK: Attributes

    /// An optional attribute.
    public func getValue<Value>(forKey key: String) -> Value? {
        if let object { return ModelValues.read(object, key, as: Value.self) }
        return _pendingValue(forKey: key)
    }

    /// A non-optional attribute. A row without a value (a store written by other code) reads
    /// as the type's empty value where it has one (0, "", false, empty data or collection).
    @_disfavoredOverload
    public func getValue<Value>(forKey key: String) -> Value {
        let value: Value? = object.map { ModelValues.read($0, key, as: Value.self) } ?? _pendingValue(forKey: key)
        if let value { return value }
        return ModelValues.emptyValue(of: Value.self, entity: ModelTypeInfo.of(Model.self).entityName, key: key)
    }

    /// Sets an attribute (nil clears it).
    public func setValue<Value>(_ value: Value?, forKey key: String) {
        guard let object else {
            _setPending(value, forKey: key)
            return
        }
        ModelValues.write(value, to: object, key)
        context?.noteChange()
    }

    // MARK: Relationships

    /// An optional to-one relationship.
    public func getValue<Value: PersistentModel>(forKey key: String) -> Value? {
        guard let object else { return _pendingValue(forKey: key) }
        guard let context, let related: NSManagedObject = object._managedValue(forKey: key) else { return nil }
        return context.model(for: related, as: Value.self)
    }

    /// A non-optional to-one relationship.
    @_disfavoredOverload
    public func getValue<Value: PersistentModel>(forKey key: String) -> Value {
        if let value: Value = getValue(forKey: key) { return value }
        let entity = ModelTypeInfo.of(Model.self).entityName
        preconditionFailure("\(entity).\(key) reaches no model, but its property is non-optional")
    }

    /// A to-many relationship.
    public func getValue<Value: PersistentModel>(forKey key: String) -> [Value] {
        guard let object else { return _pendingValue(forKey: key) ?? [] }
        guard let context, let members: [NSManagedObject] = object._managedValue(forKey: key) else { return [] }
        return members.compactMap { context.model(for: $0, as: Value.self) }
    }

    /// An optional to-many relationship (nil reads as no models once inserted, as Apple's).
    public func getValue<Value: PersistentModel>(forKey key: String) -> [Value]? {
        guard object != nil else { return _pendingValue(forKey: key) }
        let models: [Value] = getValue(forKey: key)
        return models
    }

    /// Sets a to-one relationship; a model not yet inserted is inserted into this model's
    /// context, as SwiftData does.
    public func setValue<Value: PersistentModel>(_ value: Value?, forKey key: String) {
        guard let object, let context else {
            _setPending(value, forKey: key)
            return
        }
        let related = value.map { context.insertedObject(of: $0) }
        object._setManagedValue(related, forKey: key)
        context.noteChange()
    }

    /// Sets a to-many relationship to the models (inserting those not yet inserted).
    public func setValue<Value: PersistentModel>(_ value: [Value], forKey key: String) {
        guard let object, let context else {
            _setPending(value, forKey: key)
            return
        }
        let related = Set(value.map { context.insertedObject(of: $0) })
        object._setManagedValue(related, forKey: key)
        context.noteChange()
    }

    public func setValue<Value: PersistentModel>(_ value: [Value]?, forKey key: String) {
        setValue(value ?? [], forKey: key)
    }

    // MARK: Values before insertion

    func _pendingValue<Value>(forKey key: String) -> Value? {
        pending[key] as? Value
    }

    func _setPending<Value>(_ value: Value?, forKey key: String) {
        if let value { pending[key] = value } else { pending.removeValue(forKey: key) }
    }
}
