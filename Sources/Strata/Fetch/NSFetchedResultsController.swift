import Foundation

/// The results of a fetch request kept current as the context changes, in sections, for a
/// list or table: Core Data's fetched results controller.
///
/// ```swift
/// let request = NSFetchRequest<Todo>(entityName: "Todo")
/// request.sortDescriptors = [NSSortDescriptor(key: "list.name", ascending: true),
///                            NSSortDescriptor(key: "createdAt", ascending: false)]
/// let controller = NSFetchedResultsController(
///     fetchRequest: request, managedObjectContext: context,
///     sectionNameKeyPath: "list.name", cacheName: nil)
/// controller.delegate = self
/// try controller.performFetch()
/// let first = controller.object(at: IndexPath(row: 0, section: 0))
/// ```
///
/// The request needs at least one sort descriptor; with a `sectionNameKeyPath`, the first
/// descriptor must order the objects by section (its key is the section key path, or orders
/// alike). After `performFetch()`, a controller with a delegate follows its context: the
/// context's own changes (at each `processPendingChanges()`, which `save()` also runs) and
/// changes merged from other contexts' saves and from batch requests. Each change of the
/// results is reported to the delegate as one batch, costing O(log n) per changed object (the
/// objects are kept in a B-tree ordered by their sort values).
///
/// Use it on its context's queue, as the context itself.
open class NSFetchedResultsController<ResultType>: NSObject {
    let results: FetchedResults
    /// The untyped view given to the delegate, kept as long as this controller.
    private var erasedView: NSFetchedResultsController<NSFetchRequestResult>?

    /// The request the controller fetches with. Do not change it while a cache name is set;
    /// after changing it, call `performFetch()` again.
    public let fetchRequest: NSFetchRequest<ResultType>
    /// The context the controller fetches in and follows.
    public var managedObjectContext: NSManagedObjectContext { results.context }
    /// The key path whose value names each object's section; `nil` for one section.
    public var sectionNameKeyPath: String? { results.sectionNameKeyPath }
    /// The name under which section information is cached.
    public var cacheName: String? { results.cacheName }

    /// Told of every change of the results. Without a delegate, the controller does not
    /// follow its context (as in Core Data): the results stay as `performFetch()` left them.
    public weak var delegate: (any NSFetchedResultsControllerDelegate)? {
        get { results.delegate }
        set { results.delegate = newValue }
    }

    /// A controller for a request in a context; nothing is fetched until `performFetch()`.
    public init(
        fetchRequest: NSFetchRequest<ResultType>, managedObjectContext context: NSManagedObjectContext,
        sectionNameKeyPath: String?, cacheName name: String?
    ) {
        self.fetchRequest = fetchRequest
        results = FetchedResults(
            context: context, request: fetchRequest, sectionNameKeyPath: sectionNameKeyPath, cacheName: name,
            accepts: { $0 is ResultType })
        super.init()
        results.defaultIndexTitle = { [weak self] name in
            self.map { $0.sectionIndexTitle(forSectionName: name) } ?? FetchedResults.capitalizedInitial(name)
        }
        if let untyped = self as? NSFetchedResultsController<NSFetchRequestResult> {
            results.delegateView = untyped
        } else {
            let view = NSFetchedResultsController<NSFetchRequestResult>(sharing: results)
            erasedView = view
            results.delegateView = view
        }
    }

    /// An untyped controller sharing a typed one's results (what its delegate is given).
    init(sharing results: FetchedResults) {
        self.results = results
        fetchRequest = Self.untypedCopy(of: results.request)
        super.init()
    }

    /// The request as `NSFetchRequest<ResultType>`: the same request when it is one, else a
    /// copy of what it fetches (Swift cannot view an `NSFetchRequest<Todo>` as another type).
    private static func untypedCopy(of request: any FetchedResultsRequest) -> NSFetchRequest<ResultType> {
        if let same = request as? NSFetchRequest<ResultType> { return same }
        let copy = NSFetchRequest<ResultType>()
        copy.entityName = request.entityName
        copy.predicate = request.predicate
        copy.sortDescriptors = request.sortDescriptors
        return copy
    }

    /// Fetches the results and computes their sections.
    ///
    /// Throws `NSCoreDataError` (134060) when the request's `sortDescriptors` is `nil` (Apple
    /// raises an exception; an empty list is accepted, the objects then in store order), when
    /// its result type is not managed objects, and when the objects are not grouped by section
    /// name ("The fetched object at index 5 has an out of order section
    /// name 'B'. Objects must be sorted by section name", as Apple's error says); and the
    /// fetch's own errors.
    open func performFetch() throws {
        try results.performFetch()
    }

    /// Deletes the cached section information of a name, or all of it for `nil`. Strata keeps
    /// the caches in memory only; `performFetch()` computes the sections every time.
    open class func deleteCache(withName name: String?) {
        FetchedResultsCaches.delete(name)
    }

    // MARK: Objects

    /// The results in order; `nil` before `performFetch()`.
    public var fetchedObjects: [ResultType]? {
        guard let objects = results.fetchedObjects else { return nil }
        if let typedObjects, typedObjects.generation == results.generation { return typedObjects.objects }
        let typed = objects.compactMap { $0 as? ResultType }
        typedObjects = (results.generation, typed)
        return typed
    }
    private var typedObjects: (generation: Int, objects: [ResultType])?

    /// The object at an index path (section, row).
    ///
    /// An index path outside the results stops the program, as Apple's controller raises an
    /// exception for it ("no object at index … in section at index …").
    open func object(at indexPath: IndexPath) -> ResultType {
        guard let offset = results.offset(of: indexPath) else {
            preconditionFailure(
                "NSFetchedResultsController: no object at index \(indexPath.count > 1 ? indexPath[1] : -1) "
                    + "in section at index \(indexPath.first ?? -1)")
        }
        guard let object = results.entries.element(at: offset).object as? ResultType else {
            preconditionFailure("NSFetchedResultsController: a result is not a \(ResultType.self)")
        }
        return object
    }

    /// The index path of an object, or `nil` when it is not one of the results.
    open func indexPath(forObject object: ResultType) -> IndexPath? {
        guard let managed = object as? NSManagedObject, let entry = results.entriesByObject[ObjectIdentifier(managed)],
            let offset = results.offset(of: entry)
        else { return nil }
        return results.indexPath(atOffset: offset)
    }

    // MARK: Sections

    /// The sections in order; `nil` before `performFetch()`. Without a `sectionNameKeyPath`
    /// there is one section, named `""`, even when it is empty.
    public var sections: [any NSFetchedResultsSectionInfo]? {
        guard results.hasFetched else { return nil }
        return results.sectionList.map { $0 }
    }

    /// The index title of a section name: the name's first letter, capitalized (`nil` for
    /// an empty name). A delegate's `controller(_:sectionIndexTitleForSectionName:)` comes first.
    open func sectionIndexTitle(forSectionName sectionName: String) -> String? {
        FetchedResults.capitalizedInitial(sectionName)
    }

    /// The titles of a table view's section index: the sections' index titles in order, each
    /// once.
    open var sectionIndexTitles: [String] {
        var seen = Set<String>()
        return results.sectionList.compactMap(\.indexTitle).filter { seen.insert($0).inserted }
    }

    /// The section a table view's index entry leads to: the first section with the title.
    ///
    /// Apple raises an exception when the title is not the one at `sectionIndex` in
    /// `sectionIndexTitles`; Strata answers with the first section of the title, else the
    /// section of the index's title, else the nearest section.
    open func section(forSectionIndexTitle title: String, at sectionIndex: Int) -> Int {
        let list = results.sectionList
        if let section = list.firstIndex(where: { $0.indexTitle == title }) { return section }
        let titles = sectionIndexTitles
        if titles.indices.contains(sectionIndex),
            let section = list.firstIndex(where: { $0.indexTitle == titles[sectionIndex] })
        {
            return section
        }
        return max(0, min(sectionIndex, list.count - 1))
    }

    // MARK: Identity

    /// Controllers are equal when they share their results: a typed controller and the
    /// untyped view its delegate receives (`controller == self.fetchedResultsController`).
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSObject else { return false }
        return (other as? any FetchedResultsSharing)?.sharedResults === results
    }

    open override var hash: Int { ObjectIdentifier(results).hashValue }
}

/// What lets controllers of different result types compare their results.
protocol FetchedResultsSharing {
    var sharedResults: FetchedResults { get }
}

extension NSFetchedResultsController: FetchedResultsSharing {
    var sharedResults: FetchedResults { results }
}
