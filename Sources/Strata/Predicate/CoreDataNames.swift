/// Makes `NSExpression`, `NSComparisonPredicate` and `NSCompoundPredicate` mean Core Data's
/// classes in every file of the module it is written in, once, at the top level of any file.
///
/// Foundation on Linux declares classes of those three names that it cannot make (or, for
/// `NSCompoundPredicate`, cannot print). A file that imports only CoreData (or only Strata)
/// sees Core Data's alone; a file that imports Foundation itself as well sees both, and naming
/// the type (`let p: NSComparisonPredicate`, `as? NSCompoundPredicate`) is then ambiguous.
/// Swift gives a library no way to settle that for its users' files (DEVIATIONS.md shows the
/// experiment); a declaration in the user's own module does, and this macro writes it. Targets
/// that apply `StrataModelPlugin` need neither: the plugin writes the same declarations.
///
/// ```swift
/// import CoreData
/// import Foundation
///
/// #CoreDataNames
///
/// func isComparison(_ predicate: NSPredicate) -> Bool { predicate is NSComparisonPredicate }
/// ```
@freestanding(declaration, names: named(NSExpression), named(NSComparisonPredicate), named(NSCompoundPredicate))
public macro CoreDataNames() = #externalMacro(module: "StrataMacros", type: "CoreDataNamesMacro")

/// The access level of the aliases `#CoreDataNames(_:)` declares.
public enum CoreDataNamesAccess: Sendable {
    /// Visible in the module only (what `#CoreDataNames` and the build plugin declare).
    case `internal`
    /// Visible to the module's clients too: a library whose public API names `NSExpression`,
    /// `NSComparisonPredicate` or `NSCompoundPredicate` needs the aliases it names to be public.
    case `public`
    /// Visible in the module's package.
    case `package`
}

/// `#CoreDataNames` with the aliases declared at the given access level. A library whose
/// public declarations mention one of the three classes writes `#CoreDataNames(.public)`;
/// with internal aliases, Swift refuses those declarations ("cannot be declared public because
/// its parameter uses an internal type").
///
/// ```swift
/// import CoreData
/// import Foundation
///
/// #CoreDataNames(.public)
///
/// public func titleContains(_ text: String) -> NSComparisonPredicate { … }
/// ```
@freestanding(declaration, names: named(NSExpression), named(NSComparisonPredicate), named(NSCompoundPredicate))
public macro CoreDataNames(_ access: CoreDataNamesAccess) =
    #externalMacro(module: "StrataMacros", type: "CoreDataNamesMacro")
