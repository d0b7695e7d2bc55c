import SwiftSyntax
import SwiftSyntaxMacros

/// `#CoreDataNames`: the module-level type aliases that make `NSExpression`,
/// `NSComparisonPredicate` and `NSCompoundPredicate` mean Core Data's classes throughout a
/// module whose files import Foundation as well as CoreData (see `CoreDataNames` in Strata).
public struct CoreDataNamesMacro: DeclarationMacro {
    /// The names Foundation on Linux and Strata both declare.
    static let names = ["NSExpression", "NSComparisonPredicate", "NSCompoundPredicate"]

    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        names.map { "typealias \(raw: $0) = Strata.\(raw: $0)" }
    }
}
