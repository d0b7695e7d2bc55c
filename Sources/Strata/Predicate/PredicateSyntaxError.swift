import Foundation

/// A format string that is not a predicate (or an expression): the error names where the
/// parser stopped, what it wanted there and what it found, so that a bad predicate in an
/// app or a model file can be fixed without guessing. `NSPredicate(format:)` raises it where
/// Apple raises `NSInvalidArgumentException`.
struct PredicateSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The whole format string that was parsed.
    var format: String
    /// Where the parser stopped: a count of `Character`s from the start of `format`.
    var offset: Int
    /// What the grammar allows at `offset`, in words ("a comparison operator").
    var expected: String
    /// The text found at `offset`; empty at the end of the string.
    var found: String

    var description: String {
        let foundText = found.isEmpty ? "the end of the string" : "\"\(found)\""
        return "expected \(expected) at offset \(offset) (\"\(format)\"), found \(foundText)"
    }
}
