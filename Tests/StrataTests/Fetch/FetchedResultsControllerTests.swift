import Foundation
import Testing

@testable import Strata

/// What a fetched results controller offers after `performFetch()`: the objects, their
/// sections and index paths, the section index, and the errors Apple's controller reports.
@Suite struct FetchedResultsControllerTests {
    let store: ScratchStore

    init() throws { store = try ScratchStore(model: FetchedNotes.model()) }

    /// Runs a test's body in a new context of the store, with the seeded notes.
    private func withNotes(_ body: (NSManagedObjectContext, [String: NSManagedObject]) throws -> Void) throws {
        defer { store.remove() }
        let context = store.newContext()
        try context.performAndWait { try body(context, try FetchedNotes.seed(context)) }
    }

    @Test func sectionsFollowTheKeyPathThroughAToOne() throws {
        try withNotes { context, _ in
            let (controller, _) = try FetchedNotes.controller(in: context)
            #expect(FetchedNotes.titles(controller) == [["a1", "a2"], ["b1", "b2", "b3"], ["c1"]])
            let sections = try #require(controller.sections)
            #expect(sections.map(\.name) == ["a", "b", "c"])
            #expect(sections.map(\.numberOfObjects) == [2, 3, 1])
            #expect(sections.map(\.indexTitle) == ["A", "B", "C"])
            #expect(
                controller.fetchedObjects?.compactMap { $0.value(forKey: "title") as? String } == [
                    "a1", "a2", "b1", "b2", "b3", "c1",
                ])
        }
    }

    @Test func objectsAndIndexPathsAnswerEachOther() throws {
        try withNotes { context, notes in
            let (controller, _) = try FetchedNotes.controller(in: context)
            let b3 = try #require(notes["b3"])
            #expect(controller.indexPath(forObject: b3) == IndexPath(row: 2, section: 1))
            #expect(controller.object(at: IndexPath(row: 2, section: 1)) === b3)
            #expect(controller.object(at: IndexPath(row: 0, section: 2)) === notes["c1"])
            for (sectionIndex, section) in (controller.sections ?? []).enumerated() {
                for row in 0..<section.numberOfObjects {
                    let path = IndexPath(row: row, section: sectionIndex)
                    #expect(controller.indexPath(forObject: controller.object(at: path)) == path)
                }
            }
            // Not one of the results: a topic, and a note the predicate leaves out.
            #expect(controller.indexPath(forObject: try #require(notes["a"])) == nil)
            let (filtered, _) = try FetchedNotes.controller(in: context, predicate: NSPredicate(format: "rank == 1"))
            #expect(filtered.indexPath(forObject: b3) == nil)
            #expect(FetchedNotes.titles(filtered) == [["a1"], ["b1"], ["c1"]])
        }
    }

    @Test func withoutAKeyPathThereIsOneSectionEvenWhenEmpty() throws {
        try withNotes { context, notes in
            let (controller, _) = try FetchedNotes.controller(in: context, sections: false)
            #expect(controller.sections?.count == 1)
            #expect(controller.sections?.first?.name == "")
            #expect(controller.sections?.first?.numberOfObjects == 6)
            #expect(controller.object(at: IndexPath(row: 4, section: 0)) === notes["b3"])
            let (empty, _) = try FetchedNotes.controller(
                in: context, predicate: NSPredicate(format: "rank > 100"), sections: false)
            #expect(empty.sections?.count == 1)
            #expect(empty.sections?.first?.numberOfObjects == 0)
            #expect(empty.fetchedObjects?.isEmpty == true)
            let (emptySectioned, _) = try FetchedNotes.controller(in: context, predicate: NSPredicate(format: "rank > 100"))
            #expect(emptySectioned.sections?.count == 0)
        }
    }

    @Test func nothingBeforePerformFetch() throws {
        defer { store.remove() }
        let context = store.newContext()
        let controller = NSFetchedResultsController(
            fetchRequest: FetchedNotes.request(), managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
        #expect(controller.fetchedObjects == nil)
        #expect(controller.sections == nil)
        #expect(controller.managedObjectContext === context)
        #expect(controller.sectionNameKeyPath == nil)
    }

    @Test func aRequestWithoutSortDescriptorsIsRefused() throws {
        try withNotes { context, _ in
            let request = NSFetchRequest<NSManagedObject>(entityName: "Note")
            let controller = NSFetchedResultsController(
                fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
            let error = try #require(throws: NSError.self) { try controller.performFetch() }
            #expect(error.domain == NSCocoaErrorDomain)
            #expect(error.code == NSCoreDataError)
            #expect(error.localizedDescription.contains("requires a fetch request with sort descriptors"))
            #expect(controller.fetchedObjects == nil)
        }
    }

    /// Only `nil` is refused: an empty list of sort descriptors is accepted, and the objects
    /// come in the store's order; one inserted later goes after them.
    @Test func anEmptyListOfSortDescriptorsGivesTheStoresOrder() throws {
        try withNotes { context, notes in
            let request = NSFetchRequest<NSManagedObject>(entityName: "Note")
            request.sortDescriptors = []
            let controller = NSFetchedResultsController(
                fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
            let recorder = DelegateRecorder()
            controller.delegate = recorder
            try controller.performFetch()
            let titles = { controller.fetchedObjects?.compactMap { $0.value(forKey: "title") as? String } }
            #expect(titles() == ["a1", "a2", "b1", "b2", "b3", "c1"])
            #expect(controller.object(at: IndexPath(row: 2, section: 0)) === notes["b1"])
            FetchedNotes.note("z0", topic: notes["a"], rank: 0, serial: 99, in: context)
            try context.save()
            #expect(titles() == ["a1", "a2", "b1", "b2", "b3", "c1", "z0"])
        }
    }

    @Test func objectsNotGroupedBySectionAreRefused() throws {
        try withNotes { context, _ in
            // Sorted by rank first, the topics come back out of order: a1 b1 c1 a2 …
            let request = NSFetchRequest<NSManagedObject>(entityName: "Note")
            request.sortDescriptors = [NSSortDescriptor(key: "rank", ascending: true)]
            let controller = NSFetchedResultsController(
                fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "topic.name", cacheName: nil)
            let error = try #require(throws: NSError.self) { try controller.performFetch() }
            #expect(error.code == NSCoreDataError)
            #expect(error.localizedDescription.contains("has an out of order section name 'a'"))
            #expect(error.localizedDescription.contains("index 3"))
        }
    }

    @Test func otherResultTypesAreRefused() throws {
        try withNotes { context, _ in
            let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Note")
            request.sortDescriptors = [NSSortDescriptor(key: "rank", ascending: true)]
            request.resultType = .dictionaryResultType
            let controller = NSFetchedResultsController(
                fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
            #expect(throws: NSError.self) { try controller.performFetch() }
        }
    }

    @Test func sectionIndexTitlesAreEachSectionsCapitalInitialOnce() throws {
        try withNotes { context, notes in
            let topic = FetchedNotes.topic("apples", in: context)
            FetchedNotes.note("x", topic: topic, rank: 1, serial: 10, in: context)
            let nameless = FetchedNotes.note("y", topic: nil, rank: 1, serial: 11, in: context)
            try context.save()
            let (controller, _) = try FetchedNotes.controller(in: context)
            // nil sorts first: its section is named "" and has no index title.
            #expect(controller.sections?.map(\.name) == ["", "a", "apples", "b", "c"])
            #expect(controller.sections?.map(\.indexTitle) == [nil, "A", "A", "B", "C"])
            #expect(controller.sectionIndexTitles == ["A", "B", "C"])
            #expect(controller.section(forSectionIndexTitle: "A", at: 0) == 1)
            #expect(controller.section(forSectionIndexTitle: "C", at: 2) == 4)
            #expect(controller.sectionIndexTitle(forSectionName: "échelle") == "É")
            #expect(controller.sectionIndexTitle(forSectionName: "") == nil)
            #expect(controller.indexPath(forObject: nameless) == IndexPath(row: 0, section: 0))
            #expect(notes.count == 9)
        }
    }

    @Test func theDelegateChoosesIndexTitlesAndASubclassItsDefault() throws {
        final class Titles: NSFetchedResultsControllerDelegate {
            func controller(
                _ controller: NSFetchedResultsController<NSFetchRequestResult>,
                sectionIndexTitleForSectionName sectionName: String
            ) -> String? { sectionName == "b" ? "Bee" : nil }
        }
        final class Lowercase: NSFetchedResultsController<NSManagedObject> {
            override func sectionIndexTitle(forSectionName sectionName: String) -> String? { "~" + sectionName }
        }
        try withNotes { context, _ in
            let titles = Titles()
            let controller = Lowercase(
                fetchRequest: FetchedNotes.request(), managedObjectContext: context, sectionNameKeyPath: "topic.name",
                cacheName: nil)
            try controller.performFetch()
            #expect(controller.sections?.map(\.indexTitle) == ["~a", "~b", "~c"])
            controller.delegate = titles
            #expect(controller.sections?.map(\.indexTitle) == ["~a", "Bee", "~c"])
            #expect(controller.sectionIndexTitles == ["~a", "Bee", "~c"])
        }
    }

    @Test func typedControllersGiveTheirDelegateAnEqualUntypedView() throws {
        try withNotes { context, notes in
            let (controller, recorder) = try FetchedNotes.controller(in: context)
            try #require(notes["a1"]).setValue("a1*", forKey: "title")
            context.processPendingChanges()
            let view = try #require(recorder.controllers.first)
            #expect(view == controller)
            #expect(controller == view)
            #expect(view.fetchRequest.entityName == "Note")
            #expect(view.fetchedObjects?.count == 6)
            #expect(view.object(at: IndexPath(row: 0, section: 0)) === notes["a1"])
            #expect(view.sectionNameKeyPath == "topic.name")
            #expect(view.delegate === recorder)
            let other = NSFetchedResultsController(
                fetchRequest: FetchedNotes.request(), managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
            #expect(view != other)
        }
    }

    @Test func anUntypedControllerIsItsOwnDelegatesController() throws {
        try withNotes { context, notes in
            let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Note")
            request.sortDescriptors = [NSSortDescriptor(key: "serial", ascending: true)]
            let controller = NSFetchedResultsController(
                fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: "notes")
            let recorder = DelegateRecorder()
            controller.delegate = recorder
            try controller.performFetch()
            try #require(notes["c1"]).setValue(Int64(-1), forKey: "serial")
            context.processPendingChanges()
            #expect(recorder.controllers.first === controller)
            #expect(recorder.calls.contains(.object("c1", IndexPath(row: 5, section: 0), .move, IndexPath(row: 0, section: 0))))
            #expect(controller.object(at: IndexPath(row: 0, section: 0)) === notes["c1"])
        }
    }

    @Test func cachesAreNamedAndDeleted() throws {
        try withNotes { context, _ in
            let controller = NSFetchedResultsController(
                fetchRequest: FetchedNotes.request(), managedObjectContext: context, sectionNameKeyPath: "topic.name",
                cacheName: "cached-notes")
            try controller.performFetch()
            #expect(controller.cacheName == "cached-notes")
            #expect(FetchedResultsCaches.contains("cached-notes"))
            NSFetchedResultsController<NSFetchRequestResult>.deleteCache(withName: "cached-notes")
            #expect(!FetchedResultsCaches.contains("cached-notes"))
            try controller.performFetch()
            #expect(controller.sections?.count == 3)
        }
    }

    @Test func aNewPredicateTakesEffectAtTheNextFetch() throws {
        try withNotes { context, notes in
            let (controller, recorder) = try FetchedNotes.controller(in: context)
            controller.fetchRequest.predicate = NSPredicate(format: "rank >= 2")
            #expect(controller.fetchedObjects?.count == 6)
            try controller.performFetch()
            #expect(FetchedNotes.titles(controller) == [["a2"], ["b2", "b3"]])
            // Changes follow the new predicate.
            try #require(notes["b1"]).setValue(Int64(5), forKey: "rank")
            context.processPendingChanges()
            #expect(recorder.take() == [.willChange, .object("b1", nil, .insert, IndexPath(row: 2, section: 1)), .didChange])
        }
    }

    @Test func aControllerNobodyHoldsGoesAwayAndStopsFollowing() throws {
        try withNotes { context, notes in
            let recorder = DelegateRecorder()
            weak var gone: NSFetchedResultsController<NSManagedObject>?
            weak var results: FetchedResults?
            do {
                let controller = NSFetchedResultsController(
                    fetchRequest: FetchedNotes.request(), managedObjectContext: context, sectionNameKeyPath: "topic.name",
                    cacheName: nil)
                controller.delegate = recorder
                try controller.performFetch()
                gone = controller
                results = controller.results
            }
            #expect(gone == nil)
            #expect(results == nil)
            try #require(notes["a1"]).setValue(Int64(9), forKey: "rank")
            context.processPendingChanges()
            #expect(recorder.calls.isEmpty)
        }
    }

    @Test func changeTypesHaveApplesRawValues() {
        #expect(NSFetchedResultsChangeType.insert.rawValue == 1)
        #expect(NSFetchedResultsChangeType.delete.rawValue == 2)
        #expect(NSFetchedResultsChangeType.move.rawValue == 3)
        #expect(NSFetchedResultsChangeType.update.rawValue == 4)
    }

    @Test func sectionObjectsAreLiveAndEmptyOnceTheSectionIsGone() throws {
        try withNotes { context, notes in
            // The recorder is the delegate: without one, the controller would not follow changes.
            let (controller, recorder) = try FetchedNotes.controller(in: context)
            let c = try #require(controller.sections?.last)
            #expect(c.numberOfObjects == 1)
            context.delete(try #require(notes["c1"]))
            context.processPendingChanges()
            #expect(c.objects?.isEmpty == true)
            #expect(controller.sections?.count == 2)
            let b = try #require(controller.sections?.last)
            FetchedNotes.note("b4", topic: notes["b"], rank: 4, serial: 20, in: context)
            context.processPendingChanges()
            #expect(b.numberOfObjects == 4)
            #expect(b.objects?.count == 4)
            #expect(recorder.calls.filter { $0 == .didChange }.count == 2)
        }
    }
}
