import CoreData
import Foundation

// A library whose public API names Core Data's predicate classes, in a file that imports
// Foundation as well: the aliases must be public for the declarations below to be.
#CoreDataNames(.public)

/// Predicates an app builds in a library of its own.
public enum Queries {
    /// `age > minimum`, as a comparison predicate.
    public static func older(than minimum: Int) -> NSComparisonPredicate {
        NSComparisonPredicate(
            leftExpression: NSExpression(forKeyPath: "age"), rightExpression: NSExpression(forConstantValue: minimum),
            modifier: .direct, type: .greaterThan)
    }

    /// The key path expression of a property.
    public static func property(_ name: String) -> NSExpression { NSExpression(forKeyPath: name) }

    /// Both predicates.
    public static func both(_ first: NSPredicate, _ second: NSPredicate) -> NSCompoundPredicate {
        NSCompoundPredicate(andPredicateWithSubpredicates: [first, second])
    }
}
