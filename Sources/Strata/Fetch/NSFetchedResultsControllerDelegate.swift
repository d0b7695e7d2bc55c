import Foundation

/// The kinds of change a fetched results controller reports. Raw values are Core Data's.
public enum NSFetchedResultsChangeType: UInt, Sendable {
    /// An object (or section) entered the results.
    case insert = 1
    /// An object (or section) left the results.
    case delete = 2
    /// An object changed place: a value it is sorted or sectioned by changed.
    case move = 3
    /// An object changed without changing place.
    case update = 4
}

/// A section of a fetched results controller's results, as a table view shows one.
public protocol NSFetchedResultsSectionInfo {
    /// The section's name: the value at the controller's `sectionNameKeyPath` of its objects
    /// (`""` for `nil`, and for the one section of a controller without a key path).
    var name: String { get }
    /// The section's entry in a table view's section index.
    var indexTitle: String? { get }
    /// How many objects the section holds.
    var numberOfObjects: Int { get }
    /// The section's objects, in order.
    var objects: [Any]? { get }
}

/// What a fetched results controller tells its delegate when its results change, in the order a
/// table view applies them: `controllerWillChangeContent(_:)`, the sections that were deleted
/// (at their old indexes) and inserted (at their new ones), the objects that were deleted (old
/// index paths), inserted (new index paths), moved (old to new) and updated (old index path,
/// and the new one as `newIndexPath`), then `controllerDidChangeContent(_:)`.
///
/// Every method is optional (each has an empty default implementation), as in Core Data.
///
/// ```swift
/// final class TodoList: NSObject, NSFetchedResultsControllerDelegate {
///     func controller(
///         _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any,
///         at indexPath: IndexPath?, for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?
///     ) {
///         switch type {
///         case .insert: if let newIndexPath { tableView.insertRows(at: [newIndexPath]) }
///         case .delete: if let indexPath { tableView.deleteRows(at: [indexPath]) }
///         case .move: if let indexPath, let newIndexPath { tableView.moveRow(at: indexPath, to: newIndexPath) }
///         case .update: if let indexPath { tableView.reloadRows(at: [indexPath]) }
///         }
///     }
/// }
/// ```
///
/// The controller passed to each method is an `NSFetchedResultsController<NSFetchRequestResult>`,
/// as Apple's signatures say: for a typed controller (`NSFetchedResultsController<Todo>`) it is
/// an untyped view of it that shares its results and compares equal to it with `==`.
public protocol NSFetchedResultsControllerDelegate: AnyObject {
    /// Changes are about to be reported.
    func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>)

    /// An object entered, left, moved within or changed in the results. `indexPath` is its
    /// index path before the changes (nil for an insert), `newIndexPath` after them (nil for a
    /// delete).
    func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any,
        at indexPath: IndexPath?, for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?)

    /// A section was inserted (at its new index) or deleted (at its old index). Section changes
    /// are reported before object changes.
    func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: NSFetchedResultsSectionInfo,
        atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType)

    /// Every change has been reported.
    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>)

    /// The index title of a section name; `nil` leaves it to the controller's
    /// `sectionIndexTitle(forSectionName:)` (the name's capitalized first letter).
    func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>, sectionIndexTitleForSectionName sectionName: String
    ) -> String?

    /// The whole change as a difference of the results' object IDs (Apple's iOS 13 form). Only
    /// for a controller without `sectionNameKeyPath`; a delegate that implements it is told
    /// nothing else of the change. Updates that move nothing are not part of a difference.
    func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>,
        didChangeContentWith diff: CollectionDifference<NSManagedObjectID>)
}

/// Every method is optional, as in Core Data: these do nothing.
extension NSFetchedResultsControllerDelegate {
    public func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {}

    public func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any,
        at indexPath: IndexPath?, for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?
    ) {}

    public func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: NSFetchedResultsSectionInfo,
        atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType
    ) {}

    public func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {}

    public func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>, sectionIndexTitleForSectionName sectionName: String
    ) -> String? { nil }

    /// Not implemented by the delegate: the controller learns so from this default running, and
    /// reports the change through the other methods instead.
    public func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>,
        didChangeContentWith diff: CollectionDifference<NSManagedObjectID>
    ) {
        controller.results.differenceReachedDefault = true
    }
}
