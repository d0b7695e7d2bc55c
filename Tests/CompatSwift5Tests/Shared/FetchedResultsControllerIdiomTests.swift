import CoreData
import Foundation
import Testing

/// A list screen's data source as apps write it against Apple's SDK: a lazily made
/// `NSFetchedResultsController<TodoEntity>`, Apple's delegate signatures (which take
/// `NSFetchedResultsController<NSFetchRequestResult>`), a comparison of the controller it is
/// given with its own, and UIKit's `IndexPath(row:section:)`, `.row` and `.section`, which
/// Foundation on Linux lacks. Compiled in Swift 5 and in Swift 6 language mode.
final class TodoListDataSource: NSObject, NSFetchedResultsControllerDelegate {
    let context: NSManagedObjectContext
    /// What a table view would have been told, as text.
    var log: [String] = []

    init(context: NSManagedObjectContext) {
        self.context = context
    }

    lazy var fetchedResultsController: NSFetchedResultsController<TodoEntity> = {
        let request: NSFetchRequest<TodoEntity> = TodoEntity.fetchRequest()
        request.sortDescriptors = [
            NSSortDescriptor(key: "isDone", ascending: true),
            NSSortDescriptor(keyPath: \TodoEntity.priority, ascending: false),
        ]
        let controller = NSFetchedResultsController(
            fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "isDone", cacheName: nil)
        controller.delegate = self
        return controller
    }()

    func numberOfSections() -> Int { fetchedResultsController.sections?.count ?? 0 }

    func numberOfRows(inSection section: Int) -> Int {
        guard let sections = fetchedResultsController.sections else { return 0 }
        let sectionInfo = sections[section]
        return sectionInfo.numberOfObjects
    }

    func title(at indexPath: IndexPath) -> String {
        fetchedResultsController.object(at: indexPath).title ?? ""
    }

    func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        guard controller == fetchedResultsController else { return }
        log.append("begin")
    }

    func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: NSFetchedResultsSectionInfo,
        atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType
    ) {
        switch type {
        case .insert: log.append("insert section \(sectionIndex)")
        case .delete: log.append("delete section \(sectionIndex)")
        default: break
        }
    }

    func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
        for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?
    ) {
        switch type {
        case .insert:
            if let newIndexPath { log.append("insert \(newIndexPath.section).\(newIndexPath.row)") }
        case .delete:
            if let indexPath { log.append("delete \(indexPath.section).\(indexPath.row)") }
        case .update:
            if let indexPath, let todo = anObject as? TodoEntity {
                log.append("reload \(indexPath.section).\(indexPath.row) \(todo.title ?? "")")
            }
        case .move:
            if let indexPath, let newIndexPath {
                log.append("move \(indexPath.section).\(indexPath.row) to \(newIndexPath.section).\(newIndexPath.row)")
            }
        }
    }

    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        log.append("end")
    }
}

@Suite("NSFetchedResultsController idioms")
struct FetchedResultsControllerIdiomTests {
    @Test("A list's data source follows the view context through Apple's delegate methods")
    func dataSource() throws {
        let store = try TestStore()
        try store.insert([(title: "low", priority: 1, tags: []), (title: "high", priority: 5, tags: [])])
        let context = store.container.viewContext
        try context.performAndWait {
            let source = TodoListDataSource(context: context)
            try source.fetchedResultsController.performFetch()
            #expect(source.numberOfSections() == 1)
            #expect(source.numberOfRows(inSection: 0) == 2)
            #expect(source.title(at: IndexPath(row: 0, section: 0)) == "high")

            let middle = TodoEntity(context: context)
            middle.title = "middle"
            middle.priority = 3
            context.processPendingChanges()
            #expect(source.log == ["begin", "insert 0.1", "end"])

            source.log = []
            let high = source.fetchedResultsController.object(at: IndexPath(item: 0, section: 0))
            high.isDone = true
            context.processPendingChanges()
            #expect(source.log == ["begin", "insert section 1", "move 0.0 to 1.0", "end"])
            #expect(source.numberOfRows(inSection: 1) == 1)

            source.log = []
            middle.title = "medium"
            try context.save()
            #expect(source.log == ["begin", "reload 0.0 medium", "end"])
            let path = try #require(source.fetchedResultsController.indexPath(forObject: middle))
            #expect(path.section == 0 && path.row == 0 && path.item == 0)
            #expect(source.fetchedResultsController.sections?.map(\.name) == ["0", "1"])
        }
    }
}
