import CoreData

// This target does not apply Strata's plugin; its files that import Foundation as well as
// CoreData name Core Data's predicate classes through the aliases this line declares.
#CoreDataNames
