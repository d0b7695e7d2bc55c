import CoreData
import Foundation
import Testing

/// A screen's model in Swift 5 app code: a main-actor class, not `Sendable`, that loads in
/// the background and publishes on the main queue.
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

/// COMPAT 7, the part only Swift 5 mode accepts: main-actor code hands values that are not
/// `Sendable` (a collector, `self`) to background blocks. Swift 5 mode compiles it (with
/// warnings at most), as it does against Apple's SDK; Swift 6 mode reports data-race errors.
@Suite("COMPAT 7: Swift 5 main-actor code capturing non-Sendable values")
@MainActor
struct Swift5CaptureTests {
    @Test("a main-actor test sends a non-Sendable collector into the async forms")
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

    @Test("a view model reloads in the background and publishes on the main queue", .timeLimit(.minutes(1)))
    func viewModelReload() async throws {
        let store = try TestStore()
        try store.insert([(title: "Pay rent", priority: 1, tags: []), (title: "Buy milk", priority: 1, tags: [])])
        let viewModel = TodoListViewModel(container: store.container)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            viewModel.reload { continuation.resume() }
        }
        #expect(viewModel.titles == ["Buy milk", "Pay rent"])
    }
}
