import Foundation

/// `NSSortDescriptor(key:ascending:)`, as Core Data code writes sort descriptors.
///
/// Foundation on Linux has `NSSortDescriptor` with key-path initialisers only. Strata adds
/// Apple's key-based initialiser to Foundation's own class (declaring a second class of the
/// same name would make `[NSSortDescriptor]` ambiguous in files that import both modules),
/// and keeps the key beside the descriptor.
extension NSSortDescriptor {
    /// A descriptor that orders by the value of `key` (a property name or key path).
    public convenience init(key: String?, ascending: Bool) {
        self.init(keyPath: \String.count, ascending: ascending)
        SortDescriptorKeys.set(key, for: self)
    }

    /// The key the descriptor orders by, when it was made with one.
    public var key: String? { SortDescriptorKeys.key(for: self) }
}

/// The keys of sort descriptors made with `init(key:ascending:)`.
enum SortDescriptorKeys {
    private final class Entry: @unchecked Sendable {
        weak var descriptor: NSSortDescriptor?
        let key: String?
        init(_ descriptor: NSSortDescriptor, _ key: String?) {
            self.descriptor = descriptor
            self.key = key
        }
    }

    private static let entries = Protected([ObjectIdentifier: Entry]())

    static func set(_ key: String?, for descriptor: NSSortDescriptor) {
        entries.withLock { entries in
            if entries.count > 256 { entries = entries.filter { $0.value.descriptor != nil } }
            entries[ObjectIdentifier(descriptor)] = Entry(descriptor, key)
        }
    }

    static func key(for descriptor: NSSortDescriptor) -> String? {
        entries.withLock { entries in
            guard let entry = entries[ObjectIdentifier(descriptor)], entry.descriptor === descriptor else { return nil }
            return entry.key
        }
    }
}
