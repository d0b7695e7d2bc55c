import Foundation
import Synchronization

/// An object of a managed object model: the values of one instance of an entity, with
/// key-value access by property name, change tracking and faulting.
///
/// Subclasses declare typed properties with `@Managed` (or get them generated from a model
/// file by Strata's build plugin):
///
/// ```swift
/// final class Book: NSManagedObject {
///     @Managed var title: String?
///     @Managed var pages: Int32
/// }
/// let book = Book(context: context)
/// book.title = "Dune"
/// try context.save()
/// ```
///
/// An object belongs to one context and must only be used on that context's queue.
open class NSManagedObject: NSObject, NSFetchRequestResult {
    /// The object's entity.
    public let entity: NSEntityDescription
    /// The context the object was inserted into or fetched by.
    @exclusivity(unchecked) public internal(set) weak var managedObjectContext: NSManagedObjectContext?

    let layout: EntityLayout
    // The state below is only touched on the context's queue, which is what keeps accesses
    // exclusive; checking that again at run time (`@exclusivity(checked)`, the default)
    // cost a tenth of a fetch's time, since these are read at every property access.
    /// Current values by property position (see `EntityLayout`): attribute values, to-one
    /// destinations as objects, to-many destinations as `[NSManagedObject]` in order (as
    /// loaded) or `ToManyMembers` (once changed), or `RelationshipFault.marker` until they
    /// are loaded. Empty while the object is a fault.
    @usableFromInline @exclusivity(unchecked) final var values: ValueRow
    /// The values as last fetched or saved (`nil` for an object never saved) and their row's
    /// version: a snapshot's parts, kept without the snapshot object (48 bytes an object).
    @exclusivity(unchecked) var savedValues: ValueRow?
    @exclusivity(unchecked) var savedVersion: Int64 = 0
    /// Properties changed since the last save, by position.
    @exclusivity(unchecked) var changedIndexes = PropertyIndexSet()
    /// Properties changed since the last `processPendingChanges`, by position.
    @exclusivity(unchecked) var eventChangedIndexes = PropertyIndexSet()
    @exclusivity(unchecked) var storedObjectID: NSManagedObjectID?
    /// What few objects have, kept aside (see `ObjectAside`).
    @exclusivity(unchecked) private var aside: ObjectAside?
    // The flags share one byte, beside the key hint and the creation serial: a `Bool` each
    // took a byte, and the serial would then have taken a word of its own (a 144-byte block
    // instead of 128; see `UndoFlagLayoutTests`).
    @exclusivity(unchecked) private var flags = ObjectFlags()
    /// Whether the values have not been loaded yet.
    var faulted: Bool {
        get { flags.contains(.faulted) }
        set { flags.set(.faulted, newValue) }
    }
    /// Whether the store no longer has the object's row (a fault that could not be filled).
    var isInaccessible: Bool {
        get { flags.contains(.inaccessible) }
        set { flags.set(.inaccessible, newValue) }
    }
    var hasAwokenFromInsert: Bool {
        get { flags.contains(.awokenFromInsert) }
        set { flags.set(.awokenFromInsert, newValue) }
    }
    /// Whether a fault's saved values are a row fetched for it (`pendingSnapshot`).
    var hasPendingRow: Bool {
        get { flags.contains(.pendingRow) }
        set { flags.set(.pendingRow, newValue) }
    }
    /// Whether the object's context records its changes for undo (it has an undo manager): the
    /// one test a change costs while it does not (see ContextUndo.swift).
    final var recordsUndo: Bool {
        get { flags.contains(.recordsUndo) }
        set { flags.set(.recordsUndo, newValue) }
    }
    /// The position of the key Strata's own code is about to pass to `didChangeValue(forKey:)`
    /// or `validateValue(_:forKey:)`, or -1: their base implementations take it when the key is
    /// that position's name instead of finding the key again (60 instructions, at every set and
    /// for every property of every save). A hint only: checked against the key, and taken once.
    /// Kept in 16 bits beside the flags, so that they fit the 120 bytes an object has had (a
    /// position past 32767 truncates to a hint that the key check refuses).
    final var keyHint: Int32 {
        get { Int32(storedKeyHint) }
        set { storedKeyHint = Int16(truncatingIfNeeded: newValue) }
    }
    @exclusivity(unchecked) private var storedKeyHint: Int16 = -1
    /// The order of the object's creation among every object of the process: an object
    /// created after the newest one a to-many relationship ever held cannot be among its
    /// objects, which `ToManyMembers` tells without looking (an import links each new to-do to
    /// its tags: a search of each tag's table at every link, a cache miss at each). In 32 bits,
    /// to fit beside the flags: past 2³² − 1 objects, every later serial stays at that value,
    /// which is never greater than a serial it might equal, so those objects are searched for.
    final let creationSerial: UInt32

    /// The serial of the last object created.
    static var latestSerial: UInt32 { UInt32(clamping: serials.load(ordering: .relaxed)) }
    /// Objects created so far; in 64 bits, so that it never wraps around to small serials.
    private static let serials = Atomic<UInt64>(0)

    /// The values as last fetched or saved, as a snapshot; `nil` for an object never saved.
    var snapshot: Snapshot? {
        get { savedValues.map { Snapshot(objectID: objectID, version: savedVersion, values: $0) } }
        set {
            savedValues = newValue?.values
            savedVersion = newValue?.version ?? 0
        }
    }

    /// The version a save expects the object's row to have (1 for an object never fetched).
    var expectedVersion: Int64 { savedValues == nil ? 1 : savedVersion }

    /// A row waiting to fill the object when its fault fires (a fetch that returns faults
    /// leaves each its row). Kept as the saved values and version, which filling makes them:
    /// a fetch of 100k faults held a snapshot object and a record aside for each (88 bytes).
    /// Only a fault takes one; a filled object's saved values stay as they are.
    var pendingSnapshot: Snapshot? {
        get { hasPendingRow ? snapshot : nil }
        set {
            guard let newValue else {
                hasPendingRow = false
                return
            }
            guard faulted else { return }
            snapshot = newValue
            hasPendingRow = true
        }
    }

    /// The batch of a batched fetch this fault loads with, and its position there.
    var batch: (loader: BatchFaultLoader, position: Int)? {
        get { aside?.batch }
        set { if newValue != nil || aside != nil { setAside { $0.batch = newValue } } }
    }

    /// Set on the stand-in objects that learn which properties a key path reads.
    var probe: KeyPathProbe? {
        get { aside?.probe }
        set { if newValue != nil || aside != nil { setAside { $0.probe = newValue } } }
    }

    /// Remembers a live view of one of the object's ordered relationships
    /// (`mutableOrderedSetValue(forKey:)`), weakly, for `keepLiveViewsCurrent()`.
    final func noteLiveView(_ view: OrderedToManyRelationshipSet) {
        setAside { record in
            record.views.removeAll { $0.view == nil || $0.view === view }
            record.views.append(OrderedViewReference(view: view))
        }
    }

    /// Called when a relationship is set whole (`setPrimitive`), after a rollback, refresh,
    /// undo, merge or merge policy put back values, and when a fault fires: each live view of
    /// the object whose relationship no longer holds the members it copied copies the new ones.
    /// One load for an object without views.
    @inline(__always)
    final func keepLiveViewsCurrent() {
        if aside != nil { keepLiveViewsCurrentAside() }
    }

    private final func keepLiveViewsCurrentAside() {
        guard let record = aside, !record.views.isEmpty else { return }
        let views = record.views.compactMap(\.view)
        if views.count != record.views.count { setAside { $0.views.removeAll { $0.view == nil } } }
        for view in views { view.objectValuesWerePutBack() }
    }

    /// Changes the state kept aside, and drops the record once it holds nothing.
    private func setAside(_ change: (ObjectAside) -> Void) {
        let record = aside ?? ObjectAside()
        change(record)
        aside = record.isEmpty ? nil : record
    }

    /// Creates an object of the entity and inserts it into the context, if one is given.
    /// Attributes start at their model default values.
    public required init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) {
        creationSerial = UInt32(clamping: Self.serials.wrappingAdd(1, ordering: .relaxed).newValue)
        self.entity = entity
        self.layout = entity.layout
        self.values = layout.initialValues
        super.init()
        ManagedObjectClasses.register(type(of: self))
        if let context { context.insert(self) }
    }

    /// Creates an object of the entity whose class is this class, and inserts it into the
    /// context. The entity is the one of the context's model whose class name is this class's.
    public required convenience init(context: NSManagedObjectContext) {
        let entity = context.entity(ofClass: Self.self) ?? Self.placeholderEntity()
        self.init(entity: entity, insertInto: context)
    }

    /// An object of the entity whose class is this class in the models known so far (an empty
    /// entity when none names it), in no context. Apple's framework offers `NSObject`'s `init()`
    /// too and logs that the designated initializer was not called; code and tests use it for
    /// objects that are never saved. Insert it with `context.insert(_:)` to save it.
    public convenience override init() {
        // `NSManagedObject()` itself stands for no entity (the base class is every entity's
        // class that names no subclass).
        self.init(entity: Self.self == NSManagedObject.self ? Self.placeholderEntity() : Self.entity(), insertInto: nil)
    }

    /// The entity of this class in the models known so far: the one whose class name is
    /// the class's name.
    open class func entity() -> NSEntityDescription {
        ManagedObjectClasses.entity(for: self) ?? placeholderEntity()
    }

    static func entity(in model: NSManagedObjectModel?) -> NSEntityDescription? {
        guard let model else { return ManagedObjectClasses.entity(for: self) }
        return ManagedObjectClasses.entity(for: self, in: model)
    }

    /// An entity with no properties for a class that no model names; saving an object of
    /// it fails with a clear error instead of stopping the program.
    private static func placeholderEntity() -> NSEntityDescription {
        let entity = NSEntityDescription()
        entity.name = entityNameForClass
        entity.managedObjectClassName = String(reflecting: self)
        return entity
    }

    /// The base class's untyped request; a subclass's generated `fetchRequest()` returns a
    /// typed one and is preferred over this.
    @_disfavoredOverload
    public class func fetchRequest() -> NSFetchRequest<NSFetchRequestResult> {
        ManagedObjectClasses.register(self)
        return NSFetchRequest<NSFetchRequestResult>(entityName: entityNameForClass)
    }

    /// The entity name assumed for the class: its unqualified name.
    class var entityNameForClass: String {
        let name = String(describing: self)
        return name.split(separator: ".").last.map(String.init) ?? name
    }

    /// The object's ID: temporary until the object is saved, permanent afterwards.
    public var objectID: NSManagedObjectID {
        if let storedObjectID { return storedObjectID }
        let id = NSManagedObjectID(temporaryFor: entity)
        storedObjectID = id
        return id
    }

    // MARK: State

    /// Whether the object was inserted and not saved yet.
    public var isInserted: Bool { managedObjectContext?.isInserted(self) ?? false }
    /// Whether the object has unsaved changes and is neither inserted nor deleted.
    public var isUpdated: Bool { managedObjectContext?.isUpdated(self) ?? false }
    /// Whether the object will be deleted at the next save.
    public var isDeleted: Bool { managedObjectContext?.isDeleted(self) ?? false }
    /// Whether the object is inserted, updated or deleted.
    public var hasChanges: Bool { isInserted || isUpdated || isDeleted }
    /// Whether the object's values have not been loaded yet.
    public var isFault: Bool { faulted }

    /// Whether some stored property differs from its last saved value.
    public var hasPersistentChangedValues: Bool {
        guard !faulted else { return false }
        guard let savedValues else { return isInserted }
        return changedIndexes.contains { index in
            !layout.properties[index].isTransient && !ValueEquality.same(persistentValue(at: index), savedValues[index])
        }
    }

    /// The changed properties since the last save, with their new values.
    open func changedValues() -> [String: Any] {
        dictionary(of: changedIndexes)
    }

    /// The changed properties since the last time pending changes were processed.
    open func changedValuesForCurrentEvent() -> [String: Any] {
        dictionary(of: eventChangedIndexes)
    }

    /// The last fetched or saved values of the given keys (all properties for `nil`).
    /// Relationships come back as objects (`NSSet` for to-many). An object never saved has
    /// no committed values: its dictionary is empty, as Apple's.
    open func committedValues(forKeys keys: [String]?) -> [String: Any] {
        fireFault()
        guard let savedValues else { return [:] }
        let indexes = keys.map { $0.compactMap { layout.indexByName[$0] } } ?? layout.persistentIndexes
        var result: [String: Any] = [:]
        for index in indexes {
            let name = layout.properties[index].name
            let value = savedValues[index]
            switch layout.kinds[index] {
            case .toOne:
                result[name] = (value as? NSManagedObjectID).flatMap { managedObjectContext?.object(with: $0) } ?? NSNull()
            case .toMany(let ordered):
                guard let ids = value as? [NSManagedObjectID], let context = managedObjectContext else { continue }
                let objects = ids.map { context.object(with: $0) }
                result[name] = ordered ? NSOrderedSet(array: objects) : Self.set(of: objects)
            default:
                result[name] = value ?? NSNull()
            }
        }
        return result
    }

    /// The persistent properties among the positions, with their current values (Core Data
    /// leaves transient properties out of `changedValues()`).
    private func dictionary(of indexes: PropertyIndexSet) -> [String: Any] {
        var result: [String: Any] = [:]
        for index in indexes where !layout.properties[index].isTransient {
            result[layout.properties[index].name] = primitiveValue(at: index) ?? NSNull()
        }
        return result
    }

    // MARK: Life cycle

    /// Called once, when the object is first inserted into a context.
    open func awakeFromInsert() {}
    /// Called when the object's values are loaded from the store.
    open func awakeFromFetch() {}
    /// Called after the object's values were restored from a snapshot by the event named
    /// (rollback, refresh); overrides recompute what they derived from those values.
    open func awakeFromSnapshotEvents(_ flags: NSSnapshotEventType) {}
    /// Called before the object is saved (inserted, updated or deleted); changes made
    /// here are saved too.
    open func willSave() {}
    /// Called after the object was saved.
    open func didSave() {}
    /// Called when the object is about to be deleted, before delete rules run.
    open func prepareForDeletion() {}
    /// Called before the object turns into a fault.
    open func willTurnIntoFault() {}
    /// Called after the object turned into a fault.
    open func didTurnIntoFault() {}

    // MARK: Validation

    /// Checks the object before it is saved as a new object; overrides must call `super`.
    open func validateForInsert() throws {
        try throwing(propertyErrors())
    }

    /// Checks the object before its changes are saved; overrides must call `super`.
    open func validateForUpdate() throws {
        try throwing(propertyErrors())
    }

    /// Checks that the object may be deleted: no Deny relationship still has destinations.
    open func validateForDelete() throws {
        try throwing(denyErrors())
    }

    /// Checks a proposed value for one property against the model: required values,
    /// relationship counts, numeric and date bounds, lengths, regular expressions.
    ///
    /// This is the per-key hook: override it (switch on `key`, call `super`) where Apple's
    /// Core Data would find a `validate<Key>:error:` method, which needs the Objective-C
    /// runtime. Throw to reject the value, or assign `value` to replace it; every save calls
    /// this for each property of inserted and updated objects, collects what it throws with
    /// the other errors, and keeps a replaced value.
    open func validateValue(_ value: inout Any?, forKey key: String) throws {
        // An attribute without rules that has a value, and an optional to-one relationship, are
        // valid: said without preparing the texts of the errors they cannot have (every save
        // asks for every property).
        if let index = takeKeyHint(for: key) ?? layout.index(of: key) {
            if layout.isOptionalToOne[index] { return }
            if layout.isRuleFreeAttribute[index] {
                if PlainValues.isPresentPlainValue(value) { return }
                if let present = value, !ManagedValueCoercion.isNull(present) { return }
            }
        }
        if let error = modelRuleError(for: value, forKey: key) { throw error }
    }

    /// Apple's form, with `UnsafeMutablePointer` in place of the `AutoreleasingUnsafeMutablePointer`
    /// Linux lacks. It calls `validateValue(_:forKey:)` with an `Any?`, which is the one to
    /// override, and stores a replaced value back as a Foundation object.
    open func validateValue(_ value: UnsafeMutablePointer<AnyObject?>, forKey key: String) throws {
        var proposed: Any? = value.pointee
        try validateValue(&proposed, forKey: key)
        if Self.isReplacement(proposed, of: value.pointee) { value.pointee = Self.objectValue(proposed) }
    }

    // MARK: Key-value access

    /// The value of a property: an attribute's value, a to-one relationship's object, or a
    /// to-many relationship's `NSSet` (`NSOrderedSet` when ordered).
    ///
    /// An unknown key returns `nil`; use `validateKey(_:)` to tell it from a nil value.
    open func value(forKey key: String) -> Any? {
        if let probe { return probe.read(key, on: self) }
        guard let index = layout.index(of: key) else { return nil }
        willAccessValue(forKey: key)
        defer { didAccessValue(forKey: key) }
        return primitiveValue(at: index)
    }

    /// Sets a property's value, with change notifications and inverse maintenance:
    /// setting one side of a relationship updates the other side at once.
    open func setValue(_ value: Any?, forKey key: String) {
        guard let index = layout.index(of: key), !layout.properties[index].isReadOnly else { return }
        willChangeValue(forKey: key)
        switch layout.kinds[index] {
        case .toOne, .toMany: setRelationship(value, at: index)
        default: setPrimitive(value, at: index)
        }
        keyHint = Int32(truncatingIfNeeded: index)
        didChangeValue(forKey: key)
    }

    /// The stored value of a property, without access notifications.
    open func primitiveValue(forKey key: String) -> Any? {
        guard let index = layout.index(of: key) else { return nil }
        return primitiveValue(at: index)
    }

    /// Sets the stored value of a property, without notifications or inverse maintenance.
    /// An unknown key is ignored.
    open func setPrimitiveValue(_ value: Any?, forKey key: String) {
        guard let index = layout.index(of: key) else { return }
        setPrimitive(value, at: index)
    }

    func primitiveValue(at index: Int) -> Any? {
        fireFault()
        switch layout.kinds[index] {
        case .toMany(let ordered):
            return toManyValue(at: index, ordered: ordered)
        case .other:
            guard let fetched = layout.properties[index] as? NSFetchedPropertyDescription else { return values[index] }
            return fetchedPropertyValue(at: index, fetched)
        default:
            return values[index]
        }
    }

    /// An `NSSet` of objects, made from them as `AnyObject`s: `NSSet(array:)` takes `[Any]` and
    /// boxes each element for the Objective-C side before the set boxes it again, which on
    /// Linux costs more than the set itself.
    static func set(of objects: [NSManagedObject]) -> NSSet {
        objects.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: AnyObject.self) { objects in
                NSSet(objects: objects.baseAddress, count: objects.count)
            }
        }
    }

    func setPrimitive(_ value: Any?, at index: Int) {
        fireFault()
        if recordsUndo { noteUndoableChange(at: index) }
        if layout.isToMany(index) {
            let objects = Self.objects(in: value)
            noteRelationshipCopy(objects.count)
            values[index] = Self.toManyStorage(of: objects, given: value, ordered: layout.kinds[index] == .toMany(ordered: true))
            // A live view of the relationship copies its new members.
            keepLiveViewsCurrent()
        } else if let stored = layout.storedTypes[index], PlainValues.containerType(value) == UInt(bitPattern: stored) {
            // Already in stored form (a value type's container names it exactly): typed
            // setters land here.
            values[index] = value
        } else {
            values[index] = ManagedValueCoercion.storedValue(value, for: layout.properties[index])
        }
        changedIndexes.insert(index)
        eventChangedIndexes.insert(index)
    }

    /// What a to-many position holds after `objects` were set as `value`: members that keep
    /// `value` as the set reads give, when it is an immutable `NSSet` (`NSOrderedSet` when
    /// ordered) of exactly those objects; otherwise the objects. Sets are values, so the one the
    /// app made can be read back until the next change, instead of a copy made at the next read
    /// (`validateValue(_:forKey:)` reads every relationship at every save: a set was made for
    /// each of B11's 100k to-dos). The value's exact type is asked first, so that a value of
    /// another type costs no cast.
    private static func toManyStorage(of objects: [NSManagedObject], given value: Any?, ordered: Bool) -> Any {
        let set: AnyObject? =
            ordered
            ? ClassReferences.exact(value, as: NSOrderedSet.self).flatMap { $0.count == objects.count ? $0 : nil }
            : ClassReferences.exact(value, as: NSSet.self).flatMap { $0.count == objects.count ? $0 : nil }
        guard let set else { return objects }
        let members = ToManyMembers(objects, ordered: ordered)
        members.published = set
        return members
    }

    /// The value as a store keeps it: to-one as an object ID, to-many as object IDs.
    func persistentValue(at index: Int) -> Any? {
        switch layout.kinds[index] {
        case .toOne: (values[index] as? NSManagedObject)?.objectID
        case .toMany: toManyObjects(at: index).map(\.objectID)
        default: values[index]
        }
    }

    /// The objects of a to-many value given as a set, ordered set or collection, each once.
    ///
    /// The sets setters are given most, exactly `NSSet` and `NSOrderedSet`, are told by their
    /// type and read in place, and their elements likewise (`ClassReferences`); their elements
    /// are distinct already (a managed object is equal only to itself). The casts and the
    /// table of identities cost 9,000 instructions for a to-do's three tags.
    static func objects(in value: Any?) -> [NSManagedObject] {
        if let set = ClassReferences.exact(value, as: NSSet.self) { return managedObjects(in: set.allObjects) }
        if let set = ClassReferences.exact(value, as: NSOrderedSet.self) { return managedObjects(in: set.array) }
        let elements: [Any]
        switch value {
        case let set as NSOrderedSet: elements = set.array
        case let set as NSSet: elements = set.allObjects
        case let array as [Any]: elements = array
        case let set as Set<NSManagedObject>: elements = Array(set)
        case let set as Set<AnyHashable>: elements = Array(set)
        default: elements = []
        }
        var seen = Set<ObjectIdentifier>()
        return elements.compactMap { $0 as? NSManagedObject }.filter { seen.insert(ObjectIdentifier($0)).inserted }
    }

    /// The managed objects among distinct elements, in their order.
    private static func managedObjects(in elements: [Any]) -> [NSManagedObject] {
        var objects: [NSManagedObject] = []
        objects.reserveCapacity(elements.count)
        for element in elements {
            if let object = ClassReferences.managedObject(element) { objects.append(object) }
        }
        return objects
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
        // An element of a composite attribute: the composite's dictionary with that element set.
        if let first = components.first, let index = layout.index(of: first),
            let composite = layout.properties[index] as? NSCompositeAttributeDescription
        {
            setValue(
                CompositeValues.setting(value, at: components.dropFirst() + [last], in: self.value(forKey: first)),
                forKey: composite.name)
            return
        }
        (self.value(forKeyPath: components.joined(separator: ".")) as? NSManagedObject)?.setValue(value, forKey: last)
    }

    /// Whether the entity has a property with this name.
    public func validateKey(_ key: String) -> Bool { layout.index(of: key) != nil }

    /// A mutable set whose changes apply to the to-many relationship `key`.
    open func mutableSetValue(forKey key: String) -> NSMutableSet {
        ToManyRelationshipSet(object: self, key: key)
    }

    /// A mutable ordered set whose changes apply to the ordered to-many relationship `key`, and
    /// that reads it live. The context keeps its last few such sets, so that asking again for
    /// the same relationship gives the same set instead of a new copy of the relationship.
    open func mutableOrderedSetValue(forKey key: String) -> NSMutableOrderedSet {
        guard let context = managedObjectContext else { return OrderedToManyRelationshipSet(object: self, key: key) }
        return context.orderedView(of: self, forKey: key)
    }

    // MARK: Observation hooks

    /// Called before a property is read; overrides must call `super`. With a nil key it
    /// fires the object's fault, as Apple's does, so that its values are loaded.
    open func willAccessValue(forKey key: String?) {
        if key == nil { fireFault() }
    }
    /// Called after a property is read; overrides must call `super`.
    open func didAccessValue(forKey key: String?) {}
    /// Called before a property changes; overrides must call `super`.
    open func willChangeValue(forKey key: String) {}
    /// Called after a property changed; records the change with the context. Overrides
    /// must call `super`.
    open func didChangeValue(forKey key: String) {
        if let index = takeKeyHint(for: key) ?? layout.index(of: key) {
            changedIndexes.insert(index)
            eventChangedIndexes.insert(index)
        }
        managedObjectContext?.objectDidChange(self)
    }

    /// The hinted position (`keyHint`) if `key` is its name; the hint is cleared either way.
    @inline(__always)
    final func takeKeyHint(for key: String) -> Int? {
        let hint = Int(keyHint)
        guard hint >= 0 else { return nil }
        keyHint = -1
        return hint < layout.properties.count && layout.name(at: hint) == key ? hint : nil
    }

    open override var description: String {
        let name = entity.name ?? "?"
        guard !faulted else { return "<\(type(of: self)): entity: \(name); id: \(objectID.uriRepresentation()); data: <fault>>" }
        let pairs = layout.properties.enumerated().map { index, property -> String in
            let value = values[index]
            if let object = value as? NSManagedObject { return "\(property.name) = <\(object.entity.name ?? "?")>" }
            if let objects = value as? [NSManagedObject] { return "\(property.name) = <\(objects.count) objects>" }
            if let members = ToManyMembers.held(in: value) { return "\(property.name) = <\(members.count) objects>" }
            if value is RelationshipFault { return "\(property.name) = <relationship fault>" }
            return "\(property.name) = \(value.map { String(describing: $0) } ?? "nil")"
        }
        return
            "<\(type(of: self)): entity: \(name); id: \(objectID.uriRepresentation()); data: {\(pairs.joined(separator: "; "))}>"
    }
}

/// Stands for a to-many relationship whose objects the store has not loaded yet.
final class RelationshipFault: @unchecked Sendable {
    static let marker = RelationshipFault()
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
        // A composite attribute's element (`magnitude.richter`).
        case let dictionary as [String: Any]: return CompositeValues.value(at: rest, in: dictionary)
        default: return nil
        }
    }

    private static func collect(_ element: Any, _ rest: [String]) -> Any? {
        (element as? NSManagedObject).flatMap { value(of: $0, at: rest) }
    }
}

/// The state of an object that few objects have at a time, in a record of its own: a fault's
/// batch, a key-path probe's recorder and the live views of its ordered relationships. Inline
/// they took 32 bytes of every object.
final class ObjectAside {
    var batch: (loader: BatchFaultLoader, position: Int)?
    var probe: KeyPathProbe?
    /// The live views of the object's ordered relationships, held weakly.
    var views: [OrderedViewReference] = []

    var isEmpty: Bool { batch == nil && probe == nil && views.isEmpty }
}

/// An object's Boolean states, one bit each, in the byte they share (`NSManagedObject`'s
/// `faulted`, `recordsUndo` and the others read and write them by name).
struct ObjectFlags: OptionSet {
    let rawValue: UInt8

    static let faulted = ObjectFlags(rawValue: 1 << 0)
    static let inaccessible = ObjectFlags(rawValue: 1 << 1)
    static let awokenFromInsert = ObjectFlags(rawValue: 1 << 2)
    static let pendingRow = ObjectFlags(rawValue: 1 << 3)
    static let recordsUndo = ObjectFlags(rawValue: 1 << 4)

    /// Sets or clears `flag`.
    @inline(__always)
    mutating func set(_ flag: ObjectFlags, _ on: Bool) {
        if on { insert(flag) } else { remove(flag) }
    }
}
