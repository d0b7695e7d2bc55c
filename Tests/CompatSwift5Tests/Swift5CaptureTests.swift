import CoreData
import Foundation
import Testing

// COMPAT 7, the part only Swift 5 mode accepts. Each construct below compiles here with no
// error (Swift 5 mode reports at most warnings), as against Apple's SDK, and each is an error
// in Swift 6 mode, as checked with the Swift 6.3 compiler: "sending … risks causing data
// races", "capture of … in a '@Sendable' closure", "… is not concurrency-safe because it is
// nonisolated global shared mutable state".

/// A log shared by background work: a class that is not `Sendable`.
final class ImportLog {
    var lines: [String] = []
}

/// Saves to-dos on a background context, then reports from a global queue: the blocks
/// capture `log` and `completion`, which are not `Sendable`, in a `@Sendable` dispatch block.
func importTodos(
    titled titles: [String], into container: NSPersistentContainer, log: ImportLog, completion: @escaping () -> Void
) {
    container.performBackgroundTask { context in
        for title in titles {
            let todo = TodoEntity(context: context)
            todo.todoId = UUID()
            todo.title = title
        }
        do {
            try context.save()
            log.lines.append("saved \(titles.count)")
        } catch {
            log.lines.append("failed: \(error)")
        }
        DispatchQueue.global().async {
            log.lines.append("done")
            completion()
        }
    }
}

/// A screen's model: a main-actor class that loads on a background context and publishes on
/// the main queue, sending `self` and `completion` from the background block.
@MainActor
final class TodoListViewModel {
    private(set) var titles: [String] = []
    private let container: NSPersistentContainer

    init(container: NSPersistentContainer) {
        self.container = container
    }

    /// Fetches the titles on a background context, then sets them on the main queue.
    func reload(completion: @escaping () -> Void) {
        container.performBackgroundTask { context in
            let request: NSFetchRequest<TodoEntity> = TodoEntity.fetchRequest()
            request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
            let titles = (try? context.fetch(request))?.map { $0.title ?? "" } ?? []
            DispatchQueue.main.async {
                self.titles = titles
                completion()
            }
        }
    }
}

extension PersistenceController {
    /// Xcode's template for previews: an in-memory store with sample data, in a mutable
    /// static property (global mutable state).
    static var preview: PersistenceController = {
        let result = try! PersistenceController(storeURL: nil)
        let viewContext = result.container.viewContext
        for index in 0..<3 {
            let todo = TodoEntity(context: viewContext)
            todo.todoId = UUID()
            todo.title = "Sample \(index)"
        }
        try! viewContext.save()
        return result
    }()
}

/// COMPAT 7 in Swift 5 mode: the code above, and main-actor code that sends a value that is
/// not `Sendable` into the async forms of `performBackgroundTask` and `perform`.
@Suite("COMPAT 7: Swift 5 code capturing non-Sendable values")
struct Swift5CaptureTests {
    @Test("main-actor code sends a non-Sendable collector into the async forms")
    @MainActor
    func mainActorCaptures() async throws {
        let store = try TestStore()
        let collector = TitleCollector()
        try await store.container.performBackgroundTask { context in
            let todo = TodoEntity(context: context)
            todo.title = "Walk dog"
            try context.save()
            collector.titles.append(todo.title ?? "")
        }
        let context = store.container.newBackgroundContext()
        try await context.perform {
            collector.titles.append("\(try context.count(for: TodoEntity.fetchRequest()))")
        }
        #expect(collector.titles == ["Walk dog", "1"])
    }

    @Test("a main-actor view model reloads in the background and publishes on the main queue", .timeLimit(.minutes(1)))
    @MainActor
    func viewModelReload() async throws {
        let store = try TestStore()
        try store.insert([(title: "Pay rent", priority: 1, tags: []), (title: "Buy milk", priority: 1, tags: [])])
        let viewModel = TodoListViewModel(container: store.container)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            viewModel.reload { continuation.resume() }
        }
        #expect(viewModel.titles == ["Buy milk", "Pay rent"])
    }

    @Test("performBackgroundTask's block hands non-Sendable values to a global queue", .timeLimit(.minutes(1)))
    func dispatchFromBackgroundTask() async throws {
        let store = try TestStore()
        let log = ImportLog()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            importTodos(titled: ["Buy milk", "Call Ann"], into: store.container, log: log) {
                continuation.resume()
            }
        }
        #expect(log.lines == ["saved 2", "done"])
        let context = store.container.newBackgroundContext()
        #expect(try context.performAndWait { try context.count(for: TodoEntity.fetchRequest()) } == 2)
    }

    @Test("the template's in-memory preview store holds its sample data")
    func previewStore() throws {
        let context = PersistenceController.preview.container.newBackgroundContext()
        let titles = try context.performAndWait {
            try context.fetch(TodoEntity.fetchRequest()).compactMap { $0.title }.sorted()
        }
        #expect(titles == ["Sample 0", "Sample 1", "Sample 2"])
    }
}
