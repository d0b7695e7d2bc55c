import Foundation
import Testing

@testable import Strata

/// The undo manager on its own (issue 21): stacks, grouping, levels, action names, disabling,
/// removing actions, notifications, and the misuses Apple's raises for, which change nothing here.
@Suite struct UndoManagerTests {
    /// An object whose changes register their own undo, as Apple's documentation shows it: the
    /// undo sets the old value back through the same method, which registers the redo. (Sendable
    /// only so that the run-loop test hands it to its thread; each test uses it on one thread.)
    final class Document: @unchecked Sendable {
        let undoManager: UndoManager
        private(set) var title: String
        private(set) var log: [String] = []

        init(_ title: String, undoManager: UndoManager) {
            self.title = title
            self.undoManager = undoManager
        }

        func rename(to newTitle: String) {
            let old = title
            undoManager.registerUndo(withTarget: self) { document in document.rename(to: old) }
            log.append("\(old)->\(newTitle) undoing:\(undoManager.isUndoing) redoing:\(undoManager.isRedoing)")
            title = newTitle
        }
    }

    /// Records the manager's notifications (only this manager's: tests run in parallel).
    final class Observer: @unchecked Sendable {
        private let lock = NSLock()
        private var names: [String] = []
        private var infos: [[AnyHashable: Any]?] = []
        private var tokens: [any NSObjectProtocol] = []

        init(_ manager: UndoManager) {
            let all: [NSNotification.Name] = [
                .NSUndoManagerCheckpoint, .NSUndoManagerWillUndoChange, .NSUndoManagerDidUndoChange,
                .NSUndoManagerWillRedoChange, .NSUndoManagerDidRedoChange, .NSUndoManagerDidOpenUndoGroup,
                .NSUndoManagerWillCloseUndoGroup, .NSUndoManagerDidCloseUndoGroup,
            ]
            tokens = all.map { name in
                NotificationCenter.default.addObserver(forName: name, object: manager, queue: nil) { [weak self] note in
                    self?.record(note)
                }
            }
        }

        private func record(_ note: Notification) {
            lock.lock()
            defer { lock.unlock() }
            names.append(
                note.name.rawValue.replacingOccurrences(of: "NSUndoManager", with: "")
                    .replacingOccurrences(of: "Notification", with: ""))
            infos.append(note.userInfo)
        }

        var recorded: [String] {
            lock.lock()
            defer { lock.unlock() }
            return names
        }

        func userInfo(of name: String) -> [[AnyHashable: Any]?] {
            lock.lock()
            defer { lock.unlock() }
            return zip(names, infos).filter { $0.0 == name }.map(\.1)
        }

        func clear() {
            lock.lock()
            defer { lock.unlock() }
            names.removeAll()
            infos.removeAll()
        }

        deinit { for token in tokens { NotificationCenter.default.removeObserver(token) } }
    }

    /// Renames in explicit top-level groups, one per title.
    static func renamed(_ titles: [String], manager: UndoManager = UndoManager()) -> Document {
        let document = Document("A", undoManager: manager)
        for title in titles {
            manager.beginUndoGrouping()
            document.rename(to: title)
            manager.endUndoGrouping()
        }
        return document
    }

    // MARK: Stacks

    @Test func undoRunsTheClosureAndItsRegistrationBecomesTheRedo() {
        let manager = UndoManager()
        let document = Self.renamed(["B"], manager: manager)
        #expect(manager.canUndo)
        #expect(!manager.canRedo)

        manager.undo()
        #expect(document.title == "A")
        #expect(!manager.canUndo)
        #expect(manager.canRedo)
        #expect(document.log.last == "B->A undoing:true redoing:false")

        manager.redo()
        #expect(document.title == "B")
        #expect(manager.canUndo)
        #expect(!manager.canRedo)
        #expect(document.log.last == "A->B undoing:false redoing:true")
        #expect(!manager.isUndoing && !manager.isRedoing)
    }

    @Test func undoAndRedoWalkSeveralGroupsInOrder() {
        let manager = UndoManager()
        let document = Self.renamed(["B", "C", "D"], manager: manager)
        manager.undo()
        manager.undo()
        #expect(document.title == "B")
        manager.redo()
        #expect(document.title == "C")
        manager.undo()
        manager.undo()
        #expect(document.title == "A")
        #expect(!manager.canUndo)
        manager.undo()
        #expect(document.title == "A")
        manager.redo()
        manager.redo()
        manager.redo()
        #expect(document.title == "D")
        #expect(!manager.canRedo)
    }

    @Test func aNewRegistrationEmptiesTheRedoStack() {
        let manager = UndoManager()
        let document = Self.renamed(["B", "C"], manager: manager)
        manager.undo()
        #expect(manager.canRedo)
        manager.beginUndoGrouping()
        document.rename(to: "X")
        manager.endUndoGrouping()
        #expect(!manager.canRedo)
        manager.redo()
        #expect(document.title == "X")
        manager.undo()
        #expect(document.title == "B")
    }

    // MARK: Grouping

    @Test func registrationsOutsideAGroupOpenOneThatUndoClosesAndUndoesWhole() {
        let manager = UndoManager()
        let document = Document("A", undoManager: manager)
        #expect(manager.groupingLevel == 0)
        document.rename(to: "B")
        #expect(manager.groupingLevel == 1)
        document.rename(to: "C")
        #expect(manager.groupingLevel == 1)
        #expect(manager.canUndo)

        manager.undo()
        #expect(manager.groupingLevel == 0)
        #expect(document.title == "A")
        #expect(!manager.canUndo)
        manager.redo()
        #expect(document.title == "C")
    }

    @Test func anAutomaticGroupClosesAtTheEndOfEachRunLoopTurn() {
        let manager = UndoManager()
        let document = Document("A", undoManager: manager)
        let levels = Self.onRunLoopThread { runLoop in
            let log = RunLoopThreadBox<[Int]>()
            log.result = []
            runLoop.perform {
                document.rename(to: "B")
                log.result?.append(manager.groupingLevel)
            }
            runLoop.run(until: Date().addingTimeInterval(0.05))
            log.result?.append(manager.groupingLevel)
            runLoop.perform { document.rename(to: "C") }
            runLoop.run(until: Date().addingTimeInterval(0.05))
            log.result?.append(manager.groupingLevel)
            return log.result ?? []
        }
        #expect(levels == [1, 0, 0])
        // Two turns, two groups.
        manager.undo()
        #expect(document.title == "B")
        manager.undo()
        #expect(document.title == "A")
    }

    /// Runs `body` on a thread of its own, whose run loop it may run, and returns its result.
    private static func onRunLoopThread<Result>(_ body: @escaping (RunLoop) -> Result) -> Result {
        let box = RunLoopThreadBox<Result>()
        box.body = body
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            box.result = box.body?(RunLoop.current)
            done.signal()
        }
        thread.start()
        done.wait()
        guard let result = box.result else { preconditionFailure("the thread's body did not run") }
        return result
    }

    @Test func withoutGroupsByEventARegistrationOutsideAGroupIsDropped() {
        let manager = UndoManager()
        manager.groupsByEvent = false
        let document = Document("A", undoManager: manager)
        document.rename(to: "B")
        #expect(manager.groupingLevel == 0)
        #expect(!manager.canUndo)

        manager.beginUndoGrouping()
        document.rename(to: "C")
        manager.endUndoGrouping()
        manager.undo()
        #expect(document.title == "B")
    }

    @Test func nestedGroupsAreUndoneWithTheirTopLevelGroup() {
        let manager = UndoManager()
        let document = Document("A", undoManager: manager)
        manager.beginUndoGrouping()
        document.rename(to: "B")
        manager.beginUndoGrouping()
        #expect(manager.groupingLevel == 2)
        document.rename(to: "C")
        manager.endUndoGrouping()
        document.rename(to: "D")
        manager.endUndoGrouping()
        #expect(manager.groupingLevel == 0)

        manager.undo()
        #expect(document.title == "A")
        #expect(!manager.canUndo)
        manager.redo()
        #expect(document.title == "D")
    }

    @Test func undoNestedGroupUndoesTheLastGroupClosedInsideTheOpenOne() {
        let manager = UndoManager()
        let document = Document("A", undoManager: manager)
        manager.beginUndoGrouping()
        document.rename(to: "B")
        manager.beginUndoGrouping()
        document.rename(to: "C")
        manager.endUndoGrouping()

        manager.undoNestedGroup()
        #expect(document.title == "B")
        #expect(manager.groupingLevel == 1)
        #expect(manager.canRedo)
        manager.endUndoGrouping()
        manager.undo()
        #expect(document.title == "A")
    }

    @Test func emptyGroupsAreNotKept() {
        let manager = UndoManager()
        manager.beginUndoGrouping()
        manager.endUndoGrouping()
        #expect(!manager.canUndo)
        #expect(manager.groupingLevel == 0)
    }

    @Test func levelsOfUndoKeepsTheNewestGroups() {
        let manager = UndoManager()
        manager.levelsOfUndo = 2
        let document = Self.renamed(["B", "C", "D"], manager: manager)
        manager.undo()
        manager.undo()
        #expect(document.title == "B")
        #expect(!manager.canUndo)

        manager.redo()
        manager.redo()
        #expect(document.title == "D")
        manager.levelsOfUndo = 1
        manager.undo()
        #expect(document.title == "C")
        #expect(!manager.canUndo)
        manager.levelsOfUndo = 0
        #expect(manager.levelsOfUndo == 0)
    }

    // MARK: Misuse

    @Test func endingAGroupThatIsNotOpenChangesNothing() {
        let manager = UndoManager()
        let document = Self.renamed(["B"], manager: manager)
        let observer = Observer(manager)
        manager.endUndoGrouping()
        #expect(manager.groupingLevel == 0)
        #expect(observer.recorded.isEmpty)
        manager.undo()
        #expect(document.title == "A")
    }

    @Test func undoWithNestedGroupsOpenChangesNothing() {
        let manager = UndoManager()
        let document = Self.renamed(["B"], manager: manager)
        manager.beginUndoGrouping()
        manager.beginUndoGrouping()
        document.rename(to: "C")
        manager.undo()
        #expect(document.title == "C")
        #expect(manager.groupingLevel == 2)
        manager.endUndoGrouping()
        manager.endUndoGrouping()
        manager.undo()
        #expect(document.title == "B")
    }

    @Test func undoAndRedoInsideAnUndoAreIgnored() {
        let manager = UndoManager()
        final class Target {}
        let target = Target()
        var calls = 0
        manager.registerUndo(withTarget: target) { _ in
            calls += 1
            manager.undo()
            manager.redo()
        }
        manager.registerUndo(withTarget: target) { _ in calls += 10 }
        manager.undo()
        #expect(calls == 11)
        #expect(!manager.isUndoing)
    }

    @Test func enablingWithoutDisablingIsIgnoredAndDisablingNests() {
        let manager = UndoManager()
        let document = Document("A", undoManager: manager)
        manager.enableUndoRegistration()
        #expect(manager.isUndoRegistrationEnabled)

        manager.disableUndoRegistration()
        manager.disableUndoRegistration()
        manager.enableUndoRegistration()
        #expect(!manager.isUndoRegistrationEnabled)
        document.rename(to: "B")
        #expect(!manager.canUndo)
        manager.enableUndoRegistration()
        #expect(manager.isUndoRegistrationEnabled)
        document.rename(to: "C")
        manager.undo()
        #expect(document.title == "B")
    }

    @Test func anActionWhoseTargetIsGoneIsSkipped() {
        let manager = UndoManager()
        final class Target {}
        var calls: [String] = []
        do {
            let gone = Target()
            manager.registerUndo(withTarget: gone) { _ in calls.append("gone") }
        }
        let kept = Target()
        manager.registerUndo(withTarget: kept) { _ in calls.append("kept") }
        manager.undo()
        #expect(calls == ["kept"])
    }

    // MARK: Removing actions

    @Test func removeAllActionsWithTargetKeepsTheOthers() {
        let manager = UndoManager()
        let first = Document("A", undoManager: manager)
        let second = Document("a", undoManager: manager)
        manager.beginUndoGrouping()
        first.rename(to: "B")
        second.rename(to: "b")
        manager.endUndoGrouping()
        manager.beginUndoGrouping()
        first.rename(to: "C")
        manager.endUndoGrouping()

        manager.removeAllActions(withTarget: first)
        #expect(manager.canUndo)
        manager.undo()
        #expect(first.title == "C")
        #expect(second.title == "a")
        #expect(!manager.canUndo)
    }

    @Test func removeAllActionsEmptiesBothStacksAndEnablesRegistration() {
        let manager = UndoManager()
        let document = Self.renamed(["B", "C"], manager: manager)
        manager.undo()
        manager.disableUndoRegistration()
        manager.removeAllActions()
        #expect(!manager.canUndo)
        #expect(!manager.canRedo)
        #expect(manager.isUndoRegistrationEnabled)
        manager.undo()
        #expect(document.title == "B")
    }

}

/// Hands a body to a thread and its result back (the thread signals when it is done).
private final class RunLoopThreadBox<Result>: @unchecked Sendable {
    var body: ((RunLoop) -> Result)?
    var result: Result?
}
