// Apple's Core Data brings Foundation with it: a file that imports only CoreData names
// `NSPredicate`, `Date`, `URL` and `NSNumber`. Strata does the same, under both of its names.
//
// Re-exporting also settles which `NSExpression`, `NSComparisonPredicate` and
// `NSCompoundPredicate` a file means when it imports only CoreData (or only Strata): Foundation
// on Linux declares classes of those names that it cannot make, and a module's declarations
// shadow those of a module it re-exports, when that module is imported through it alone. A
// file that also imports Foundation itself sees both; DEVIATIONS.md says what it needs.
@_exported import Foundation
