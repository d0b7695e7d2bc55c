import CoreData
import Foundation
import Testing

/// The same, with the imports the other way round.
@Suite("COMPAT 9: import CoreData, then Foundation")
struct CoreDataFirstTests {
    @Test("naming the predicate classes as types")
    func typesResolve() {
        let built: NSCompoundPredicate = NSCompoundPredicate(notPredicateWithSubpredicate: NSPredicate(format: "done == YES"))
        let inner: NSComparisonPredicate? = built.subpredicates.first as? NSComparisonPredicate
        #expect(inner?.predicateOperatorType == .equalTo)
        #expect(built.description == "NOT done == TRUE")
    }
}
