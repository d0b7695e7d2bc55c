import Foundation
import Testing

@testable import Strata

/// A main-queue context processes its pending changes at the end of the main queue's turn
/// (issue 32), as Apple's does at the end of a run-loop pass: observers and fetched results
/// controllers hear of a change made in an event handler or a main-actor job without a save.
@Suite struct EndOfTurnTests {
    /// A main-queue context on an in-memory store of the notes model, seeded and saved.
    @MainActor
    private func viewContext() throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: FetchedNotes.model())
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        _ = try FetchedNotes.seed(context)
        try context.save()
        return context
    }

    /// Waits, on the main actor, until `condition` holds: each pass lets the main queue run
    /// what was queued on it. Gives up after a generous bound.
    @MainActor
    private func waitUntil(_ condition: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(30)
        while !condition() {
            if Date() > deadline { return false }
            await withCheckedContinuation { continuation in DispatchQueue.main.async { continuation.resume() } }
        }
        return true
    }

    @MainActor
    @Test func aChangeMadeOnTheMainQueueIsAnnouncedAtTheEndOfTheTurn() async throws {
        let context = try viewContext()
        let announced = Protected([Set<String>]())
        let observer = NotificationCenter.default.addObserver(
            forName: .NSManagedObjectContextObjectsDidChange, object: context, queue: nil
        ) { notification in
            let inserted = (notification.userInfo?[NSInsertedObjectsKey] as? Set<NSManagedObject>) ?? []
            let titles = Set(inserted.compactMap { $0.value(forKey: "title") as? String })
            announced.withLock { $0.append(titles) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }

        FetchedNotes.note("d1", topic: nil, rank: 1, serial: 10, in: context)
        FetchedNotes.note("d2", topic: nil, rank: 2, serial: 11, in: context)
        // Not during the turn that made the changes: at its end, once, for both.
        #expect(announced.withLock { $0 }.isEmpty)
        #expect(await waitUntil { !announced.withLock { $0 }.isEmpty })
        #expect(announced.withLock { $0 } == [["d1", "d2"]])
        #expect(context.hasChanges)
        #expect(context.insertedObjects.count == 2)
    }

    @MainActor
    @Test func aFetchedResultsControllerHearsOfAnUnsavedChangeAtTheEndOfTheTurn() async throws {
        let context = try viewContext()
        let (controller, recorder) = try FetchedNotes.controller(in: context, sections: false)
        #expect(controller.fetchedObjects?.count == 6)
        FetchedNotes.note("a0", topic: nil, rank: 0, serial: 12, shown: true, in: context)
        #expect(recorder.calls.isEmpty)
        #expect(await waitUntil { recorder.calls.contains(.didChange) })
        #expect(recorder.calls.first == .willChange)
        #expect(recorder.calls.contains { if case .object("a0", nil, .insert, _) = $0 { true } else { false } })
        #expect(controller.fetchedObjects?.count == 7)
    }

    /// A main-queue context used from another thread (as a test or a tool does) belongs to that
    /// thread: the main queue does not process its changes behind the thread's back. (It did,
    /// and the two threads then changed the context at once: CI crashed releasing the sets of
    /// an `ObjectsDidChange`.) Its changes are processed when the thread asks.
    @Test func aMainQueueContextChangedOffTheMainQueueIsNotProcessedBehindItsBack() async throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: FetchedNotes.model())
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let posts = Protected(0)
        let context = await Task.detached {
            let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            #expect(!MainQueue.isCurrent)
            return UncheckedSendable(context)
        }.value.value
        let observer = NotificationCenter.default.addObserver(
            forName: .NSManagedObjectContextObjectsDidChange, object: context, queue: nil
        ) { _ in posts.withLock { $0 += 1 } }
        defer { NotificationCenter.default.removeObserver(observer) }
        let shared = UncheckedSendable(context)
        await Task.detached {
            _ = FetchedNotes.note("t1", topic: nil, rank: 1, serial: 1, in: shared.value)
            _ = FetchedNotes.note("t2", topic: nil, rank: 2, serial: 2, in: shared.value)
        }.value
        // Full turns of the main queue go by.
        for _ in 0..<3 {
            await withCheckedContinuation { continuation in DispatchQueue.main.async { continuation.resume() } }
            await MainActor.run {}
        }
        #expect(posts.withLock { $0 } == 0)
        await Task.detached { shared.value.processPendingChanges() }.value
        #expect(posts.withLock { $0 } == 1)
        #expect(context.insertedObjects.count == 2)
    }

    /// The main queue counts as the main queue on whichever thread drains it.
    @Test func theMainQueueIsKnownOnWhicheverThreadRunsIt() async {
        let onMain = await withCheckedContinuation { continuation in
            DispatchQueue.main.async { continuation.resume(returning: MainQueue.isCurrent) }
        }
        #expect(onMain)
        #expect(await MainActor.run { MainQueue.isCurrent })
        let elsewhere = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: MainQueue.isCurrent) }
        }
        #expect(!elsewhere)
    }

    /// A private-queue context still processes its changes only at the end of its blocks (or
    /// when asked): nothing is scheduled for it.
    @Test func aPrivateQueueContextIsNotProcessedByTheMainQueue() async throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: FetchedNotes.model())
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let posts = Protected(0)
        let observer = NotificationCenter.default.addObserver(
            forName: .NSManagedObjectContextObjectsDidChange, object: context, queue: nil
        ) { _ in posts.withLock { $0 += 1 } }
        defer { NotificationCenter.default.removeObserver(observer) }
        context.performAndWait { _ = FetchedNotes.note("p1", topic: nil, rank: 1, serial: 1, in: context) }
        // A full turn of the main queue goes by.
        await withCheckedContinuation { continuation in DispatchQueue.main.async { continuation.resume() } }
        await MainActor.run {}
        #expect(posts.withLock { $0 } == 0)
        context.performAndWait { context.processPendingChanges() }
        #expect(posts.withLock { $0 } == 1)
    }
}
