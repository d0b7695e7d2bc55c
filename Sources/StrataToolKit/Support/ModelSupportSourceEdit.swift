import Foundation
import SwiftSyntax

/// A replacement of a range of a source file's UTF-8 bytes: how `strata port --fix` and
/// `strata model generate --access internal` change Swift sources while keeping every other
/// byte (formatting, comments) as it was.
struct SourceEdit: Equatable {
    /// The UTF-8 offsets replaced, `start..<end`.
    var start: Int
    var end: Int
    var replacement: String

    /// Replaces a node's text, its trivia (comments, spacing) excluded.
    static func replacing(_ node: some SyntaxProtocol, with text: String) -> SourceEdit {
        SourceEdit(
            start: node.positionAfterSkippingLeadingTrivia.utf8Offset, end: node.endPositionBeforeTrailingTrivia.utf8Offset,
            replacement: text)
    }

    /// Removes a node (an attribute, a modifier) and the spaces after it; a node alone on its
    /// line takes the line with it, so no blank line is left behind.
    static func removing(_ node: some SyntaxProtocol, in text: [UInt8]) -> SourceEdit {
        var start = node.positionAfterSkippingLeadingTrivia.utf8Offset
        var end = node.endPositionBeforeTrailingTrivia.utf8Offset
        while end < text.count, text[end] == UInt8(ascii: " ") || text[end] == UInt8(ascii: "\t") { end += 1 }
        var lineStart = start
        while lineStart > 0, text[lineStart - 1] == UInt8(ascii: " ") || text[lineStart - 1] == UInt8(ascii: "\t") {
            lineStart -= 1
        }
        let aloneOnLine =
            (lineStart == 0 || text[lineStart - 1] == UInt8(ascii: "\n")) && end < text.count && text[end] == UInt8(ascii: "\n")
        if aloneOnLine {
            start = lineStart
            end += 1
        }
        return SourceEdit(start: start, end: end, replacement: "")
    }

    /// Removes a declaration with its comments and the line it ends (a member moved elsewhere).
    static func removingDeclaration(_ node: some SyntaxProtocol, in text: [UInt8]) -> SourceEdit {
        let start = lineStart(of: contentStart(of: node), in: text)
        var end = node.endPositionBeforeTrailingTrivia.utf8Offset
        while end < text.count, text[end] == UInt8(ascii: " ") || text[end] == UInt8(ascii: "\t") { end += 1 }
        if end < text.count, text[end] == UInt8(ascii: "\n") { end += 1 }
        // A blank line after it goes too when one comes before it, or the opening of a body.
        if end < text.count, text[end] == UInt8(ascii: "\n"), start >= 2, text[start - 1] == UInt8(ascii: "\n") {
            var before = start - 2
            while before > 0, text[before] == UInt8(ascii: " ") || text[before] == UInt8(ascii: "\t") { before -= 1 }
            if text[before] == UInt8(ascii: "\n") || text[before] == UInt8(ascii: "{") { end += 1 }
        }
        return SourceEdit(start: start, end: end, replacement: "")
    }

    /// A declaration's text with its comments, each line without the declaration's indentation.
    static func declarationText(_ node: some SyntaxProtocol, in text: [UInt8]) -> String {
        let start = lineStart(of: contentStart(of: node), in: text)
        let indent = indentation(at: node.positionAfterSkippingLeadingTrivia.utf8Offset, in: text)
        let body = String(decoding: text[start..<node.endPositionBeforeTrailingTrivia.utf8Offset], as: UTF8.self)
        return body.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix(indent) ? String(line.dropFirst(indent.count)) : String(line.drop { $0 == " " || $0 == "\t" })
        }.joined(separator: "\n")
    }

    /// Where a node's own text begins, its comments included: the first comment of its leading
    /// trivia, else its first token.
    private static func contentStart(of node: some SyntaxProtocol) -> Int {
        var offset = node.position.utf8Offset
        for piece in node.leadingTrivia {
            switch piece {
            case .lineComment, .blockComment, .docLineComment, .docBlockComment: return offset
            default: offset += piece.sourceLength.utf8Length
            }
        }
        return node.positionAfterSkippingLeadingTrivia.utf8Offset
    }

    /// The offset where the line holding `offset` begins.
    static func lineStart(of offset: Int, in text: [UInt8]) -> Int {
        var start = min(offset, text.count)
        while start > 0, text[start - 1] != UInt8(ascii: "\n") { start -= 1 }
        return start
    }

    /// The spaces and tabs that begin the line holding `offset`.
    static func indentation(at offset: Int, in text: [UInt8]) -> String {
        let start = lineStart(of: offset, in: text)
        var end = start
        while end < text.count, text[end] == UInt8(ascii: " ") || text[end] == UInt8(ascii: "\t") { end += 1 }
        return String(decoding: text[start..<end], as: UTF8.self)
    }

    /// Applies edits to a text, last first so that earlier offsets stay valid. Edits that
    /// overlap one already applied are left out and returned, for a second pass.
    static func apply(_ edits: [SourceEdit], to text: String) -> (text: String, skipped: [SourceEdit]) {
        var bytes = Array(text.utf8)
        var skipped: [SourceEdit] = []
        var lowestStart = Int.max
        for edit in edits.sorted(by: { ($0.start, $0.end) > ($1.start, $1.end) }) {
            guard edit.end <= lowestStart, edit.start <= edit.end, edit.end <= bytes.count else {
                skipped.append(edit)
                continue
            }
            bytes.replaceSubrange(edit.start..<edit.end, with: Array(edit.replacement.utf8))
            lowestStart = edit.start
        }
        return (String(decoding: bytes, as: UTF8.self), skipped)
    }
}
