import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder

/// A property `@Model` keeps in its object's backing data: a single, instance, stored `var`
/// that is not `@Transient`.
struct PersistedProperty {
    /// The property's name as written (with its backticks, if any).
    let name: TokenSyntax
    /// The key its value is stored under: the name without backticks.
    let key: String
    /// The declared type, if any.
    let type: TypeSyntax?
    /// The initial value, if any.
    let initialValue: ExprSyntax?
    /// The `@Attribute` or `@Relationship` the property is marked with, if any.
    let marker: SchemaMarker?

    /// Whether the declared type is an optional (`T?`, `T!`, `Optional<T>`), which a property
    /// without an initial value starts as nil in every initialiser.
    var isOptional: Bool {
        guard let type else { return false }
        if type.is(OptionalTypeSyntax.self) || type.is(ImplicitlyUnwrappedOptionalTypeSyntax.self) { return true }
        if let named = type.as(IdentifierTypeSyntax.self) { return named.name.text == "Optional" }
        if let member = type.as(MemberTypeSyntax.self) {
            return member.name.text == "Optional" && member.baseType.trimmedDescription == "Swift"
        }
        return false
    }

    /// The stored property the macros add beside the persisted one (`_name`).
    var storageName: TokenSyntax { .identifier("_" + key) }

    /// The property's default value for the schema: `(value) as Type` with a type
    /// annotation, the bare value without, `nil` without an initial value.
    var defaultValueExpression: ExprSyntax {
        guard let initialValue else { return "nil" }
        guard let type else { return initialValue.trimmed }
        return "(\(initialValue.trimmed)) as \(Self.castableType(type))"
    }

    /// The property's metadata for the schema: the marker's arguments handed to the schema
    /// type of the same name, or `nil`.
    var metadataExpression: ExprSyntax {
        guard let marker else { return "nil" }
        let arguments = marker.attribute.arguments?.as(LabeledExprListSyntax.self)?.trimmed ?? LabeledExprListSyntax()
        return "SwiftData.Schema.\(raw: marker.kind.rawValue)(\(arguments))"
    }

    /// `type` as the target of an `as` cast: an implicitly unwrapped optional (`T!`), which
    /// is not a type there, becomes the optional it stands for (`T?`).
    private static func castableType(_ type: TypeSyntax) -> TypeSyntax {
        if let unwrapped = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            return TypeSyntax(OptionalTypeSyntax(wrappedType: unwrapped.wrappedType.trimmed))
        }
        return type.trimmed
    }
}

/// An `@Attribute` or `@Relationship` on a property.
struct SchemaMarker {
    enum Kind: String {
        case attribute = "Attribute"
        case relationship = "Relationship"
    }

    let kind: Kind
    let attribute: AttributeSyntax
}

/// What `@Model` makes of one member of its class.
enum ModelMember {
    /// A property the model persists.
    case persisted(PersistedProperty)
    /// A member the macro leaves as it is (methods, initialisers, computed, static, lazy and
    /// `@Transient` properties…).
    case leftAlone
    /// A member the macro cannot accept, with the error to report.
    case rejected(Diagnostic)

    /// The persisted property, if the member is one.
    var persisted: PersistedProperty? {
        if case .persisted(let property) = self { return property }
        return nil
    }

    /// Classifies one member of a `@Model` class.
    init(_ member: some DeclSyntaxProtocol) {
        guard let variable = member.as(VariableDeclSyntax.self) else {
            self = .leftAlone
            return
        }
        if variable.modifiers.contains(where: { Self.typeLevelKeywords.contains($0.name.tokenKind) }) {
            self = .leftAlone
            return
        }
        if variable.attributes.marker(named: "Transient") != nil {
            self = Self.checkTransient(variable)
            return
        }
        if variable.modifiers.contains(where: { $0.name.tokenKind == .keyword(.lazy) })
            || variable.bindings.contains(where: { $0.accessorBlock != nil })
        {
            self = .leftAlone
            return
        }
        if variable.bindingSpecifier.tokenKind != .keyword(.var) {
            let specifier = variable.bindingSpecifier
            let name = variable.bindings.first.map { Self.name(of: $0.pattern) } ?? specifier.text
            let fixIt = FixIt(
                message: ModelFixIt.useVar,
                changes: [.replace(oldNode: Syntax(specifier), newNode: Syntax(specifier.with(\.tokenKind, .keyword(.var))))]
            )
            self = .rejected(Diagnostic(node: specifier, message: ModelDiagnostic.letProperty(name), fixIts: [fixIt]))
            return
        }
        guard variable.bindings.count == 1, let binding = variable.bindings.first,
            let pattern = binding.pattern.as(IdentifierPatternSyntax.self)
        else {
            self = .rejected(Diagnostic(node: variable.bindings, message: ModelDiagnostic.severalBindings))
            return
        }
        let key = Self.name(of: Syntax(pattern))
        let attribute = variable.attributes.marker(named: SchemaMarker.Kind.attribute.rawValue)
        let relationship = variable.attributes.marker(named: SchemaMarker.Kind.relationship.rawValue)
        if let attribute, let relationship {
            let later = attribute.position > relationship.position ? attribute : relationship
            self = .rejected(Diagnostic(node: later, message: ModelDiagnostic.attributeAndRelationship(key)))
            return
        }
        if binding.typeAnnotation == nil, !(binding.initializer.map { Self.revealsType($0.value) } ?? false) {
            self = .rejected(Diagnostic(node: pattern, message: ModelDiagnostic.missingType(key)))
            return
        }
        if let type = binding.typeAnnotation?.type, let kind = Self.unsupportedKind(of: type) {
            // `@Transient` keeps the value in the model only (it needs an initial value).
            let transient = AttributeSyntax(
                leadingTrivia: variable.leadingTrivia, attributeName: IdentifierTypeSyntax(name: "Transient"),
                trailingTrivia: .space)
            let bare = variable.with(\.leadingTrivia, [])
            let marked = bare.with(\.attributes, [.attribute(transient)] + bare.attributes)
            let fixIt = FixIt(
                message: ModelFixIt.markTransient,
                changes: [.replace(oldNode: Syntax(variable), newNode: Syntax(marked))])
            self = .rejected(Diagnostic(node: type, message: ModelDiagnostic.unsupportedType(key, kind: kind), fixIts: [fixIt]))
            return
        }
        let marker =
            attribute.map { SchemaMarker(kind: .attribute, attribute: $0) }
            ?? relationship.map { SchemaMarker(kind: .relationship, attribute: $0) }
        self = .persisted(
            PersistedProperty(
                name: pattern.identifier.trimmed,
                key: key,
                type: binding.typeAnnotation?.type,
                initialValue: binding.initializer?.value,
                marker: marker
            ))
    }

    /// A `@Transient` property is left alone, but a stored one needs an initial value: the
    /// model's `init(backingData:)` initialises nothing but the persisted properties.
    private static func checkTransient(_ variable: VariableDeclSyntax) -> ModelMember {
        for binding in variable.bindings where binding.initializer == nil && isStored(binding) {
            return .rejected(Diagnostic(node: binding.pattern, message: ModelDiagnostic.transientWithoutValue))
        }
        return .leftAlone
    }

    /// Whether a binding has storage: no accessors, or only observers.
    static func isStored(_ binding: PatternBindingSyntax) -> Bool {
        guard let block = binding.accessorBlock else { return true }
        guard case .accessors(let accessors) = block.accessors else { return false }
        return accessors.allSatisfy {
            $0.accessorSpecifier.tokenKind == .keyword(.willSet) || $0.accessorSpecifier.tokenKind == .keyword(.didSet)
        }
    }

    /// Whether the type of a property can be read from its initial value: not `nil`, an empty
    /// collection literal, or an implicit member expression (`.now`, `.init()`), whose type
    /// comes from the property's.
    static func revealsType(_ value: ExprSyntax) -> Bool {
        if value.is(NilLiteralExprSyntax.self) { return false }
        if let array = value.as(ArrayExprSyntax.self), array.elements.isEmpty { return false }
        if let dictionary = value.as(DictionaryExprSyntax.self), case .colon = dictionary.content { return false }
        return !startsWithImplicitMember(value)
    }

    private static func startsWithImplicitMember(_ expression: ExprSyntax) -> Bool {
        if let member = expression.as(MemberAccessExprSyntax.self) {
            guard let base = member.base else { return true }
            return startsWithImplicitMember(base)
        }
        if let call = expression.as(FunctionCallExprSyntax.self) { return startsWithImplicitMember(call.calledExpression) }
        if let subscripted = expression.as(SubscriptCallExprSyntax.self) {
            return startsWithImplicitMember(subscripted.calledExpression)
        }
        if let unwrap = expression.as(ForceUnwrapExprSyntax.self) { return startsWithImplicitMember(unwrap.expression) }
        if let chain = expression.as(OptionalChainingExprSyntax.self) { return startsWithImplicitMember(chain.expression) }
        if let postfix = expression.as(PostfixOperatorExprSyntax.self) { return startsWithImplicitMember(postfix.expression) }
        return false
    }

    /// What a declared type is when no value of it can be stored (a tuple, a function, `Any`,
    /// a metatype), looking through optionals; nil for the types a model may persist.
    static func unsupportedKind(of type: TypeSyntax) -> String? {
        if let optional = type.as(OptionalTypeSyntax.self) { return unsupportedKind(of: optional.wrappedType) }
        if let unwrapped = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            return unsupportedKind(of: unwrapped.wrappedType)
        }
        if let attributed = type.as(AttributedTypeSyntax.self) { return unsupportedKind(of: attributed.baseType) }
        if let tuple = type.as(TupleTypeSyntax.self) {
            // `(Int)` is `Int`.
            if tuple.elements.count == 1, let only = tuple.elements.first, only.firstName == nil {
                return unsupportedKind(of: only.type)
            }
            return "a tuple"
        }
        if type.is(FunctionTypeSyntax.self) { return "a function" }
        if type.is(MetatypeTypeSyntax.self) { return "a metatype" }
        if let identifier = type.as(IdentifierTypeSyntax.self), ["Any", "AnyObject"].contains(identifier.name.text) {
            return "'\(identifier.name.text)'"
        }
        return nil
    }

    /// A pattern's name without backticks (an identifier), or its text.
    private static func name(of pattern: some SyntaxProtocol) -> String {
        if let identifier = pattern.as(IdentifierPatternSyntax.self) {
            return identifier.identifier.identifier?.name ?? identifier.identifier.text
        }
        return pattern.trimmedDescription
    }

    private static let typeLevelKeywords: Set<TokenKind> = [.keyword(.static), .keyword(.class)]
}

extension AttributeListSyntax {
    /// The attribute of the given name (`@Name` or `@SwiftData.Name`), if present.
    func marker(named name: String) -> AttributeSyntax? {
        for element in self {
            guard case .attribute(let attribute) = element else { continue }
            let type = attribute.attributeName
            if let identifier = type.as(IdentifierTypeSyntax.self), identifier.name.text == name {
                return attribute
            }
            if let member = type.as(MemberTypeSyntax.self), member.name.text == name,
                member.baseType.as(IdentifierTypeSyntax.self)?.name.text == "SwiftData"
            {
                return attribute
            }
        }
        return nil
    }
}
