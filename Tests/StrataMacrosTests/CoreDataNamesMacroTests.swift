import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

@testable import StrataMacros

/// `#CoreDataNames` writes the module-level aliases a target without the build plugin needs.
@Suite struct CoreDataNamesMacroTests {
    @Test func expandsToTheThreeAliases() {
        assertMacroExpansion(
            """
            import CoreData
            #CoreDataNames
            """,
            expandedSource: """
                import CoreData
                typealias NSExpression = Strata.NSExpression
                typealias NSComparisonPredicate = Strata.NSComparisonPredicate
                typealias NSCompoundPredicate = Strata.NSCompoundPredicate
                """,
            macroSpecs: ["CoreDataNames": MacroSpec(type: CoreDataNamesMacro.self)],
            failureHandler: { failure in Issue.record(Comment(rawValue: failure.message)) }
        )
    }
}
