import Strata

/// The class of the `Note` entity, whose codegen is "Category/Extension": the application
/// declares the class, the plugin generates its properties.
public class Note: NSManagedObject {
    /// Application logic beside the generated properties.
    var summary: String { (pinned ? "📌 " : "") + (body ?? "") }
}
