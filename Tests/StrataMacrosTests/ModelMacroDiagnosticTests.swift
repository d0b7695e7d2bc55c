import Foundation
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// `@Model` rejects declarations it cannot make a model of, and properties it cannot persist,
/// with an error at the offending part; the rest of the class still expands.
@Suite("@Model diagnostics")
struct ModelMacroDiagnosticTests {
    @Test("a struct is rejected, with a fix-it to 'class'")
    func rejectsStruct() {
        assertSwiftDataExpansion(
            """
            @Model struct Trip {
                var name: String
            }
            """,
            expandedSource: """
                struct Trip {
                    var name: String
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Model' can only be applied to a class",
                    line: 1,
                    column: 1,
                    fixIts: [FixItSpec(message: "Replace 'struct' with 'class'")]
                )
            ],
            applyFixIts: ["Replace 'struct' with 'class'"],
            fixedSource: """
                @Model class Trip {
                    var name: String
                }
                """
        )
    }

    @Test("an enum, an actor or a protocol is rejected", arguments: ["enum", "actor", "protocol"])
    func rejectsOtherKinds(keyword: String) {
        assertSwiftDataExpansion(
            """
            @Model \(keyword) Trip {
            }
            """,
            expandedSource: """
                \(keyword) Trip {
                }
                """,
            diagnostics: [
                DiagnosticSpec(message: "'@Model' can only be applied to a class", line: 1, column: 1, fixIts: [])
            ]
        )
    }

    @Test("a generic class is rejected")
    func rejectsGenericClass() {
        assertSwiftDataExpansion(
            """
            @Model final class Box<Value> {
                var count: Int
            }
            """,
            expandedSource: """
                final class Box<Value> {
                    var count: Int
                }
                """,
            diagnostics: [
                DiagnosticSpec(message: "'@Model' does not support generic classes", line: 1, column: 23)
            ]
        )
    }

    @Test("a persisted 'let' is rejected, with a fix-it to 'var'")
    func rejectsLet() {
        assertSwiftDataExpansion(
            """
            @Model final class Trip {
                let name: String
            }
            """,
            expandedSource: """
                final class Trip {
                    let name: String

                \(modelMembers(of: "Trip"))
                }

                \(modelConformances(of: "Trip"))
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Model' persists 'var' properties; make 'name' a 'var'",
                    line: 2,
                    column: 5,
                    fixIts: [FixItSpec(message: "Replace 'let' with 'var'")]
                )
            ],
            applyFixIts: ["Replace 'let' with 'var'"],
            fixedSource: """
                @Model final class Trip {
                    var name: String
                }
                """
        )
    }

    @Test(
        "a property whose type cannot be read from its initial value is rejected",
        arguments: [
            "var start = .now", "var start = .init(timeIntervalSince1970: 0)", "var start = nil", "var start = []",
            "var start = [:]", "var start",
        ]
    )
    func rejectsMissingType(declaration: String) {
        assertSwiftDataExpansion(
            """
            @Model final class Trip {
                \(declaration)
                var name: String
            }
            """,
            expandedSource: """
                final class Trip {
                    \(declaration)
                \(persistedProperty("var name: String", key: "name"))

                \(modelMembers(
                    of: "Trip",
                    metadata: [#"SwiftData.Schema.PropertyMetadata(name: "name", keypath: \Trip.name, defaultValue: nil, metadata: nil)"#],
                    keys: ["name"]
                ))
                }

                \(modelConformances(of: "Trip"))
                """,
            diagnostics: [DiagnosticSpec(message: "'start' needs a type annotation", line: 2, column: 9)]
        )
    }

    @Test(
        "a tuple, a function, Any or a metatype is rejected, with a fix-it to @Transient",
        arguments: [
            ("var point: (Int, Int) = (0, 0)", "(Int, Int)", "a tuple"),
            ("var action: (() -> Void)? = nil", "(() -> Void)?", "a function"),
            ("var payload: Any? = nil", "Any?", "'Any'"),
            ("var kind: Any.Type = Int.self", "Any.Type", "a metatype"),
        ]
    )
    func rejectsUnsupportedTypes(declaration: String, type: String, kind: String) {
        let column =
            5
            + declaration.distance(
                from: declaration.startIndex, to: declaration.range(of: type)?.lowerBound ?? declaration.startIndex)
        assertSwiftDataExpansion(
            """
            @Model final class Trip {
                \(declaration)
                var name: String
            }
            """,
            expandedSource: """
                final class Trip {
                    \(declaration)
                \(persistedProperty("var name: String", key: "name"))

                \(modelMembers(
                    of: "Trip",
                    metadata: [#"SwiftData.Schema.PropertyMetadata(name: "name", keypath: \Trip.name, defaultValue: nil, metadata: nil)"#],
                    keys: ["name"]
                ))
                }

                \(modelConformances(of: "Trip"))
                """,
            diagnostics: [
                DiagnosticSpec(
                    message:
                        "'\(declaration.dropFirst(4).prefix { $0 != ":" })' is \(kind), which '@Model' cannot persist; use a Codable type, or mark it @Transient",
                    line: 2, column: column, fixIts: [FixItSpec(message: "Mark it @Transient")])
            ],
            applyFixIts: ["Mark it @Transient"],
            fixedSource: """
                @Model final class Trip {
                    @Transient \(declaration)
                    var name: String
                }
                """
        )
    }

    @Test("several properties in one declaration are rejected", arguments: ["var a, b: Int", "var (a, b): (Int, Int)"])
    func rejectsSeveralBindings(declaration: String) {
        assertSwiftDataExpansion(
            """
            @Model final class Pair {
                \(declaration)
            }
            """,
            expandedSource: """
                final class Pair {
                    \(declaration)

                \(modelMembers(of: "Pair"))
                }

                \(modelConformances(of: "Pair"))
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Model' persists one property per declaration; declare each property on its own",
                    line: 2,
                    column: 9
                )
            ]
        )
    }

    @Test(
        "a stored @Transient property without an initial value is rejected",
        arguments: [
            "@Transient var cache: [String: Int]", "@Transient var cache: Int { didSet {} }", "@Transient let cache: Int",
        ]
    )
    func rejectsTransientWithoutValue(declaration: String) {
        assertSwiftDataExpansion(
            """
            @Model final class Trip {
                \(declaration)
            }
            """,
            expandedSource: """
                final class Trip {
                    \(declaration)

                \(modelMembers(of: "Trip"))
                }

                \(modelConformances(of: "Trip"))
                """,
            diagnostics: [
                DiagnosticSpec(message: "a @Transient property needs an initial value", line: 2, column: 20)
            ]
        )
    }

    @Test("@Attribute and @Relationship on the same property are rejected")
    func rejectsAttributeAndRelationship() {
        assertSwiftDataExpansion(
            """
            @Model final class Trip {
                @Attribute(.unique) @Relationship(deleteRule: .cascade) var owner: Person?
            }
            """,
            expandedSource: """
                final class Trip {
                    @Attribute(.unique) @Relationship(deleteRule: .cascade) var owner: Person?

                \(modelMembers(of: "Trip"))
                }

                \(modelConformances(of: "Trip"))
                """,
            diagnostics: [
                DiagnosticSpec(message: "'owner' cannot be both an @Attribute and a @Relationship", line: 2, column: 25)
            ]
        )
    }

    @Test("every rejected property is reported, in declaration order")
    func reportsEveryProperty() {
        assertSwiftDataExpansion(
            """
            @Model final class Trip {
                let name: String
                var start = .now
            }
            """,
            expandedSource: """
                final class Trip {
                    let name: String
                    var start = .now

                \(modelMembers(of: "Trip"))
                }

                \(modelConformances(of: "Trip"))
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Model' persists 'var' properties; make 'name' a 'var'",
                    line: 2,
                    column: 5,
                    fixIts: [FixItSpec(message: "Replace 'let' with 'var'")]
                ),
                DiagnosticSpec(message: "'start' needs a type annotation", line: 3, column: 9),
            ]
        )
    }
}
