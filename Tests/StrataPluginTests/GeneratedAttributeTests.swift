import Foundation
import Strata
import Testing

/// The generated attribute properties of `Todo` read and write the object's values with
/// Xcode's Swift types.
@Suite("Generated attribute properties")
struct GeneratedAttributeTests {
    @Test("optional object attributes start nil and round-trip their values")
    func objectAttributes() throws {
        let todo = try TestModel.make(Todo.self, entity: "Todo")
        #expect(todo.todoId == nil)
        #expect(todo.notes == nil)
        #expect(todo.createdAt == nil)
        #expect(todo.attachment == nil)
        #expect(todo.link == nil)
        #expect(todo.amount == nil)
        #expect(todo.count == nil)

        let id = UUID()
        let date = Date(timeIntervalSinceReferenceDate: 700_000_000)
        let link = try #require(URL(string: "https://example.com/todo/1"))
        todo.todoId = id
        todo.notes = "buy milk"
        todo.createdAt = date
        todo.attachment = Data([1, 2, 3])
        todo.link = link
        todo.amount = NSDecimalNumber(string: "12.34")
        todo.count = NSNumber(value: 42)

        #expect(todo.todoId == id)
        #expect(todo.notes == "buy milk")
        #expect(todo.createdAt == date)
        #expect(todo.attachment == Data([1, 2, 3]))
        #expect(todo.link == link)
        #expect(todo.amount == NSDecimalNumber(string: "12.34"))
        #expect(todo.count?.int64Value == 42)
        #expect(todo.value(forKey: "notes") as? String == "buy milk")
        #expect(todo.value(forKey: "count") as? Int64 == 42)
    }

    @Test("setting nil clears an optional attribute")
    func settingNil() throws {
        let todo = try TestModel.make(Todo.self, entity: "Todo")
        todo.notes = "draft"
        todo.amount = NSDecimalNumber(value: 5)
        todo.notes = nil
        todo.amount = nil
        #expect(todo.notes == nil)
        #expect(todo.amount == nil)
        #expect(todo.value(forKey: "notes") == nil)
    }

    @Test("scalar attributes read the model's defaults, or zero when it has none")
    func scalarDefaults() throws {
        let todo = try TestModel.make(Todo.self, entity: "Todo")
        #expect(todo.priority == 1)
        #expect(todo.done == false)
        #expect(todo.ratio == 0)
        #expect(todo.size == 0)
        #expect(todo.score == 0)
        #expect(todo.title == "Untitled")
    }

    @Test("scalar attributes round-trip their values")
    func scalarValues() throws {
        let todo = try TestModel.make(Todo.self, entity: "Todo")
        todo.priority = 3
        todo.score = 9.5
        todo.done = true
        todo.ratio = 0.25
        todo.size = 70_000
        #expect(todo.priority == 3)
        #expect(todo.score == 9.5)
        #expect(todo.done)
        #expect(todo.ratio == 0.25)
        #expect(todo.size == 70_000)
        #expect(todo.value(forKey: "priority") as? Int16 == 3)
        #expect(todo.value(forKey: "done") as? Bool == true)
    }

    @Test("transformable, transient and derived attributes are generated too")
    func otherAttributes() throws {
        let todo = try TestModel.make(Todo.self, entity: "Todo")
        todo.keywords = ["home", "urgent"]
        todo.extra = NSString(string: "anything")
        todo.draft = "half-written"
        #expect(todo.keywords == ["home", "urgent"])
        #expect(todo.extra as? NSString == "anything")
        #expect(todo.draft == "half-written")
        #expect(todo.titleUppercased == nil)
    }

    @Test("a subentity's class inherits its parent's generated properties")
    func inheritedAttributes() throws {
        let book = try TestModel.make(Book.self, entity: "Book")
        book.name = "Dune"
        book.pages = 412
        #expect(book.name == "Dune")
        #expect(book.pages == 412)
        let item: Item = book
        #expect(item.name == "Dune")
    }

    @Test("a category entity's hand-written class gets the generated properties")
    func categoryClass() throws {
        let note = try TestModel.make(Note.self, entity: "Note")
        note.body = "call Ann"
        note.pinned = true
        #expect(note.body == "call Ann")
        #expect(note.pinned)
        #expect(note.summary == "📌 call Ann")
    }
}
