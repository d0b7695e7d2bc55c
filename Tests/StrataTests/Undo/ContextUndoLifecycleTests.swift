import Foundation
import Testing

@testable import Strata

/// Undo and redo of insertions and deletions (with what delete rules did), undo after a save,
/// and what clears the stacks or is never recorded: rollback, reset, merges (issue 21).
@Suite struct ContextUndoLifecycleTests {
    typealias Stack = ObjectGraphTests.Stack

    private let scratch = ObjectGraphTests.ScratchDirectory()
    private let model = ObjectGraphTests.libraryModel()
    private var url: URL { scratch.file("undo.sqlite") }

    /// A context of a SQLite store with an undo manager.
    private func undoContext() throws -> (Stack, NSManagedObjectContext, UndoManager) {
        let stack = try Stack(model, at: url)
        let context = stack.newContext()
        let manager = UndoManager()
        context.undoManager = manager
        return (stack, context, manager)
    }

    /// Reads the store through a coordinator of its own.
    private func inStore<Result>(_ body: (NSManagedObjectContext) throws -> Result) throws -> Result {
        let stack = try Stack(model, at: url)
        defer { try? stack.close() }
        let context = stack.newContext()
        return try context.performAndWait { try body(context) }
    }

    private func titles(in context: NSManagedObjectContext) throws -> [String] {
        try ObjectGraphTests.fetchAll(Novel.self, "Novel", in: context).compactMap(\.title).sorted()
    }

    // MARK: Insertions

    @Test func undoingAnInsertTakesTheObjectOutAsIfNeverInserted() throws {
        let (stack, context, manager) = try undoContext()
        defer { try? stack.close() }
        try context.performAndWait {
            let herbert = Author(context: context)
            try context.save()

            let dune = Novel(context: context)
            dune.title = "Dune"
            dune.author = herbert
            context.processPendingChanges()
            #expect(herbert.novels == [dune])

            let recorder = ObjectGraphTests.NotificationRecorder(context)
            context.undo()
            recorder.stop()
            #expect(dune.managedObjectContext == nil)
            #expect(!context.insertedObjects.contains(dune))
            #expect(!context.registeredObjects.contains(dune))
            #expect(context.registeredObject(for: dune.objectID) == nil)
            #expect(herbert.novels.isEmpty)
            #expect(context.updatedObjects == [herbert])
            let change = try #require(recorder.recorded(.NSManagedObjectContextObjectsDidChange).last)
            #expect(change.deleted == [dune])
            #expect(change.updated == [herbert])
            #expect(manager.canRedo)

            try context.save()
        }
        #expect(try inStore(titles) == [])
    }

    /// Issue 32: the inserted object's own side of a relationship set in the same event goes
    /// back too (it pointed at the author after the undo, while the author's side was empty).
    @Test func undoingAnInsertClearsTheInsertedObjectsSideOfItsRelationships() throws {
        let (stack, context, _) = try undoContext()
        defer { try? stack.close() }
        try context.performAndWait {
            let herbert = Author(context: context)
            let sf = Genre(context: context)
            try context.save()

            let dune = Novel(context: context)
            dune.author = herbert
            dune.genres = [sf]
            context.processPendingChanges()
            context.undo()
            #expect(dune.managedObjectContext == nil)
            #expect(dune.author == nil)
            #expect(dune.genres.isEmpty)
            #expect(herbert.novels.isEmpty)
            #expect(sf.novels.isEmpty)

            context.redo()
            #expect(dune.managedObjectContext === context)
            #expect(dune.author === herbert)
            #expect(herbert.novels == [dune])
            #expect(dune.genres == [sf])
            #expect(sf.novels == [dune])
            try context.save()
        }
        let saved = try inStore { context in
            try ObjectGraphTests.fetchAll(Novel.self, "Novel", in: context).map { ($0.author != nil, $0.genres.count) }
        }
        #expect(saved.count == 1)
        #expect(saved.first?.0 == true && saved.first?.1 == 1)
    }

    @Test func redoingAnInsertBringsTheObjectBackWithItsValuesAndRelationships() throws {
        let (stack, context, _) = try undoContext()
        defer { try? stack.close() }
        try context.performAndWait {
            let herbert = Author(context: context)
            let sf = Genre(context: context)
            try context.save()

            let dune = Novel(context: context)
            dune.title = "Dune"
            dune.author = herbert
            dune.genres = [sf]
            context.undo()
            #expect(sf.novels.isEmpty)
            context.redo()
            #expect(dune.managedObjectContext === context)
            #expect(dune.isInserted)
            #expect(dune.title == "Dune")
            #expect(herbert.novels == [dune])
            #expect(sf.novels == [dune])
            try context.save()
        }
        try inStore { context throws in
            let dune = try ObjectGraphTests.fetchOne(Novel.self, "Novel", where: "title", is: "Dune", in: context)
            #expect(dune.author != nil)
            #expect(dune.genres.count == 1)
        }
    }

    @Test func undoingAnInsertAfterASaveDeletesTheRow() throws {
        let (stack, context, _) = try undoContext()
        defer { try? stack.close() }
        try context.performAndWait {
            let herbert = Author(context: context)
            try context.save()
            let dune = Novel(context: context)
            dune.title = "Dune"
            dune.author = herbert
            try context.save()

            context.undo()
            #expect(dune.isDeleted)
            #expect(herbert.novels.isEmpty)
            #expect(herbert.isUpdated)
            try context.save()
        }
        #expect(try inStore(titles) == [])
        try inStore { context throws in
            #expect(try ObjectGraphTests.fetchAll(Author.self, "Author", in: context).first?.novels.isEmpty == true)
        }
    }

    // MARK: Deletions

    /// A novel with an author (nullify), two chapters (cascade) and a genre (many-to-many), saved.
    private func savedNovel(in context: NSManagedObjectContext) throws -> Novel {
        let herbert = Author(context: context)
        herbert.name = "Herbert"
        let sf = Genre(context: context)
        sf.name = "SF"
        let dune = Novel(context: context)
        dune.title = "Dune"
        dune.author = herbert
        dune.genres = [sf]
        dune.chapters = (1...2).map { number in
            let chapter = Chapter(context: context)
            chapter.number = Int32(number)
            return chapter
        }
        try context.save()
        return dune
    }

    @Test func undoingADeleteBringsBackWhatTheRulesCascadedAndNullified() throws {
        let (stack, context, _) = try undoContext()
        defer { try? stack.close() }
        try context.performAndWait {
            let dune = try savedNovel(in: context)
            let herbert = try #require(dune.author)
            let sf = try #require(dune.genres.first)
            let chapters = dune.chapters

            context.delete(dune)
            context.processPendingChanges()
            #expect(chapters.allSatisfy { $0.isDeleted })
            #expect(herbert.novels.isEmpty)
            #expect(sf.novels.isEmpty)

            context.undo()
            #expect(!dune.isDeleted)
            #expect(context.deletedObjects.isEmpty)
            #expect(chapters.allSatisfy { !$0.isDeleted && $0.novel === dune })
            #expect(dune.chapters.map(\.number) == [1, 2])
            #expect(herbert.novels == [dune])
            #expect(dune.author === herbert)
            #expect(sf.novels == [dune])
            try context.save()
        }
        try inStore { context throws in
            let dune = try ObjectGraphTests.fetchOne(Novel.self, "Novel", where: "title", is: "Dune", in: context)
            #expect(dune.chapters.map(\.number) == [1, 2])
            #expect(dune.author?.name == "Herbert")
            #expect(dune.genres.map(\.name) == ["SF"])
        }
    }

    @Test func redoingADeleteDeletesTheCascadeAgain() throws {
        let (stack, context, _) = try undoContext()
        defer { try? stack.close() }
        try context.performAndWait {
            let dune = try savedNovel(in: context)
            let herbert = try #require(dune.author)
            let chapters = dune.chapters
            context.delete(dune)
            context.undo()
            context.redo()
            #expect(dune.isDeleted)
            #expect(chapters.allSatisfy { $0.isDeleted })
            #expect(herbert.novels.isEmpty)
            try context.save()
        }
        try inStore { context throws in
            #expect(try titles(in: context) == [])
            #expect(try ObjectGraphTests.fetchAll(Chapter.self, "Chapter", in: context).isEmpty)
            #expect(try ObjectGraphTests.fetchAll(Author.self, "Author", in: context).count == 1)
        }
    }

    @Test func undoingADeepCascadeRestoresTheTree() throws {
        let (stack, context, _) = try undoContext()
        defer { try? stack.close() }
        try context.performAndWait {
            let root = Folder(context: context)
            root.name = "root"
            var all = [root]
            for name in ["a", "b"] {
                let child = Folder(context: context)
                child.name = name
                child.parent = root
                let grandchild = Folder(context: context)
                grandchild.name = name + "1"
                grandchild.parent = child
                all += [child, grandchild]
            }
            try context.save()
            context.delete(root)
            context.processPendingChanges()
            #expect(context.deletedObjects.count == 5)
            context.undo()
            #expect(context.deletedObjects.isEmpty)
            #expect(root.children.map { $0.name ?? "" }.sorted() == ["a", "b"])
            #expect(all.allSatisfy { $0.parent == nil || $0.parent?.children.contains($0) == true })
        }
    }

    @Test func undoingADeleteOfAnUnsavedObjectInsertsItAgain() throws {
        let (stack, context, _) = try undoContext()
        defer { try? stack.close() }
        try context.performAndWait {
            let herbert = Author(context: context)
            let dune = Novel(context: context)
            dune.author = herbert
            context.processPendingChanges()
            context.delete(dune)
            context.processPendingChanges()
            #expect(dune.managedObjectContext == nil)
            #expect(herbert.novels.isEmpty)

            context.undo()
            #expect(dune.isInserted)
            #expect(herbert.novels == [dune])
            #expect(dune.author === herbert)
        }
    }

    @Test func undoingADeleteAfterASaveInsertsTheObjectAgain() throws {
        let (stack, context, _) = try undoContext()
        defer { try? stack.close() }
        try context.performAndWait {
            let dune = try savedNovel(in: context)
            context.delete(dune)
            try context.save()
            #expect(dune.managedObjectContext == nil)

            context.undo()
            #expect(dune.isInserted)
            #expect(dune.chapters.allSatisfy { $0.isInserted })
            #expect(dune.author?.novels == [dune])
            try context.save()
        }
        try inStore { context throws in
            let dune = try ObjectGraphTests.fetchOne(Novel.self, "Novel", where: "title", is: "Dune", in: context)
            #expect(dune.chapters.map(\.number) == [1, 2])
            #expect(dune.author?.name == "Herbert")
        }
    }

    // MARK: After a save

    @Test func undoAfterASaveLeavesTheObjectChangedAndTheNextSaveWritesTheOldValue() throws {
        let (stack, context, _) = try undoContext()
        defer { try? stack.close() }
        try context.performAndWait {
            let novel = Novel(context: context)
            novel.title = "Dune"
            try context.save()
            novel.title = "Dune Messiah"
            try context.save()
            #expect(!context.hasChanges)

            context.undo()
            #expect(novel.title == "Dune")
            #expect(novel.isUpdated)
            #expect(novel.hasChanges)
            #expect(context.hasChanges)
            #expect(novel.changedValues()["title"] as? String == "Dune")
        }
        #expect(try inStore(titles) == ["Dune Messiah"])
        try context.performAndWait { try context.save() }
        #expect(try inStore(titles) == ["Dune"])
    }

    // MARK: What clears the stacks, and what is never recorded

    @Test func rollbackRemovesAllActions() throws {
        let (stack, context, manager) = try undoContext()
        defer { try? stack.close() }
        try context.performAndWait {
            let novel = Novel(context: context)
            novel.title = "A"
            try context.save()
            novel.title = "B"
            context.processPendingChanges()
            novel.title = "C"
            context.undo()
            #expect(manager.canUndo && manager.canRedo)
            context.rollback()
            #expect(!manager.canUndo)
            #expect(!manager.canRedo)
            #expect(novel.title == "A")
            context.undo()
            #expect(novel.title == "A")
        }
    }

    @Test func resetRemovesAllActions() throws {
        let (stack, context, manager) = try undoContext()
        defer { try? stack.close() }
        try context.performAndWait {
            let novel = Novel(context: context)
            novel.title = "A"
            try context.save()
            novel.title = "B"
            context.reset()
            #expect(!manager.canUndo)
            #expect(!manager.canRedo)
            #expect(manager.groupingLevel == 0)
        }
    }

    @Test func mergedChangesAreNotRecorded() throws {
        let (stack, context, manager) = try undoContext()
        defer { try? stack.close() }
        let id = try context.performAndWait {
            let novel = Novel(context: context)
            novel.title = "A"
            try context.save()
            manager.removeAllActions()
            return novel.objectID
        }
        let other = stack.newContext()
        let saved = ObjectGraphTests.LockedValue<Notification?>(nil)
        let observer = NotificationCenter.default.addObserver(
            forName: .NSManagedObjectContextDidSave, object: other, queue: nil
        ) { note in saved.withLock { $0 = note } }
        defer { NotificationCenter.default.removeObserver(observer) }
        try other.performAndWait {
            let novel = try #require(try other.existingObject(with: id) as? Novel)
            novel.title = "B"
            try other.save()
        }
        let notification = try #require(saved.withLock { $0 })
        context.performAndWait {
            context.mergeChanges(fromContextDidSave: notification)
            let novel = context.object(with: id) as? Novel
            #expect(novel?.title == "B")
            #expect(!manager.canUndo)
            context.undo()
            #expect(novel?.title == "B")
        }
    }

    @Test func undoPostsObjectsDidChangeWithTheObjectsItChanged() throws {
        let (stack, context, _) = try undoContext()
        defer { try? stack.close() }
        try context.performAndWait {
            let novel = Novel(context: context)
            try context.save()
            novel.title = "A"
            context.processPendingChanges()
            let recorder = ObjectGraphTests.NotificationRecorder(context)
            defer { recorder.stop() }
            context.undo()
            let changes = recorder.recorded(.NSManagedObjectContextObjectsDidChange)
            #expect(changes.count == 1)
            #expect(changes.first?.updated == [novel])
            #expect(changes.first?.inserted == [])
        }
    }

    @Test func undoAndRedoCallTheSnapshotEventHooks() throws {
        let model = NSManagedObjectModel {
            Entity("UndoSnapshotWatcher", className: "UndoSnapshotWatcher") {
                Attribute("name", .stringAttributeType)
            }
        }
        let context = try Stack(model, type: NSInMemoryStoreType, at: nil).newContext()
        context.undoManager = UndoManager()
        try context.performAndWait {
            let object = UndoSnapshotWatcher(context: context)
            try context.save()
            object.setValue("x", forKey: "name")
            context.undo()
            #expect(object.events == [NSSnapshotEventType.undoUpdate.rawValue])
            context.undo()
            #expect(object.events.last == NSSnapshotEventType.undoInsertion.rawValue)
            #expect(object.isDeleted)
            context.redo()
            #expect(object.events.last == NSSnapshotEventType.undoDeletion.rawValue)
            #expect(!object.isDeleted)
        }
    }
}

/// Records the snapshot events an undo or redo reports to an object.
final class UndoSnapshotWatcher: NSManagedObject {
    var events: [UInt] = []

    override func awakeFromSnapshotEvents(_ flags: NSSnapshotEventType) {
        events.append(flags.rawValue)
    }
}
