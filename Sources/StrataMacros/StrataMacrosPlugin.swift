import SwiftCompilerPlugin
import SwiftSyntaxMacros

@main
struct StrataMacrosPlugin: CompilerPlugin {
    let providingMacros: [Macro.Type] = []
}
