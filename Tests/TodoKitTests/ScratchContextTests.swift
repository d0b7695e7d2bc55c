import CoreData
import Foundation
import Testing
import TodoKit

/// Issue 21's seed code, run as written: the apps edit in a main-queue scratch context whose
/// parent is the view context, with an undo manager, and save down through the parent.
@Suite("A scratch context with undo over the view context")
struct ScratchContextTests {
    @Test("edit a to-do in the scratch context, undo, redo, save it and its parent; a fresh context reads the edit")
    func seedSnippet() async throws {
        let store = try TestStore(.sqlite)
        let todo = try await store.services.todos.add(title: "Draft the agenda", tagIds: [])
        let viewContext = store.persistence.container.viewContext

        let scratch = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        scratch.parent = viewContext
        scratch.undoManager = UndoManager()
        scratch.name = "Example-Scratch"

        try scratch.performAndWait {
            let request: NSFetchRequest<TodoEntity> = TodoEntity.fetchRequest()
            request.predicate = NSPredicate(format: "todoId == %@", todo.id as CVarArg)
            let entity = try #require(try scratch.fetch(request).first)
            entity.title = "Draft the agenda for Monday"
            scratch.undo()
            #expect(entity.title == "Draft the agenda")
            #expect(scratch.undoManager?.canRedo == true)
            scratch.redo()
            #expect(entity.title == "Draft the agenda for Monday")
            #expect(scratch.undoManager?.canUndo == true)
            try scratch.save()
        }
        #expect(scratch.name == "Example-Scratch")
        // The scratch context saved into its parent, not into the store.
        #expect(try await store.services.todos.todo(id: todo.id).title == "Draft the agenda")
        try viewContext.performAndWait {
            #expect(viewContext.hasChanges)
            try viewContext.save()
        }

        let fresh = store.persistence.newTaskContext()
        let stored = try fresh.performAndWait {
            let request: NSFetchRequest<TodoEntity> = TodoEntity.fetchRequest()
            request.predicate = NSPredicate(format: "todoId == %@", todo.id as CVarArg)
            return try fresh.fetch(request).map { $0.title ?? "" }
        }
        #expect(stored == ["Draft the agenda for Monday"])
    }
}
