import Foundation

/// One spot in Core Data code from Apple's systems that Linux needs changed: where it is,
/// what is wrong, and the replacement when the change is mechanical.
struct PortFinding: Encodable, Equatable {
    /// The kinds of spots, named as `--json` and the text output name them.
    enum Rule: String, Encodable, CaseIterable {
        case nsManaged = "nsmanaged"
        case objc
        case keyPath = "keypath"
        case selector
        case overrideInExtension = "override-in-extension"
        case fetchRequestCast = "fetch-request-cast"
        case setLiteral = "nsset-literal"
        case requiredInit = "required-init"
        case keyValueObserving = "kvo"
        case swiftKeyPathExpression = "keypath-expression"
        case undoSelector = "undo-selector"
        case unavailableFramework = "unavailable-framework"
        case unavailableAPI = "unavailable-api"
    }

    var file: String
    var line: Int
    var column: Int
    var rule: Rule
    /// What must change, and why.
    var message: String
    /// The text that replaces the spot, when `--fix` can make the change.
    var replacement: String?
    /// Whether `--fix` changed the file at this spot.
    var fixed: Bool = false

    /// The edit `--fix` applies; not part of the output.
    var edit: SourceEdit?
    /// For an override moved out of an extension: what the class's file receives (the edit
    /// removes it here). Not part of the output.
    var move: PortMove?

    /// What the JSON holds: everything but the edit.
    enum CodingKeys: String, CodingKey {
        case file, line, column, rule, message, replacement, fixed
    }

    /// `file:line:column: error: message [rule]` (or `fixed:`), then the replacement.
    var text: String {
        var line = "\(file):\(self.line):\(column): \(fixed ? "fixed" : "error"): \(message) [\(rule.rawValue)]"
        if let replacement {
            line += "\n    \(fixed ? "now" : "replace with"): \(replacement)"
        } else {
            line += "\n    (change by hand)"
        }
        return line
    }
}
