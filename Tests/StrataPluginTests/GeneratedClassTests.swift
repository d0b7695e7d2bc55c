import Foundation
import Strata
import Testing

/// The generated classes have Xcode's shape: typed fetch requests, class names from the
/// model, superclasses from parent entities, `Identifiable`.
@Suite("Generated classes")
struct GeneratedClassTests {
    @Test("fetchRequest() is typed and names the entity, without ambiguity")
    func fetchRequest() {
        let request = Todo.fetchRequest()
        let typed: NSFetchRequest<Todo> = request
        #expect(typed.entityName == "Todo")
        #expect(Tag.fetchRequest().entityName == "Tag")
        #expect(Note.fetchRequest().entityName == "Note")
        #expect(Item.fetchRequest().entityName == "Item")
    }

    @Test("a subentity's fetchRequest() is chosen by the expected type, as with Xcode's classes")
    func subentityFetchRequest() {
        let books: NSFetchRequest<Book> = Book.fetchRequest()
        let items: NSFetchRequest<Item> = Book.fetchRequest()
        #expect(books.entityName == "Book")
        #expect(items.entityName == "Item")
    }

    @Test("the untyped base request is still reachable")
    func untypedRequest() {
        let request: NSFetchRequest<NSFetchRequestResult> = NSManagedObject.fetchRequest()
        #expect(request.entityName == "NSManagedObject")
    }

    @Test("class names drop the module prefix and leading dot of representedClassName")
    func classNames() throws {
        #expect(try TestModel.entity("Tag").managedObjectClassName == "StrataPluginTests.Tag")
        #expect(try TestModel.entity("Step").managedObjectClassName == ".Step")
        let tag = try TestModel.make(Tag.self, entity: "Tag")
        let step = try TestModel.make(Step.self, entity: "Step")
        tag.name = "home"
        step.title = "first"
        #expect(tag.name == "home")
        #expect(step.title == "first")
    }

    @Test("a subentity's class inherits from its parent entity's class")
    func subentityClass() throws {
        let book = try TestModel.make(Book.self, entity: "Book")
        #expect(Mirror(reflecting: book).superclassMirror?.subjectType == Item.self)
        let item = try TestModel.make(Item.self, entity: "Item")
        #expect(Mirror(reflecting: item).superclassMirror?.subjectType == NSManagedObject.self)
    }

    @Test("generated classes are Identifiable by object identity")
    func identifiable() throws {
        let first = try TestModel.make(Todo.self, entity: "Todo")
        let second = try TestModel.make(Todo.self, entity: "Todo")
        #expect(first.id == ObjectIdentifier(first))
        #expect(first.id != second.id)
        let book = try TestModel.make(Book.self, entity: "Book")
        #expect(book.id == ObjectIdentifier(book))
    }
}
