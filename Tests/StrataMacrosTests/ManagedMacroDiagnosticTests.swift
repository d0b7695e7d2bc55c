import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// `@Managed` rejects declarations it cannot manage with an error at the offending part.
@Suite("@Managed diagnostics")
struct ManagedMacroDiagnosticTests {
    @Test("a 'let' is rejected, with a fix-it to 'var'")
    func rejectsLet() {
        assertManagedExpansion(
            "@Managed let title: String?",
            expandedSource: "let title: String?",
            diagnostics: [
                DiagnosticSpec(
                    message: "@Managed requires 'var': a managed property is read and written through its object",
                    line: 1,
                    column: 10,
                    fixIts: [FixItSpec(message: "Replace 'let' with 'var'")]
                )
            ],
            applyFixIts: ["Replace 'let' with 'var'"],
            fixedSource: "@Managed var title: String?"
        )
    }

    @Test("an initial value is rejected, with a fix-it removing it")
    func rejectsInitialValue() {
        assertManagedExpansion(
            "@Managed var count: Int64 = 3",
            expandedSource: "var count: Int64 = 3",
            diagnostics: [
                DiagnosticSpec(
                    message: "@Managed property 'count' cannot have an initial value; default values come from the model",
                    line: 1,
                    column: 27,
                    fixIts: [FixItSpec(message: "Remove the initial value")]
                )
            ],
            applyFixIts: ["Remove the initial value"],
            fixedSource: "@Managed var count: Int64"
        )
    }

    @Test("a computed property is rejected")
    func rejectsComputedProperty() {
        assertManagedExpansion(
            "@Managed var title: String { \"x\" }",
            expandedSource: "var title: String { \"x\" }",
            diagnostics: [
                DiagnosticSpec(
                    message: "@Managed property 'title' cannot have accessors or observers; @Managed provides its accessors",
                    line: 1,
                    column: 28
                )
            ]
        )
    }

    @Test("a property with observers is rejected")
    func rejectsObservers() {
        assertManagedExpansion(
            "@Managed var title: String? { didSet {} }",
            expandedSource: "var title: String? { didSet {} }",
            diagnostics: [
                DiagnosticSpec(
                    message: "@Managed property 'title' cannot have accessors or observers; @Managed provides its accessors",
                    line: 1,
                    column: 29
                )
            ]
        )
    }

    @Test("a property without a type annotation is rejected")
    func rejectsMissingType() {
        assertManagedExpansion(
            "@Managed var title",
            expandedSource: "var title",
            diagnostics: [
                DiagnosticSpec(message: "@Managed property 'title' needs an explicit type annotation", line: 1, column: 14)
            ]
        )
    }

    @Test("static and class properties are rejected", arguments: ["static", "class"])
    func rejectsTypeProperties(keyword: String) {
        assertManagedExpansion(
            "@Managed \(keyword) var title: String?",
            expandedSource: "\(keyword) var title: String?",
            diagnostics: [
                DiagnosticSpec(
                    message: "@Managed applies only to instance properties; managed values belong to objects",
                    line: 1,
                    column: 10
                )
            ]
        )
    }

    @Test("a lazy property is rejected")
    func rejectsLazy() {
        assertManagedExpansion(
            "@Managed lazy var title: String?",
            expandedSource: "lazy var title: String?",
            diagnostics: [
                DiagnosticSpec(message: "@Managed cannot be applied to a 'lazy' property", line: 1, column: 10)
            ]
        )
    }

    @Test("several properties in one declaration are rejected by the expansion machinery")
    func rejectsSeveralBindings() {
        assertManagedExpansion(
            "@Managed var first: String?, last: String?",
            expandedSource: "var first: String?, last: String?",
            diagnostics: [
                DiagnosticSpec(message: "accessor macro can only be applied to a single variable", line: 1, column: 1)
            ]
        )
    }

    @Test("a tuple pattern is rejected")
    func rejectsPattern() {
        assertManagedExpansion(
            "@Managed var (a, b): (Int, Int)",
            expandedSource: "var (a, b): (Int, Int)",
            diagnostics: [
                DiagnosticSpec(message: "@Managed requires a plain property name, not a pattern", line: 1, column: 14)
            ]
        )
    }
}
