import Foundation
import Testing

@testable import Strata

/// Undo and redo of a context's changes (issue 21): attribute values, relationships seen from
/// both sides, one group per event, and no recording without an undo manager.
@Suite struct ContextUndoTests {
    typealias Stack = ObjectGraphTests.Stack

    /// Runs `body` in a private-queue context of an in-memory store of the library model, with an
    /// undo manager.
    private func withUndo(_ body: (NSManagedObjectContext, UndoManager) throws -> Void) throws {
        let context = try Stack(ObjectGraphTests.libraryModel(), type: NSInMemoryStoreType, at: nil).newContext()
        let manager = UndoManager()
        context.undoManager = manager
        try context.performAndWait { try body(context, manager) }
    }

    // MARK: Attributes

    @Test func attributeChangesUndoAndRedoOneEventAtATime() throws {
        try withUndo { context, manager in
            let novel = Novel(context: context)
            novel.title = "Dune"
            novel.year = 1965
            try context.save()
            manager.removeAllActions()

            novel.title = "Dune Messiah"
            novel.year = 1969
            context.processPendingChanges()
            novel.setValue("Children of Dune", forKey: "title")
            novel.rating = 4.5
            context.processPendingChanges()

            context.undo()
            #expect(novel.title == "Dune Messiah")
            #expect(novel.year == 1969)
            #expect(novel.rating == 0)
            context.undo()
            #expect(novel.title == "Dune")
            #expect(novel.year == 1965)
            #expect(!manager.canUndo)

            context.redo()
            #expect(novel.title == "Dune Messiah")
            #expect(novel.year == 1969)
            context.redo()
            #expect(novel.title == "Children of Dune")
            #expect(novel.rating == 4.5)
            #expect(!manager.canRedo)
        }
    }

    @Test func theValueBeforeTheFirstChangeOfAnEventIsTheOneRestored() throws {
        try withUndo { context, _ in
            let novel = Novel(context: context)
            novel.title = "A"
            context.processPendingChanges()
            novel.title = "B"
            novel.title = "C"
            novel.setPrimitiveValue("D", forKey: "title")
            context.undo()
            #expect(novel.title == "A")
            context.redo()
            #expect(novel.title == "D")
        }
    }

    @Test func transientAttributesAreUndoneToo() throws {
        try withUndo { context, _ in
            let novel = Novel(context: context)
            context.processPendingChanges()
            novel.draft = "notes"
            context.undo()
            #expect(novel.draft == nil)
        }
    }

    // MARK: Relationships, seen from both sides

    @Test func undoingAToOneChangeMovesTheObjectBackBetweenTheInverseToManys() throws {
        try withUndo { context, _ in
            let herbert = Author(context: context)
            let dick = Author(context: context)
            let novel = Novel(context: context)
            novel.author = herbert
            context.processPendingChanges()

            novel.author = dick
            context.processPendingChanges()
            #expect(herbert.novels.isEmpty)

            context.undo()
            #expect(novel.author === herbert)
            #expect(herbert.novels == [novel])
            #expect(dick.novels.isEmpty)

            context.redo()
            #expect(novel.author === dick)
            #expect(herbert.novels.isEmpty)
            #expect(dick.novels == [novel])
        }
    }

    @Test func undoingAnAdditionToAToManyClearsTheInverseToOne() throws {
        try withUndo { context, _ in
            let herbert = Author(context: context)
            let dune = Novel(context: context)
            let messiah = Novel(context: context)
            context.processPendingChanges()

            herbert.mutableSetValue(forKey: "novels").add(dune)
            herbert.novels.insert(messiah)
            #expect(messiah.author === herbert)
            context.undo()
            #expect(herbert.novels.isEmpty)
            #expect(dune.author == nil)
            #expect(messiah.author == nil)

            context.redo()
            #expect(herbert.novels == [dune, messiah])
            #expect(dune.author === herbert)
            #expect(messiah.author === herbert)
        }
    }

    @Test func undoingAOneToOneChangeRestoresAllFourSides() throws {
        try withUndo { context, _ in
            let ann = Employee(context: context)
            let bob = Employee(context: context)
            let first = Desk(context: context)
            let second = Desk(context: context)
            ann.desk = first
            bob.desk = second
            context.processPendingChanges()

            ann.desk = second
            #expect(bob.desk == nil)
            #expect(first.occupant == nil)
            context.undo()
            #expect(ann.desk === first)
            #expect(first.occupant === ann)
            #expect(bob.desk === second)
            #expect(second.occupant === bob)
        }
    }

    @Test func undoingManyToManyChangesRestoresBothSides() throws {
        try withUndo { context, _ in
            let dune = Novel(context: context)
            let ubik = Novel(context: context)
            let sf = Genre(context: context)
            let classic = Genre(context: context)
            dune.genres = [sf]
            context.processPendingChanges()

            dune.mutableSetValue(forKey: "genres").add(classic)
            sf.mutableSetValue(forKey: "novels").add(ubik)
            sf.mutableSetValue(forKey: "novels").remove(dune)
            context.processPendingChanges()
            #expect(dune.genres == [classic])
            #expect(sf.novels == [ubik])

            context.undo()
            #expect(dune.genres == [sf])
            #expect(ubik.genres.isEmpty)
            #expect(sf.novels == [dune])
            #expect(classic.novels.isEmpty)

            context.redo()
            #expect(dune.genres == [classic])
            #expect(ubik.genres == [sf])
            #expect(sf.novels == [ubik])
            #expect(classic.novels == [dune])
        }
    }

    @Test func undoingAReorderOfAnOrderedToManyRestoresTheOrder() throws {
        try withUndo { context, _ in
            let novel = Novel(context: context)
            let chapters = (1...3).map { number -> Chapter in
                let chapter = Chapter(context: context)
                chapter.number = Int32(number)
                return chapter
            }
            novel.chapters = chapters
            context.processPendingChanges()

            let ordered = novel.mutableOrderedSetValue(forKey: "chapters")
            ordered.removeObject(at: 0)
            ordered.add(chapters[0])
            let extra = Chapter(context: context)
            ordered.insert(extra, at: 0)
            #expect(novel.chapters.map(\.number) == [0, 2, 3, 1])

            context.undo()
            #expect(novel.chapters.map(\.number) == [1, 2, 3])
            #expect(extra.managedObjectContext == nil)
            #expect(!context.registeredObjects.contains(extra))
            context.redo()
            #expect(novel.chapters.map(\.number) == [0, 2, 3, 1])
            #expect(extra.novel === novel)
        }
    }

    // MARK: Events and groups

    @Test func eachEventIsOneUndoGroup() throws {
        try withUndo { context, manager in
            let novel = Novel(context: context)
            let author = Author(context: context)
            context.processPendingChanges()
            #expect(manager.groupingLevel == 0)

            novel.title = "Dune"
            author.name = "Herbert"
            novel.author = author
            // The event's group is open from its first change on, as Apple's run-loop group is.
            #expect(manager.groupingLevel == 1)
            manager.setActionName("Edit")
            context.processPendingChanges()
            #expect(manager.groupingLevel == 0)
            novel.year = 1965
            context.processPendingChanges()

            context.undo()
            #expect(novel.year == 0)
            #expect(novel.title == "Dune")
            #expect(manager.undoActionName == "Edit")
            context.undo()
            #expect(novel.title == nil)
            #expect(author.name == nil)
            #expect(novel.author == nil)
            #expect(author.novels.isEmpty)
        }
    }

    @Test func aPerformBlockIsOneEvent() async throws {
        let context = try Stack(ObjectGraphTests.libraryModel(), type: NSInMemoryStoreType, at: nil).newContext()
        let manager = UndoManager()
        context.undoManager = manager
        let id = try await context.perform {
            let novel = Novel(context: context)
            try context.save()
            return novel.objectID
        }
        await context.perform {
            let novel = context.object(with: id) as? Novel
            novel?.title = "A"
            novel?.year = 1
        }
        await context.perform {
            (context.object(with: id) as? Novel)?.title = "B"
        }
        let afterOneUndo = await context.perform { () -> (String?, Int16, Int) in
            context.undo()
            let novel = context.object(with: id) as? Novel
            return (novel?.title, novel?.year ?? -1, manager.groupingLevel)
        }
        #expect(afterOneUndo.0 == "A")
        #expect(afterOneUndo.1 == 1)
        #expect(afterOneUndo.2 == 0)
    }

    @Test func callingTheUndoManagerDirectlyUndoesThePendingEvent() throws {
        try withUndo { context, manager in
            let novel = Novel(context: context)
            novel.title = "A"
            context.processPendingChanges()
            novel.title = "B"
            manager.undo()
            #expect(novel.title == "A")
            manager.redo()
            #expect(novel.title == "B")
        }
    }

    @Test func anExplicitGroupHoldsSeveralEvents() throws {
        try withUndo { context, manager in
            let novel = Novel(context: context)
            context.processPendingChanges()
            manager.beginUndoGrouping()
            novel.title = "A"
            context.processPendingChanges()
            novel.title = "B"
            novel.year = 2
            context.processPendingChanges()
            manager.endUndoGrouping()
            manager.setActionName("Edit")
            #expect(manager.undoMenuItemTitle == "Undo Edit")

            context.undo()
            #expect(novel.title == nil)
            #expect(novel.year == 0)
            #expect(manager.redoMenuItemTitle == "Redo Edit")
        }
    }

    @Test func changesMadeWhileRegistrationIsDisabledAreNotRecorded() throws {
        try withUndo { context, manager in
            let novel = Novel(context: context)
            novel.title = "A"
            context.processPendingChanges()
            manager.disableUndoRegistration()
            novel.title = "imported"
            context.processPendingChanges()
            manager.enableUndoRegistration()
            novel.year = 3
            context.processPendingChanges()

            context.undo()
            #expect(novel.year == 0)
            #expect(novel.title == "imported")
            context.undo()
            #expect(novel.managedObjectContext == nil)
        }
    }

    // MARK: Without an undo manager

    @Test func withoutAnUndoManagerNothingIsRecorded() throws {
        let context = try Stack(ObjectGraphTests.libraryModel(), type: NSInMemoryStoreType, at: nil).newContext()
        try context.performAndWait {
            #expect(context.undoManager == nil)
            let novel = Novel(context: context)
            let author = Author(context: context)
            try context.save()
            novel.title = "A"
            novel.author = author
            #expect(!novel.recordsUndo)
            #expect(context.undoRecorder == nil)
            context.undo()
            #expect(novel.title == "A")

            let manager = UndoManager()
            context.undoManager = manager
            #expect(novel.recordsUndo)
            #expect(!manager.canUndo)
            context.processPendingChanges()
            #expect(!manager.canUndo)
            novel.title = "B"
            context.processPendingChanges()
            #expect(manager.canUndo)

            context.undoManager = nil
            #expect(!novel.recordsUndo)
            #expect(!author.recordsUndo)
            // The context's operations leave the manager it no longer has.
            #expect(!manager.canUndo)
            novel.title = "C"
            context.processPendingChanges()
            manager.undo()
            #expect(novel.title == "C")
        }
    }

    @Test func objectsFetchedOrFaultedWhileRecordingRecordButFaultingRegistersNothing() throws {
        let scratch = ObjectGraphTests.ScratchDirectory()
        let stack = try Stack(ObjectGraphTests.libraryModel(), at: scratch.file("undo.sqlite"))
        let writer = stack.newContext()
        try writer.performAndWait {
            let novel = Novel(context: writer)
            novel.title = "Dune"
            try writer.save()
        }
        let context = stack.newContext()
        let manager = UndoManager()
        context.undoManager = manager
        try context.performAndWait {
            let request = NSFetchRequest<Novel>(entityName: "Novel")
            request.returnsObjectsAsFaults = true
            let novel = try #require(try context.fetch(request).first)
            #expect(novel.recordsUndo)
            #expect(novel.title == "Dune")
            context.refresh(novel, mergeChanges: false)
            #expect(novel.title == "Dune")
            context.processPendingChanges()
            #expect(!manager.canUndo)
        }
        try stack.close()
    }
}
