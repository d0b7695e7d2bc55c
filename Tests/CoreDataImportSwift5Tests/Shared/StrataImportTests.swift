import Strata
import Testing

/// A file that imports Strata under its own name, and nothing else: Foundation comes with it,
/// and the predicate classes are Core Data's (COMPAT 9).
@Suite("COMPAT 9: import Strata alone")
struct StrataImportTests {
    @Test("names Core Data's predicate classes and Foundation's types")
    func namesResolve() throws {
        let expression: NSExpression = NSExpression(forKeyPath: "title")
        let comparison: NSComparisonPredicate = NSComparisonPredicate(
            leftExpression: expression, rightExpression: NSExpression(forConstantValue: 3), modifier: .direct,
            type: .greaterThan)
        let compound: NSCompoundPredicate = NSCompoundPredicate(notPredicateWithSubpredicate: comparison)
        #expect(compound.description == "NOT title > 3")
        let date: Date = Date(timeIntervalSince1970: 0)
        #expect(NSPredicate(format: "SELF == %@", date as NSDate).evaluate(with: date))
    }
}
