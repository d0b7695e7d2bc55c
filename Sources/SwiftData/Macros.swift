// The expansions of `@Model` name `Observation.Observable` and `Observation.ObservationRegistrar`
// in the user's module, which imports only SwiftData.
@_exported import Observation

// The macros of SwiftData, implemented by Strata's compiler plugin (`StrataMacros`).

/// Makes a class a persistent model.
///
/// ```swift
/// @Model final class Trip {
///     #Unique<Trip>([\.name, \.start])
///     var name: String
///     var start: Date = .now
///     @Relationship(deleteRule: .cascade, inverse: \Stop.trip) var stops: [Stop] = []
///     @Transient var scratch = 0
///     init(name: String) { self.name = name }
/// }
/// ```
///
/// Every stored instance `var` that is not `lazy` or `@Transient` is persisted: its value
/// lives in the object's backing data, read and written through accessors that also report
/// access and changes to observers. The class gains the backing data, its schema
/// (`schemaMetadata`, `_$constraints`), `init(backingData:)`, and conformances to
/// `PersistentModel` and `Observable`.
///
/// A model class may inherit from another (`@Model class BusinessTrip: Trip`): its entity is a
/// subentity of its superclass's, fetching the superclass returns models of both, and
/// `$0 is BusinessTrip` in a predicate tests the class.
///
/// Applies only to non-generic classes. A persisted property must be a single `var` with a
/// type annotation or an initial value its type can be read from.
@attached(
    member, conformances: PersistentModel,
    names: named(_$backingData), named(persistentBackingData), named(schemaMetadata),
    named(init(backingData:)), named(init(_$storage:)), named(_$observationRegistrar), named(_$constraints), named(_$RootModel),
    named(_$schemaMetadata), named(_$backingDataChain), named(_$model), named(_$row), named(_$keepRow))
@attached(memberAttribute)
@attached(extension, conformances: PersistentModel, Observable)
public macro Model() = #externalMacro(module: "StrataMacros", type: "ModelMacro")

/// The accessors of a persisted property of a `@Model` class, which `@Model` attaches to each;
/// not for use in source.
@attached(accessor, names: named(init), named(get), named(set))
@attached(peer, names: prefixed(_))
public macro _PersistedProperty() = #externalMacro(module: "StrataMacros", type: "PersistedPropertyMacro")

/// Customises how a persisted property of a `@Model` class is stored: its options (such as
/// `.unique`), the name it had in an earlier version of the schema, and a hash modifier that
/// changes the schema's version hash.
@attached(peer)
public macro Attribute(
    _ options: Schema.Attribute.Option..., originalName: String? = nil, hashModifier: String? = nil
) = #externalMacro(module: "StrataMacros", type: "SchemaMarkerMacro")

/// Customises a relationship of a `@Model` class: what deleting the object does to the
/// related ones, how many there may be, the inverse relationship, the name it had in an
/// earlier version of the schema, and a hash modifier.
@attached(peer)
public macro Relationship(
    _ options: Schema.Relationship.Option..., deleteRule: Schema.Relationship.DeleteRule = .nullify,
    minimumModelCount: Int? = 0, maximumModelCount: Int? = 0, originalName: String? = nil,
    inverse: AnyKeyPath? = nil, hashModifier: String? = nil
) = #externalMacro(module: "StrataMacros", type: "SchemaMarkerMacro")

/// Keeps a property of a `@Model` class out of the store. A stored transient property needs
/// an initial value.
@attached(peer)
public macro Transient() = #externalMacro(module: "StrataMacros", type: "SchemaMarkerMacro")

/// Declares, inside a `@Model` class, the groups of properties whose values together are
/// unique among the model's objects: `#Unique<Trip>([\.name, \.start])`.
@freestanding(declaration)
public macro Unique<T>(_ constraints: [PartialKeyPath<T>]...) =
    #externalMacro(module: "StrataMacros", type: "SchemaConstraintMacro")

/// Declares, inside a `@Model` class, the indexes of the model's store, one per argument:
/// `#Index<Trip>([\.name], [\.start, \.end])`.
@freestanding(declaration)
public macro Index<T>(_ indices: [PartialKeyPath<T>]...) =
    #externalMacro(module: "StrataMacros", type: "SchemaConstraintMacro")

/// Makes an actor a model actor: it gains a model container, a model context of its own
/// whose serial executor runs the actor's work, `init(modelContainer:)`, and a conformance
/// to `ModelActor`.
///
/// ```swift
/// @ModelActor actor Importer {
///     func importTrips() throws { try modelContext.save() }
/// }
/// ```
@attached(member, names: named(modelExecutor), named(modelContainer), named(init(modelContainer:)))
@attached(extension, conformances: ModelActor)
public macro ModelActor() = #externalMacro(module: "StrataMacros", type: "ModelActorMacro")
