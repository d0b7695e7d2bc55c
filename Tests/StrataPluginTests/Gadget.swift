import Foundation
import Strata

/// The class of the `Gadget` entity, whose codegen is "Manual/None": written by hand with
/// `@Managed` and Swift types rather than Xcode's object types.
final class Gadget: NSManagedObject {
    @Managed var label: String
    @Managed var units: Int
    @Managed var price: Decimal
    @Managed var weight: Float
    @Managed var madeAt: Date
    @Managed var `default`: String?
    @Managed var owner: Todo?
    @Managed var tags: Set<Tag>
    @Managed var parts: [Step]

    /// Core Data's primitive accessors of `label` and `madeAt`: the stored values, without
    /// notifications, for custom accessors such as `trimmedLabel` to build on.
    @Managed var primitiveLabel: String
    @Managed var primitiveMadeAt: Date?

    /// A custom accessor as Apple's documentation writes them: notifications around the
    /// primitive accessor.
    var trimmedLabel: String {
        get {
            willAccessValue(forKey: "label")
            defer { didAccessValue(forKey: "label") }
            return primitiveLabel
        }
        set {
            willChangeValue(forKey: "label")
            primitiveLabel = newValue.trimmingCharacters(in: .whitespaces)
            didChangeValue(forKey: "label")
        }
    }

    /// The keys `willChangeValue(forKey:)` was called with.
    private(set) var changeNotices: [String] = []

    override func willChangeValue(forKey key: String) {
        changeNotices.append(key)
        super.willChangeValue(forKey: key)
    }
}
