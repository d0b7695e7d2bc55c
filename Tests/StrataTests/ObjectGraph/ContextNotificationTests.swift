import Foundation
import Testing

@testable import Strata

extension ObjectGraphTests {
    /// `NSManagedObjectContextObjectsDidChange`, `…WillSave` and `…DidSave` are posted by the
    /// context with the inserted, updated and deleted objects.
    @Suite struct ContextNotificationTests {
        /// Runs `body` in a private-queue context of an in-memory store, with a recorder of the
        /// context's notifications.
        private func observing(_ body: (NSManagedObjectContext, NotificationRecorder) throws -> Void) throws {
            let context = try Stack(libraryModel(), type: NSInMemoryStoreType, at: nil).newContext()
            let recorder = NotificationRecorder(context)
            defer { recorder.stop() }
            try context.performAndWait { try body(context, recorder) }
        }

        @Test func objectsDidChangeListsInsertedObjects() throws {
            try observing { context, recorder in
                let novel = Novel(context: context)
                let author = Author(context: context)
                context.processPendingChanges()
                let changes = recorder.recorded(.NSManagedObjectContextObjectsDidChange)
                #expect(changes.count == 1)
                #expect(changes.first?.inserted == [novel, author])
                #expect(changes.first?.updated == [])
                #expect(changes.first?.deleted == [])
            }
        }

        @Test func objectsDidChangeListsUpdatedAndDeletedObjects() throws {
            try observing { context, recorder in
                let novel = Novel(context: context)
                let removed = Novel(context: context)
                try context.save()
                recorder.clear()

                novel.title = "Dune"
                context.delete(removed)
                context.processPendingChanges()
                let changes = recorder.recorded(.NSManagedObjectContextObjectsDidChange)
                #expect(changes.count == 1)
                #expect(changes.first?.inserted == [])
                #expect(changes.first?.updated == [novel])
                #expect(changes.first?.deleted == [removed])
            }
        }

        @Test func objectsDidChangeIsNotPostedWithoutChanges() throws {
            try observing { context, recorder in
                context.processPendingChanges()
                #expect(recorder.recorded(.NSManagedObjectContextObjectsDidChange).isEmpty)
            }
        }

        @Test func saveIsAnnouncedBeforeAndReportedAfter() throws {
            try observing { context, recorder in
                let novel = Novel(context: context)
                try context.save()
                let names = recorder.recorded.map(\.name)
                let willSave = try #require(names.firstIndex(of: .NSManagedObjectContextWillSave))
                let didSave = try #require(names.firstIndex(of: .NSManagedObjectContextDidSave))
                #expect(willSave < didSave)
                #expect(names.filter { $0 == .NSManagedObjectContextWillSave }.count == 1)
                #expect(names.filter { $0 == .NSManagedObjectContextDidSave }.count == 1)
                let saved = try #require(recorder.recorded(.NSManagedObjectContextDidSave).first)
                #expect(saved.inserted == [novel])
                #expect(saved.updated == [])
                #expect(saved.deleted == [])
            }
        }

        @Test func didSaveListsTheUpdatedObjects() throws {
            try observing { context, recorder in
                let novel = Novel(context: context)
                let untouched = Novel(context: context)
                try context.save()
                recorder.clear()
                novel.title = "Dune"
                try context.save()
                let saved = try #require(recorder.recorded(.NSManagedObjectContextDidSave).first)
                #expect(saved.updated == [novel])
                #expect(!saved.updated.contains(untouched))
                #expect(saved.inserted == [])
                #expect(saved.deleted == [])
            }
        }

        /// `DidSave` lists every saved object, whether the save's own `ObjectsDidChange` carried
        /// them all (its sets are reused then) or only the last of them (earlier changes were
        /// announced before the save).
        @Test func didSaveListsEverySavedObjectHoweverTheyWereAnnounced() throws {
            try observing { context, recorder in
                let first = Novel(context: context)
                let second = Novel(context: context)
                try context.save()
                let together = recorder.recorded(.NSManagedObjectContextObjectsDidChange)
                #expect(together.map(\.inserted) == [[first, second]])
                #expect(recorder.recorded(.NSManagedObjectContextDidSave).map(\.inserted) == [[first, second]])

                recorder.clear()
                let early = Novel(context: context)
                first.title = "announced early"
                context.processPendingChanges()
                let late = Novel(context: context)
                second.title = "announced late"
                try context.save()
                let announced = recorder.recorded(.NSManagedObjectContextObjectsDidChange)
                #expect(announced.map(\.inserted) == [[early], [late]])
                #expect(announced.map(\.updated) == [[first], [second]])
                let saved = try #require(recorder.recorded(.NSManagedObjectContextDidSave).first)
                #expect(saved.inserted == [early, late])
                #expect(saved.updated == [first, second])

                // The same objects again, in another order than announced: still all of them.
                recorder.clear()
                context.delete(late)
                context.delete(early)
                try context.save()
                #expect(recorder.recorded(.NSManagedObjectContextDidSave).map(\.deleted) == [[early, late]])
            }
        }

        @Test func didSaveListsTheDeletedObjectsWithTheirCascades() throws {
            try observing { context, recorder in
                let novel = Novel(context: context)
                let chapter = Chapter(context: context)
                chapter.novel = novel
                let kept = Novel(context: context)
                try context.save()
                recorder.clear()
                context.delete(novel)
                try context.save()
                let saved = try #require(recorder.recorded(.NSManagedObjectContextDidSave).first)
                #expect(saved.deleted == [novel, chapter])
                #expect(!saved.deleted.contains(kept))
                #expect(saved.inserted == [])
            }
        }

        @Test func notificationsOfOtherContextsAreNotReceived() throws {
            let stack = try Stack(libraryModel(), type: NSInMemoryStoreType, at: nil)
            let observed = stack.newContext()
            let other = stack.newContext()
            let recorder = NotificationRecorder(observed)
            let otherRecorder = NotificationRecorder(other)
            defer {
                recorder.stop()
                otherRecorder.stop()
            }
            try other.performAndWait {
                _ = Novel(context: other)
                try other.save()
            }
            #expect(otherRecorder.recorded(.NSManagedObjectContextDidSave).count == 1)
            #expect(recorder.recorded.isEmpty)
        }
    }
}
