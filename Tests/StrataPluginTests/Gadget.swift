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
}
