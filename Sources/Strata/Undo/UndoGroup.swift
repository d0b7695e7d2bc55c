#if !canImport(Darwin)
    import Foundation

    /// One registered undo operation: a closure and the object it is given, held weakly so that
    /// an undo stack does not keep its targets (a context, a document) alive.
    final class UndoAction {
        /// The target the closure receives; `nil` once it is gone, and then the action is skipped.
        weak var target: AnyObject?
        let perform: (AnyObject) -> Void
        /// Whether the app marked the action as one that may be dropped (`setActionIsDiscardable`).
        var isDiscardable = false

        init(target: AnyObject, perform: @escaping (AnyObject) -> Void) {
            self.target = target
            self.perform = perform
        }
    }

    /// What an undo group holds, in registration order: actions, and groups closed inside it.
    enum UndoEntry {
        case action(UndoAction)
        case group(UndoGroup)
    }

    /// An undo group: the operations that one `undo()` reverses together, with the name the Undo
    /// menu shows for them. Nested groups are entries of their parent until the parent closes.
    final class UndoGroup {
        var entries: [UndoEntry] = []
        var actionName = ""

        /// Whether the group holds no action, directly or in a nested group.
        var isEmpty: Bool {
            entries.allSatisfy { entry in
                if case .group(let group) = entry { return group.isEmpty }
                return false
            }
        }

        /// Whether every action of a non-empty group is discardable (`NSUndoManagerGroupIsDiscardableKey`).
        var isDiscardable: Bool {
            var sawAction = false
            for entry in entries {
                switch entry {
                case .action(let action):
                    guard action.isDiscardable else { return false }
                    sawAction = true
                case .group(let group):
                    if group.isEmpty { continue }
                    guard group.isDiscardable else { return false }
                    sawAction = true
                }
            }
            return sawAction
        }

        /// Runs the operations, the last registered first, as undoing a sequence of changes must.
        func perform() {
            for entry in entries.reversed() {
                switch entry {
                case .action(let action):
                    if let target = action.target { action.perform(target) }
                case .group(let group):
                    group.perform()
                }
            }
        }

        /// Drops the actions whose target is `target`, and nested groups left empty by that.
        func removeActions(withTarget target: AnyObject) {
            entries.removeAll { entry in
                switch entry {
                case .action(let action):
                    return action.target === target
                case .group(let group):
                    group.removeActions(withTarget: target)
                    return group.isEmpty
                }
            }
        }
    }
#endif
