import Foundation

/// One change of the store's persistent history, as `todo log` tells it: when, by whom
/// (`cli`, `web`…), what was done to which to-do, tag or place.
///
/// ```swift
/// for entry in try await persistence.recentHistory(limit: 10) { print(entry.line) }
/// // 16:40  cli  added 'Buy oat milk'
/// ```
public struct TodoHistoryEntry: Codable, Equatable, Sendable {
    public enum Action: String, Codable, Sendable {
        case added, changed, deleted
    }

    public enum Kind: String, Codable, Sendable {
        case todo, tag, place
    }

    public var date: Date
    /// The saving context's `transactionAuthor`: the interface that made the change.
    public var author: String?
    public var action: Action
    public var kind: Kind
    /// The to-do's or tag's title, the place's name; `nil` when the object is gone.
    public var title: String?
    /// What an update changed (`title`, `tags`, `completedAt`, `location`…), sorted.
    public var properties: [String]

    public init(
        date: Date, author: String?, action: Action, kind: Kind, title: String?, properties: [String] = []
    ) {
        self.date = date
        self.author = author
        self.action = action
        self.kind = kind
        self.title = title
        self.properties = properties
    }

    /// The entry in plain words: `16:40  cli  added 'Buy oat milk'`.
    public var line: String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "HH:mm"
        return "\(formatter.string(from: date))  \(author ?? "app")  \(words)"
    }

    /// What was done, without the time and author: `added the tag 'home'`.
    public var words: String {
        let noun: String
        switch kind {
        case .todo: noun = title.map { "'\($0)'" } ?? "a to-do"
        case .tag: noun = title.map { "the tag '\($0)'" } ?? "a tag"
        case .place: noun = title.map { "the place '\($0)'" } ?? "a place"
        }
        guard action == .changed, !properties.isEmpty else { return "\(action.rawValue) \(noun)" }
        let names = properties.map { $0 == "completedAt" ? "completion" : $0 }
        return "changed \(noun) (\(names.joined(separator: ", ")))"
    }
}
