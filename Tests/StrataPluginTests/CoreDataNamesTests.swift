import Foundation
import Strata
import Testing

/// A target that uses Strata's plugin names `NSExpression` and `NSComparisonPredicate` as
/// types without ambiguity, though Foundation on Linux declares both too.
@Suite("Core Data names")
struct CoreDataNamesTests {
    @Test("NSExpression and NSComparisonPredicate name Core Data's classes")
    func typeNamesResolve() {
        let left: NSExpression = NSExpression(forKeyPath: "title")
        let right: NSExpression = NSExpression(forConstantValue: "Dune")
        let predicate: NSComparisonPredicate = NSComparisonPredicate(
            leftExpression: left, rightExpression: right, modifier: .direct, type: .equalTo, options: [.caseInsensitive])
        let predicates: [NSPredicate] = [predicate, NSPredicate(format: "pages > %d", 100)]
        #expect(predicates.map(\.predicateFormat) == ["title ==[c] \"Dune\"", "pages > 100"])
        #expect(predicate.evaluate(with: ["title": "DUNE"]))
        #expect(!predicate.evaluate(with: ["title": "Emma"]))
    }
}
