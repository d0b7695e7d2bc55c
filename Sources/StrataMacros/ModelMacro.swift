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
/// Classes that may have subclasses and subclasses of model classes (`ModelShape`) get a class
/// schema instead of a static one: `class var schemaMetadata` whose key paths are rooted at the
/// class it is asked of (a private generic helper called with `Self.self`, so that a subclass
/// names inherited properties by its own key paths), overridden by each subclass; a subclass
/// has its own backing data (its initialiser sets its properties before `super.init`), the
/// root class's `init(backingData:)` (through the root's `_$RootModel` typealias) and adds its
/// backing data to `_$backingDataChain()`.
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
        let items = PersistedItem.items(of: model.memberBlock.members, diagnosing: context)
        let storageType: TypeSyntax = "SwiftData._ModelStorage<\(className)>"
        let shape = ModelShape(model, conformingTo: protocols)
        // Empty at first: a fetched model's initialiser sets it (to its row, or to the backing
        // data given), and a model made by the app gets its backing data at the first value set
        // (or asked for) through `_prepareBacking`, so that no model makes one only to replace it.
        let backingData: DeclSyntax = "@Transient @exclusivity(unchecked) private var _$backingData = \(storageType)()"
        let registrar: DeclSyntax = """
            @Transient @exclusivity(unchecked) private var _$observationRegistrar = SwiftData._ModelObservationRegistrar()
            """
        let storageInitialisers = PersistedItem.statements(items) { property in
            "\(property.storageName) = _SwiftDataNoType()"
        }

        // A root class's initialiser of a model over existing backing data.
        let rootInitializer = try InitializerDeclSyntax(
            "public required init(backingData: any SwiftData.BackingData<\(className)>)"
        ) {
            for item in storageInitialisers { item }
            "self._$backingData = \(storageType)(adopting: backingData)"
        }

        // A final root class's initialiser of the model of a fetched row.
        let fetchedInitializer = try InitializerDeclSyntax("private init(_$storage storage: \(storageType))") {
            for item in storageInitialisers { item }
            "self._$backingData = storage"
        }

        // The root class's storage, for its context: a model of the class inserted keeps its
        // values there until its row's object has them, then only its row (as a fetched model of
        // a final class does). A subclass's model keeps its values in backing data.
        let row: DeclSyntax = "public func _$row() -> SwiftData._ModelRow? { SwiftData._row(of: &_$backingData) }"
        let keepRow: DeclSyntax = """
            public func _$keepRow(_ row: SwiftData._ModelRow) -> SwiftData._PendingValues? {
                SwiftData._keepRow(row, in: &_$backingData)
            }
            """

        if shape == .finalRoot {
            return [
                backingData,
                persistentBackingData(className: className, storageType: storageType),
                """
                public static var schemaMetadata: [SwiftData.Schema.PropertyMetadata] {
                    \(schemaMetadata(of: items, root: TypeSyntax(IdentifierTypeSyntax(name: className))))
                }
                """,
                DeclSyntax(rootInitializer),
                // The model of a fetched row, made where the class is known (a context's generic
                // code would look the backing data's generic class up for each model), keeping
                // only its row until its backing data is asked for.
                """
                public static func _$model(object: AnyObject, context: SwiftData.ModelContext) -> \(className) {
                    \(className)(_$storage: \(storageType)(object: object, context: context))
                }
                """,
                DeclSyntax(fetchedInitializer),
                row,
                keepRow,
                registrar,
                """
                public static var _$constraints: SwiftData._ModelConstraints {
                    \(constraints(of: model, in: className))
                }
                """,
            ]
        }

        // A class that may have subclasses, or a subclass: the schema is a class property, its
        // key paths rooted at the class it is asked of (a subclass lists the properties it
        // inherits rooted at itself, so that its key paths name them), and the backing data of
        // each class of the hierarchy are listed for the context.
        let access: TokenSyntax = model.modifiers.contains { $0.name.tokenKind == .keyword(.open) } ? "open" : "public"
        let schemaHelper: DeclSyntax = """
            private static func _$schemaMetadata<_$Root: \(className)>(rootedAt root: _$Root.Type) -> [SwiftData.Schema.PropertyMetadata] {
                \(schemaMetadata(of: items, root: "_$Root"))
            }
            """
        if shape == .openRoot {
            return [
                backingData,
                persistentBackingData(className: className, storageType: storageType),
                "public typealias _$RootModel = \(className)",
                """
                \(access) class var schemaMetadata: [SwiftData.Schema.PropertyMetadata] {
                    Self._$schemaMetadata(rootedAt: Self.self)
                }
                """,
                schemaHelper,
                DeclSyntax(rootInitializer),
                row,
                keepRow,
                registrar,
                """
                \(access) class var _$constraints: SwiftData._ModelConstraints {
                    \(constraints(of: model, in: className))
                }
                """,
                """
                \(access) func _$backingDataChain() -> [SwiftData._StrataBackingStorage] {
                    [SwiftData._prepareBacking(&_$backingData)]
                }
                """,
            ]
        }

        // A subclass of a model class: its own backing data (its initialiser sets its properties
        // before `super.init`), the required initialiser of its root class, and the overrides.
        let initializer = try InitializerDeclSyntax(
            "public required init(backingData: any SwiftData.BackingData<_$RootModel>)"
        ) {
            for item in storageInitialisers { item }
            "self._$backingData = \(storageType)(inheriting: backingData)"
            "super.init(backingData: backingData)"
        }
        return [
            backingData,
            """
            \(access) override class var schemaMetadata: [SwiftData.Schema.PropertyMetadata] {
                super.schemaMetadata + Self._$schemaMetadata(rootedAt: Self.self)
            }
            """,
            schemaHelper,
            DeclSyntax(initializer),
            registrar,
            """
            \(access) override class var _$constraints: SwiftData._ModelConstraints {
                \(constraints(of: model, in: className))
            }
            """,
            """
            \(access) override func _$backingDataChain() -> [SwiftData._StrataBackingStorage] {
                super._$backingDataChain() + [SwiftData._prepareBacking(&_$backingData)]
            }
            """,
        ]
    }

    /// `persistentBackingData`, over the class's backing data.
    private static func persistentBackingData(className: TokenSyntax, storageType: TypeSyntax) -> DeclSyntax {
        """
        public var persistentBackingData: any SwiftData.BackingData<\(className)> {
            get { SwiftData._prepareBacking(&_$backingData) }
            set { _$backingData = \(storageType)(adopting: newValue) }
        }
        """
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

    /// The persisted properties' metadata, their key paths rooted at `root`: an array, one
    /// entry a line; or, when properties are declared inside `#if`, the statements that build
    /// it under the same conditions.
    private static func schemaMetadata(of items: [PersistedItem], root: TypeSyntax) -> CodeBlockItemListSyntax {
        func entry(_ property: PersistedProperty) -> ExprSyntax {
            """
            SwiftData.Schema.PropertyMetadata(\
            name: \(literal: property.key), \
            keypath: \\\(root).\(property.name), \
            defaultValue: \(property.defaultValueExpression), \
            metadata: \(property.metadataExpression))
            """
        }
        guard items.contains(where: \.isConditional) else {
            return [CodeBlockItemSyntax(item: .expr(ExprSyntax(metadataArray(of: items.flatMap(\.properties), entry: entry))))]
        }
        var statements: [CodeBlockItemSyntax] = ["var metadata: [SwiftData.Schema.PropertyMetadata] = []"]
        statements += PersistedItem.statements(items) { property in "metadata.append(\(entry(property)))" }
        statements.append("return metadata")
        return CodeBlockItemListSyntax(
            statements.enumerated().map { index, statement in
                index == 0 ? statement : statement.with(\.leadingTrivia, .newline)
            })
    }

    /// The array of the metadata of properties declared outside `#if`.
    private static func metadataArray(
        of persisted: [PersistedProperty], entry: (PersistedProperty) -> ExprSyntax
    ) -> ArrayExprSyntax {
        let elements = persisted.map { property -> ArrayElementSyntax in
            // One level deeper than the brackets, which the interpolation indents.
            ArrayElementSyntax(
                leadingTrivia: [.newlines(1), .spaces(4)], expression: entry(property), trailingComma: .commaToken())
        }
        return ArrayExprSyntax(
            elements: ArrayElementListSyntax(elements),
            rightSquare: .rightSquareToken(leadingTrivia: persisted.isEmpty ? [] : .newline)
        )
    }

    /// `SwiftData._ModelConstraints(unique: […], indexes: […])` with the arguments of the
    /// class's `#Unique` and `#Index`, their key paths rooted at the class.
    /// When some `#Unique` or `#Index` is declared inside `#if`, the statements that gather them
    /// under the same conditions.
    private static func constraints(of model: ClassDeclSyntax, in className: TokenSyntax) -> CodeBlockItemListSyntax {
        let rooter = KeyPathRooter(root: TypeSyntax(IdentifierTypeSyntax(name: className)))
        let items = ConstraintItem.items(of: model.memberBlock.members, rooter: rooter)
        guard items.contains(where: \.isConditional) else {
            var unique: [ArrayElementSyntax] = []
            var indexes: [ArrayElementSyntax] = []
            for case .constraint(let isUnique, let elements) in items {
                if isUnique { unique += elements } else { indexes += elements }
            }
            let expression: ExprSyntax =
                "SwiftData._ModelConstraints(unique: \(arrayExpression(unique)), indexes: \(arrayExpression(indexes)))"
            return [CodeBlockItemSyntax(item: .expr(expression))]
        }
        var statements: [CodeBlockItemSyntax] = [
            "var unique: [[AnyKeyPath]] = []", "var indexes: [[AnyKeyPath]] = []",
        ]
        statements += ConstraintItem.statements(items)
        statements.append("return SwiftData._ModelConstraints(unique: unique, indexes: indexes)")
        return CodeBlockItemListSyntax(
            statements.enumerated().map { index, statement in
                index == 0 ? statement : statement.with(\.leadingTrivia, .newline)
            })
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

/// A `#Unique` or `#Index` of a model class (its arguments, key paths rooted at the class), or
/// a `#if` whose clauses declare some.
enum ConstraintItem {
    case constraint(isUnique: Bool, [ArrayElementSyntax])
    case conditional(IfConfigDeclSyntax, [[ConstraintItem]])

    var isConditional: Bool {
        if case .conditional = self { return true }
        return false
    }

    static func items(of members: MemberBlockItemListSyntax, rooter: KeyPathRooter) -> [ConstraintItem] {
        var items: [ConstraintItem] = []
        for member in members {
            if let conditional = member.decl.as(IfConfigDeclSyntax.self) {
                let clauses = clauseItems(of: conditional) { Self.items(of: $0, rooter: rooter) }
                if clauses.contains(where: { !$0.isEmpty }) { items.append(.conditional(conditional, clauses)) }
                continue
            }
            guard let expansion = member.decl.as(MacroExpansionDeclSyntax.self),
                ["Unique", "Index"].contains(expansion.macroName.text)
            else { continue }
            let elements = expansion.arguments.map { argument in
                let expression = argument.expression.trimmed
                return ArrayElementSyntax(expression: rooter.rewrite(expression).as(ExprSyntax.self) ?? expression)
            }
            items.append(.constraint(isUnique: expansion.macroName.text == "Unique", elements))
        }
        return items
    }

    /// `unique.append(contentsOf: […])` or `indexes.…` per constraint, inside the `#if` clauses
    /// the constraints are declared in.
    static func statements(_ items: [ConstraintItem]) -> [CodeBlockItemSyntax] {
        items.map { item in
            switch item {
            case .constraint(let isUnique, let elements):
                let list = elements.map(\.expression.trimmedDescription).joined(separator: ", ")
                return "\(raw: isUnique ? "unique" : "indexes").append(contentsOf: [\(raw: list)])"
            case .conditional(let declaration, let clauses):
                return conditionalStatement(declaration, clauses, statements)
            }
        }
    }
}

/// What each clause of a `#if` member declares, by `items`.
func clauseItems<Item>(of conditional: IfConfigDeclSyntax, _ items: (MemberBlockItemListSyntax) -> [Item]) -> [[Item]] {
    conditional.clauses.map { clause in
        guard case .decls(let inner) = clause.elements else { return [] }
        return items(inner)
    }
}

/// The `#if` of a member again, each clause holding the statements `statements` makes of what
/// it declares.
func conditionalStatement<Item>(
    _ declaration: IfConfigDeclSyntax, _ clauses: [[Item]], _ statements: ([Item]) -> [CodeBlockItemSyntax]
) -> CodeBlockItemSyntax {
    var text = ""
    for (clause, inner) in zip(declaration.clauses, clauses) {
        text += clause.poundKeyword.text
        if let condition = clause.condition { text += " " + condition.trimmedDescription }
        text += "\n"
        for line in statements(inner) { text += line.trimmedDescription + "\n" }
    }
    return "\(raw: text)#endif"
}

/// A persisted property of a model class, or a `#if` whose clauses declare some.
enum PersistedItem {
    case property(PersistedProperty)
    /// The `#if` and, for each of its clauses, the items it declares.
    case conditional(IfConfigDeclSyntax, [[PersistedItem]])

    var isConditional: Bool {
        if case .conditional = self { return true }
        return false
    }

    /// The properties, those of every clause included.
    var properties: [PersistedProperty] {
        switch self {
        case .property(let property): [property]
        case .conditional(_, let clauses): clauses.flatMap { $0.flatMap(\.properties) }
        }
    }

    /// The persisted properties among members, in declaration order, looking into `#if`
    /// clauses; the members the model cannot persist are reported.
    static func items(of members: MemberBlockItemListSyntax, diagnosing context: some MacroExpansionContext) -> [PersistedItem] {
        var items: [PersistedItem] = []
        for member in members {
            if let conditional = member.decl.as(IfConfigDeclSyntax.self) {
                let clauses = clauseItems(of: conditional) { Self.items(of: $0, diagnosing: context) }
                if clauses.contains(where: { !$0.isEmpty }) { items.append(.conditional(conditional, clauses)) }
                continue
            }
            switch ModelMember(member.decl) {
            case .persisted(let property): items.append(.property(property))
            case .rejected(let diagnostic): context.diagnose(diagnostic)
            case .leftAlone: break
            }
        }
        return items
    }

    /// A statement per property, made by `statement`, inside the `#if` clauses the properties
    /// are declared in.
    static func statements(
        _ items: [PersistedItem], _ statement: (PersistedProperty) -> CodeBlockItemSyntax
    ) -> [CodeBlockItemSyntax] {
        items.map { item in
            switch item {
            case .property(let property):
                return statement(property)
            case .conditional(let declaration, let clauses):
                return conditionalStatement(declaration, clauses) { statements($0, statement) }
            }
        }
    }
}

/// Where in a hierarchy of model classes the class `@Model` is attached to stands.
enum ModelShape: Equatable {
    /// A final class of its own: a static schema, one backing data.
    case finalRoot
    /// A class that may have subclasses and inherits from no model class.
    case openRoot
    /// A subclass of a model class (`@Model class BusinessTrip: Trip`).
    case subclass

    /// The compiler hands the member role the conformances of `@Model` the class does not have
    /// yet: a class that already conforms to `PersistentModel` without listing it inherits the
    /// conformance from a model superclass (its superclass cannot be told from a protocol by
    /// syntax alone: `@Model class Trip: Named` may name either).
    init(_ model: ClassDeclSyntax, conformingTo protocols: [TypeSyntax]) {
        let requested = protocols.contains { lastName(of: $0) == "PersistentModel" }
        let listed = model.inheritanceClause?.inheritedTypes.contains { lastName(of: $0.type) == "PersistentModel" } ?? false
        if !requested, !listed {
            self = .subclass
        } else if model.modifiers.contains(where: { $0.name.tokenKind == .keyword(.final) }) {
            self = .finalRoot
        } else {
            self = .openRoot
        }
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
