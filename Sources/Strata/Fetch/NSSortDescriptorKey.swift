import Foundation

#if !canImport(Darwin)
    /// The name of a comparison method, as sort descriptors name theirs
    /// (`Selector("localizedStandardCompare:")`). Linux has no Objective-C selectors, so
    /// `#selector(…)` is not available; the name is written as a string.
    public struct Selector: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
        public let name: String
        public init(_ name: String) { self.name = name }
        public init(stringLiteral name: String) { self.name = name }
        public var description: String { name }
    }
#endif

/// `NSSortDescriptor(key:ascending:)`, as Core Data code writes sort descriptors.
///
/// Foundation on Linux has `NSSortDescriptor` with key-path initialisers only. Strata adds
/// Apple's key-based initialisers to Foundation's own class (declaring a second class of the
/// same name would make `[NSSortDescriptor]` ambiguous in files that import both modules),
/// and keeps the key beside the descriptor.
extension NSSortDescriptor {
    /// A descriptor that orders by the value of `key` (a property name or key path).
    public convenience init(key: String?, ascending: Bool) {
        self.init(keyPath: \String.count, ascending: ascending)
        SortDescriptorKeys.set(SortDescriptorKeys.Entry(key: key, selector: nil), for: self)
    }

    /// A descriptor that orders by `key`, comparing values with the named method:
    /// `compare:`, `caseInsensitiveCompare:`, `localizedCompare:`,
    /// `localizedCaseInsensitiveCompare:` or `localizedStandardCompare:`.
    public convenience init(key: String?, ascending: Bool, selector: Selector?) {
        self.init(keyPath: \String.count, ascending: ascending)
        SortDescriptorKeys.set(SortDescriptorKeys.Entry(key: key, selector: selector.map { "\($0)" }), for: self)
    }

    /// A descriptor that orders managed objects by the property a key path names, also when
    /// the property's type is optional (`\Todo.createdAt` of type `Date?`), as Xcode's
    /// templates write it. (Foundation's initializer takes only `Comparable` values; that one
    /// is used for them, and `key` names its property as well.)
    @_disfavoredOverload
    public convenience init<Root: NSManagedObject, Value>(keyPath: KeyPath<Root, Value>, ascending: Bool) {
        self.init(keyPath: \String.count, ascending: ascending)
        SortDescriptorKeys.set(SortDescriptorKeys.Entry(key: Root._predicateKeyName(for: keyPath), selector: nil), for: self)
    }

    /// The key the descriptor orders by: the one it was made with, or the property its key
    /// path names.
    public var key: String? {
        if let entry = SortDescriptorKeys.entry(for: self) { return entry.key }
        let path: AnyKeyPath = keyPath
        if let root = type(of: path).rootType as? NSManagedObject.Type { return root._predicateKeyName(for: path) }
        return FoundationPredicateKeyPaths.path(fromDescription: String(describing: path), rootType: type(of: path).rootType)
    }

    /// The name of the comparison method, when one was given.
    public var selectorName: String? { SortDescriptorKeys.entry(for: self)?.selector }
}

/// The keys of sort descriptors made with `init(key:ascending:)`.
enum SortDescriptorKeys {
    struct Entry {
        var key: String?
        var selector: String?
    }

    private final class Box: @unchecked Sendable {
        weak var descriptor: NSSortDescriptor?
        let entry: Entry
        init(_ descriptor: NSSortDescriptor, _ entry: Entry) {
            self.descriptor = descriptor
            self.entry = entry
        }
    }

    private static let entries = Protected([ObjectIdentifier: Box]())

    static func set(_ entry: Entry, for descriptor: NSSortDescriptor) {
        entries.withLock { entries in
            if entries.count > 256 { entries = entries.filter { $0.value.descriptor != nil } }
            entries[ObjectIdentifier(descriptor)] = Box(descriptor, entry)
        }
    }

    static func entry(for descriptor: NSSortDescriptor) -> Entry? {
        entries.withLock { entries in
            guard let box = entries[ObjectIdentifier(descriptor)], box.descriptor === descriptor else { return nil }
            return box.entry
        }
    }
}
