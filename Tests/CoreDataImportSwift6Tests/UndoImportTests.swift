import CoreData
import Testing

/// Issue 21's seed code in a file that imports only CoreData: a main-queue scratch context given
/// an `UndoManager`, whose edits undo and redo, and the manager's notifications under Apple's names.
@Suite("Undo in files that import only CoreData")
struct UndoImportTests {
    @Test("a scratch context with an UndoManager undoes and redoes its edits")
    func scratchContextUndoesEdits() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try ImportTarget.loadModel())
        _ = try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        let scratch = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        scratch.persistentStoreCoordinator = coordinator
        scratch.undoManager = UndoManager()
        scratch.name = "Example-Scratch"
        let undoManager = try #require(scratch.undoManager)

        let undone = Counter()
        let observer = NotificationCenter.default.addObserver(
            forName: .NSUndoManagerDidUndoChange, object: undoManager, queue: nil
        ) { _ in undone.increment() }
        defer { NotificationCenter.default.removeObserver(observer) }

        try scratch.performAndWait {
            let note = NoteEntity(context: scratch)
            note.title = "Draft"
            try scratch.save()
            note.title = "Final"
            undoManager.setActionName("Rename")
            scratch.processPendingChanges()
            #expect(undoManager.undoMenuItemTitle == "Undo Rename")

            scratch.undo()
            #expect(note.title == "Draft")
            #expect(undoManager.redoMenuItemTitle == "Redo Rename")
            scratch.redo()
            #expect(note.title == "Final")
        }
        #expect(undone.value == 1)
    }

    /// A count that notification blocks may bump from any thread.
    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0

        func increment() {
            lock.lock()
            count += 1
            lock.unlock()
        }

        var value: Int {
            lock.lock()
            defer { lock.unlock() }
            return count
        }
    }
}
