import Strata

// This target's files import Foundation as well as Strata, which both declare
// `NSExpression`, `NSComparisonPredicate` and `NSCompoundPredicate`; the macro declares
// module-level aliases to Strata's, which take precedence over both imports in every file of
// the target (and so tests the macro an app without the build plugin writes).
#CoreDataNames
