#if !canImport(Darwin)
    import Foundation

    /// The key of the `userInfo` of `NSUndoManagerWillCloseUndoGroup` and
    /// `NSUndoManagerDidCloseUndoGroup` whose value, a Boolean `NSNumber` of `true`, says that
    /// every action of the closing group is discardable (`setActionIsDiscardable(_:)`).
    public let NSUndoManagerGroupIsDiscardableKey = "NSUndoManagerGroupIsDiscardableKey"

    /// The notifications of `UndoManager`, under the names Apple's Swift interface gives them
    /// (`NotificationCenter.default.addObserver(forName: .NSUndoManagerDidUndoChange, object: undoManager…)`).
    /// Each is posted with the undo manager as its object, on the thread that called the method.
    extension NSNotification.Name {
        /// Posted when the manager opens a nested group or closes any group, before `undo()`,
        /// `redo()` and `undoNestedGroup()` perform, and when `canRedo` is read: clients that
        /// delay their registrations (a managed object context) register what is pending now.
        public static let NSUndoManagerCheckpoint = NSNotification.Name("NSUndoManagerCheckpointNotification")
        /// Posted just before `undo()` or `undoNestedGroup()` performs the operations of a group.
        public static let NSUndoManagerWillUndoChange = NSNotification.Name("NSUndoManagerWillUndoChangeNotification")
        /// Posted just after `undo()` or `undoNestedGroup()` performed the operations of a group.
        public static let NSUndoManagerDidUndoChange = NSNotification.Name("NSUndoManagerDidUndoChangeNotification")
        /// Posted just before `redo()` performs the operations of a group.
        public static let NSUndoManagerWillRedoChange = NSNotification.Name("NSUndoManagerWillRedoChangeNotification")
        /// Posted just after `redo()` performed the operations of a group.
        public static let NSUndoManagerDidRedoChange = NSNotification.Name("NSUndoManagerDidRedoChangeNotification")
        /// Posted when `beginUndoGrouping()` (or a registration outside any group, with
        /// `groupsByEvent`) opened a group.
        public static let NSUndoManagerDidOpenUndoGroup = NSNotification.Name("NSUndoManagerDidOpenUndoGroupNotification")
        /// Posted by `endUndoGrouping()` before the group closes; `userInfo` holds
        /// `NSUndoManagerGroupIsDiscardableKey` when the whole group is discardable.
        public static let NSUndoManagerWillCloseUndoGroup = NSNotification.Name(
            "NSUndoManagerWillCloseUndoGroupNotification")
        /// Posted by `endUndoGrouping()` after the group closed, with the same `userInfo`.
        public static let NSUndoManagerDidCloseUndoGroup = NSNotification.Name("NSUndoManagerDidCloseUndoGroupNotification")
    }
#endif
