import Foundation

/// How a store of an `NSPersistentCloudKitContainer` syncs: set on its description's
/// `cloudKitContainerOptions`. A store without options is a plain local store.
///
/// ```swift
/// let options = NSPersistentCloudKitContainerOptions(containerIdentifier: "iCloud.com.example.Habits")
/// options.serverURL = URL(string: "https://sync.example.com")      // Strata's sync server
/// options.tokenProvider = { try await auth.currentJWT() }
/// container.persistentStoreDescriptions.first?.cloudKitContainerOptions = options
/// ```
///
/// Apple's options name an iCloud container; Strata's name the container too (the `CloudKit`
/// module finds the server by it) and add the sync server's URL and a source of bearer tokens.
/// Without a server URL the store records history and changes nothing else, so that code
/// written for iCloud runs unchanged where no server is configured.
open class NSPersistentCloudKitContainerOptions: NSObject, @unchecked Sendable {
    /// The identifier of the container the store syncs with (`iCloud.…` on Apple's systems).
    open private(set) var containerIdentifier: String
    /// The sync server (Strata, beyond Apple); nil keeps the store local.
    open var serverURL: URL?
    /// Gives the bearer token (a JWT) for each request to the server (Strata, beyond Apple).
    open var tokenProvider: (@Sendable () async throws -> String)?
    /// The zone the store's records go in: CloudKit's mirroring zone unless changed.
    open var zoneName: String = "com.apple.coredata.cloudkit.zone"
    /// How long a pull waits on the server for a change before asking again (a long poll),
    /// in seconds; at most 60, the server's longest (a longer one waits 60).
    open var longPollSeconds: Int = 25
    /// Whether the container syncs by itself: at load, after each local save, and whenever
    /// the server has news (Strata, beyond Apple). A command-line program that calls
    /// `syncNow()` around its work sets it to false; so do tests that simulate offline periods.
    open var syncsAutomatically = true

    /// Options for the container with the identifier.
    public init(containerIdentifier: String) {
        self.containerIdentifier = containerIdentifier
        super.init()
    }

    /// A bearer token that never changes, for the token provider (a command-line flag).
    public func useStaticToken(_ token: String) {
        tokenProvider = { token }
    }
}

/// What `initializeCloudKitSchema(options:)` does besides making the schema.
public struct NSPersistentCloudKitContainerSchemaInitializationOptions: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// Check the model and make the records, but send nothing to the server.
    public static let dryRun = Self(rawValue: 1 << 1)
    /// Print the record types and fields the model gives.
    public static let printSchema = Self(rawValue: 1 << 2)
}

/// The option key under which a description keeps its sync options.
let NSPersistentCloudKitContainerOptionsKey = "NSPersistentCloudKitContainerOptionsKey"

extension NSPersistentStoreDescription {
    /// The store's sync options; nil for a store that does not sync.
    public var cloudKitContainerOptions: NSPersistentCloudKitContainerOptions? {
        get { options[NSPersistentCloudKitContainerOptionsKey] as? NSPersistentCloudKitContainerOptions }
        set { setOption(newValue, forKey: NSPersistentCloudKitContainerOptionsKey) }
    }
}
