#if !canImport(Darwin)
    import Foundation

    /// A recorder of operations that can be undone and redone: Foundation's `UndoManager`, which
    /// Foundation on Linux lacks. A managed object context given one (`context.undoManager`)
    /// records its changes in it, one group per event.
    ///
    /// ```swift
    /// let undoManager = UndoManager()
    /// func rename(_ document: Document, to title: String) {
    ///     let old = document.title
    ///     undoManager.registerUndo(withTarget: document) { rename($0, to: old) }
    ///     undoManager.setActionName("Rename")
    ///     document.title = title
    /// }
    /// rename(document, to: "Draft")
    /// undoManager.undo()    // document.title is back; undoManager.redoMenuItemTitle == "Redo Rename"
    /// ```
    ///
    /// Operations are collected in groups. With `groupsByEvent` (the default), a registration
    /// outside any group opens one, which closes at the end of the event: when the context that
    /// owns the manager processes its pending changes, at the end of the current turn of the
    /// thread's run loop if one is running, or when `undo()` is called. Operations registered
    /// while undoing go to the redo stack, those registered while redoing to the undo stack,
    /// and any other registration empties the redo stack.
    ///
    /// Where Apple's raises an exception for a misuse (closing a group that is not open, undoing
    /// with nested groups open, registering outside a group with `groupsByEvent` off, enabling
    /// registration that is not disabled), this one ignores the call and changes nothing.
    ///
    /// Like Apple's, an undo manager is used from one thread or queue at a time: the main thread,
    /// or the queue of the context it belongs to.
    open class UndoManager: NSObject, @unchecked Sendable {
        private enum State {
            case collecting, undoing, redoing
        }

        private var undoStack: [UndoGroup] = []
        private var redoStack: [UndoGroup] = []
        /// The open groups, outermost first; while undoing or redoing, the innermost is the group
        /// collecting the operations that reverse the ones performed.
        private var openGroups: [UndoGroup] = []
        private var state = State.collecting
        private var disabledCount = 0
        /// The top-level group a registration opened by itself (`groupsByEvent`), while it is open.
        private var automaticGroup: UndoGroup?
        /// Counts the automatic groups opened, so that a close scheduled on the run loop for one
        /// of them leaves a later one alone.
        private var automaticGroupCount = 0
        /// The action `setActionIsDiscardable(_:)` marks.
        private var lastRegistered: UndoAction?

        /// Whether a registration outside any group opens one that closes at the end of the event.
        open var groupsByEvent = true
        /// The most top-level undo groups kept (0, the default, keeps all); the oldest go first.
        open var levelsOfUndo = 0 {
            didSet { trimStacks() }
        }
        /// The run-loop modes in which an automatic group is closed at the end of a run-loop turn.
        open var runLoopModes: [RunLoop.Mode] = [.default]

        public override init() {
            super.init()
        }

        // MARK: State

        /// Whether `undo()` has something to reverse: a closed group, or an open top-level group
        /// with operations (which `undo()` closes first).
        open var canUndo: Bool {
            !undoStack.isEmpty || (openGroups.first.map { !$0.isEmpty } ?? false)
        }

        /// Whether `redo()` has something to perform. Posts `NSUndoManagerCheckpoint` first, as
        /// Apple's does: a change still pending in a context is registered, and empties the stack.
        open var canRedo: Bool {
            postCheckpoint()
            return !redoStack.isEmpty
        }

        /// Whether the operations of an undo are being performed.
        open var isUndoing: Bool { state == .undoing }
        /// Whether the operations of a redo are being performed.
        open var isRedoing: Bool { state == .redoing }
        /// How many groups are open (0: none).
        open var groupingLevel: Int { openGroups.count }
        /// Whether registrations are recorded (`disableUndoRegistration()` turns it off).
        open var isUndoRegistrationEnabled: Bool { disabledCount == 0 }

        // MARK: Registering

        /// Registers a closure that undoes a change of `target`; `undo()` calls it with `target`.
        ///
        /// The manager holds `target` weakly (Apple's holds it unowned): an operation whose target
        /// is gone is skipped. The closure itself is kept as it is, so it should capture `target`
        /// weakly or not at all, and take it from its argument.
        open func registerUndo<TargetType: AnyObject>(
            withTarget target: TargetType, handler: @escaping (TargetType) -> Void
        ) {
            guard isUndoRegistrationEnabled else { return }
            if openGroups.isEmpty {
                // Apple's raises here when groupsByEvent is off; the registration is dropped instead.
                guard groupsByEvent else { return }
                openAutomaticGroup()
            }
            guard let group = openGroups.last else { return }
            if state == .collecting { redoStack.removeAll() }
            let action = UndoAction(target: target) { object in
                if let target = object as? TargetType { handler(target) }
            }
            group.entries.append(.action(action))
            lastRegistered = action
        }

        /// Stops recording registrations until the matching `enableUndoRegistration()`; calls nest.
        open func disableUndoRegistration() {
            disabledCount += 1
        }

        /// Undoes one `disableUndoRegistration()`. Without one in effect the call is ignored
        /// (Apple's raises).
        open func enableUndoRegistration() {
            guard disabledCount > 0 else { return }
            disabledCount -= 1
        }

        // MARK: Grouping

        /// Opens a group: the operations registered until the matching `endUndoGrouping()` are
        /// undone together. Groups nest. Posts `NSUndoManagerCheckpoint` when a group is already
        /// open, then `NSUndoManagerDidOpenUndoGroup`.
        open func beginUndoGrouping() {
            if !openGroups.isEmpty { postCheckpoint() }
            openGroups.append(UndoGroup())
            post(.NSUndoManagerDidOpenUndoGroup)
        }

        /// Closes the innermost open group. A closed top-level group goes on the undo stack (an
        /// empty one is dropped); a nested one becomes part of its parent. Posts
        /// `NSUndoManagerCheckpoint`, `NSUndoManagerWillCloseUndoGroup` and
        /// `NSUndoManagerDidCloseUndoGroup`. Without an open group the call is ignored (Apple's raises).
        open func endUndoGrouping() {
            guard let group = openGroups.last else { return }
            // Clients register what they hold back before the group closes.
            postCheckpoint()
            let info: [AnyHashable: Any]? =
                group.isDiscardable ? [NSUndoManagerGroupIsDiscardableKey: NSNumber(value: true)] : nil
            post(.NSUndoManagerWillCloseUndoGroup, userInfo: info)
            guard openGroups.last === group else { return }
            openGroups.removeLast()
            if automaticGroup === group { automaticGroup = nil }
            file(group)
            post(.NSUndoManagerDidCloseUndoGroup, userInfo: info)
        }

        /// Opens the automatic group now, when `groupsByEvent` would open it at the next
        /// registration and no group is open: a context does so at the first change of an event
        /// (it registers only when the event ends), so that `setActionName(_:)` and other clients'
        /// registrations during the event go to the event's group, as with Apple's run-loop groups.
        func beginAutomaticGroupIfNeeded() {
            guard groupsByEvent, openGroups.isEmpty, state == .collecting, isUndoRegistrationEnabled else { return }
            openAutomaticGroup()
        }

        /// Closes the group a registration opened by itself, if it is the only one open and no
        /// undo or redo is running: the end of an event.
        func endAutomaticGroup() {
            guard let automaticGroup, state == .collecting, openGroups.count == 1, openGroups[0] === automaticGroup else {
                return
            }
            endUndoGrouping()
        }

        private func openAutomaticGroup() {
            beginUndoGrouping()
            automaticGroup = openGroups.last
            automaticGroupCount += 1
            // The end of the event, where a run loop turns: its next turn.
            let runLoop = RunLoop.current
            guard runLoop.currentMode != nil else { return }
            let count = automaticGroupCount
            let manager = UncheckedReference(self)
            runLoop.perform(inModes: runLoopModes) {
                guard let manager = manager.value, manager.automaticGroupCount == count else { return }
                manager.endAutomaticGroup()
            }
        }

        /// Puts a closed group where it belongs: into its parent, or on the stack that registrations
        /// go to now (the redo stack while undoing).
        private func file(_ group: UndoGroup) {
            guard !group.isEmpty else { return }
            if let parent = openGroups.last {
                parent.entries.append(.group(group))
                return
            }
            if state == .undoing { redoStack.append(group) } else { undoStack.append(group) }
            trimStacks()
        }

        private func trimStacks() {
            guard levelsOfUndo > 0 else { return }
            if undoStack.count > levelsOfUndo { undoStack.removeFirst(undoStack.count - levelsOfUndo) }
            if redoStack.count > levelsOfUndo { redoStack.removeFirst(redoStack.count - levelsOfUndo) }
        }

        // MARK: Undoing and redoing

        /// Closes the open top-level group, if one is open alone, and undoes the last group: its
        /// operations run (the last registered first), and what they register goes on the redo
        /// stack as one group. With nested groups open, or during an undo or redo, the call is
        /// ignored (Apple's raises).
        open func undo() {
            guard state == .collecting else { return }
            postCheckpoint()
            if openGroups.count == 1 { endUndoGrouping() }
            guard openGroups.isEmpty else { return }
            undoNestedGroup()
        }

        /// Undoes the last group closed inside the open group, or, with no group open, the last
        /// group of the undo stack; what its operations register goes on the redo stack.
        open func undoNestedGroup() {
            guard state == .collecting else { return }
            postCheckpoint()
            let group: UndoGroup
            if let open = openGroups.last {
                guard case .group(let nested)? = open.entries.last else { return }
                open.entries.removeLast()
                group = nested
            } else {
                guard let last = undoStack.popLast() else { return }
                group = last
            }
            run(group, as: .undoing)
        }

        /// Performs the last group of the redo stack; what its operations register goes on the
        /// undo stack as one group. Closes an automatic group first; with other groups open, or
        /// during an undo or redo, the call is ignored (Apple's raises during an undo).
        open func redo() {
            guard state == .collecting else { return }
            postCheckpoint()
            endAutomaticGroup()
            guard openGroups.isEmpty, let group = redoStack.popLast() else { return }
            run(group, as: .redoing)
        }

        /// Runs a group's operations while undoing or redoing, collecting what they register in
        /// a group of the same name, with the will/did notifications around.
        private func run(_ group: UndoGroup, as running: State) {
            post(running == .undoing ? .NSUndoManagerWillUndoChange : .NSUndoManagerWillRedoChange)
            state = running
            let collected = UndoGroup()
            collected.actionName = group.actionName
            openGroups.append(collected)
            group.perform()
            if let position = openGroups.lastIndex(where: { $0 === collected }) { openGroups.remove(at: position) }
            // On the stack even when a group is open (undoNestedGroup): it is a redo (or an undo)
            // of its own, not part of the group being built.
            if !collected.isEmpty {
                if running == .undoing { redoStack.append(collected) } else { undoStack.append(collected) }
                trimStacks()
            }
            state = .collecting
            post(running == .undoing ? .NSUndoManagerDidUndoChange : .NSUndoManagerDidRedoChange)
        }

        // MARK: Removing actions

        /// Empties the undo and redo stacks, closes any open group without filing it, and enables
        /// registration again.
        open func removeAllActions() {
            undoStack.removeAll()
            redoStack.removeAll()
            if state == .collecting {
                openGroups.removeAll()
            } else if let collecting = openGroups.last {
                // Undoing or redoing: keep collecting what the operations still register.
                collecting.entries.removeAll()
                openGroups = [collecting]
            }
            automaticGroup = nil
            disabledCount = 0
            lastRegistered = nil
        }

        /// Removes every operation registered with `target` from the stacks and open groups; groups
        /// left empty go too. Registration stays disabled if it was.
        open func removeAllActions(withTarget target: Any) {
            let object = target as AnyObject
            for group in undoStack + redoStack + openGroups { group.removeActions(withTarget: object) }
            undoStack.removeAll { $0.isEmpty }
            redoStack.removeAll { $0.isEmpty }
            if lastRegistered?.target === object { lastRegistered = nil }
        }

        // MARK: Action names

        /// Names the group being built (or, with none open, the last one on the undo stack): the
        /// Undo and Redo menu titles show it. An empty string removes the name.
        open func setActionName(_ actionName: String) {
            let group = state == .collecting ? (openGroups.first ?? undoStack.last) : openGroups.last
            group?.actionName = actionName
        }

        /// The name of the group `undo()` would undo; empty when it has none or there is nothing to undo.
        open var undoActionName: String { nextUndoGroup?.actionName ?? "" }
        /// The name of the group `redo()` would perform; empty when it has none or there is nothing to redo.
        open var redoActionName: String { redoStack.last?.actionName ?? "" }
        /// The Undo menu title: "Undo", followed by the action name when there is one.
        open var undoMenuItemTitle: String { undoMenuTitle(forUndoActionName: undoActionName) }
        /// The Redo menu title: "Redo", followed by the action name when there is one.
        open var redoMenuItemTitle: String { redoMenuTitle(forUndoActionName: redoActionName) }

        /// The Undo menu title for an action name ("Undo Rename"); override to localize. Strata
        /// gives the English titles.
        open func undoMenuTitle(forUndoActionName actionName: String) -> String {
            actionName.isEmpty ? "Undo" : "Undo \(actionName)"
        }

        /// The Redo menu title for an action name ("Redo Rename"); override to localize.
        open func redoMenuTitle(forUndoActionName actionName: String) -> String {
            actionName.isEmpty ? "Redo" : "Redo \(actionName)"
        }

        // MARK: Discardable actions

        /// Marks the last registered action as one that may be dropped (a change of what is shown,
        /// not of the document): a group of only such actions is discardable.
        open func setActionIsDiscardable(_ discardable: Bool) {
            lastRegistered?.isDiscardable = discardable
        }

        /// Whether every action of the group `undo()` would undo is discardable.
        open var undoActionIsDiscardable: Bool { nextUndoGroup?.isDiscardable ?? false }
        /// Whether every action of the group `redo()` would perform is discardable.
        open var redoActionIsDiscardable: Bool { redoStack.last?.isDiscardable ?? false }

        /// The group `undo()` undoes next: the open top-level group when it holds operations,
        /// else the last closed one.
        private var nextUndoGroup: UndoGroup? {
            if state == .collecting, let open = openGroups.first, !open.isEmpty { return open }
            return undoStack.last
        }

        // MARK: Notifications

        private func postCheckpoint() {
            post(.NSUndoManagerCheckpoint)
        }

        private func post(_ name: NSNotification.Name, userInfo: [AnyHashable: Any]? = nil) {
            NotificationCenter.default.post(name: name, object: self, userInfo: userInfo)
        }
    }

    /// A weak reference that may cross into a `@Sendable` closure: the run-loop block that closes
    /// an automatic group runs on the thread that scheduled it, the manager's own.
    private struct UncheckedReference: @unchecked Sendable {
        weak var value: UndoManager?

        init(_ value: UndoManager) { self.value = value }
    }
#endif
