import Foundation
import SwiftData

// A library written against Apple's SwiftData, as a user's app keeps its models: it imports
// SwiftData only (no CoreData), its models and the functions over them are public.

/// A `Codable` struct of the library: a composite attribute of the notebook.
public struct NotebookCover: Codable, Equatable, Sendable {
    public var color: String
    public var pages: Int

    public init(color: String, pages: Int) {
        self.color = color
        self.pages = pages
    }
}

@Model
public final class Notebook {
    @Attribute(.unique) public var title: String
    @Relationship(deleteRule: .cascade, inverse: \Note.notebook) public var notes: [Note] = []
    public var created: Date
    public var cover = NotebookCover(color: "grey", pages: 96)

    public init(title: String, created: Date = .now) {
        self.title = title
        self.created = created
    }
}

/// Open, so that apps subclass it (`user-app` adds `Reminder`).
@Model
open class Note {
    public var text: String
    public var pinned: Bool
    public var notebook: Notebook?

    public init(text: String, pinned: Bool = false) {
        self.text = text
        self.pinned = pinned
    }
}

@Model
public final class Checklist: Note {
    public var items: [String] = []

    public init(text: String, items: [String]) {
        self.items = items
        super.init(text: text)
    }
}

@ModelActor
public actor NoteImporter {
    public func add(_ texts: [String], to title: String) throws -> Int {
        let notebook = Notebook(title: title)
        modelContext.insert(notebook)
        for text in texts { notebook.notes.append(Note(text: text)) }
        try modelContext.save()
        return try modelContext.fetchCount(FetchDescriptor<Note>())
    }
}

public enum NoteQueries {
    public static func pinned(in context: ModelContext) throws -> [String] {
        try context.fetch(FetchDescriptor<Note>(predicate: #Predicate { $0.pinned }, sortBy: [SortDescriptor(\.text)]))
            .map(\.text)
    }
}
