import Foundation
import Strata

/// Where and how a container keeps its models: a store file (by default `default.store` in
/// the program's data folder, as Apple's is in Application Support), in memory, read-only,
/// and whether it syncs.
public struct ModelConfiguration: Hashable, Identifiable, @unchecked Sendable {
    /// The CloudKit database a configuration syncs with: on Linux, the private database of a
    /// container on Strata's sync server (`strata-sync`), in CloudKit's role.
    ///
    /// ```swift
    /// let sync = ModelConfiguration.CloudKitDatabase.private(
    ///     "iCloud.com.example.Trips", serverURL: URL(string: "https://sync.example.com")!,
    ///     tokenProvider: { try await auth.currentJWT() })
    /// let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(cloudKitDatabase: sync))
    /// ```
    ///
    /// A container named without a server (`.private("iCloud…")`, as Apple's code names it)
    /// records history and syncs nothing, so that code written for iCloud runs unchanged.
    public struct CloudKitDatabase: Hashable, @unchecked Sendable {
        enum Kind: Hashable, Sendable {
            case automatic
            case none
            case privateDatabase(String)
        }

        let kind: Kind
        /// Strata's sync server (beyond Apple).
        let serverURL: URL?
        /// The bearer tokens of the server's requests (beyond Apple).
        let tokenProvider: (@Sendable () async throws -> String)?

        init(kind: Kind, serverURL: URL? = nil, tokenProvider: (@Sendable () async throws -> String)? = nil) {
            self.kind = kind
            self.serverURL = serverURL
            self.tokenProvider = tokenProvider
        }

        public static func == (lhs: Self, rhs: Self) -> Bool { lhs.kind == rhs.kind && lhs.serverURL == rhs.serverURL }
        public func hash(into hasher: inout Hasher) {
            hasher.combine(kind)
            hasher.combine(serverURL)
        }

        /// The container the app's entitlements name; on Linux there are none: no sync.
        public static let automatic = CloudKitDatabase(kind: .automatic)
        /// No sync.
        public static let none = CloudKitDatabase(kind: .none)
        /// The private database of the named container (no server named: history only).
        public static func `private`(_ containerIdentifier: String) -> CloudKitDatabase {
            CloudKitDatabase(kind: .privateDatabase(containerIdentifier))
        }

        /// The private database of the named container on Strata's sync server at the URL,
        /// each request carrying a token from the provider (beyond Apple).
        public static func `private`(
            _ containerIdentifier: String, serverURL: URL, tokenProvider: (@Sendable () async throws -> String)? = nil
        ) -> CloudKitDatabase {
            CloudKitDatabase(kind: .privateDatabase(containerIdentifier), serverURL: serverURL, tokenProvider: tokenProvider)
        }

        /// The container identifier, when one is named.
        var containerIdentifier: String? {
            if case .privateDatabase(let identifier) = kind { return identifier }
            return nil
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
        if let identifier = cloudKitDatabase.containerIdentifier, !isStoredInMemoryOnly {
            let options = NSPersistentCloudKitContainerOptions(containerIdentifier: identifier)
            options.serverURL = cloudKitDatabase.serverURL
            options.tokenProvider = cloudKitDatabase.tokenProvider
            description.cloudKitContainerOptions = options
        }
        return description
    }
}
