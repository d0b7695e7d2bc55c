import SwiftSyntax
import SwiftSyntaxMacros

/// `#CoreDataNames`: the module-level type aliases that make `NSExpression`,
/// `NSComparisonPredicate` and `NSCompoundPredicate` mean Core Data's classes throughout a
/// module whose files import Foundation as well as CoreData (see `CoreDataNames` in Strata).
/// `#CoreDataNames(.public)` (or `.package`) declares them at that access level, for libraries
/// whose own API names the classes.
public struct CoreDataNamesMacro: DeclarationMacro {
    /// The names Foundation on Linux and Strata both declare.
    static let names = ["NSExpression", "NSComparisonPredicate", "NSCompoundPredicate"]

    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        let modifier: String
        switch accessName(of: node) {
        case nil, "internal": modifier = ""
        case "public": modifier = "public "
        case "package": modifier = "package "
        case let other?:
            throw CoreDataNamesError(
                message: "#CoreDataNames takes .internal, .public or .package, not '\(other)'")
        }
        return names.map { "\(raw: modifier)typealias \(raw: $0) = Strata.\(raw: $0)" }
    }

    /// The access level the invocation names (`.public`, `CoreDataNamesAccess.public`), or
    /// `nil` without an argument.
    private static func accessName(of node: some FreestandingMacroExpansionSyntax) -> String? {
        guard let expression = node.arguments.first?.expression else { return nil }
        if let member = expression.as(MemberAccessExprSyntax.self) {
            return member.declName.baseName.identifier?.name ?? member.declName.baseName.text
        }
        return expression.trimmedDescription
    }
}

/// An argument `#CoreDataNames` does not take.
struct CoreDataNamesError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
