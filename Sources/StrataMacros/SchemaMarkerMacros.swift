import SwiftSyntax
import SwiftSyntaxMacros

/// `@Attribute`, `@Relationship` and `@Transient`: markers that expand to nothing. `@Model`
/// reads them from the class's properties: `@Attribute`'s and `@Relationship`'s arguments
/// become the property's schema metadata, and `@Transient` properties are not persisted.
public struct SchemaMarkerMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        []
    }
}

/// `#Unique` and `#Index`: constraints that expand to no declaration. `@Model` gathers their
/// arguments into the class's `_$constraints`.
public struct SchemaConstraintMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        []
    }
}
