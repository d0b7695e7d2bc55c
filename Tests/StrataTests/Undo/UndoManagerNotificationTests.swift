import Foundation
import Testing

@testable import Strata

extension UndoManagerTests {
    /// Action names and menu titles, discardable actions, and the notifications of the undo
    /// manager (observed for the test's own manager only: tests run in parallel).
    @Suite struct NamesAndNotifications {
        // MARK: Action names

        @Test func actionNamesFollowTheGroupsToTheRedoStack() {
            let manager = UndoManager()
            let document = UndoManagerTests.Document("A", undoManager: manager)
            #expect(manager.undoActionName == "")
            #expect(manager.undoMenuItemTitle == "Undo")
            #expect(manager.redoMenuItemTitle == "Redo")

            manager.beginUndoGrouping()
            document.rename(to: "B")
            manager.setActionName("Rename")
            manager.endUndoGrouping()
            manager.beginUndoGrouping()
            document.rename(to: "C")
            manager.endUndoGrouping()
            manager.setActionName("Retitle")
            #expect(manager.undoActionName == "Retitle")
            #expect(manager.undoMenuItemTitle == "Undo Retitle")

            manager.undo()
            #expect(manager.undoActionName == "Rename")
            #expect(manager.redoActionName == "Retitle")
            #expect(manager.redoMenuItemTitle == "Redo Retitle")
            manager.undo()
            #expect(manager.undoActionName == "")
            #expect(manager.redoActionName == "Rename")
            manager.redo()
            #expect(manager.undoActionName == "Rename")

            manager.setActionName("")
            #expect(manager.undoMenuItemTitle == "Undo")
            #expect(manager.undoMenuTitle(forUndoActionName: "Paste") == "Undo Paste")
            #expect(manager.redoMenuTitle(forUndoActionName: "") == "Redo")
        }

        @Test func theOpenAutomaticGroupTakesTheActionName() {
            let manager = UndoManager()
            let document = UndoManagerTests.Document("A", undoManager: manager)
            document.rename(to: "B")
            manager.setActionName("Rename")
            #expect(manager.undoActionName == "Rename")
            manager.undo()
            #expect(manager.redoActionName == "Rename")
        }

        @Test func discardableActionsMakeADiscardableGroup() {
            let manager = UndoManager()
            let observer = UndoManagerTests.Observer(manager)
            let document = UndoManagerTests.Document("A", undoManager: manager)
            manager.beginUndoGrouping()
            document.rename(to: "B")
            manager.setActionIsDiscardable(true)
            manager.endUndoGrouping()
            #expect(manager.undoActionIsDiscardable)
            let info = observer.userInfo(of: "WillCloseUndoGroup").last ?? nil
            #expect((info?[NSUndoManagerGroupIsDiscardableKey] as? NSNumber)?.boolValue == true)

            manager.beginUndoGrouping()
            document.rename(to: "C")
            manager.setActionIsDiscardable(true)
            document.rename(to: "D")
            manager.endUndoGrouping()
            #expect(!manager.undoActionIsDiscardable)
            #expect(observer.userInfo(of: "WillCloseUndoGroup").last.map { $0 == nil } == true)

            manager.undo()
            manager.undo()
            #expect(!manager.redoActionIsDiscardable)
        }

        // MARK: Notifications

        @Test func groupingPostsOpenCloseAndCheckpoints() {
            let manager = UndoManager()
            let observer = UndoManagerTests.Observer(manager)
            let document = UndoManagerTests.Document("A", undoManager: manager)
            manager.beginUndoGrouping()
            manager.beginUndoGrouping()
            document.rename(to: "B")
            manager.endUndoGrouping()
            manager.endUndoGrouping()
            #expect(
                observer.recorded == [
                    "DidOpenUndoGroup",
                    "Checkpoint", "DidOpenUndoGroup",
                    "Checkpoint", "WillCloseUndoGroup", "DidCloseUndoGroup",
                    "Checkpoint", "WillCloseUndoGroup", "DidCloseUndoGroup",
                ])
        }

        @Test func undoAndRedoPostWillAndDidAroundThePerforming() {
            let manager = UndoManager()
            let document = UndoManagerTests.renamed(["B"], manager: manager)
            let observer = UndoManagerTests.Observer(manager)
            manager.undo()
            #expect(observer.recorded == ["Checkpoint", "Checkpoint", "WillUndoChange", "DidUndoChange"])
            #expect(document.title == "A")
            observer.clear()
            manager.redo()
            #expect(observer.recorded == ["Checkpoint", "WillRedoChange", "DidRedoChange"])
            observer.clear()
            _ = manager.canRedo
            #expect(observer.recorded == ["Checkpoint"])
        }

        @Test func notificationsNameApplesConstants() {
            #expect(NSNotification.Name.NSUndoManagerCheckpoint.rawValue == "NSUndoManagerCheckpointNotification")
            #expect(NSNotification.Name.NSUndoManagerDidUndoChange.rawValue == "NSUndoManagerDidUndoChangeNotification")
            #expect(NSNotification.Name.NSUndoManagerWillCloseUndoGroup.rawValue == "NSUndoManagerWillCloseUndoGroupNotification")
            #expect(NSUndoManagerGroupIsDiscardableKey == "NSUndoManagerGroupIsDiscardableKey")
        }
    }
}
