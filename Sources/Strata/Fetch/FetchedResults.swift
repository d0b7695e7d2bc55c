import Foundation

/// One object of a fetched results controller's results, with the values it is ordered and
/// sectioned by as they were when it took its place: a changed object is found again by those,
/// and compared with its new ones to tell a move from an update.
final class FetchedEntry: CountedTreeElement {
    let object: NSManagedObject
    /// The values of the sort descriptors' keys, in stored form (a to-one destination as its
    /// ID), reduced once to what comparisons read (casting them at every comparison was most
    /// of the time of a change).
    var keys: [PredicateSortComparison.SortValue]
    var tie: FetchedTie
    let sectionName: String

    init(object: NSManagedObject, keys: [PredicateSortComparison.SortValue], tie: FetchedTie, sectionName: String) {
        self.object = object
        self.keys = keys
        self.tie = tie
        self.sectionName = sectionName
    }

    var treeWeight: Int { 1 }
}

/// How objects equal in every sort key are ordered, as the store orders them: by row (`Z_PK`),
/// objects not saved yet after the saved ones in the order they were made, and the object's
/// identity last so that no two entries are ever equal.
struct FetchedTie: Comparable {
    var unsaved: Bool
    var number: Int64
    var identity: UInt

    /// The tie of an object as its ID is now.
    init(_ object: NSManagedObject) {
        let id = object.objectID
        unsaved = id.isTemporaryID
        number = id.number
        identity = UInt(bitPattern: ObjectIdentifier(object))
    }

    static func < (a: FetchedTie, b: FetchedTie) -> Bool {
        if a.unsaved != b.unsaved { return !a.unsaved }
        if a.number != b.number { return a.number < b.number }
        return a.identity < b.identity
    }
}

/// A section of the results: a run of objects with the same section name.
final class FetchedSection: CountedTreeElement, NSFetchedResultsSectionInfo {
    let name: String
    var count = 0
    /// Set when the section leaves the results; its `objects` are then empty.
    var isRemoved = false
    /// Its position, valid while the results' list of sections is (see `FetchedResults.sectionList`).
    var listedIndex = 0
    weak var results: FetchedResults?

    init(name: String, results: FetchedResults) {
        self.name = name
        self.results = results
    }

    var treeWeight: Int { count }

    var indexTitle: String? { results?.indexTitle(forSectionName: name) }
    var numberOfObjects: Int { count }
    var objects: [Any]? { results?.objects(of: self) ?? [] }
}

/// A fetched results controller's state, shared by the controller and by the untyped view of it
/// its delegate receives: the request, the ordered objects and sections, and the bookkeeping of
/// a change being reported.
final class FetchedResults {
    let context: NSManagedObjectContext
    let request: any FetchedResultsRequest
    let sectionNameKeyPath: String?
    let cacheName: String?
    /// Whether an object may be a result of the controller (`is ResultType`).
    let accepts: (NSManagedObject) -> Bool
    weak var delegate: (any NSFetchedResultsControllerDelegate)? {
        didSet { delegateImplementsDifference = nil }
    }

    /// The controller the delegate is given; the typed controller keeps it alive.
    weak var delegateView: NSFetchedResultsController<NSFetchRequestResult>?
    /// The typed controller's `sectionIndexTitle(forSectionName:)`, which a subclass may override.
    var defaultIndexTitle: (String) -> String? = FetchedResults.capitalizedInitial

    /// Set by the default implementation of the difference method (the delegate does not
    /// implement it); whether the delegate does, once learned.
    var differenceReachedDefault = false
    var delegateImplementsDifference: Bool?

    private(set) var hasFetched = false
    var plan: FetchPlan?
    /// The sort keys, and the comparison of each as the stored values are compared: a
    /// case-insensitive key keeps its values folded (`[c]`), compared by Unicode scalars.
    var sortKeys: [FetchPlan.SortKey] = []
    var keyComparisons: [FetchPlan.SortComparison] = []
    var sortKeyPaths: [[String]] = []
    var sectionKeyPath: [String]?
    /// The entities whose objects may be results.
    var entities: Set<ObjectIdentifier> = []

    var entries = CountedTree<FetchedEntry>()
    var entriesByObject: [ObjectIdentifier: FetchedEntry] = [:]
    var sections = CountedTree<FetchedSection>()
    var sectionsByName: [String: FetchedSection] = [:]

    private var cachedSectionList: [FetchedSection]?
    private var cachedObjects: [NSManagedObject]?

    /// Notifications that arrived while a change was being reported (a delegate that saves).
    var isReporting = false
    var queued: [Notification] = []
    var observers: [any NSObjectProtocol] = []

    /// The state of a controller before its first fetch.
    init(
        context: NSManagedObjectContext, request: any FetchedResultsRequest, sectionNameKeyPath: String?,
        cacheName: String?, accepts: @escaping (NSManagedObject) -> Bool
    ) {
        self.context = context
        self.request = request
        self.sectionNameKeyPath = sectionNameKeyPath
        self.cacheName = cacheName
        self.accepts = accepts
    }

    deinit {
        for observer in observers { NotificationCenter.default.removeObserver(observer) }
    }

    var isSectioned: Bool { sectionNameKeyPath != nil }

    // MARK: Fetching

    /// Fetches the results anew and computes their sections; the delegate is not told.
    func performFetch() throws {
        // Only a missing list is refused: an empty one is accepted, and the objects then come in
        // the store's order (the tie: saved objects by row, then the unsaved ones).
        guard request.sortDescriptors != nil else {
            throw CoreDataError.make(
                NSCoreDataError, "An instance of NSFetchedResultsController requires a fetch request with sort descriptors")
        }
        guard request.resultType == .managedObjectResultType else {
            throw CoreDataError.make(
                NSCoreDataError,
                "NSFetchedResultsController follows managed objects only; the fetch request's "
                    + "resultType must be .managedObjectResultType")
        }
        let plan = try request.plan(in: context)
        let objects = try request.fetchObjects(in: context)
        self.plan = plan
        sortKeys = plan.sortKeys
        keyComparisons = plan.sortKeys.map { key in
            switch key.comparison {
            case .caseInsensitiveCompare, .localizedCaseInsensitiveCompare: .compare
            default: key.comparison
            }
        }
        sortKeyPaths = plan.sortKeys.map { $0.key.split(separator: ".").map(String.init) }
        sectionKeyPath = sectionNameKeyPath.map { $0.split(separator: ".").map(String.init) }
        entities = Set(plan.entities.map(ObjectIdentifier.init))
        var list = objects.map(makeEntry)
        // The store's order is the controller's (the same comparisons, ties by row); objects of
        // unsaved edits may tie otherwise, and the tree needs exactly its own order.
        if zip(list, list.dropFirst()).contains(where: { !isBefore($0, $1) }) { list.sort(by: isBefore) }
        if isSectioned {
            var seen = Set<String>()
            for (index, entry) in list.enumerated() where index == 0 || list[index - 1].sectionName != entry.sectionName {
                guard seen.insert(entry.sectionName).inserted else {
                    throw CoreDataError.make(
                        NSCoreDataError,
                        "The fetched object at index \(index) has an out of order section name '\(entry.sectionName)'. "
                            + "Objects must be sorted by section name")
                }
            }
        }
        rebuild(from: list)
        hasFetched = true
        if let cacheName { FetchedResultsCaches.remember(cacheName, describing: self) }
        installObservers()
    }

    /// Replaces the objects and sections by those of an ordered list.
    func rebuild(from list: [FetchedEntry]) {
        for section in sections.all { section.isRemoved = true }
        entries = CountedTree(list)
        entriesByObject = Dictionary(uniqueKeysWithValues: list.map { (ObjectIdentifier($0.object), $0) })
        let runs = runs(of: list)
        sectionsByName = [:]
        for section in runs where sectionsByName[section.name] == nil { sectionsByName[section.name] = section }
        sections = CountedTree(runs)
        invalidateCaches()
    }

    /// The sections of an ordered list: its runs of one section name, or one section for all
    /// without a section key path.
    func runs(of list: [FetchedEntry]) -> [FetchedSection] {
        guard isSectioned else {
            let only = FetchedSection(name: "", results: self)
            only.count = list.count
            return [only]
        }
        var runs: [FetchedSection] = []
        for entry in list {
            if let current = runs.last, current.name == entry.sectionName {
                current.count += 1
            } else {
                let section = FetchedSection(name: entry.sectionName, results: self)
                section.count = 1
                runs.append(section)
            }
        }
        return runs
    }

    /// The entry of an object as it is now: its sort values, section name and tie.
    func makeEntry(_ object: NSManagedObject) -> FetchedEntry {
        var keys: [PredicateSortComparison.SortValue] = []
        keys.reserveCapacity(sortKeyPaths.count)
        for (index, path) in sortKeyPaths.enumerated() {
            let value = PredicateSortComparison.SortValue(Self.storedForm(KeyPathValue.value(of: object, at: path)))
            if case .string(let text) = value, keyComparisons[index] != sortKeys[index].comparison {
                keys.append(.string(PredicateSortComparison.caseInsensitiveSortKey(text)))
            } else {
                keys.append(value)
            }
        }
        let name = sectionKeyPath.map { Self.sectionName(of: KeyPathValue.value(of: object, at: $0)) } ?? ""
        return FetchedEntry(object: object, keys: keys, tie: FetchedTie(object), sectionName: name)
    }

    /// A sort value as fetches compare it: a to-one destination by its ID.
    static func storedForm(_ value: Any?) -> Any? {
        (value as? NSManagedObject)?.objectID ?? value
    }

    /// The section name of a value: the string itself, `""` for nil, Booleans as `1` and `0`
    /// (an `NSNumber`'s description, which Apple's names show), other values as they print.
    static func sectionName(of value: Any?) -> String {
        switch value {
        case nil, is NSNull: ""
        case let text as String: text
        case let flag as Bool: flag ? "1" : "0"
        case let value?: String(describing: value)
        }
    }

    /// The default index title: the name's first letter, capitalized.
    static func capitalizedInitial(_ name: String) -> String? {
        name.first.map { String($0).capitalized }
    }

    // MARK: Order

    /// The order of the results: the sort descriptors, then the tie.
    func compare(_ a: FetchedEntry, _ b: FetchedEntry) -> ComparisonResult {
        for (index, key) in sortKeys.enumerated() {
            let result = PredicateSortComparison.compareValues(a.keys[index], b.keys[index], using: keyComparisons[index])
            if result != .orderedSame {
                return key.ascending ? result : (result == .orderedAscending ? .orderedDescending : .orderedAscending)
            }
        }
        return a.tie < b.tie ? .orderedAscending : (b.tie < a.tie ? .orderedDescending : .orderedSame)
    }

    /// Whether `a` comes before `b` in the results.
    func isBefore(_ a: FetchedEntry, _ b: FetchedEntry) -> Bool { compare(a, b) == .orderedAscending }

    /// Whether two entries of one object sort alike (equal under every sort comparison).
    func sameSortValues(_ a: FetchedEntry, _ b: FetchedEntry) -> Bool {
        for index in sortKeys.indices
        where PredicateSortComparison.compareValues(a.keys[index], b.keys[index], using: keyComparisons[index]) != .orderedSame {
            return false
        }
        return true
    }

    /// Where an entry would go (the first position at or after it).
    func insertionOffset(of entry: FetchedEntry) -> Int {
        entries.firstIndex { !self.isBefore($0, entry) }
    }

    /// The position of an entry that is in the results.
    func offset(of entry: FetchedEntry) -> Int? {
        let offset = insertionOffset(of: entry)
        guard offset < entries.count, entries.element(at: offset) === entry else { return nil }
        return offset
    }

    /// The index path of a position.
    func indexPath(atOffset offset: Int) -> IndexPath? {
        guard let (index, _, start) = sections.locate(weight: offset) else { return nil }
        return IndexPath(indexes: [index, offset - start])
    }

    /// The position of an index path, if it is one of the results.
    func offset(of indexPath: IndexPath) -> Int? {
        guard indexPath.count == 2, indexPath[0] >= 0, indexPath[0] < sections.count, indexPath[1] >= 0 else { return nil }
        let section = sections.element(at: indexPath[0])
        guard indexPath[1] < section.count else { return nil }
        return sections.weight(before: indexPath[0]) + indexPath[1]
    }

    // MARK: Reading

    /// The results in order (kept until the next change).
    var fetchedObjects: [NSManagedObject]? {
        guard hasFetched else { return nil }
        if let cachedObjects { return cachedObjects }
        let objects = entries.all.map(\.object)
        cachedObjects = objects
        return objects
    }

    /// The sections in order (kept until the next change), each knowing its position.
    var sectionList: [FetchedSection] {
        if let cachedSectionList { return cachedSectionList }
        let list = sections.all
        for (index, section) in list.enumerated() { section.listedIndex = index }
        cachedSectionList = list
        return list
    }

    /// Counts the changes of the results, so that copies made of them know when they are stale.
    private(set) var generation = 0

    /// Forgets the lists made of the results, after they changed.
    func invalidateCaches() {
        cachedSectionList = nil
        cachedObjects = nil
        generation += 1
    }

    /// A section's objects in order.
    func objects(of section: FetchedSection) -> [Any] {
        guard !section.isRemoved else { return [] }
        let list = sectionList
        guard section.listedIndex < list.count, list[section.listedIndex] === section else { return [] }
        let start = sections.weight(before: section.listedIndex)
        return entries.elements(in: start..<start + section.count).map(\.object)
    }

    /// A section's index title: the delegate's, else the controller's.
    func indexTitle(forSectionName name: String) -> String? {
        if let delegate, let view = delegateView,
            let title = delegate.controller(view, sectionIndexTitleForSectionName: name)
        {
            return title
        }
        return defaultIndexTitle(name)
    }
}

/// What the controller needs of its fetch request, whatever its result type.
protocol FetchedResultsRequest: AnyObject {
    var sortDescriptors: [NSSortDescriptor]? { get }
    var resultType: NSFetchRequestResultType { get }
    var entityName: String? { get }
    var predicate: NSPredicate? { get }
    /// The request's results in a context, as managed objects.
    func fetchObjects(in context: NSManagedObjectContext) throws -> [NSManagedObject]
    /// The request as the context plans it: entity, predicate and sort keys checked and parsed.
    func plan(in context: NSManagedObjectContext) throws -> FetchPlan
}

extension NSFetchRequest: FetchedResultsRequest {
    func fetchObjects(in context: NSManagedObjectContext) throws -> [NSManagedObject] {
        try context.fetch(self).compactMap { $0 as? NSManagedObject }
    }

    func plan(in context: NSManagedObjectContext) throws -> FetchPlan { try context.fetchPlan(for: self) }
}

/// The section caches by name. Strata keeps them in memory, for the process's life: what a
/// name recorded is the configuration it was used with, and every `performFetch()` computes
/// the sections again.
enum FetchedResultsCaches {
    private static let names = Protected([String: String]())

    /// Records the configuration a cache name was used with.
    static func remember(_ name: String, describing results: FetchedResults) {
        let description =
            "\(results.request.entityName ?? "") \(results.request.predicate?.description ?? "") "
            + "\(results.sortKeys.map { "\($0.key) \($0.ascending) \($0.comparison.rawValue)" }) "
            + "\(results.sectionNameKeyPath ?? "")"
        names.withLock { $0[name] = description }
    }

    /// Forgets a cache name, or all of them for `nil`.
    static func delete(_ name: String?) {
        names.withLock { names in
            if let name { names[name] = nil } else { names.removeAll() }
        }
    }

    /// Whether a cache name is recorded.
    static func contains(_ name: String) -> Bool { names.withLock { $0[name] != nil } }
}
