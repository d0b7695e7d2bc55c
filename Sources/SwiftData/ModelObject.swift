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
    /// The model's address, for the runtime's test of whether it is alive.
    @exclusivity(unchecked) private var modelAddress: UnsafeMutableRawPointer?
    /// The model: read only once it is known to be alive (and retained meanwhile).
    @exclusivity(unchecked) private unowned(safe) var linkedModel: (any PersistentModel)?

    /// The class name entities of a `Schema`'s model are given.
    static let className = String(reflecting: _ModelObject.self)

    /// The object as this class, if it is one (a test of its class, not the runtime's cast).
    @inline(__always)
    static func of(_ object: NSManagedObject) -> _ModelObject? {
        guard ObjectIdentifier(type(of: object)) == ObjectIdentifier(_ModelObject.self) else { return nil }
        return unsafeDowncast(object, to: _ModelObject.self)
    }

    /// Whether a model was linked (alive or not).
    var hasLink: Bool { modelAddress != nil }

    /// The linked model, if it is alive.
    var model: (any PersistentModel)? {
        guard let address = modelAddress, strata_tryRetain(address) else { return nil }
        // Retained above, so alive until the release below: the unowned reference loads it.
        let model = linkedModel
        Unmanaged<AnyObject>.fromOpaque(address).release()
        return model
    }

    /// Names the model as the object's.
    func link(_ model: any PersistentModel) {
        modelAddress = Unmanaged.passUnretained(model as AnyObject).toOpaque()
        linkedModel = model
    }

    /// Forgets the model.
    func unlink() {
        modelAddress = nil
        linkedModel = nil
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
