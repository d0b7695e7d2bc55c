import Foundation

/// How to add one store: its type, location, configuration and options.
///
/// ```swift
/// let description = NSPersistentStoreDescription(url: url)
/// description.type = NSSQLiteStoreType
/// description.isReadOnly = true
/// container.persistentStoreDescriptions = [description]
/// ```
open class NSPersistentStoreDescription: NSObject, NSCopying, @unchecked Sendable {
    /// The store's type (`NSSQLiteStoreType` by default).
    open var type: String = NSSQLiteStoreType
    /// The model configuration whose entities the store holds.
    open var configuration: String?
    /// The store's location.
    open var url: URL?
    /// The options the store is added with.
    open private(set) var options: [String: NSObject] = [:]
    /// Whether the store is opened read-only.
    open var isReadOnly: Bool {
        get { (options[NSReadOnlyPersistentStoreOption] as? NSNumber)?.boolValue ?? false }
        set { options[NSReadOnlyPersistentStoreOption] = NSNumber(value: newValue) }
    }
    /// How long to wait for the store's lock, in seconds: `NSPersistentStoreTimeoutOption` in
    /// `options` (240 until set).
    open var timeout: TimeInterval {
        get { (options[NSPersistentStoreTimeoutOption] as? NSNumber)?.doubleValue ?? 240 }
        set { options[NSPersistentStoreTimeoutOption] = NSNumber(value: newValue) }
    }
    /// SQLite pragmas run on every connection of the store.
    open private(set) var sqlitePragmas: [String: NSObject] = [:]
    /// Whether `loadPersistentStores` adds the store on another thread.
    open var shouldAddStoreAsynchronously = false
    /// Whether a store of an older model version is migrated when added.
    open var shouldMigrateStoreAutomatically = true
    /// Whether that migration infers its mapping model.
    open var shouldInferMappingModelAutomatically = true

    public override init() { super.init() }

    /// A description of a SQLite store at the URL.
    public convenience init(url: URL) {
        self.init()
        self.url = url
    }

    /// Sets an option; `nil` removes it.
    open func setOption(_ option: NSObject?, forKey key: String) {
        options[key] = option
    }

    /// Sets a SQLite pragma; `nil` removes it.
    open func setValue(_ value: NSObject?, forPragmaNamed name: String) {
        sqlitePragmas[name] = value
    }

    /// The options as the coordinator takes them, the description's settings included.
    var effectiveOptions: [AnyHashable: Any] {
        var result: [AnyHashable: Any] = [:]
        for (key, value) in options { result[key] = value }
        result[NSMigratePersistentStoresAutomaticallyOption] = shouldMigrateStoreAutomatically
        result[NSInferMappingModelAutomaticallyOption] = shouldInferMappingModelAutomatically
        if !sqlitePragmas.isEmpty { result[NSSQLitePragmasOption] = sqlitePragmas }
        return result
    }

    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = NSPersistentStoreDescription()
        copy.type = type
        copy.configuration = configuration
        copy.url = url
        copy.options = options
        copy.sqlitePragmas = sqlitePragmas
        copy.shouldAddStoreAsynchronously = shouldAddStoreAsynchronously
        copy.shouldMigrateStoreAutomatically = shouldMigrateStoreAutomatically
        copy.shouldInferMappingModelAutomatically = shouldInferMappingModelAutomatically
        return copy
    }

    open override var description: String {
        "<NSPersistentStoreDescription> type \(type), url \(url?.path ?? "nil"), configuration \(configuration ?? "Default")"
    }
}
