import CStrataRuntime
import Strata

/// The class of the objects of a SwiftData container's rows (the class every entity of a
/// `Schema`'s model names): Strata's managed object, which also names the model its context
/// made for it, so that a context finds a row's model in the object it has just fetched rather
/// than in a table of its own. (A table of a large fetch's models is reached at a random place
/// for each row: at 100,000 rows, a table of 8 MB and a cache miss a row.)
///
/// The model is held as the context's registry holds one (`ModelRegistry`): unowned, since
/// the model holds its object; whether it is still alive is asked of the runtime as the load
/// of a weak reference asks it. An object has one context, whose model of it is the one named
/// here; objects of another class (none, unless the class name could not be resolved) have
/// their models in the registry's table.
///
/// Its fields take no room of a Core Data object's: they are in this subclass, which only a
/// `Schema`'s model names (`NSManagedObjectModel.makeManagedObjectModel(for:)` names
/// `NSManagedObject`, as an app opening the store through Core Data expects).
final class _ModelObject: NSManagedObject {
    /// The model, held unowned.
    @exclusivity(unchecked) private var linked = UnownedModel()

    /// The class name entities of a `Schema`'s model are given.
    static let className = String(reflecting: _ModelObject.self)

    /// The object as this class, if it is one (a test of its class, not the runtime's cast).
    @inline(__always)
    static func of(_ object: NSManagedObject) -> _ModelObject? {
        guard ObjectIdentifier(type(of: object)) == ObjectIdentifier(_ModelObject.self) else { return nil }
        return unsafeDowncast(object, to: _ModelObject.self)
    }

    /// Whether a model was linked (alive or not).
    var hasLink: Bool { linked.isSet }

    /// The linked model, if it is alive.
    var model: (any PersistentModel)? { linked.model }

    /// Names the model as the object's.
    func link(_ model: any PersistentModel) { linked = UnownedModel(model) }

    /// Forgets the model.
    func unlink() { linked = UnownedModel() }
}

/// A model held unowned, as a context's registry and a row's object hold theirs (the model holds
/// its object and its context): its memory (not the model) stays allocated while it is named, in
/// the model's own reference count, so its address is never another object's; whether the model
/// is still alive is asked of the runtime as the load of a weak reference asks it
/// (`swift_tryRetain`). A weak reference would give the model a side table, which makes every
/// retain and release of it, wherever the app passes it, a slow one.
struct UnownedModel {
    /// The model's address, for the runtime's test of whether it is alive.
    private var address: UnsafeMutableRawPointer?
    /// The model: read only once it is known to be alive (and retained meanwhile).
    private unowned(safe) var reference: (any PersistentModel)?

    init() {}

    init(_ model: any PersistentModel) {
        address = Unmanaged.passUnretained(model as AnyObject).toOpaque()
        reference = model
    }

    /// Whether a model is named (alive or not).
    var isSet: Bool { address != nil }

    /// Whether the model named is alive.
    var isAlive: Bool {
        guard let address, strata_tryRetain(address) else { return false }
        Unmanaged<AnyObject>.fromOpaque(address).release()
        return true
    }

    /// The model, if it is alive.
    var model: (any PersistentModel)? {
        guard let address, strata_tryRetain(address) else { return nil }
        // Retained above, so alive until the release below: the unowned reference loads it.
        let model = reference
        Unmanaged<AnyObject>.fromOpaque(address).release()
        return model
    }
}

/// An object reflects (`dump`, `Mirror`, a test library describing it) as Core Data's objects
/// do, with its model if it is alive: the unowned reference, which a mirror would load strongly,
/// stops the program once the model is gone.
extension _ModelObject: CustomReflectable {
    var customMirror: Mirror {
        Mirror(self, children: ["model": model as Any], ancestorRepresentation: .generated)
    }
}
