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
