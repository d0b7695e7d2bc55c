import Foundation

/// One object's part in a change of the results.
struct FetchedChange {
    /// What happens to the object, in the delegate's terms.
    enum Kind { case insert, delete, move, update }

    var kind: Kind
    /// The entry in the results before the change (delete, move, update).
    var old: FetchedEntry?
    /// The entry in the results after it (insert, move, update).
    var new: FetchedEntry?
    var oldOffset = 0
    var newOffset = 0
    var oldIndexPath: IndexPath?
    var newIndexPath: IndexPath?

    init(kind: Kind, old: FetchedEntry?, new: FetchedEntry?) {
        self.kind = kind
        self.old = old
        self.new = new
    }

    var object: NSManagedObject? { (new ?? old)?.object }
}

/// Applying a change of the results to the ordered objects and sections, and reporting it as a
/// table view applies one: old index paths for what leaves or moves from (taken before anything
/// changes), new ones for what arrives or moves to (taken after everything has).
extension FetchedResults {
    /// Makes a change of the results (the objects' changes of one notification) and reports it.
    func apply(_ changes: [FetchedChange]) {
        guard !changes.isEmpty else { return }
        var changes = changes
        // Old positions, before anything moves.
        for index in changes.indices {
            guard let old = changes[index].old else { continue }
            guard let offset = offset(of: old), let path = indexPath(atOffset: offset) else {
                recoverInconsistency(changes)
                return
            }
            changes[index].oldOffset = offset
            changes[index].oldIndexPath = path
        }

        // What leaves: objects deleted and moved, from their sections. A section that empties
        // stays (weightless) until the end, so that an object moving within it keeps it.
        var emptied: [(section: FetchedSection, oldIndex: Int)] = []
        for change in changes where change.kind == .delete || change.kind == .move {
            guard let old = change.old, let offset = offset(of: old), let (index, section, _) = sections.locate(weight: offset)
            else {
                recoverInconsistency(changes)
                return
            }
            section.count -= 1
            sections.adjustWeight(at: index, by: -1)
            if section.count == 0 && isSectioned { emptied.append((section, index)) }
            entries.remove(at: offset)
            entriesByObject[ObjectIdentifier(old.object)] = nil
        }

        // What arrives: objects inserted and moved, each into the section of its name beside it,
        // a weightless one of its name between its neighbours, or a new one.
        var created: [(section: FetchedSection, member: FetchedEntry)] = []
        for (position, change) in changes.enumerated() where change.kind == .insert || change.kind == .move {
            guard let new = change.new else { continue }
            let offset = insertionOffset(of: new)
            guard let (index, section, isNew) = section(for: new, at: offset) else {
                recoverInconsistency(changes, arrivedBefore: position)
                return
            }
            if isNew { created.append((section, new)) }
            section.count += 1
            sections.adjustWeight(at: index, by: 1)
            entries.insert(new, at: offset)
            entriesByObject[ObjectIdentifier(new.object)] = new
        }

        // Sections left empty leave the results.
        var deletedSections: [(section: FetchedSection, index: Int)] = []
        if isSectioned {
            while let index = sections.firstWeightlessIndex() {
                let section = sections.remove(at: index)
                section.isRemoved = true
                if sectionsByName[section.name] === section { sectionsByName[section.name] = nil }
            }
            deletedSections = emptied.filter { $0.section.isRemoved }.map { ($0.section, $0.oldIndex) }
        }

        // New positions, after everything moved.
        for index in changes.indices {
            guard let new = changes[index].new, let offset = offset(of: new), let path = indexPath(atOffset: offset) else {
                continue
            }
            changes[index].newOffset = offset
            changes[index].newIndexPath = path
        }
        let insertedSections: [(section: FetchedSection, index: Int)] = created.compactMap { section, member in
            guard let offset = offset(of: member), let (index, _, _) = sections.locate(weight: offset) else { return nil }
            return (section, index)
        }
        invalidateCaches()
        report(
            changes, deletedSections: deletedSections.sorted { $0.index < $1.index },
            insertedSections: insertedSections.sorted { $0.index < $1.index })
    }

    /// The section an entry arriving at `offset` joins: the section before or after it when
    /// the name is theirs, else a weightless one of its name between them (emptied by this same
    /// change), else a new one, put in place weightless. Nil when the name cannot be placed
    /// there without splitting a section or repeating one elsewhere: the sort descriptors do
    /// not group the objects by section name.
    private func section(for entry: FetchedEntry, at offset: Int) -> (index: Int, section: FetchedSection, isNew: Bool)? {
        // Without a key path there is one section, always.
        guard isSectioned else { return sections.isEmpty ? nil : (0, sections.element(at: 0), false) }
        let name = entry.sectionName
        let before = offset > 0 ? sections.locate(weight: offset - 1) : nil
        let after = sections.locate(weight: offset)
        if let before, before.element.name == name { return (before.index, before.element, false) }
        if let after, after.element.name == name { return (after.index, after.element, false) }
        if let before, let after, before.element === after.element { return nil }
        // Between the two neighbours' sections there are only weightless ones.
        let start = (before?.index ?? -1) + 1
        let end = after?.index ?? sections.count
        if let existing = sectionsByName[name] {
            guard existing.count == 0 else { return nil }
            for index in start..<max(start, end) where sections.element(at: index) === existing {
                return (index, existing, false)
            }
            return nil
        }
        let section = FetchedSection(name: name, results: self)
        sections.insert(section, at: start)
        sectionsByName[name] = section
        return (start, section, true)
    }

    /// The sort descriptors do not group the objects by section name (or an object was not
    /// found where its sort values say): the results before the change are put together again
    /// from the objects, the change is made on the objects alone and the sections computed
    /// again from them, and the delegate is told that everything was replaced (every old
    /// section and row deleted, every new one inserted), which a table view applies as a
    /// reload. `position` is the change whose arrival failed: those before it had arrived.
    private func recoverInconsistency(_ changes: [FetchedChange], arrivedBefore position: Int? = nil) {
        var leaving: [FetchedEntry] = []
        var arriving: [FetchedEntry] = []
        var arrived = Set<ObjectIdentifier>()
        for (index, change) in changes.enumerated() {
            if change.kind == .delete || change.kind == .move, let old = change.old { leaving.append(old) }
            if change.kind == .insert || change.kind == .move, let new = change.new {
                arriving.append(new)
                if let position, index < position { arrived.insert(ObjectIdentifier(new)) }
            }
        }
        let leavingSet = Set(leaving.map(ObjectIdentifier.init))
        let kept = entries.all.filter { !arrived.contains(ObjectIdentifier($0)) && !leavingSet.contains(ObjectIdentifier($0)) }
        let oldList = (kept + leaving).sorted(by: isBefore)
        let oldSections = runs(of: oldList)
        for section in oldSections { section.isRemoved = true }
        rebuild(from: (kept + arriving).sorted(by: isBefore))
        report(reloadFrom: oldList, sections: oldSections)
    }

    // MARK: Reporting

    /// Tells the delegate of a change: with the difference alone when it implements that
    /// method (and the controller has no sections), otherwise method by method.
    private func report(
        _ changes: [FetchedChange], deletedSections: [(section: FetchedSection, index: Int)],
        insertedSections: [(section: FetchedSection, index: Int)]
    ) {
        guard let delegate else { return }
        let controller = controllerForDelegate()
        if !isSectioned && delegateImplementsDifference != false {
            var steps: [CollectionDifference<NSManagedObjectID>.Change] = []
            for change in changes {
                guard let id = change.object?.objectID else { continue }
                switch change.kind {
                case .delete: steps.append(.remove(offset: change.oldOffset, element: id, associatedWith: nil))
                case .insert: steps.append(.insert(offset: change.newOffset, element: id, associatedWith: nil))
                case .move:
                    steps.append(.remove(offset: change.oldOffset, element: id, associatedWith: change.newOffset))
                    steps.append(.insert(offset: change.newOffset, element: id, associatedWith: change.oldOffset))
                case .update: continue
                }
            }
            if reportDifference(steps, to: delegate, controller: controller) { return }
        }
        isReporting = true
        defer { isReporting = false }
        delegate.controllerWillChangeContent(controller)
        for (section, index) in deletedSections {
            delegate.controller(controller, didChange: section, atSectionIndex: index, for: .delete)
        }
        for (section, index) in insertedSections {
            delegate.controller(controller, didChange: section, atSectionIndex: index, for: .insert)
        }
        for kind in [FetchedChange.Kind.delete, .insert, .move, .update] {
            for change in changes where change.kind == kind {
                guard let object = change.object else { continue }
                let type: NSFetchedResultsChangeType =
                    switch kind {
                    case .delete: .delete
                    case .insert: .insert
                    case .move: .move
                    case .update: .update
                    }
                delegate.controller(
                    controller, didChange: object, at: change.oldIndexPath, for: type, newIndexPath: change.newIndexPath)
            }
        }
        delegate.controllerDidChangeContent(controller)
    }

    /// Tells the delegate that everything was replaced: every old section (with sections)
    /// and every old object deleted, every new section and object inserted. `sections` are the
    /// old sections, whose counts divide `oldEntries`.
    func report(reloadFrom oldEntries: [FetchedEntry], sections oldSections: [FetchedSection]) {
        invalidateCaches()
        guard let delegate else { return }
        let controller = controllerForDelegate()
        let newEntries = entries.all
        if !isSectioned && delegateImplementsDifference != false {
            var steps: [CollectionDifference<NSManagedObjectID>.Change] = []
            for (offset, entry) in oldEntries.enumerated() {
                steps.append(.remove(offset: offset, element: entry.object.objectID, associatedWith: nil))
            }
            for (offset, entry) in newEntries.enumerated() {
                steps.append(.insert(offset: offset, element: entry.object.objectID, associatedWith: nil))
            }
            if reportDifference(steps, to: delegate, controller: controller) { return }
        }
        isReporting = true
        defer { isReporting = false }
        delegate.controllerWillChangeContent(controller)
        let newSections = sectionList
        if isSectioned {
            for (index, section) in oldSections.enumerated() {
                delegate.controller(controller, didChange: section, atSectionIndex: index, for: .delete)
            }
            for (index, section) in newSections.enumerated() {
                delegate.controller(controller, didChange: section, atSectionIndex: index, for: .insert)
            }
        }
        for (entry, path) in zip(oldEntries, Self.indexPaths(counts: oldSections.map(\.count))) {
            delegate.controller(controller, didChange: entry.object, at: path, for: .delete, newIndexPath: nil)
        }
        for (entry, path) in zip(newEntries, Self.indexPaths(counts: newSections.map(\.count))) {
            delegate.controller(controller, didChange: entry.object, at: nil, for: .insert, newIndexPath: path)
        }
        delegate.controllerDidChangeContent(controller)
    }

    /// The index paths of sections of these sizes, in order.
    private static func indexPaths(counts: [Int]) -> [IndexPath] {
        counts.enumerated().flatMap { section, count in (0..<count).map { IndexPath(indexes: [section, $0]) } }
    }

    /// Offers the difference to the delegate; false when it does not implement the method
    /// (its default implementation ran), which is remembered for this delegate.
    private func reportDifference(
        _ steps: [CollectionDifference<NSManagedObjectID>.Change], to delegate: any NSFetchedResultsControllerDelegate,
        controller: NSFetchedResultsController<NSFetchRequestResult>
    ) -> Bool {
        guard let difference = CollectionDifference(steps) else { return false }
        isReporting = true
        defer { isReporting = false }
        differenceReachedDefault = false
        delegate.controller(controller, didChangeContentWith: difference)
        let implemented = !differenceReachedDefault
        delegateImplementsDifference = implemented
        return implemented
    }

    /// The controller the delegate is given: the untyped controller itself, or the untyped
    /// view a typed one keeps (a new view when the typed controller is gone).
    func controllerForDelegate() -> NSFetchedResultsController<NSFetchRequestResult> {
        if let delegateView { return delegateView }
        let view = NSFetchedResultsController<NSFetchRequestResult>(sharing: self)
        delegateView = view
        return view
    }
}
