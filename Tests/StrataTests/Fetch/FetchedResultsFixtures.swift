import Foundation
import Testing

@testable import Strata

/// Notes in topics, for the fetched results controller's tests: a note's section is its
/// topic's name (a key path through a to-one), it is ordered by topic, then rank, then serial
/// (unique, so that every order is total), and `shown` is what predicates filter on.
enum FetchedNotes {
    static func model() -> NSManagedObjectModel {
        NSManagedObjectModel {
            Entity("Topic") {
                Attribute("name", .stringAttributeType)
                Relationship("notes", to: "Note", inverse: "topic", toMany: true)
            }
            Entity("Note") {
                Attribute("title", .stringAttributeType)
                Attribute("rank", .integer64AttributeType, optional: false, defaultValue: Int64(0))
                Attribute("serial", .integer64AttributeType, optional: false, defaultValue: Int64(0))
                Attribute("shown", .booleanAttributeType, optional: false, defaultValue: true)
                Attribute("body", .stringAttributeType)
                Relationship("topic", to: "Topic", inverse: "notes")
            }
        }
    }

    /// A request for the notes in section order.
    static func request(predicate: NSPredicate? = nil) -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Note")
        request.predicate = predicate
        request.sortDescriptors = [
            NSSortDescriptor(key: "topic.name", ascending: true), NSSortDescriptor(key: "rank", ascending: true),
            NSSortDescriptor(key: "serial", ascending: true),
        ]
        return request
    }

    /// A controller over the notes, fetched, with a recorder as its delegate.
    static func controller(
        in context: NSManagedObjectContext, predicate: NSPredicate? = nil, sections: Bool = true
    ) throws -> (NSFetchedResultsController<NSManagedObject>, DelegateRecorder) {
        let controller = NSFetchedResultsController(
            fetchRequest: request(predicate: predicate), managedObjectContext: context,
            sectionNameKeyPath: sections ? "topic.name" : nil, cacheName: nil)
        let recorder = DelegateRecorder()
        controller.delegate = recorder
        try controller.performFetch()
        return (controller, recorder)
    }

    static func topic(_ name: String, in context: NSManagedObjectContext) -> NSManagedObject {
        let topic = NSEntityDescription.insertNewObject(forEntityName: "Topic", into: context)
        topic.setValue(name, forKey: "name")
        return topic
    }

    @discardableResult
    static func note(
        _ title: String, topic: NSManagedObject?, rank: Int64, serial: Int64, shown: Bool = true,
        in context: NSManagedObjectContext
    ) -> NSManagedObject {
        let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
        note.setValue(title, forKey: "title")
        note.setValue(rank, forKey: "rank")
        note.setValue(serial, forKey: "serial")
        note.setValue(shown, forKey: "shown")
        note.setValue(topic, forKey: "topic")
        return note
    }

    /// Three topics (a, b, c) with notes a1 a2 | b1 b2 b3 | c1, saved.
    static func seed(_ context: NSManagedObjectContext) throws -> [String: NSManagedObject] {
        var objects: [String: NSManagedObject] = [:]
        for name in ["a", "b", "c"] { objects[name] = topic(name, in: context) }
        let rows: [(String, String, Int64)] = [
            ("a1", "a", 1), ("a2", "a", 2), ("b1", "b", 1), ("b2", "b", 2), ("b3", "b", 3), ("c1", "c", 1),
        ]
        for (serial, row) in rows.enumerated() {
            objects[row.0] = note(row.0, topic: objects[row.1], rank: row.2, serial: Int64(serial), in: context)
        }
        try context.save()
        return objects
    }

    /// The titles of a controller's sections, section by section.
    static func titles(_ controller: NSFetchedResultsController<NSManagedObject>) -> [[String]] {
        (controller.sections ?? []).map { section in
            (section.objects ?? []).map { ($0 as? NSManagedObject)?.value(forKey: "title") as? String ?? "?" }
        }
    }
}

/// A delegate that writes down every call, in order.
final class DelegateRecorder: NSFetchedResultsControllerDelegate {
    enum Call: Equatable, CustomStringConvertible {
        case willChange
        case section(String, Int, NSFetchedResultsChangeType)
        case object(String, IndexPath?, NSFetchedResultsChangeType, IndexPath?)
        case didChange

        var description: String {
            switch self {
            case .willChange: "will"
            case .section(let name, let index, let type): "section \(name) \(index) \(type)"
            case .object(let title, let old, let type, let new):
                "\(title) \(old.map { "\($0)" } ?? "-") \(type) \(new.map { "\($0)" } ?? "-")"
            case .didChange: "did"
            }
        }
    }

    var calls: [Call] = []
    /// The controllers the calls were made with.
    var controllers: [NSFetchedResultsController<NSFetchRequestResult>] = []

    func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        calls.append(.willChange)
        controllers.append(controller)
    }

    func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: NSFetchedResultsSectionInfo,
        atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType
    ) {
        calls.append(.section(sectionInfo.name, sectionIndex, type))
    }

    func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
        for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?
    ) {
        let title = (anObject as? NSManagedObject)?.value(forKey: "title") as? String ?? "?"
        calls.append(.object(title, indexPath, type, newIndexPath))
    }

    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        calls.append(.didChange)
    }

    /// The calls since the last time, and forgets them.
    func take() -> [Call] {
        defer { calls = [] }
        return calls
    }
}

/// A table view's copy of the results: sections of object identities, changed as UIKit's
/// `performBatchUpdates` applies a controller's callbacks (deletes and moves out at their
/// old index paths, sections deleted at old indexes, then sections inserted and rows inserted
/// and moved in at their new index paths), with every rule a table view checks.
final class TableMirror: NSFetchedResultsControllerDelegate {
    struct Section: Equatable {
        var name: String
        var rows: [ObjectIdentifier]
    }

    var sections: [Section]
    private var deletedRows: [IndexPath] = []
    private var deletedSections: [Int] = []
    private var insertedSections: [(Int, String)] = []
    private var insertedRows: [(IndexPath, ObjectIdentifier)] = []
    private var updatedRows: [(IndexPath, IndexPath?, ObjectIdentifier)] = []
    /// What a table view would have refused.
    var problems: [String] = []
    var batches = 0

    init(_ controller: NSFetchedResultsController<NSManagedObject>) {
        sections = Self.sections(of: controller)
    }

    static func sections(of controller: NSFetchedResultsController<NSManagedObject>) -> [Section] {
        (controller.sections ?? []).map { section in
            Section(name: section.name, rows: (section.objects ?? []).map { ObjectIdentifier($0 as AnyObject) })
        }
    }

    func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        deletedRows = []
        deletedSections = []
        insertedSections = []
        insertedRows = []
        updatedRows = []
    }

    func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: NSFetchedResultsSectionInfo,
        atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType
    ) {
        switch type {
        case .delete: deletedSections.append(sectionIndex)
        case .insert: insertedSections.append((sectionIndex, sectionInfo.name))
        default: problems.append("section change \(type)")
        }
    }

    func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
        for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?
    ) {
        let identity = ObjectIdentifier(anObject as AnyObject)
        switch type {
        case .delete:
            guard let indexPath, newIndexPath == nil else { return problems.append("delete without old path") }
            deletedRows.append(indexPath)
        case .insert:
            guard indexPath == nil, let newIndexPath else { return problems.append("insert without new path") }
            insertedRows.append((newIndexPath, identity))
        case .move:
            guard let indexPath, let newIndexPath else { return problems.append("move without both paths") }
            deletedRows.append(indexPath)
            insertedRows.append((newIndexPath, identity))
        case .update:
            guard let indexPath else { return problems.append("update without old path") }
            updatedRows.append((indexPath, newIndexPath, identity))
        }
    }

    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        batches += 1
        // Reloads name rows as they were before the update.
        for (old, _, identity) in updatedRows {
            if row(at: old) != identity { problems.append("update of \(old) names another row") }
        }
        if Set(deletedRows).count != deletedRows.count { problems.append("a row deleted twice") }
        if Set(deletedSections).count != deletedSections.count { problems.append("a section deleted twice") }
        let goneSections = Set(deletedSections)
        for path in deletedRows where row(at: path) == nil { problems.append("no row at \(path) to delete") }
        // Rows out, from the last; then sections out, from the last.
        for path in deletedRows.sorted(by: >) where path[0] < sections.count && path[1] < sections[path[0]].rows.count {
            sections[path[0]].rows.remove(at: path[1])
        }
        for index in goneSections.sorted(by: >) {
            guard index < sections.count else {
                problems.append("no section \(index) to delete")
                continue
            }
            if !sections[index].rows.isEmpty { problems.append("section \(index) deleted with rows not deleted") }
            sections.remove(at: index)
        }
        // Sections in, then rows in, in ascending order of their final positions.
        for (index, name) in insertedSections.sorted(by: { $0.0 < $1.0 }) {
            guard index <= sections.count else {
                problems.append("section \(index) inserted past the end")
                continue
            }
            sections.insert(Section(name: name, rows: []), at: index)
        }
        for (path, identity) in insertedRows.sorted(by: { $0.0 < $1.0 }) {
            guard path[0] < sections.count, path[1] <= sections[path[0]].rows.count else {
                problems.append("row \(path) inserted past the end")
                continue
            }
            sections[path[0]].rows.insert(identity, at: path[1])
        }
        for (_, new, identity) in updatedRows {
            if let new, row(at: new) != identity { problems.append("update's new path \(new) names another row") }
        }
    }

    private func row(at path: IndexPath) -> ObjectIdentifier? {
        guard path.count == 2, path[0] < sections.count, path[1] < sections[path[0]].rows.count else { return nil }
        return sections[path[0]].rows[path[1]]
    }
}
