import Foundation

/// What the data layer reports to the interfaces: each case a sentence a user can act on,
/// so that the command line and the web page show it as it is.
public enum TodoKitError: Error, Equatable, Sendable, LocalizedError {
    case todoNotFound(UUID)
    case tagNotFound(UUID)
    case locationNotFound(UUID)
    /// No object of the kind ("to-do", "tag") has an id starting with, or a title equal to,
    /// the text.
    case noMatch(kind: String, reference: String)
    /// Several objects of the kind have ids starting with the text.
    case ambiguous(kind: String, reference: String, matches: [UUID])
    /// The text cannot be the start of an id: ids are hexadecimal digits and hyphens.
    case notAnId(String)
    case emptyTitle
    case duplicateTagTitle(String)
    case invalidLocation(String)
    /// An archive that could not be read as JSON of the expected shape.
    case unreadableArchive(String)
    /// An archive that reads but breaks the rules of a whole graph (every problem found).
    case invalidArchive([String])

    public var errorDescription: String? {
        switch self {
        case .todoNotFound(let id): "No to-do has the id \(id.uuidString.lowercased())."
        case .tagNotFound(let id): "No tag has the id \(id.uuidString.lowercased())."
        case .locationNotFound(let id): "No location has the id \(id.uuidString.lowercased())."
        case .noMatch(let kind, let reference): "No \(kind) matches '\(reference)'."
        case .ambiguous(let kind, let reference, let matches):
            "'\(reference)' matches \(matches.count) \(kind)s ("
                + matches.map { $0.uuidString.lowercased() }.joined(separator: ", ") + "); give more of the id."
        case .notAnId(let text): "'\(text)' is not an id: ids are hexadecimal digits, as the list shows them."
        case .emptyTitle: "A title cannot be empty."
        case .duplicateTagTitle(let title): "A tag titled '\(title)' already exists."
        case .invalidLocation(let problem): "Not a location: \(problem)."
        case .unreadableArchive(let reason): "The file is not a to-do export: \(reason)"
        case .invalidArchive(let problems):
            "The file was not imported (nothing was changed):\n" + problems.map { "  - \($0)" }.joined(separator: "\n")
        }
    }
}
