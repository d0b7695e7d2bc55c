import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Managed`: turns a stored-looking property of an `NSManagedObject` subclass into one
/// whose value lives in the object, as `@NSManaged` does on Apple's platforms.
///
/// ```swift
/// @Managed public var title: String?
/// ```
///
/// expands to
///
/// ```swift
/// public var title: String? {
///     get { _managedValue(forKey: "title") }
///     set { _setManagedValue(newValue, forKey: "title") }
/// }
/// ```
///
/// The key is the property's name (without backticks). The overloads of `_managedValue`
/// pick the conversion from the property's type, so the macro needs no type information.
///
/// A property named `primitive` followed by a capitalised key (`primitiveTitle`) is, as Core
/// Data's dynamic accessors make it, the primitive accessor of that key (`title`): it reads and
/// writes the stored value with `primitiveValue(forKey:)` and `setPrimitiveValue(_:forKey:)`,
/// without access or change notifications, for custom accessors to build on.
public struct ManagedMacro: AccessorMacro {
    /// The getter and setter of the property, or no accessors and an error diagnostic when
    /// the declaration cannot be managed.
    public static func expansion(
        of node: AttributeSyntax,
        providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        switch ManagedProperty.parse(declaration, attribute: node) {
        case .failure(let error):
            context.diagnose(error.diagnostic)
            return []
        case .success(let property):
            let key = StringLiteralExprSyntax(content: property.key)
            if property.isPrimitive {
                return [
                    "get { _managedPrimitiveValue(forKey: \(key)) }",
                    "set { _setManagedPrimitiveValue(newValue, forKey: \(key)) }",
                ]
            }
            return [
                "get { _managedValue(forKey: \(key)) }",
                "set { _setManagedValue(newValue, forKey: \(key)) }",
            ]
        }
    }
}

/// A property `@Managed` can manage: a single, typed, instance `var` without a value or
/// accessors of its own.
struct ManagedProperty {
    /// The name the property's value is stored under: the property's name, or for a
    /// primitive accessor (`primitiveTitle`) the key it reads (`title`).
    let key: String
    /// Whether the property is the primitive accessor of `key`.
    var isPrimitive = false

    /// The key of a primitive accessor's name (`primitiveTitle` → `title`, `primitiveURL` →
    /// `uRL` as Core Data derives it: only the first letter changes case), or `nil` for other names.
    static func primitiveKey(of name: String) -> String? {
        let prefix = "primitive"
        guard name.hasPrefix(prefix) else { return nil }
        let rest = name.dropFirst(prefix.count)
        guard let first = rest.first, first.isUppercase else { return nil }
        return first.lowercased() + rest.dropFirst()
    }

    /// Checks the declaration `@Managed` is attached to; a failure carries the error
    /// diagnostic to report.
    static func parse(
        _ declaration: some DeclSyntaxProtocol,
        attribute: AttributeSyntax
    ) -> Result<Self, ManagedDeclarationError> {
        guard let variable = declaration.as(VariableDeclSyntax.self) else {
            return .failure(ManagedDeclarationError(node: attribute, message: .notAProperty))
        }
        if variable.bindingSpecifier.tokenKind != .keyword(.var) {
            let specifier = variable.bindingSpecifier
            let fixIt = FixIt(
                message: ManagedFixIt.useVar,
                changes: [.replace(oldNode: Syntax(specifier), newNode: Syntax(specifier.with(\.tokenKind, .keyword(.var))))]
            )
            return .failure(ManagedDeclarationError(node: specifier, message: .letProperty, fixIt: fixIt))
        }
        if let modifier = variable.modifiers.first(where: { Self.typeLevelKeywords.contains($0.name.tokenKind) }) {
            return .failure(ManagedDeclarationError(node: modifier, message: .staticProperty))
        }
        if let modifier = variable.modifiers.first(where: { $0.name.tokenKind == .keyword(.lazy) }) {
            return .failure(ManagedDeclarationError(node: modifier, message: .lazyProperty))
        }
        // The macro expansion machinery itself rejects declarations of several properties.
        guard let binding = variable.bindings.first else {
            return .failure(ManagedDeclarationError(node: attribute, message: .notAProperty))
        }
        guard let pattern = binding.pattern.as(IdentifierPatternSyntax.self) else {
            return .failure(ManagedDeclarationError(node: binding.pattern, message: .notAnIdentifier))
        }
        let name = pattern.identifier.identifier?.name ?? pattern.identifier.text
        if let initializer = binding.initializer {
            var withoutValue = binding.with(\.initializer, nil)
            withoutValue.typeAnnotation = withoutValue.typeAnnotation?.with(\.trailingTrivia, [])
            let fixIt = FixIt(
                message: ManagedFixIt.removeInitialValue,
                changes: [.replace(oldNode: Syntax(binding), newNode: Syntax(withoutValue))]
            )
            return .failure(ManagedDeclarationError(node: initializer, message: .initialValue(name), fixIt: fixIt))
        }
        if let accessors = binding.accessorBlock {
            return .failure(ManagedDeclarationError(node: accessors, message: .accessors(name)))
        }
        guard binding.typeAnnotation != nil else {
            return .failure(ManagedDeclarationError(node: pattern, message: .missingType(name)))
        }
        if let key = primitiveKey(of: name) { return .success(ManagedProperty(key: key, isPrimitive: true)) }
        return .success(ManagedProperty(key: name))
    }

    private static let typeLevelKeywords: Set<TokenKind> = [.keyword(.static), .keyword(.class)]
}

/// An error diagnostic waiting to be reported, as the failure of `ManagedProperty.parse`.
struct ManagedDeclarationError: Error {
    let diagnostic: Diagnostic

    init(node: some SyntaxProtocol, message: ManagedDiagnostic, fixIt: FixIt? = nil) {
        diagnostic = Diagnostic(node: node, message: message, fixIts: fixIt.map { [$0] } ?? [])
    }
}
