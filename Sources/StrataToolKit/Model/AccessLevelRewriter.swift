import Foundation
import SwiftParser
import SwiftSyntax

/// Generated classes with internal access (`strata model generate --access internal`): the
/// generator writes `public`, as Xcode and the build plugin do; this removes each `public`
/// modifier with the parser's help, so that names or comments containing "public" are left
/// alone.
enum AccessLevelRewriter {
    /// The source with every `public` modifier removed, every other byte kept.
    static func internalDeclarations(in source: String) -> String {
        let tree = Parser.parse(source: source)
        let bytes = Array(source.utf8)
        let edits = PublicModifiers(viewMode: .sourceAccurate).collect(tree).map { SourceEdit.removing($0, in: bytes) }
        return SourceEdit.apply(edits, to: source).text
    }

    /// Collects the `public` modifiers of a file, in source order.
    private final class PublicModifiers: SyntaxVisitor {
        private var found: [DeclModifierSyntax] = []

        /// Walks the tree and returns what it found.
        func collect(_ tree: SourceFileSyntax) -> [DeclModifierSyntax] {
            walk(tree)
            return found
        }

        override func visit(_ node: DeclModifierSyntax) -> SyntaxVisitorContinueKind {
            if node.name.tokenKind == .keyword(.public) { found.append(node) }
            return .visitChildren
        }
    }
}
