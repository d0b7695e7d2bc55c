import Foundation
import Logging
import StrataSyncProtocol

/// Everything a `strata-sync` instance is told at start: where its database is, where it
/// listens, which tokens it trusts and the limits it enforces. The executable fills it from
/// flags and the environment; tests fill it directly.
///
/// ```swift
/// var configuration = SyncServerConfiguration(databaseURL: "postgresql://postgres@127.0.0.1:5432/sync")
/// configuration.jwt.hmacSecret = "a long random secret"
/// let server = try SyncServer(configuration: configuration)
/// try await server.run()   // until SIGTERM or SIGINT
/// ```
public struct SyncServerConfiguration: Sendable {
    /// `postgresql://user:password@host:port/database` (`?sslmode=require` asks for TLS).
    public var databaseURL: String
    /// The address to listen on.
    public var hostname: String = "127.0.0.1"
    /// The port; 0 lets the system pick one (the server tells it once it listens).
    public var port: Int = 8443
    public var jwt: JWTConfiguration = .init()
    /// Bodies larger than this answer 413 before they are read to the end. Assets are bodies
    /// too, so this is also the largest asset.
    public var maxBodyBytes: Int = 16 * 1024 * 1024
    /// The most record changes one push may carry (all batches together), and the most
    /// records one pull or query answers with. CloudKit's own limit is 400 per operation.
    public var maxRecords: Int = 400
    /// Requests per second each user may make on this instance (with bursts of as many);
    /// 0 switches the limit off. Counted per instance: see DEVIATIONS.md.
    public var rateLimit: Double = 50
    /// The longest long poll (`wait=`), in seconds; a longer one answers 400.
    public var maxWaitSeconds: Int = SyncPaths.longestWait
    /// Tombstones older than this are purged and the zone's tombstone horizon moves past
    /// them: a client that has not pulled for this long resyncs.
    public var tombstoneRetention: Duration = .seconds(30 * 24 * 3600)
    /// How often each instance purges expired tombstones; nil never (tests call
    /// `SyncServer.purgeTombstones(olderThan:)` themselves).
    public var tombstonePurgeInterval: Duration? = .seconds(3600)
    /// The longest a query's statement may run in PostgreSQL; past it the query answers 400
    /// `limitExceeded` (an index on its fields is the remedy).
    public var queryTimeout: Duration = .seconds(10)
    /// The most rows one query request reads from PostgreSQL to check them in Swift (the
    /// parts of a predicate SQL cannot decide); past it the query answers 400 `limitExceeded`.
    public var maxQueryRowsExamined: Int = 1_000_000
    /// The most field indexes (`PUT /v1/schema`) the server keeps; more answer 400
    /// `limitExceeded`. Every index costs every push of its record type a little.
    public var maxIndexes: Int = 64
    /// Database connections this instance keeps at most (the long-poll listener takes one more).
    public var maxDatabaseConnections: Int = 20
    public var logLevel: Logger.Level = .info

    public init(databaseURL: String) {
        self.databaseURL = databaseURL
    }
}

/// The keys that sign the bearer tokens the server accepts, and the audience they must name.
/// At least one key is needed: a server that trusted every token would have no users.
public struct JWTConfiguration: Sendable {
    /// The shared secret of HS256 tokens.
    public var hmacSecret: String?
    /// PEM text of a public key of ES256 (P-256) or RS256 (RSA, 2048 bits or more) tokens.
    public var publicKeyPEM: String?
    /// The `aud` every token must hold.
    public var audience: String = "strata-sync"

    public init(hmacSecret: String? = nil, publicKeyPEM: String? = nil, audience: String = "strata-sync") {
        self.hmacSecret = hmacSecret
        self.publicKeyPEM = publicKeyPEM
        self.audience = audience
    }
}
