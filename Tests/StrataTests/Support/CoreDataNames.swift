import Strata

// Foundation on Linux declares `NSExpression` and `NSComparisonPredicate` too (classes it
// cannot make); names declared in this module take precedence over both imports, as the
// file Strata's build plugin writes does in an app's target.
typealias NSExpression = Strata.NSExpression
typealias NSComparisonPredicate = Strata.NSComparisonPredicate
