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

    /// A library whose public API names the classes declares the aliases public (issue 32).
    @Test(arguments: [("public", "public "), ("package", "package "), ("internal", "")])
    func expandsAtTheAccessLevelGiven(level: String, modifier: String) {
        assertMacroExpansion(
            """
            import CoreData
            #CoreDataNames(.\(level))
            """,
            expandedSource: """
                import CoreData
                \(modifier)typealias NSExpression = Strata.NSExpression
                \(modifier)typealias NSComparisonPredicate = Strata.NSComparisonPredicate
                \(modifier)typealias NSCompoundPredicate = Strata.NSCompoundPredicate
                """,
            macroSpecs: ["CoreDataNames": MacroSpec(type: CoreDataNamesMacro.self)],
            failureHandler: { failure in Issue.record(Comment(rawValue: failure.message)) }
        )
    }

    @Test func refusesAnUnknownAccessLevel() {
        assertMacroExpansion(
            """
            #CoreDataNames(.open)
            """,
            expandedSource: "#CoreDataNames(.open)",
            diagnostics: [
                DiagnosticSpec(message: "#CoreDataNames takes .internal, .public or .package, not 'open'", line: 1, column: 1)
            ],
            macroSpecs: ["CoreDataNames": MacroSpec(type: CoreDataNamesMacro.self)],
            failureHandler: { failure in Issue.record(Comment(rawValue: failure.message)) }
        )
    }
}
