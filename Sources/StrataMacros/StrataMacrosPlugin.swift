import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin that provides Strata's macros.
@main
struct StrataMacrosPlugin: CompilerPlugin {
    let providingMacros: [Macro.Type] = [
        ManagedMacro.self, CoreDataNamesMacro.self,
        // SwiftData
        ModelMacro.self, PersistedPropertyMacro.self, SchemaMarkerMacro.self, SchemaConstraintMacro.self,
        ModelActorMacro.self,
    ]
}
