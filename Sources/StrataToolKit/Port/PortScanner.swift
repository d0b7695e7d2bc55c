import Foundation
import SwiftParser
import SwiftSyntax

/// Finds, in one Swift file, the spots of Core Data code written for Apple's systems that
/// Linux needs changed (DEVIATIONS.md, "API signatures that differ from Apple's"), with the
/// edit that makes each mechanical change.
///
/// It reads the file with SwiftParser, so strings, comments and names that merely contain
/// `@NSManaged` or `#keyPath` are never taken for code. What the parser alone cannot know
/// (whether `todo.tags = [a, b]` assigns a to-many relationship) it learns from a model
/// when one is given.
///
/// ```swift
/// let findings = PortScanner.scan(source, file: "Todo.swift", context: PortContext())
/// ```
final class PortScanner: SyntaxVisitor {
    private let file: String
    private let bytes: [UInt8]
    private let converter: SourceLocationConverter
    /// What the other files and the model say: to-many relationships, declared classes.
    private let context: PortContext
    /// To-many relationships (of the model given with `--model`, or declared `NSSet` here or,
    /// unambiguously, in the other files): name → ordered; less the names this file declares
    /// with another type (`var tags: Set<Tag>`).
    private let relationships: [String: Bool]
    private var findings: [PortFinding] = []

    /// What a file declares that other files' spots depend on: to-many relationships as Xcode
    /// generates them (`@NSManaged public var tags: NSSet?`) and classes.
    static func declarations(in source: String) -> PortContext {
        let collector = PortDeclarations(viewMode: .sourceAccurate)
        collector.walk(Parser.parse(source: source))
        return collector.found
    }

    /// Every spot in a file, in source order.
    static func scan(_ source: String, file: String, context: PortContext) -> [PortFinding] {
        let tree = Parser.parse(source: source)
        let scanner = PortScanner(source: source, tree: tree, file: file, context: context)
        scanner.walk(tree)
        return scanner.findings.sorted { ($0.line, $0.column, $0.rule.rawValue) < ($1.line, $1.column, $1.rule.rawValue) }
    }

    private init(source: String, tree: SourceFileSyntax, file: String, context: PortContext) {
        self.file = file
        bytes = Array(source.utf8)
        converter = SourceLocationConverter(fileName: file, tree: tree)
        self.context = context
        let local = Self.declarations(in: source)
        // This file's own declarations decide for it; other files' only where they agree.
        relationships = context.relationships.merging(local.relationships) { $0 || $1 }.filter { name, _ in
            local.relationships[name] != nil || !local.otherProperties.contains(name)
        }
        super.init(viewMode: .sourceAccurate)
    }

    /// Records a spot; `display` is the replacement as people read it, when the edit's own text
    /// (a whole rewritten declaration, say) would say less.
    private func report(
        _ node: some SyntaxProtocol, _ rule: PortFinding.Rule, _ message: String, edit: SourceEdit? = nil, display: String? = nil,
        move: PortMove? = nil
    ) {
        let location = node.startLocation(converter: converter)
        let replacement = edit.map { edit in display ?? (edit.replacement.isEmpty ? "(removed)" : edit.replacement) }
        findings.append(
            PortFinding(
                file: file, line: location.line, column: location.column, rule: rule, message: message, replacement: replacement,
                edit: edit, move: move))
    }

    // MARK: Attributes: @NSManaged, @objc, SwiftUI's property wrappers

    override func visit(_ node: AttributeSyntax) -> SyntaxVisitorContinueKind {
        switch node.attributeName.trimmedDescription {
        case "NSManaged":
            if let function = node.parent?.parent?.as(FunctionDeclSyntax.self) {
                let fix = ToManyAccessorBody.edit(for: function, removing: node, in: bytes, relationships: relationships)
                report(
                    node, .nsManaged,
                    "@NSManaged methods need the Objective-C runtime; the accessor gets the body Strata's plugin generates",
                    edit: fix?.edit, display: fix.map { "func \(function.name.text)(…) { \($0.body.joined(separator: "; ")) }" })
            } else {
                report(
                    node, .nsManaged, "@NSManaged needs the Objective-C runtime; Strata's @Managed declares the same property",
                    edit: .replacing(node.attributeName, with: "Managed"), display: "@Managed")
            }
        case "objc" where node.parent?.parent?.is(EnumDeclSyntax.self) == true:
            // `@objc enum … : Int` compiles without Objective-C.
            break
        case "objc":
            let isClass = node.parent?.parent?.is(ClassDeclSyntax.self) ?? false
            let message =
                isClass && node.arguments != nil
                ? "\(node.trimmedDescription) does not compile without Objective-C; Strata finds an entity's class by its Swift"
                    + " name, so the model's class name must be the Swift name"
                : "@objc does not compile without Objective-C (nor does key-value observing through @objc dynamic); remove it"
            report(node, .objc, message, edit: .removing(node, in: bytes))
        case "objcMembers":
            report(node, .objc, "@objcMembers does not compile without Objective-C; remove it", edit: .removing(node, in: bytes))
        case "FetchRequest", "SectionedFetchRequest":
            report(
                node, .unavailableAPI,
                "SwiftUI's \(node.attributeName.trimmedDescription) is not on Linux; fetch with the context (or NSFetchedResultsController)"
            )
        default: break
        }
        return .visitChildren
    }

    // MARK: #keyPath and #selector

    override func visit(_ node: MacroExpansionExprSyntax) -> SyntaxVisitorContinueKind {
        guard let argument = node.arguments.first?.expression, node.arguments.count == 1 else { return .visitChildren }
        switch node.macroName.text {
        case "keyPath":
            var components = argument.trimmedDescription.split(separator: ".").map(String.init)
            // `#keyPath(Todo.title)` names the type first; `#keyPath(title)` inside the class does not.
            if components.count > 1, let first = components.first?.first, first.isUppercase { components.removeFirst() }
            let key = components.joined(separator: ".")
            let simple = components.allSatisfy { $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } && !$0.isEmpty }
            report(
                node, .keyPath, "#keyPath needs the Objective-C runtime; write the key path as a string",
                edit: simple ? .replacing(node, with: "\"\(key)\"") : nil)
        case "selector":
            let selector = objectiveCSelector(argument)
            report(
                node, .selector,
                "#selector needs the Objective-C runtime; Strata's Selector(\"…\") names the method (sort descriptors' comparators)",
                edit: selector.map { .replacing(node, with: "Selector(\"\($0)\")") })
        default: break
        }
        return .visitChildren
    }

    /// `NSString.localizedStandardCompare(_:)` → `localizedStandardCompare:`; nil for names
    /// whose Objective-C spelling is not simply the Swift one (labelled arguments).
    private func objectiveCSelector(_ expression: ExprSyntax) -> String? {
        let reference = expression.as(MemberAccessExprSyntax.self)?.declName ?? expression.as(DeclReferenceExprSyntax.self)
        guard let reference else { return nil }
        let name = reference.baseName.text
        guard let arguments = reference.argumentNames?.arguments else { return name }
        guard arguments.allSatisfy({ $0.name.tokenKind == .wildcard }) else { return nil }
        return name + String(repeating: ":", count: arguments.count)
    }

    // MARK: Overrides in extensions, Apple's override init(entity:insertInto:)

    override func visit(_ node: FunctionDeclSyntax) -> SyntaxVisitorContinueKind {
        reportOverrideInExtension(node, modifiers: node.modifiers, name: "func \(node.name.text)()")
        return .visitChildren
    }

    override func visit(_ node: VariableDeclSyntax) -> SyntaxVisitorContinueKind {
        let name = node.bindings.first?.pattern.trimmedDescription ?? ""
        reportOverrideInExtension(node, modifiers: node.modifiers, name: "var \(name)")
        return .visitChildren
    }

    /// An `override` member of an extension: Swift without Objective-C overrides only in the class body.
    private func reportOverrideInExtension(_ node: some DeclSyntaxProtocol, modifiers: DeclModifierListSyntax, name: String) {
        guard modifiers.contains(where: { $0.name.tokenKind == .keyword(.override) }),
            let extensionDecl = node.parent?.parent?.parent?.parent?.as(ExtensionDeclSyntax.self)
        else { return }
        let type = extensionDecl.extendedType.trimmedDescription
        let message =
            "`override \(name)` in an extension of \(type) does not compile on Linux (without Objective-C, Swift overrides"
            + " only in the class body); "
        // A class declared once in these files takes the member: a move `--fix` makes.
        if let files = context.classFiles[type], files.count == 1, let target = files.first {
            // An extension that holds nothing else goes with its members.
            let isOverride = { (member: MemberBlockItemSyntax) -> Bool in
                let modifiers =
                    member.decl.as(FunctionDeclSyntax.self)?.modifiers ?? member.decl.as(VariableDeclSyntax.self)?.modifiers
                return modifiers?.contains { $0.name.tokenKind == .keyword(.override) } ?? false
            }
            let onlyOverrides =
                extensionDecl.memberBlock.members.allSatisfy(isOverride) && extensionDecl.inheritanceClause == nil
                && extensionDecl.genericWhereClause == nil && extensionDecl.attributes.isEmpty
            let removal = SourceEdit.removingDeclaration(onlyOverrides ? Syntax(extensionDecl) : Syntax(node), in: bytes)
            let move = PortMove(className: type, file: target, member: SourceEdit.declarationText(node, in: bytes))
            report(
                node, .overrideInExtension,
                message + "move it into the declaration of class \(type) (\(target)), without @objc", edit: removal,
                display: "moved into class \(type) in \(target)", move: move)
            return
        }
        let advice =
            context.classes.contains(type)
            ? "move it into the declaration of class \(type), without @objc"
            : "\(type)'s class is not declared in these files (Xcode generates it): set the entity's codegen to"
                + " Category/Extension, declare `class \(type): NSManagedObject` and move the override there, without @objc"
        report(node, .overrideInExtension, message + advice)
    }

    /// The edit that puts moved members at the end of a class's body (in source order), or nil
    /// when the text declares no such class.
    static func insertion(of moves: [PortMove], into source: String) -> SourceEdit? {
        guard let className = moves.first?.className else { return nil }
        let finder = ClassFinder(name: className, viewMode: .sourceAccurate)
        finder.walk(Parser.parse(source: source))
        guard let declaration = finder.found else { return nil }
        let bytes = Array(source.utf8)
        let classIndent = SourceEdit.indentation(at: declaration.positionAfterSkippingLeadingTrivia.utf8Offset, in: bytes)
        let memberIndent = classIndent + "    "
        let members = moves.map { move in
            move.member.split(separator: "\n", omittingEmptySubsequences: false).map { $0.isEmpty ? "" : memberIndent + $0 }
                .joined(separator: "\n")
        }
        let brace = declaration.memberBlock.rightBrace.positionAfterSkippingLeadingTrivia.utf8Offset
        let lineStart = SourceEdit.lineStart(of: brace, in: bytes)
        if String(decoding: bytes[lineStart..<brace], as: UTF8.self).allSatisfy({ $0 == " " || $0 == "\t" }) {
            // `}` on its own line: the members go before it, after a blank line when the body has members.
            let separator = declaration.memberBlock.members.isEmpty ? "" : "\n"
            return SourceEdit(start: lineStart, end: lineStart, replacement: separator + members.joined(separator: "\n\n") + "\n")
        }
        // `{}` on one line.
        return SourceEdit(start: brace, end: brace, replacement: "\n" + members.joined(separator: "\n\n") + "\n" + classIndent)
    }

    override func visit(_ node: InitializerDeclSyntax) -> SyntaxVisitorContinueKind {
        let labels = node.signature.parameterClause.parameters.map(\.firstName.text)
        if labels == ["entity", "insertInto"],
            let override = node.modifiers.first(where: { $0.name.tokenKind == .keyword(.override) })
        {
            report(
                override, .requiredInit,
                "Strata makes objects from their class, so init(entity:insertInto:) is required: override it with `required`",
                edit: .replacing(override, with: "required"))
        }
        return .visitChildren
    }

    // MARK: Casts between NSFetchRequest specialisations, array literals as NSSet, assignments

    override func visit(_ node: SequenceExprSyntax) -> SyntaxVisitorContinueKind {
        let elements = Array(node.elements)
        for (index, element) in elements.enumerated() {
            if let cast = element.as(UnresolvedAsExprSyntax.self), index > 0, index + 1 < elements.count,
                let type = elements[index + 1].as(TypeExprSyntax.self)?.type
            {
                checkCast(
                    operand: elements[index - 1], mark: cast.questionOrExclamationMark, type: type,
                    whole: elements.count == 3 ? node : nil)
            }
            if element.is(AssignmentExprSyntax.self), index == 1, elements.count == 3 {
                checkAssignment(target: elements[0], value: elements[2])
            }
        }
        return .visitChildren
    }

    override func visit(_ node: AsExprSyntax) -> SyntaxVisitorContinueKind {
        checkCast(operand: node.expression, mark: node.questionOrExclamationMark, type: node.type, whole: node)
        return .visitChildren
    }

    /// `x as! NSFetchRequest<NSFetchRequestResult>` and `[a, b] as NSSet`.
    private func checkCast(operand: ExprSyntax, mark: TokenSyntax?, type: TypeSyntax, whole: (some SyntaxProtocol)?) {
        let typeText = type.trimmedDescription
        if mark == nil, typeText == "NSSet" || typeText == "NSOrderedSet", let array = operand.as(ArrayExprSyntax.self) {
            report(
                operand, .setLiteral, "\(typeText) is not an array literal on Linux; build it from the array",
                edit: whole.map { .replacing($0, with: setExpression(typeText, array)) })
            return
        }
        guard let mark, type.as(IdentifierTypeSyntax.self)?.name.text == "NSFetchRequest" else { return }
        // What is cast is unknown to the parser unless it is a `fetchRequest()` call: other `as?`
        // casts are mostly checks of an `Any` (isEqual, copy) and work; `as!` to the untyped
        // request is the idiom Apple's code uses on typed requests.
        let isTypedRequest = fetchRequestEntity(operand) != nil
        guard isTypedRequest || (mark.text == "!" && typeText == "NSFetchRequest<NSFetchRequestResult>") else { return }
        let message =
            "`as\(mark.text) \(typeText)` of a typed request (NSFetchRequest<Todo>) compiles but stops the program on Linux:"
            + " NSFetchRequest<A> and NSFetchRequest<B> are unrelated classes in Swift; make the request untyped from the start,"
            + " or pass the typed request"
        var edit: SourceEdit?
        if mark.text == "!", let whole, let entity = fetchRequestEntity(operand) {
            let call = whole.parent?.as(LabeledExprSyntax.self)
            let callee = call?.parent?.parent?.as(FunctionCallExprSyntax.self)?.calledExpression.trimmedDescription
            if call?.label?.text == "fetchRequest", callee == "NSBatchDeleteRequest" {
                // NSBatchDeleteRequest takes a typed request as it is.
                edit = .replacing(whole, with: operand.trimmedDescription)
            } else {
                edit = .replacing(whole, with: "\(typeText)(entityName: \"\(entity)\")")
            }
        }
        report(operand, .fetchRequestCast, message, edit: edit)
    }

    /// `Todo` in `Todo.fetchRequest()`: the entity is taken to be named as its class.
    private func fetchRequestEntity(_ expression: ExprSyntax) -> String? {
        guard let call = expression.as(FunctionCallExprSyntax.self), call.arguments.isEmpty,
            let member = call.calledExpression.as(MemberAccessExprSyntax.self), member.declName.baseName.text == "fetchRequest",
            let base = member.base?.as(DeclReferenceExprSyntax.self)
        else { return nil }
        return base.baseName.text
    }

    /// `todo.tags = [a, b]`, when the model given says `tags` is to-many.
    private func checkAssignment(target: ExprSyntax, value: ExprSyntax) {
        guard let array = value.as(ArrayExprSyntax.self), let member = target.as(MemberAccessExprSyntax.self),
            let ordered = relationships[member.declName.baseName.text]
        else { return }
        let type = ordered ? "NSOrderedSet" : "NSSet"
        report(
            value, .setLiteral, "\(member.declName.baseName.text) is an \(type) and \(type) is not an array literal on Linux",
            edit: .replacing(array, with: setExpression(type, array)))
    }

    override func visit(_ node: PatternBindingSyntax) -> SyntaxVisitorContinueKind {
        if let type = node.typeAnnotation?.type.trimmedDescription, let array = node.initializer?.value.as(ArrayExprSyntax.self) {
            let base = type.hasSuffix("?") || type.hasSuffix("!") ? String(type.dropLast()) : type
            if base == "NSSet" || base == "NSOrderedSet" {
                report(
                    array, .setLiteral, "\(base) is not an array literal on Linux; build it from the array",
                    edit: .replacing(array, with: setExpression(base, array)))
            }
        }
        return .visitChildren
    }

    /// `NSSet(array: [a, b])`, or `NSSet()` for an empty literal.
    private func setExpression(_ type: String, _ array: ArrayExprSyntax) -> String {
        array.elements.isEmpty ? "\(type)()" : "\(type)(array: \(array.trimmedDescription))"
    }

    // MARK: Calls: to-many accessors with arrays, KVO, undo selectors, Swift key paths

    override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        let labels = node.arguments.map { $0.label?.text ?? "_" }
        let callee =
            node.calledExpression.as(MemberAccessExprSyntax.self)?.declName.baseName.text
            ?? node.calledExpression.as(DeclReferenceExprSyntax.self)?.baseName.text ?? node.calledExpression.trimmedDescription
        let firstArgument = node.arguments.first?.expression
        switch callee {
        case _ where accessorRelationship(callee) != nil && labels == ["_"]:
            if let array = firstArgument?.as(ArrayExprSyntax.self), let relationship = accessorRelationship(callee) {
                let type = relationships[relationship] == true ? "NSOrderedSet" : "NSSet"
                report(
                    array, .setLiteral, "\(callee)(_:) takes an \(type), which is not an array literal on Linux",
                    edit: .replacing(array, with: setExpression(type, array)))
            }
        case "observe" where firstArgument?.is(KeyPathExprSyntax.self) == true,
            "publisher" where labels.first == "for" && firstArgument?.is(KeyPathExprSyntax.self) == true,
            "addObserver" where labels.contains("forKeyPath"):
            report(
                node, .keyValueObserving,
                "key-value observing and its publishers are not on Linux; observe NSManagedObjectContextObjectsDidChange"
                    + " (or use NSFetchedResultsController)")
        case "registerUndo" where labels == ["withTarget", "selector", "object"],
            "prepare" where labels == ["withInvocationTarget"]:
            report(
                node, .undoSelector,
                "undo by Objective-C message is not offered on Linux; register a closure with registerUndo(withTarget:handler:)")
        case "NSExpression" where labels == ["forKeyPath"]:
            if let keyPath = firstArgument?.as(KeyPathExprSyntax.self) {
                let path = keyPath.components.trimmedDescription.drop { $0 == "." }
                let simple = path.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." } && !path.isEmpty
                report(
                    keyPath, .swiftKeyPathExpression, "NSExpression(forKeyPath:) takes the key path's name on Linux",
                    edit: simple ? .replacing(keyPath, with: "\"\(path)\"") : nil)
            }
        case "NSPredicate" where labels == ["format", "arguments"], "NSExpression" where labels == ["format", "arguments"]:
            report(
                node, .unavailableAPI,
                "\(callee)(format:arguments:) with a CVaListPointer is not offered; pass the arguments to \(callee)(format:_:)")
        default: break
        }
        return .visitChildren
    }

    /// `tags` for `addToTags`/`removeFromTags`, the to-many accessors Xcode generates.
    private func accessorRelationship(_ name: String) -> String? {
        for prefix in ["addTo", "removeFrom"] where name.hasPrefix(prefix) && name.count > prefix.count {
            let rest = name.dropFirst(prefix.count)
            guard let first = rest.first, first.isUppercase else { continue }
            return first.lowercased() + rest.dropFirst()
        }
        return nil
    }

    // MARK: Frameworks and types Linux does not have

    override func visit(_ node: ImportDeclSyntax) -> SyntaxVisitorContinueKind {
        let module = node.path.trimmedDescription
        let advice: [String: String] = [
            "SwiftUI":
                "SwiftUI is not on Linux (nor @FetchRequest and \\.managedObjectContext); keep views out of the data layer",
            "Combine": "Combine is not on Linux; Core Data's publishers are not offered, observe notifications instead",
            "CoreSpotlight": "Core Spotlight is not on Linux (nor NSCoreDataCoreSpotlightDelegate)",
            "UIKit": "UIKit is not on Linux; keep it out of the files Linux builds",
            "AppKit": "AppKit is not on Linux; keep it out of the files Linux builds",
        ]
        if let message = advice[module] { report(node, .unavailableFramework, message) }
        return .visitChildren
    }

    override func visit(_ node: DeclReferenceExprSyntax) -> SyntaxVisitorContinueKind {
        if node.baseName.text == "NSCoreDataCoreSpotlightDelegate" {
            report(node, .unavailableAPI, "NSCoreDataCoreSpotlightDelegate is not on Linux (no Spotlight)")
        }
        return .visitChildren
    }
}

/// What `strata port` learns from all the files it reads (and the model given) before it
/// judges any spot.
struct PortContext {
    /// To-many relationships: name → ordered.
    var relationships: [String: Bool] = [:]
    /// The classes the files declare.
    var classes: Set<String> = []
    /// The files that declare each class (as the files were named), when known.
    var classFiles: [String: [String]] = [:]
    /// Properties declared with a type other than `NSSet`/`NSOrderedSet`.
    var otherProperties: Set<String> = []

    /// Both contexts together; a relationship ordered in either is ordered.
    mutating func merge(_ other: PortContext) {
        relationships.merge(other.relationships) { $0 || $1 }
        classes.formUnion(other.classes)
        classFiles.merge(other.classFiles) { $0 + $1 }
        otherProperties.formUnion(other.otherProperties)
    }
}

/// Class declarations, and `@NSManaged var tags: NSSet?` and `NSOrderedSet?` declarations:
/// the classes and the to-many relationships of the code being ported, known without its
/// model.
private final class PortDeclarations: SyntaxVisitor {
    var found = PortContext()

    override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind {
        found.classes.insert(node.name.text)
        return .visitChildren
    }

    override func visit(_ node: VariableDeclSyntax) -> SyntaxVisitorContinueKind {
        for binding in node.bindings {
            guard let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text,
                let type = binding.typeAnnotation?.type.trimmedDescription
            else { continue }
            let base = type.hasSuffix("?") || type.hasSuffix("!") ? String(type.dropLast()) : type
            switch base {
            case "NSSet": found.relationships[name] = found.relationships[name] ?? false
            case "NSOrderedSet": found.relationships[name] = true
            default: found.otherProperties.insert(name)
            }
        }
        return .skipChildren
    }
}

/// The first declaration of a class of the given name, at any depth.
private final class ClassFinder: SyntaxVisitor {
    let name: String
    var found: ClassDeclSyntax?

    init(name: String, viewMode: SyntaxTreeViewMode) {
        self.name = name
        super.init(viewMode: viewMode)
    }

    override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind {
        if found == nil, node.name.text == name { found = node }
        return found == nil ? .visitChildren : .skipChildren
    }
}

/// A member `--fix` moves out of an extension into its class's declaration: the class, the
/// file that declares it, and the member's text (its comments included, not indented).
struct PortMove: Equatable {
    var className: String
    var file: String
    var member: String
}
