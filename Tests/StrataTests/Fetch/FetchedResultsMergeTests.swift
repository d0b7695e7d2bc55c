import Foundation
import Testing

@testable import Strata

/// How a fetched results controller follows changes made elsewhere and merged into its
/// context: another context's save (`mergeChanges(fromContextDidSave:)`) and batch requests
/// merged by their IDs (`mergeChanges(fromRemoteContextSave:into:)`).
@Suite struct FetchedResultsMergeTests {
    let store: ScratchStore

    init() throws { store = try ScratchStore(model: FetchedNotes.model()) }

    private func path(_ row: Int, _ section: Int) -> IndexPath { IndexPath(row: row, section: section) }

    /// The did-save notification of `body`'s saves in `other`.
    private func saveNotification(
        of other: NSManagedObjectContext, _ body: () throws -> Void
    ) throws -> Notification {
        let saved = LockedNotifications()
        let observer = NotificationCenter.default.addObserver(
            forName: .NSManagedObjectContextDidSave, object: other, queue: nil
        ) { saved.append($0) }
        defer { NotificationCenter.default.removeObserver(observer) }
        try other.performAndWait { try body() }
        return try #require(saved.first)
    }

    /// The object of the same row in another context.
    private func same(_ object: NSManagedObject?, in context: NSManagedObjectContext) throws -> NSManagedObject {
        context.object(with: try #require(object).objectID)
    }

    @Test func anotherContextsSaveIsMergedIntoTheResults() throws {
        defer { store.remove() }
        let context = store.newContext()
        let other = store.newContext()
        try context.performAndWait {
            let notes = try FetchedNotes.seed(context)
            let (controller, _) = try FetchedNotes.controller(in: context)
            let mirror = TableMirror(controller)
            controller.delegate = mirror
            let saved = try saveNotification(of: other) {
                other.delete(try same(notes["a1"], in: other))
                try same(notes["b3"], in: other).setValue(Int64(0), forKey: "rank")
                try same(notes["c1"], in: other).setValue("merged", forKey: "body")
                FetchedNotes.note("c2", topic: try same(notes["c"], in: other), rank: 2, serial: 90, in: other)
                try other.save()
            }
            context.mergeChanges(fromContextDidSave: saved)
            #expect(mirror.problems == [])
            #expect(mirror.batches == 1)
            #expect(mirror.sections == TableMirror.sections(of: controller))
            #expect(FetchedNotes.titles(controller) == [["a2"], ["b3", "b1", "b2"], ["c1", "c2"]])
            #expect(try #require(notes["c1"]).value(forKey: "body") as? String == "merged")
        }
    }

    @Test func mergedChangesReportTheirKinds() throws {
        defer { store.remove() }
        let context = store.newContext()
        let other = store.newContext()
        try context.performAndWait {
            let notes = try FetchedNotes.seed(context)
            let (controller, recorder) = try FetchedNotes.controller(in: context)
            let saved = try saveNotification(of: other) {
                try same(notes["b2"], in: other).setValue("merged", forKey: "body")
                try other.save()
            }
            context.mergeChanges(fromContextDidSave: saved)
            #expect(recorder.take() == [.willChange, .object("b2", path(1, 1), .update, path(1, 1)), .didChange])
            let moved = try saveNotification(of: other) {
                try same(notes["a1"], in: other).setValue(Int64(7), forKey: "rank")
                try other.save()
            }
            context.mergeChanges(fromContextDidSave: moved)
            #expect(recorder.take() == [.willChange, .object("a1", path(0, 0), .move, path(1, 0)), .didChange])
            #expect(FetchedNotes.titles(controller)[0] == ["a2", "a1"])
        }
    }

    @Test func anObjectUpdatedElsewhereEntersWhenItStartsToMatch() throws {
        defer { store.remove() }
        let context = store.newContext()
        let other = store.newContext()
        try context.performAndWait {
            let notes = try FetchedNotes.seed(context)
            let hidden = FetchedNotes.note("hidden", topic: notes["b"], rank: 0, serial: 95, shown: false, in: context)
            try context.save()
            let hiddenID = hidden.objectID
            context.reset()
            // A fresh controller: the hidden note was never fetched here, nor registered.
            let (controller, recorder) = try FetchedNotes.controller(in: context, predicate: NSPredicate(format: "shown == YES"))
            #expect(context.registeredObject(for: hiddenID) == nil)
            let saved = try saveNotification(of: other) {
                other.object(with: hiddenID).setValue(true, forKey: "shown")
                try other.save()
            }
            context.mergeChanges(fromContextDidSave: saved)
            #expect(recorder.take() == [.willChange, .object("hidden", nil, .insert, path(0, 1)), .didChange])
            #expect(FetchedNotes.titles(controller)[1] == ["hidden", "b1", "b2", "b3"])
        }
    }

    @Test func aFaultInTheResultsUpdatedElsewhereIsReadAgain() throws {
        defer { store.remove() }
        let context = store.newContext()
        let other = store.newContext()
        try context.performAndWait {
            let notes = try FetchedNotes.seed(context)
            let (controller, recorder) = try FetchedNotes.controller(in: context)
            // Turned into a fault while nobody listens: the merge does not announce faults.
            controller.delegate = nil
            let b2 = try #require(notes["b2"])
            context.refresh(b2, mergeChanges: false)
            context.processPendingChanges()
            #expect(b2.isFault)
            controller.delegate = recorder
            let saved = try saveNotification(of: other) {
                try same(b2, in: other).setValue(Int64(9), forKey: "rank")
                try other.save()
            }
            context.mergeChanges(fromContextDidSave: saved)
            #expect(recorder.take() == [.willChange, .object("b2", path(1, 1), .move, path(2, 1)), .didChange])
            #expect(FetchedNotes.titles(controller)[1] == ["b1", "b3", "b2"])
        }
    }

    @Test func aBatchDeleteMergedByIDsDeletesFromTheResults() throws {
        defer { store.remove() }
        let context = store.newContext()
        try context.performAndWait {
            let notes = try FetchedNotes.seed(context)
            let (controller, _) = try FetchedNotes.controller(in: context)
            let mirror = TableMirror(controller)
            controller.delegate = mirror
            let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Note")
            request.predicate = NSPredicate(format: "topic.name == %@ OR title == %@", "b", "c1")
            let delete = NSBatchDeleteRequest(fetchRequest: request)
            delete.resultType = .resultTypeObjectIDs
            let result = try context.execute(delete) as? NSBatchDeleteResult
            let ids = try #require(result?.result as? [NSManagedObjectID])
            #expect(ids.count == 4)
            // Nothing changes until the IDs are merged.
            #expect(mirror.batches == 0)
            NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSDeletedObjectsKey: ids], into: [context])
            #expect(mirror.batches == 1)
            #expect(mirror.problems == [])
            #expect(mirror.sections == TableMirror.sections(of: controller))
            #expect(FetchedNotes.titles(controller) == [["a1", "a2"]])
            #expect(controller.indexPath(forObject: try #require(notes["b1"])) == nil)
        }
    }

    @Test func aBatchUpdateMergedByIDsMovesAndFilters() throws {
        defer { store.remove() }
        let context = store.newContext()
        try context.performAndWait {
            _ = try FetchedNotes.seed(context)
            let (controller, _) = try FetchedNotes.controller(in: context, predicate: NSPredicate(format: "shown == YES"))
            let mirror = TableMirror(controller)
            controller.delegate = mirror
            let hide = NSBatchUpdateRequest(entityName: "Note")
            hide.predicate = NSPredicate(format: "rank == 2")
            hide.propertiesToUpdate = ["shown": false]
            hide.resultType = .updatedObjectIDsResultType
            let hidden = try #require((try context.execute(hide) as? NSBatchUpdateResult)?.result as? [NSManagedObjectID])
            NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectsKey: hidden], into: [context])
            #expect(FetchedNotes.titles(controller) == [["a1"], ["b1", "b3"], ["c1"]])
            let rerank = NSBatchUpdateRequest(entityName: "Note")
            rerank.predicate = NSPredicate(format: "title == %@", "b3")
            rerank.propertiesToUpdate = ["rank": Int64(-1)]
            rerank.resultType = .updatedObjectIDsResultType
            let reranked = try #require((try context.execute(rerank) as? NSBatchUpdateResult)?.result as? [NSManagedObjectID])
            NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectsKey: reranked], into: [context])
            #expect(FetchedNotes.titles(controller) == [["a1"], ["b3", "b1"], ["c1"]])
            let show = NSBatchUpdateRequest(entityName: "Note")
            show.propertiesToUpdate = ["shown": true]
            show.resultType = .updatedObjectIDsResultType
            let shown = try #require((try context.execute(show) as? NSBatchUpdateResult)?.result as? [NSManagedObjectID])
            NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectsKey: shown], into: [context])
            #expect(FetchedNotes.titles(controller) == [["a1", "a2"], ["b3", "b1", "b2"], ["c1"]])
            #expect(mirror.problems == [])
            #expect(mirror.sections == TableMirror.sections(of: controller))
        }
    }
}

/// Notifications collected from any thread.
final class LockedNotifications: @unchecked Sendable {
    private let lock = NSLock()
    private var notifications: [Notification] = []

    func append(_ notification: Notification) {
        lock.lock()
        notifications.append(notification)
        lock.unlock()
    }

    var first: Notification? {
        lock.lock()
        defer { lock.unlock() }
        return notifications.first
    }
}
