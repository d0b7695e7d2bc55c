import Foundation
import Testing

@testable import Strata

/// How a fetched results controller reports its context's own changes: each kind of change,
/// with Apple's index paths (old for deletes, moves' origins and updates; new for inserts and
/// moves' destinations), section changes first, in one batch per `processPendingChanges()`.
@Suite struct FetchedResultsChangeTests {
    let store: ScratchStore

    init() throws { store = try ScratchStore(model: FetchedNotes.model()) }

    private func withNotes(_ body: (NSManagedObjectContext, [String: NSManagedObject]) throws -> Void) throws {
        defer { store.remove() }
        let context = store.newContext()
        try context.performAndWait { try body(context, try FetchedNotes.seed(context)) }
    }

    private func path(_ row: Int, _ section: Int) -> IndexPath { IndexPath(row: row, section: section) }

    @Test func anInsertIsReportedAtItsNewIndexPath() throws {
        try withNotes { context, notes in
            let (controller, recorder) = try FetchedNotes.controller(in: context)
            FetchedNotes.note("b0", topic: notes["b"], rank: 0, serial: 10, in: context)
            context.processPendingChanges()
            #expect(recorder.take() == [.willChange, .object("b0", nil, .insert, path(0, 1)), .didChange])
            #expect(FetchedNotes.titles(controller) == [["a1", "a2"], ["b0", "b1", "b2", "b3"], ["c1"]])
        }
    }

    @Test func aDeleteIsReportedAtItsOldIndexPath() throws {
        try withNotes { context, notes in
            let (controller, recorder) = try FetchedNotes.controller(in: context)
            context.delete(try #require(notes["b2"]))
            context.processPendingChanges()
            #expect(recorder.take() == [.willChange, .object("b2", path(1, 1), .delete, nil), .didChange])
            #expect(FetchedNotes.titles(controller) == [["a1", "a2"], ["b1", "b3"], ["c1"]])
            // Saving the delete changes nothing more.
            try context.save()
            #expect(recorder.take().isEmpty)
        }
    }

    @Test func aChangeOfASortKeyIsAMoveFromTheOldToTheNewIndexPath() throws {
        try withNotes { context, notes in
            let (controller, recorder) = try FetchedNotes.controller(in: context)
            try #require(notes["b1"]).setValue(Int64(9), forKey: "rank")
            context.processPendingChanges()
            #expect(recorder.take() == [.willChange, .object("b1", path(0, 1), .move, path(2, 1)), .didChange])
            #expect(FetchedNotes.titles(controller) == [["a1", "a2"], ["b2", "b3", "b1"], ["c1"]])
            // A sort key that changes without changing the place is still a move (Apple: "a
            // move is reported when the changed attribute … is one of the sort descriptors").
            try #require(notes["b1"]).setValue(Int64(10), forKey: "rank")
            context.processPendingChanges()
            #expect(recorder.take() == [.willChange, .object("b1", path(2, 1), .move, path(2, 1)), .didChange])
        }
    }

    @Test func aChangeOfAnotherAttributeIsAnUpdateInPlace() throws {
        try withNotes { context, notes in
            let (controller, recorder) = try FetchedNotes.controller(in: context)
            try #require(notes["b2"]).setValue("changed", forKey: "body")
            context.processPendingChanges()
            #expect(recorder.take() == [.willChange, .object("b2", path(1, 1), .update, path(1, 1)), .didChange])
            // An update's index paths are where it was and where it is, around other changes.
            context.delete(try #require(notes["a1"]))
            try #require(notes["b3"]).setValue("changed", forKey: "body")
            context.processPendingChanges()
            #expect(
                recorder.take() == [
                    .willChange, .object("a1", path(0, 0), .delete, nil), .object("b3", path(2, 1), .update, path(2, 1)),
                    .didChange,
                ])
            #expect(controller.fetchedObjects?.count == 5)
        }
    }

    @Test func valuesEqualUnderTheDescriptorsComparisonKeepTheirPlace() throws {
        try withNotes { context, notes in
            let request = FetchedNotes.request()
            request.sortDescriptors = [
                NSSortDescriptor(key: "title", ascending: true, selector: Selector("caseInsensitiveCompare:")),
                NSSortDescriptor(key: "serial", ascending: true),
            ]
            let controller = NSFetchedResultsController(
                fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
            let recorder = DelegateRecorder()
            controller.delegate = recorder
            try controller.performFetch()
            // "b2" to "B2" compares the same without case: an update, in place.
            try #require(notes["b2"]).setValue("B2", forKey: "title")
            context.processPendingChanges()
            #expect(recorder.take() == [.willChange, .object("B2", path(3, 0), .update, path(3, 0)), .didChange])
            // "A3" sorts after "a2" and before "b1" without case.
            try #require(notes["c1"]).setValue("A3", forKey: "title")
            context.processPendingChanges()
            #expect(recorder.take() == [.willChange, .object("A3", path(5, 0), .move, path(2, 0)), .didChange])
            let titles = controller.fetchedObjects?.compactMap { $0.value(forKey: "title") as? String }
            #expect(titles == ["a1", "a2", "A3", "b1", "B2", "b3"])
            #expect(
                try context.fetch(request).map(ObjectIdentifier.init) == controller.fetchedObjects?.map(ObjectIdentifier.init))
        }
    }

    @Test func aNewSectionIsInsertedBeforeItsObject() throws {
        try withNotes { context, _ in
            let (controller, recorder) = try FetchedNotes.controller(in: context)
            let topic = FetchedNotes.topic("bb", in: context)
            FetchedNotes.note("bb1", topic: topic, rank: 1, serial: 10, in: context)
            context.processPendingChanges()
            #expect(
                recorder.take() == [
                    .willChange, .section("bb", 2, .insert), .object("bb1", nil, .insert, path(0, 2)), .didChange,
                ])
            #expect(controller.sections?.map(\.name) == ["a", "b", "bb", "c"])
        }
    }

    @Test func aSectionLeftEmptyIsDeletedAtItsOldIndex() throws {
        try withNotes { context, notes in
            let (controller, recorder) = try FetchedNotes.controller(in: context)
            context.delete(try #require(notes["a1"]))
            context.delete(try #require(notes["a2"]))
            context.processPendingChanges()
            let calls = recorder.take()
            #expect(calls.first == .willChange)
            #expect(calls[1] == .section("a", 0, .delete))
            #expect(Set(calls[2...3].map(\.description)) == ["a1 [0, 0] delete -", "a2 [0, 1] delete -"])
            #expect(calls.last == .didChange)
            #expect(controller.sections?.map(\.name) == ["b", "c"])
            #expect(controller.object(at: path(0, 0)) === notes["b1"])
        }
    }

    @Test func movingIntoAnotherSectionDeletesAndInsertsSections() throws {
        try withNotes { context, notes in
            let (controller, recorder) = try FetchedNotes.controller(in: context)
            // c1 leaves c (which empties) for a new topic d after it.
            let d = FetchedNotes.topic("d", in: context)
            try #require(notes["c1"]).setValue(d, forKey: "topic")
            context.processPendingChanges()
            #expect(
                recorder.take() == [
                    .willChange, .section("c", 2, .delete), .section("d", 2, .insert),
                    .object("c1", path(0, 2), .move, path(0, 2)), .didChange,
                ])
            #expect(controller.sections?.map(\.name) == ["a", "b", "d"])
            // a2 moves to b: a keeps a1, b gains a2 first (rank 2 sorts after b1's 1).
            try #require(notes["a2"]).setValue(notes["b"], forKey: "topic")
            context.processPendingChanges()
            #expect(recorder.take() == [.willChange, .object("a2", path(1, 0), .move, path(1, 1)), .didChange])
            #expect(FetchedNotes.titles(controller) == [["a1"], ["b1", "a2", "b2", "b3"], ["c1"]])
        }
    }

    @Test func theOnlyObjectOfASectionMovingWithinItKeepsTheSection() throws {
        try withNotes { context, notes in
            let (controller, recorder) = try FetchedNotes.controller(in: context)
            try #require(notes["c1"]).setValue(Int64(5), forKey: "rank")
            context.processPendingChanges()
            #expect(recorder.take() == [.willChange, .object("c1", path(0, 2), .move, path(0, 2)), .didChange])
            #expect(controller.sections?.map(\.name) == ["a", "b", "c"])
        }
    }

    @Test func thePredicateDecidesEntryAndExit() throws {
        try withNotes { context, notes in
            let (controller, recorder) = try FetchedNotes.controller(in: context, predicate: NSPredicate(format: "shown == YES"))
            // Leaving: it stops matching.
            try #require(notes["b2"]).setValue(false, forKey: "shown")
            context.processPendingChanges()
            #expect(recorder.take() == [.willChange, .object("b2", path(1, 1), .delete, nil), .didChange])
            // A new object that does not match is not reported.
            FetchedNotes.note("hidden", topic: notes["a"], rank: 0, serial: 30, shown: false, in: context)
            context.processPendingChanges()
            #expect(recorder.take().isEmpty)
            // Entering: it starts matching again.
            try #require(notes["b2"]).setValue(true, forKey: "shown")
            context.processPendingChanges()
            #expect(recorder.take() == [.willChange, .object("b2", nil, .insert, path(1, 1)), .didChange])
            #expect(FetchedNotes.titles(controller) == [["a1", "a2"], ["b1", "b2", "b3"], ["c1"]])
        }
    }

    @Test func changesOfOneEventAreOneBatchInTableViewOrder() throws {
        try withNotes { context, notes in
            let (controller, recorder) = try FetchedNotes.controller(in: context)
            let mirror = TableMirror(controller)
            controller.delegate = mirror
            context.delete(try #require(notes["a1"]))
            context.delete(try #require(notes["a2"]))
            try #require(notes["b3"]).setValue(Int64(0), forKey: "rank")
            try #require(notes["b1"]).setValue("x", forKey: "body")
            FetchedNotes.note("c0", topic: notes["c"], rank: 0, serial: 40, in: context)
            let e = FetchedNotes.topic("e", in: context)
            FetchedNotes.note("e1", topic: e, rank: 1, serial: 41, in: context)
            context.processPendingChanges()
            #expect(mirror.batches == 1)
            #expect(mirror.problems == [])
            #expect(mirror.sections == TableMirror.sections(of: controller))
            #expect(FetchedNotes.titles(controller) == [["b3", "b1", "b2"], ["c0", "c1"], ["e1"]])
            #expect(recorder.calls.isEmpty)
        }
    }

    @Test func sectionChangesComeBeforeObjectChanges() throws {
        try withNotes { context, notes in
            let (controller, recorder) = try FetchedNotes.controller(in: context)
            context.delete(try #require(notes["c1"]))
            FetchedNotes.note("a3", topic: notes["a"], rank: 3, serial: 50, in: context)
            FetchedNotes.note("z1", topic: FetchedNotes.topic("z", in: context), rank: 1, serial: 51, in: context)
            context.processPendingChanges()
            let calls = recorder.take()
            let firstObject = try #require(calls.firstIndex { if case .object = $0 { true } else { false } })
            let lastSection = try #require(calls.lastIndex { if case .section = $0 { true } else { false } })
            #expect(lastSection < firstObject)
            #expect(calls.contains(.section("c", 2, .delete)))
            #expect(calls.contains(.section("z", 2, .insert)))
            #expect(controller.sections?.map(\.name) == ["a", "b", "z"])
        }
    }

    @Test func anUnsavedInsertDeletedLaterIsReportedDeleted() throws {
        try withNotes { context, notes in
            let (controller, recorder) = try FetchedNotes.controller(in: context)
            let draft = FetchedNotes.note("draft", topic: notes["c"], rank: 5, serial: 60, in: context)
            context.processPendingChanges()
            #expect(recorder.take() == [.willChange, .object("draft", nil, .insert, path(1, 2)), .didChange])
            context.delete(draft)
            context.processPendingChanges()
            #expect(recorder.take() == [.willChange, .object("draft", path(1, 2), .delete, nil), .didChange])
            #expect(controller.sections?.last?.numberOfObjects == 1)
            // Inserted and deleted in one event: never reported.
            context.delete(FetchedNotes.note("gone", topic: notes["c"], rank: 6, serial: 61, in: context))
            context.processPendingChanges()
            #expect(recorder.take().isEmpty)
        }
    }

    @Test func anUnsavedInsertChangedLaterMovesAndUpdates() throws {
        try withNotes { context, notes in
            let (controller, recorder) = try FetchedNotes.controller(in: context)
            let draft = FetchedNotes.note("draft", topic: notes["a"], rank: 0, serial: 62, in: context)
            context.processPendingChanges()
            #expect(recorder.take() == [.willChange, .object("draft", nil, .insert, path(0, 0)), .didChange])
            draft.setValue(Int64(9), forKey: "rank")
            context.processPendingChanges()
            #expect(recorder.take() == [.willChange, .object("draft", path(0, 0), .move, path(2, 0)), .didChange])
            draft.setValue("edited", forKey: "body")
            try context.save()
            #expect(recorder.take() == [.willChange, .object("draft", path(2, 0), .update, path(2, 0)), .didChange])
            #expect(FetchedNotes.titles(controller)[0] == ["a1", "a2", "draft"])
        }
    }

    @Test func savingNewObjectsKeepsTheirPlaces() throws {
        try withNotes { context, notes in
            let (controller, recorder) = try FetchedNotes.controller(in: context)
            // Equal in every sort key: ordered as the store orders rows (saved ones first).
            let request = FetchedNotes.request()
            request.sortDescriptors = [NSSortDescriptor(key: "rank", ascending: true)]
            let byRank = NSFetchedResultsController(
                fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
            let rankRecorder = DelegateRecorder()
            byRank.delegate = rankRecorder
            try byRank.performFetch()
            let first = FetchedNotes.note("n1", topic: notes["b"], rank: 1, serial: 70, in: context)
            let second = FetchedNotes.note("n2", topic: notes["b"], rank: 1, serial: 71, in: context)
            context.processPendingChanges()
            let before = byRank.fetchedObjects ?? []
            try context.save()
            #expect(first.objectID.isTemporaryID == false)
            #expect(byRank.fetchedObjects?.map(ObjectIdentifier.init) == before.map(ObjectIdentifier.init))
            let refetched = try context.fetch(request)
            #expect(refetched.map(ObjectIdentifier.init) == before.map(ObjectIdentifier.init))
            #expect(byRank.indexPath(forObject: second) == path(4, 0))
            #expect(recorder.take().count == 4)
            #expect(rankRecorder.take().filter { if case .object(_, _, .move, _) = $0 { true } else { false } }.isEmpty)
            #expect(controller.fetchedObjects?.count == 8)
        }
    }

    @Test func withoutADelegateNothingIsFollowed() throws {
        try withNotes { context, notes in
            let (controller, _) = try FetchedNotes.controller(in: context)
            controller.delegate = nil
            context.delete(try #require(notes["a1"]))
            context.processPendingChanges()
            #expect(controller.fetchedObjects?.count == 6)
            try controller.performFetch()
            #expect(controller.fetchedObjects?.count == 5)
        }
    }

    @Test func resetReloadsTheResults() throws {
        try withNotes { context, _ in
            let (controller, _) = try FetchedNotes.controller(in: context)
            let mirror = TableMirror(controller)
            controller.delegate = mirror
            let before = FetchedNotes.titles(controller)
            context.reset()
            #expect(mirror.batches == 1)
            #expect(mirror.problems == [])
            #expect(mirror.sections == TableMirror.sections(of: controller))
            #expect(FetchedNotes.titles(controller) == before)
            #expect(controller.fetchedObjects?.allSatisfy { $0.managedObjectContext === context } == true)
        }
    }

    @Test func aDelegateThatSavesDuringTheReportGetsTheNextBatchAfterwards() throws {
        final class Saving: NSFetchedResultsControllerDelegate {
            let context: NSManagedObjectContext
            var batches = 0
            var nested = false
            var inside = false
            init(_ context: NSManagedObjectContext) { self.context = context }
            func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
                if inside { nested = true }
                inside = true
            }
            func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
                batches += 1
                if batches == 1, let note = controller.fetchedObjects?.first as? NSManagedObject {
                    note.setValue("saved in didChange", forKey: "body")
                    try? context.save()
                }
                inside = false
            }
        }
        try withNotes { context, notes in
            let (controller, _) = try FetchedNotes.controller(in: context)
            let saving = Saving(context)
            controller.delegate = saving
            try #require(notes["b2"]).setValue("x", forKey: "body")
            context.processPendingChanges()
            #expect(saving.batches == 2)
            #expect(!saving.nested)
        }
    }

    @Test func theDifferenceReplacesTheOtherMethodsWithoutSections() throws {
        final class Differences: NSFetchedResultsControllerDelegate {
            var differences: [CollectionDifference<NSManagedObjectID>] = []
            var otherCalls = 0
            func controller(
                _ controller: NSFetchedResultsController<NSFetchRequestResult>,
                didChangeContentWith diff: CollectionDifference<NSManagedObjectID>
            ) { differences.append(diff) }
            func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
                otherCalls += 1
            }
        }
        try withNotes { context, notes in
            let (controller, _) = try FetchedNotes.controller(in: context, sections: false)
            let delegate = Differences()
            controller.delegate = delegate
            var ids = controller.fetchedObjects?.map(\.objectID) ?? []
            context.delete(try #require(notes["a2"]))
            try #require(notes["c1"]).setValue(Int64(0), forKey: "rank")
            try #require(notes["c1"]).setValue(notes["a"], forKey: "topic")
            FetchedNotes.note("b4", topic: notes["b"], rank: 4, serial: 80, in: context)
            context.processPendingChanges()
            #expect(delegate.otherCalls == 0)
            let difference = try #require(delegate.differences.first)
            ids = try #require(ids.applying(difference))
            #expect(ids == controller.fetchedObjects?.map(\.objectID))
            #expect(difference.insertions.count == 2)
            #expect(difference.removals.count == 2)
            #expect(difference.inferringMoves().contains { if case .insert(_, _, let moved?) = $0 { moved == 5 } else { false } })
            // With sections, the difference is not offered.
            let (sectioned, recorder) = try FetchedNotes.controller(in: context)
            sectioned.delegate = delegate
            context.delete(try #require(notes["b1"]))
            context.processPendingChanges()
            #expect(delegate.otherCalls == 1)
            #expect(recorder.calls.isEmpty)
        }
    }
}
