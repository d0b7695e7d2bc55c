import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// `@ModelActor` gives an actor its model container and executor, at the actor's access level,
/// and the conformance to `ModelActor`.
@Suite("@ModelActor")
struct ModelActorMacroTests {
    /// The members `@ModelActor` adds, each declaration starting with `access`.
    private func members(_ access: String) -> String {
        """
            \(access)nonisolated let modelExecutor: any SwiftData.ModelExecutor

            \(access)nonisolated let modelContainer: SwiftData.ModelContainer

            \(access)init(modelContainer: SwiftData.ModelContainer) {
                let modelContext = SwiftData.ModelContext(modelContainer)
                self.modelExecutor = SwiftData.DefaultSerialModelExecutor(modelContext: modelContext)
                self.modelContainer = modelContainer
            }
        """
    }

    @Test("a public actor gains public members")
    func publicActor() {
        assertSwiftDataExpansion(
            """
            @ModelActor public actor Worker {
                func run() {}
            }
            """,
            expandedSource: """
                public actor Worker {
                    func run() {}

                    public nonisolated let modelExecutor: any SwiftData.ModelExecutor

                    public nonisolated let modelContainer: SwiftData.ModelContainer

                    public init(modelContainer: SwiftData.ModelContainer) {
                        let modelContext = SwiftData.ModelContext(modelContainer)
                        self.modelExecutor = SwiftData.DefaultSerialModelExecutor(modelContext: modelContext)
                        self.modelContainer = modelContainer
                    }
                }

                extension Worker: SwiftData.ModelActor {
                }
                """
        )
    }

    @Test("an internal actor gains members without an access modifier")
    func internalActor() {
        assertSwiftDataExpansion(
            "@ModelActor actor Worker {}",
            expandedSource: """
                actor Worker {

                    nonisolated let modelExecutor: any SwiftData.ModelExecutor

                    nonisolated let modelContainer: SwiftData.ModelContainer

                    init(modelContainer: SwiftData.ModelContainer) {
                        let modelContext = SwiftData.ModelContext(modelContainer)
                        self.modelExecutor = SwiftData.DefaultSerialModelExecutor(modelContext: modelContext)
                        self.modelContainer = modelContainer
                    }
                }

                extension Worker: SwiftData.ModelActor {
                }
                """
        )
    }

    @Test("other access levels", arguments: [("package", "package "), ("private", ""), ("fileprivate", ""), ("internal", "")])
    func otherAccessLevels(modifier: String, access: String) {
        assertSwiftDataExpansion(
            "@ModelActor \(modifier) actor Worker {}",
            expandedSource: """
                \(modifier) actor Worker {

                \(members(access))
                }

                extension Worker: SwiftData.ModelActor {
                }
                """
        )
    }

    @Test("an actor that lists ModelActor gains no extension")
    func listedModelActor() {
        assertSwiftDataExpansion(
            "@ModelActor actor Worker: ModelActor {}",
            expandedSource: """
                actor Worker: ModelActor {

                \(members(""))
                }
                """
        )
    }

    @Test("a class is rejected, with a fix-it to 'actor'")
    func rejectsClass() {
        assertSwiftDataExpansion(
            "@ModelActor final class Worker {}",
            expandedSource: "final class Worker {}",
            diagnostics: [
                DiagnosticSpec(
                    message: "'@ModelActor' can only be applied to an actor",
                    line: 1,
                    column: 1,
                    fixIts: [FixItSpec(message: "Replace 'class' with 'actor'")]
                )
            ],
            applyFixIts: ["Replace 'class' with 'actor'"],
            fixedSource: "@ModelActor final actor Worker {}"
        )
    }

    @Test("a struct, an enum or a protocol is rejected", arguments: ["struct", "enum", "protocol"])
    func rejectsOtherKinds(keyword: String) {
        assertSwiftDataExpansion(
            "@ModelActor \(keyword) Worker {}",
            expandedSource: "\(keyword) Worker {}",
            diagnostics: [
                DiagnosticSpec(message: "'@ModelActor' can only be applied to an actor", line: 1, column: 1, fixIts: [])
            ]
        )
    }
}
