import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Model`: makes a class a SwiftData persistent model.
///
/// ```swift
/// @Model final class Trip {
///     #Unique<Trip>([\.name, \.start])
///     var name: String
///     var start: Date = .now
///     @Transient var scratch = 0
///     init(name: String) { self.name = name }
/// }
/// ```
///
/// - memberAttribute role: `@_PersistedProperty` on every persisted property (a single,
///   instance, stored `var` that is neither `lazy` nor `@Transient`); see
///   `PersistedPropertyMacro` for what it makes of it.
/// - member role: the backing data (`_$backingData`, `persistentBackingData`), the schema
///   (`schemaMetadata`, one entry per persisted property in declaration order, and
///   `_$constraints`, gathered from the class's `#Unique` and `#Index`),
///   `init(backingData:)` and the observation registrar.
/// - extension role: the conformances to `SwiftData.PersistentModel` and
///   `Observation.Observable` the class does not list itself.
///
/// The members the macro adds are `@Transient`, computed or static, so that the
/// memberAttribute role, which also sees them, leaves them alone.
///
/// Errors: `@Model` on anything but a non-generic class, and the persisted properties the
/// model cannot persist (see `ModelMember`), reported once, by the member role.
public struct ModelMacro: MemberMacro, MemberAttributeMacro, ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        let model: ClassDeclSyntax
        switch modelClass(declaration, attribute: node) {
        case .failure(let error):
            context.diagnose(error.diagnostic)
            return []
        case .success(let found):
            model = found
        }
        let className = model.name.trimmed
        var persisted: [PersistedProperty] = []
        for item in model.memberBlock.members {
            switch ModelMember(item.decl) {
            case .persisted(let property): persisted.append(property)
            case .rejected(let diagnostic): context.diagnose(diagnostic)
            case .leftAlone: break
            }
        }
        let backingType: TypeSyntax = "SwiftData._StrataBackingData<\(className)>"
        let initializer = try InitializerDeclSyntax(
            "public required init(backingData: any SwiftData.BackingData<\(className)>)"
        ) {
            for property in persisted {
                "\(property.storageName) = _SwiftDataNoType()"
            }
            "self._$backingData = \(backingType).adopting(backingData)"
        }
        return [
            "@Transient private var _$backingData: \(backingType) = \(backingType)()",
            """
            public var persistentBackingData: any SwiftData.BackingData<\(className)> {
                get { _$backingData }
                set { _$backingData = \(backingType).adopting(newValue) }
            }
            """,
            """
            public static var schemaMetadata: [SwiftData.Schema.PropertyMetadata] {
                \(schemaMetadata(of: persisted, in: className))
            }
            """,
            DeclSyntax(initializer),
            "@Transient private let _$observationRegistrar = Observation.ObservationRegistrar()",
            """
            public static var _$constraints: SwiftData._ModelConstraints {
                \(constraints(of: model, in: className))
            }
            """,
        ]
    }

    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingAttributesFor member: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        guard case .success = modelClass(declaration, attribute: node),
            ModelMember(member).persisted != nil,
            member.as(VariableDeclSyntax.self)?.attributes.marker(named: "_PersistedProperty") == nil
        else { return [] }
        return ["@_PersistedProperty"]
    }

    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard case .success = modelClass(declaration, attribute: node) else { return [] }
        return conformances(
            [("SwiftData", "PersistentModel"), ("Observation", "Observable")],
            of: type, declaration: declaration, requested: protocols)
    }

    /// The array of the persisted properties' metadata, one entry a line.
    private static func schemaMetadata(of persisted: [PersistedProperty], in className: TokenSyntax) -> ArrayExprSyntax {
        let elements = persisted.map { property -> ArrayElementSyntax in
            let entry: ExprSyntax = """
                SwiftData.Schema.PropertyMetadata(\
                name: \(literal: property.key), \
                keypath: \\\(className).\(property.name), \
                defaultValue: \(property.defaultValueExpression), \
                metadata: \(property.metadataExpression))
                """
            // One level deeper than the brackets, which the interpolation indents.
            return ArrayElementSyntax(leadingTrivia: [.newlines(1), .spaces(4)], expression: entry, trailingComma: .commaToken())
        }
        return ArrayExprSyntax(
            elements: ArrayElementListSyntax(elements),
            rightSquare: .rightSquareToken(leadingTrivia: persisted.isEmpty ? [] : .newline)
        )
    }

    /// `SwiftData._ModelConstraints(unique: […], indexes: […])` with the arguments of the
    /// class's `#Unique` and `#Index`, their key paths rooted at the class.
    private static func constraints(of model: ClassDeclSyntax, in className: TokenSyntax) -> ExprSyntax {
        var unique: [ArrayElementSyntax] = []
        var indexes: [ArrayElementSyntax] = []
        let rooter = KeyPathRooter(root: TypeSyntax(IdentifierTypeSyntax(name: className)))
        for item in model.memberBlock.members {
            guard let expansion = item.decl.as(MacroExpansionDeclSyntax.self) else { continue }
            let elements = expansion.arguments.map { argument in
                let expression = argument.expression.trimmed
                return ArrayElementSyntax(expression: rooter.rewrite(expression).as(ExprSyntax.self) ?? expression)
            }
            switch expansion.macroName.text {
            case "Unique": unique += elements
            case "Index": indexes += elements
            default: continue
            }
        }
        return "SwiftData._ModelConstraints(unique: \(arrayExpression(unique)), indexes: \(arrayExpression(indexes)))"
    }

    /// An array literal on one line.
    private static func arrayExpression(_ elements: [ArrayElementSyntax]) -> ArrayExprSyntax {
        var list: [ArrayElementSyntax] = []
        for (index, element) in elements.enumerated() {
            list.append(index == elements.count - 1 ? element : element.with(\.trailingComma, .commaToken()))
        }
        return ArrayExprSyntax(elements: ArrayElementListSyntax(list))
    }

    /// The class `@Model` is attached to, or the error to report: not a class, or a generic one.
    private static func modelClass(
        _ declaration: some DeclGroupSyntax,
        attribute: AttributeSyntax
    ) -> Result<ClassDeclSyntax, ModelDeclarationError> {
        if let model = declaration.as(ClassDeclSyntax.self) {
            if let generics = model.genericParameterClause {
                return .failure(ModelDeclarationError(node: generics, message: .genericClass))
            }
            return .success(model)
        }
        var fixIts: [FixIt] = []
        if let structure = declaration.as(StructDeclSyntax.self) {
            let keyword = structure.structKeyword
            fixIts.append(
                FixIt(
                    message: ModelFixIt.useClass,
                    changes: [.replace(oldNode: Syntax(keyword), newNode: Syntax(keyword.with(\.tokenKind, .keyword(.class))))]
                ))
        }
        return .failure(ModelDeclarationError(node: attribute, message: .notAClass, fixIts: fixIts))
    }
}

/// Roots the key paths without a root (`\.name`) at a type (`\Trip.name`).
final class KeyPathRooter: SyntaxRewriter {
    let root: TypeSyntax

    init(root: TypeSyntax) {
        self.root = root
        super.init(viewMode: .sourceAccurate)
    }

    override func visit(_ node: KeyPathExprSyntax) -> ExprSyntax {
        let visited = super.visit(node)
        guard let keyPath = visited.as(KeyPathExprSyntax.self), keyPath.root == nil else { return visited }
        return ExprSyntax(keyPath.with(\.root, root))
    }
}

/// The extensions adding the conformances among `wanted` (module and protocol names) that
/// the compiler asks for (`requested`) and the declaration does not list itself.
func conformances(
    _ wanted: [(module: String, name: String)],
    of type: some TypeSyntaxProtocol,
    declaration: some DeclGroupSyntax,
    requested: [TypeSyntax]
) -> [ExtensionDeclSyntax] {
    let requestedNames = Set(requested.compactMap(lastName(of:)))
    let listed = Set(declaration.inheritanceClause?.inheritedTypes.compactMap { lastName(of: $0.type) } ?? [])
    return wanted.compactMap { module, name in
        guard requestedNames.contains(name), !listed.contains(name) else { return nil }
        return ExtensionDeclSyntax(
            extendedType: type.trimmed,
            inheritanceClause: InheritanceClauseSyntax {
                InheritedTypeSyntax(type: TypeSyntax("\(raw: module).\(raw: name)"))
            }
        ) {}
    }
}

/// The last component of a type's name (`Observable` for `Observation.Observable`).
private func lastName(of type: TypeSyntax) -> String? {
    if let identifier = type.as(IdentifierTypeSyntax.self) { return identifier.name.text }
    if let member = type.as(MemberTypeSyntax.self) { return member.name.text }
    if let attributed = type.as(AttributedTypeSyntax.self) { return lastName(of: attributed.baseType) }
    return nil
}

/// An error diagnostic waiting to be reported.
struct ModelDeclarationError: Error {
    let diagnostic: Diagnostic

    init(node: some SyntaxProtocol, message: ModelDiagnostic, fixIts: [FixIt] = []) {
        diagnostic = Diagnostic(node: node, message: message, fixIts: fixIts)
    }
}
