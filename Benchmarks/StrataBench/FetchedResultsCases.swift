import Foundation
import Strata

/// B12: a fetched results controller over the `fetched` items (100k), in 100 sections by
/// category and ordered by price, handling one changed object at a time: each operation
/// changes one object (a price, which moves it; a name, which updates it; a category, which
/// moves it to another section; a new item; a deleted one) and runs `processPendingChanges()`,
/// which posts the change the controller handles and reports to its delegate. The fetch and
/// the controller's first sort are made before the clock. Strata alone: SQLite and GRDB have
/// no live results to compare with; the goal is a time per change (SPEC §5: under 1 ms).
enum FetchedResultsCases {
    /// Changes per trial.
    static func changes(_ sizes: Sizes) -> Int { max(20, min(200, sizes.fetched / 500)) }

    /// Counts the delegate's callbacks, and sums their new rows, into the checksum.
    final class Counter: NSFetchedResultsControllerDelegate {
        var value = 0

        func controller(
            _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any,
            at indexPath: IndexPath?, for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?
        ) {
            value &+= Int(type.rawValue) &+ (newIndexPath?.row ?? 0)
        }

        func controller(
            _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: NSFetchedResultsSectionInfo,
            atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType
        ) {
            value &+= 1_000 &* Int(type.rawValue)
        }

        func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
            value &+= 1
        }
    }

    /// One trial: the controller made and fetched, then `changes` changes timed.
    static func strata(_ fixtures: Fixtures) throws -> Sample {
        let stack = try StrataCases.Stack(fixtures.items)
        defer { stack.close() }
        let context = stack.context
        let counter = Counter()
        let (controller, items) = try context.performAndWait {
            let request = StrataCases.items()
            request.predicate = NSPredicate(format: "quantity >= 0")
            request.sortDescriptors = [
                NSSortDescriptor(key: "category", ascending: true), NSSortDescriptor(key: "price", ascending: true),
            ]
            let controller = NSFetchedResultsController(
                fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "category", cacheName: nil)
            controller.delegate = counter
            try controller.performFetch()
            // The objects to change, from a fetch of their own: the controller's `fetchedObjects`
            // would keep an array of all 100k, which the first change then frees (an O(n) cost
            // that an app pays each time it reads that array, not each change).
            return (controller, try context.fetch(StrataCases.items()))
        }
        let count = changes(fixtures.sizes)
        let size = fixtures.sizes.fetched
        return try withExtendedLifetime(controller) {
            try measure {
                context.performAndWait {
                    for change in 0..<count {
                        let item = items[(change &* 7_919) % items.count]
                        switch change % 5 {
                        case 0: item.price += 1.5
                        case 1: item.name = ItemValues.modifiedName(item.name ?? "")
                        case 2: item.category = Int16((Int(item.category) + 37) % 100)
                        case 3:
                            let values = ItemValues(size + change + 1)
                            let inserted = Item(context: context)
                            inserted.category = values.category
                            inserted.price = values.price
                            inserted.serial = values.serial
                            inserted.name = values.name
                        default: context.delete(item)
                        }
                        context.processPendingChanges()
                    }
                    return counter.value
                }
            }
        }
    }
}

extension Catalog {
    /// B12's line: a time per change, against an absolute goal.
    static func fetchedResults(_ sizes: Sizes) -> [TimedCase] {
        [
            TimedCase(
                id: "B12",
                work: "controller over \(Report.count(sizes.fetched)), one changed object",
                goal: .perOperation(milliseconds: 1), operations: FetchedResultsCases.changes(sizes),
                runs: [.strata: FetchedResultsCases.strata])
        ]
    }
}
