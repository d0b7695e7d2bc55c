import CoreData
import Foundation
import Testing

/// A class that is not `Sendable`, as app code has many (view models, caches, collectors).
final class TitleCollector {
    var titles: [String] = []
}

/// COMPAT 7, the part both language modes compile: blocks given to `performBackgroundTask`
/// (closure and async forms) and to `perform` capture values that are not `Sendable`. The
/// Swift 5 target adds code that only Swift 5 mode accepts (`Swift5CaptureTests`).
@Suite("COMPAT 7: background blocks capture non-Sendable values")
struct BackgroundTaskCaptureTests {
    @Test("performBackgroundTask { context in … } (closure form)")
    func closureForm() async throws {
        let store = try TestStore()
        try store.insert([(title: "Buy milk", priority: 1, tags: []), (title: "Call Ann", priority: 2, tags: [])])
        let container = store.container
        let collector = TitleCollector()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            container.performBackgroundTask { context in
                let request: NSFetchRequest<TodoEntity> = TodoEntity.fetchRequest()
                request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
                collector.titles = (try? context.fetch(request))?.map { $0.title ?? "" } ?? []
                continuation.resume()
            }
        }
        #expect(collector.titles == ["Buy milk", "Call Ann"])
    }

    @Test("try await performBackgroundTask { context in … } and context.perform (async forms)")
    func asyncForms() async throws {
        let store = try TestStore()
        let collector = TitleCollector()
        var saved = 0
        try await store.container.performBackgroundTask { context in
            let todo = TodoEntity(context: context)
            todo.title = "Fix sink"
            try context.save()
            collector.titles.append(todo.title ?? "")
            saved += 1
        }
        let context = store.container.newBackgroundContext()
        let count = try await context.perform {
            collector.titles.append("counted")
            return try context.count(for: TodoEntity.fetchRequest())
        }
        #expect(collector.titles == ["Fix sink", "counted"])
        #expect(saved == 1)
        #expect(count == 1)
    }
}
