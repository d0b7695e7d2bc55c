import Testing

/// `@Managed` turns each form of managed property into a getter and a setter keyed by the
/// property's name.
@Suite("@Managed expansion")
struct ManagedMacroExpansionTests {
    /// The expansion of a property with the given declaration and key.
    private func expanded(_ declaration: String, key: String) -> String {
        """
        \(declaration) {
            get {
                _managedValue(forKey: "\(key)")
            }
            set {
                _setManagedValue(newValue, forKey: "\(key)")
            }
        }
        """
    }

    @Test(
        "every property type expands to typed accessors",
        arguments: [
            "var title: String?",
            "var title: String",
            "var count: Int64",
            "var count: Int32",
            "var count: Int16",
            "var count: Int",
            "var amount: Decimal",
            "var amount: NSDecimalNumber?",
            "var score: Double",
            "var ratio: Float",
            "var done: Bool",
            "var createdAt: Date?",
            "var payload: Data?",
            "var identifier: UUID?",
            "var link: URL?",
            "var legacyCount: NSNumber?",
            "var colour: ColourValue?",
            "var keywords: [String]?",
            "var tags: NSSet?",
            "var tags: Set<Tag>",
            "var items: NSOrderedSet?",
            "var items: [Item]",
            "var owner: Person?",
            "var owner: Person",
            "var owner: Person!",
        ]
    )
    func expandsEveryType(declaration: String) {
        let key = declaration.split(separator: " ")[1].dropLast()
        assertManagedExpansion(
            "@Managed \(declaration)",
            expandedSource: expanded(declaration, key: String(key))
        )
    }

    @Test("access modifiers and other attributes stay on the property")
    func keepsModifiers() {
        assertManagedExpansion(
            "@Managed public var count: Int64",
            expandedSource: expanded("public var count: Int64", key: "count")
        )
        assertManagedExpansion(
            "@available(*, deprecated) @Managed internal private(set) var title: String?",
            expandedSource: expanded("@available(*, deprecated) internal private(set) var title: String?", key: "title")
        )
    }

    @Test("the key is the property name without backticks")
    func stripsBackticks() {
        assertManagedExpansion(
            "@Managed var `default`: String?",
            expandedSource: expanded("var `default`: String?", key: "default")
        )
    }

    @Test("inside a class, only the managed property changes")
    func expandsInsideClass() {
        assertManagedExpansion(
            """
            final class Todo: NSManagedObject {
                @Managed var title: String?
                var cached = 0
            }
            """,
            expandedSource: """
                final class Todo: NSManagedObject {
                    var title: String? {
                        get {
                            _managedValue(forKey: "title")
                        }
                        set {
                            _setManagedValue(newValue, forKey: "title")
                        }
                    }
                    var cached = 0
                }
                """
        )
    }

    /// `primitive<Key>` is Core Data's primitive accessor of `<key>` (issue 32): it reads and
    /// writes the stored value of `title`, not a property named `primitiveTitle`.
    @Test(
        "a primitive accessor reads and writes its key's stored value",
        arguments: [
            ("var primitiveTitle: String?", "title"),
            ("var primitiveDueDate: Date?", "dueDate"),
            ("var primitivePriority: Int16", "priority"),
        ])
    func expandsPrimitiveAccessors(declaration: String, key: String) {
        assertManagedExpansion(
            "@Managed \(declaration)",
            expandedSource: """
                \(declaration) {
                    get {
                        _managedPrimitiveValue(forKey: "\(key)")
                    }
                    set {
                        _setManagedPrimitiveValue(newValue, forKey: "\(key)")
                    }
                }
                """
        )
    }

    @Test("a name that only starts with the word primitive is an ordinary property")
    func primitivesNeedACapitalisedKey() {
        assertManagedExpansion(
            "@Managed var primitives: String?",
            expandedSource: expanded("var primitives: String?", key: "primitives")
        )
        assertManagedExpansion(
            "@Managed var primitive: String?",
            expandedSource: expanded("var primitive: String?", key: "primitive")
        )
    }
}
