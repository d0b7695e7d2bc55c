import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

@testable import StrataMacros

/// Asserts that `@Managed` expands `source` to `expanded` with the given diagnostics,
/// reporting mismatches as Swift Testing issues at the caller's location.
func assertManagedExpansion(
    _ source: String,
    expandedSource expanded: String,
    diagnostics: [DiagnosticSpec] = [],
    applyFixIts: [String]? = nil,
    fixedSource: String? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    assertMacroExpansion(
        source,
        expandedSource: expanded,
        diagnostics: diagnostics,
        macroSpecs: ["Managed": MacroSpec(type: ManagedMacro.self)],
        applyFixIts: applyFixIts,
        fixedSource: fixedSource,
        failureHandler: { failure in
            Issue.record(Comment(rawValue: failure.message), sourceLocation: sourceLocation)
        }
    )
}

/// SwiftData's macros as `Sources/SwiftData/Macros.swift` declares them, with the
/// conformances their extension roles add. `@Attribute`, `@Relationship` and `@Transient` are
/// left out, so that the markers stay visible in the expanded source (on the user's properties
/// and on the members `@Model` adds); `swiftDataMarkerMacros` adds them.
let swiftDataMacros: [String: MacroSpec] = [
    "Model": MacroSpec(type: ModelMacro.self, conformances: ["PersistentModel", "Observable"]),
    "_PersistedProperty": MacroSpec(type: PersistedPropertyMacro.self),
    "Unique": MacroSpec(type: SchemaConstraintMacro.self),
    "Index": MacroSpec(type: SchemaConstraintMacro.self),
    "ModelActor": MacroSpec(type: ModelActorMacro.self, conformances: ["ModelActor"]),
]

/// `swiftDataMacros` with the marker macros, which expand to nothing.
let swiftDataMarkerMacros: [String: MacroSpec] = swiftDataMacros.merging(
    [
        "Attribute": MacroSpec(type: SchemaMarkerMacro.self),
        "Relationship": MacroSpec(type: SchemaMarkerMacro.self),
        "Transient": MacroSpec(type: SchemaMarkerMacro.self),
    ],
    uniquingKeysWith: { first, _ in first }
)

/// Asserts that SwiftData's macros expand `source` to `expanded` with the given diagnostics,
/// reporting mismatches as Swift Testing issues at the caller's location.
func assertSwiftDataExpansion(
    _ source: String,
    expandedSource expanded: String,
    diagnostics: [DiagnosticSpec] = [],
    macros: [String: MacroSpec] = swiftDataMacros,
    applyFixIts: [String]? = nil,
    fixedSource: String? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    assertMacroExpansion(
        source,
        expandedSource: expanded,
        diagnostics: diagnostics,
        macroSpecs: macros,
        applyFixIts: applyFixIts,
        fixedSource: fixedSource,
        failureHandler: { failure in
            Issue.record(Comment(rawValue: failure.message), sourceLocation: sourceLocation)
        }
    )
}
