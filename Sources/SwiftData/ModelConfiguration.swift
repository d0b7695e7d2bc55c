import Foundation
import Strata

/// Where and how a container keeps its models: a store file (by default `default.store` in
/// the program's data folder, as Apple's is in Application Support), in memory, read-only,
/// and whether it syncs.
public struct ModelConfiguration: Hashable, Identifiable, @unchecked Sendable {
    /// The CloudKit database a configuration syncs with (Strata's sync server here).
    public struct CloudKitDatabase: Hashable, Sendable {
        enum Kind: Hashable, Sendable {
            case automatic
            case none
            case privateDatabase(String)
        }

        let kind: Kind

        /// The container the app's entitlements name; on Linux, none unless one is named.
        public static let automatic = CloudKitDatabase(kind: .automatic)
        /// No sync.
        public static let none = CloudKitDatabase(kind: .none)
        /// The private database of the named container.
        public static func `private`(_ containerIdentifier: String) -> CloudKitDatabase {
            CloudKitDatabase(kind: .privateDatabase(containerIdentifier))
        }
    }

    /// The app group whose container holds the store (none on Linux: the data folder).
    public struct GroupContainer: Hashable, Sendable {
        enum Kind: Hashable, Sendable {
            case automatic
            case none
            case identifier(String)
        }

        let kind: Kind

        public static let automatic = GroupContainer(kind: .automatic)
        public static let none = GroupContainer(kind: .none)
        public static func identifier(_ groupName: String) -> GroupContainer { GroupContainer(kind: .identifier(groupName)) }
    }

    public var id: String { name }
    public let name: String
    public let url: URL
    public let isStoredInMemoryOnly: Bool
    public let allowsSave: Bool
    public let cloudKitDatabase: CloudKitDatabase
    public let groupContainer: GroupContainer
    /// The schema of the models this configuration's store holds (nil: the container's).
    public var schema: Schema?

    /// A store named `<name>.store` (`default.store` without a name) in the program's data
    /// folder, or in memory.
    public init(
        _ name: String? = nil, schema: Schema? = nil, isStoredInMemoryOnly: Bool = false, allowsSave: Bool = true,
        groupContainer: GroupContainer = .automatic, cloudKitDatabase: CloudKitDatabase = .automatic
    ) {
        let name = name ?? "default"
        self.name = name
        self.schema = schema
        self.isStoredInMemoryOnly = isStoredInMemoryOnly
        self.allowsSave = allowsSave
        self.groupContainer = groupContainer
        self.cloudKitDatabase = cloudKitDatabase
        let folder = NSPersistentContainer.defaultDirectoryURL()
        url = isStoredInMemoryOnly ? URL(fileURLWithPath: "/dev/null") : folder.appendingPathComponent("\(name).store")
    }

    /// A store at the URL.
    public init(
        _ name: String? = nil, schema: Schema? = nil, url: URL, allowsSave: Bool = true,
        cloudKitDatabase: CloudKitDatabase = .automatic
    ) {
        self.name = name ?? "default"
        self.schema = schema
        self.url = url
        isStoredInMemoryOnly = false
        self.allowsSave = allowsSave
        groupContainer = .automatic
        self.cloudKitDatabase = cloudKitDatabase
    }

    public init(isStoredInMemoryOnly: Bool) {
        self.init(nil, isStoredInMemoryOnly: isStoredInMemoryOnly)
    }

    @_disfavoredOverload
    public init(for forTypes: any PersistentModel.Type..., isStoredInMemoryOnly: Bool = false) {
        self.init(nil, schema: Schema(forTypes), isStoredInMemoryOnly: isStoredInMemoryOnly)
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.name == rhs.name && lhs.url == rhs.url && lhs.isStoredInMemoryOnly == rhs.isStoredInMemoryOnly
            && lhs.allowsSave == rhs.allowsSave && lhs.cloudKitDatabase == rhs.cloudKitDatabase
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(url)
    }

    /// The store description of the configuration: SQLite at the URL (or in memory), read-only
    /// when saving is not allowed, with persistent history, which SwiftData always records.
    func storeDescription() -> NSPersistentStoreDescription {
        let description = NSPersistentStoreDescription(url: url)
        if isStoredInMemoryOnly { description.type = NSInMemoryStoreType }
        description.isReadOnly = !allowsSave
        description.setOption(NSNumber(value: true), forKey: NSPersistentHistoryTrackingKey)
        return description
    }
}
