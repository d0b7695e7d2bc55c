// swift-format-ignore-file: OrderedImports
// (The order of the imports is what this file tests.)
import Foundation
import CoreData
import Testing

/// A file that imports Foundation, then CoreData, in a target without the plugin: with
/// `#CoreDataNames` written once in the target, the types resolve to Core Data's.
@Suite("COMPAT 9: import Foundation, then CoreData")
struct FoundationFirstTests {
    @Test("naming NSComparisonPredicate, NSCompoundPredicate and NSExpression as types")
    func typesResolve() throws {
        let parsed: NSPredicate = NSPredicate(format: "a == 1 OR b == 2")
        let compound: NSCompoundPredicate = try #require(parsed as? NSCompoundPredicate)
        let first: NSComparisonPredicate = try #require(compound.subpredicates.first as? NSComparisonPredicate)
        let left: NSExpression = first.leftExpression
        #expect(left.keyPath == "a")
        #expect(compound.description == "a == 1 OR b == 2")
    }
}
