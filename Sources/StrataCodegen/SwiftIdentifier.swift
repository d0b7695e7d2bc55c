/// Model names as Swift names: validity, keyword escaping and capitalisation.
enum SwiftIdentifier {
    /// Whether the name can be a Swift identifier (possibly with backticks).
    static func isValid(_ name: String) -> Bool {
        guard let first = name.first, first.isLetter || first == "_" else { return false }
        return name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
    }

    /// The name as written in a declaration: in backticks when it is a keyword.
    static func declared(_ name: String) -> String {
        keywords.contains(name) ? "`\(name)`" : name
    }

    /// The name with its first letter uppercased, as in `addToTags`.
    static func capitalized(_ name: String) -> String {
        name.prefix(1).uppercased() + name.dropFirst()
    }

    /// The class name Swift code uses for a model's class name: without a module
    /// qualification (`MyApp.Todo`) or the leading dot Xcode writes for "Current Product
    /// Module" (`.Todo`).
    static func unqualifiedClassName(_ className: String) -> String {
        className.split(separator: ".").last.map(String.init) ?? className
    }

    /// Keywords that must be escaped to name a property.
    private static let keywords: Set<String> = [
        "Any", "Self", "as", "associatedtype", "break", "case", "catch", "class", "continue", "default",
        "defer", "deinit", "do", "else", "enum", "extension", "fallthrough", "false", "fileprivate",
        "for", "func", "guard", "if", "import", "in", "init", "inout", "internal", "is", "let", "nil",
        "operator", "private", "precedencegroup", "protocol", "public", "repeat", "rethrows", "return",
        "self", "static", "struct", "subscript", "super", "switch", "throw", "throws", "true", "try",
        "typealias", "var", "where", "while",
    ]
}
