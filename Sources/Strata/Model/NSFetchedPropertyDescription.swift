import Foundation

/// A property whose value is the result of a fetch request, evaluated lazily (a "weak,
/// one-way relationship"). Its predicate may use `$FETCH_SOURCE` and `$FETCHED_PROPERTY`.
open class NSFetchedPropertyDescription: NSPropertyDescription, @unchecked Sendable {
    /// The request whose results are the property's value.
    public var fetchRequest: NSFetchRequest<NSFetchRequestResult>?

    override class func makeEmpty() -> NSPropertyDescription { NSFetchedPropertyDescription() }

    open override func copy(with zone: NSZone? = nil) -> Any {
        let copy = super.copy(with: zone)
        (copy as? NSFetchedPropertyDescription)?.fetchRequest =
            fetchRequest?.copy() as? NSFetchRequest<NSFetchRequestResult>
        return copy
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard super.isEqual(object), let other = object as? NSFetchedPropertyDescription else { return false }
        switch (fetchRequest, other.fetchRequest) {
        case (nil, nil): return true
        case (let a?, let b?): return a.isEqual(b)
        default: return false
        }
    }
}
