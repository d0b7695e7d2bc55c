import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@ModelActor`: makes an actor a SwiftData model actor, whose work runs on the executor of
/// its own model context.
///
/// ```swift
/// @ModelActor actor Worker {}
/// ```
///
/// gains
///
/// ```swift
/// nonisolated let modelExecutor: any SwiftData.ModelExecutor
/// nonisolated let modelContainer: SwiftData.ModelContainer
/// init(modelContainer: SwiftData.ModelContainer) {
///     let modelContext = SwiftData.ModelContext(modelContainer)
///     self.modelExecutor = SwiftData.DefaultSerialModelExecutor(modelContext: modelContext)
///     self.modelContainer = modelContainer
/// }
/// ```
///
/// and `extension Worker: SwiftData.ModelActor {}`. The members are `public` in a public
/// actor and `package` in a package one (the protocol's requirements need witnesses as
/// visible as the conformance), without an access modifier otherwise.
public struct ModelActorMacro: MemberMacro, ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let actor = declaration.as(ActorDeclSyntax.self) else {
            var fixIts: [FixIt] = []
            if let keyword = declaration.as(ClassDeclSyntax.self)?.classKeyword {
                fixIts.append(
                    FixIt(
                        message: ModelFixIt.useActor,
                        changes: [
                            .replace(oldNode: Syntax(keyword), newNode: Syntax(keyword.with(\.tokenKind, .keyword(.actor))))
                        ]
                    ))
            }
            context.diagnose(Diagnostic(node: node, message: ModelDiagnostic.notAnActor, fixIts: fixIts))
            return []
        }
        let access = accessModifier(of: actor)
        return [
            "\(raw: access)nonisolated let modelExecutor: any SwiftData.ModelExecutor",
            "\(raw: access)nonisolated let modelContainer: SwiftData.ModelContainer",
            """
            \(raw: access)init(modelContainer: SwiftData.ModelContainer) {
                let modelContext = SwiftData.ModelContext(modelContainer)
                self.modelExecutor = SwiftData.DefaultSerialModelExecutor(modelContext: modelContext)
                self.modelContainer = modelContainer
            }
            """,
        ]
    }

    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard declaration.is(ActorDeclSyntax.self) else { return [] }
        return conformances([("SwiftData", "ModelActor")], of: type, declaration: declaration, requested: protocols)
    }

    /// `"public "` or `"package "` for a public or package actor, `""` otherwise.
    private static func accessModifier(of actor: ActorDeclSyntax) -> String {
        for modifier in actor.modifiers {
            switch modifier.name.tokenKind {
            case .keyword(.public), .keyword(.open): return "public "
            case .keyword(.package): return "package "
            default: continue
            }
        }
        return ""
    }
}
