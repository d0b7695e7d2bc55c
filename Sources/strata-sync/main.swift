import ArgumentParser
import Foundation
import Logging
import StrataSyncServer

/// `strata-sync`: the sync server of Strata's `NSPersistentCloudKitContainer`. Every option
/// can also come from the environment (the name in brackets), as containers and process
/// managers pass settings; a flag wins over the environment.
@main
struct StrataSyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata-sync",
        abstract: "Serves Strata's sync protocol over PostgreSQL (see Documentation/sync-openapi.yaml).",
        discussion: """
            Runs until SIGTERM or SIGINT, then finishes the requests under way and exits 0.
            Migrates its PostgreSQL schema at start; instances starting together take turns.
            """
    )

    @Option(help: "PostgreSQL URL, postgresql://user:password@host:port/database [DATABASE_URL]")
    var databaseURL: String?

    @Option(help: "Port to listen on (0: any free one) [PORT; default 8443]")
    var port: Int?

    @Option(help: "Address to listen on [STRATA_SYNC_HOSTNAME; default 127.0.0.1]")
    var hostname: String?

    @Option(help: "Shared secret of HS256 bearer tokens [STRATA_SYNC_JWT_SECRET]")
    var jwtSecret: String?

    @Option(help: "PEM file of the ES256 or RS256 public key of bearer tokens [STRATA_SYNC_JWT_PUBLIC_KEY_FILE]")
    var jwtPublicKeyFile: String?

    @Option(help: "The audience (aud) tokens must name [STRATA_SYNC_JWT_AUDIENCE; default strata-sync]")
    var jwtAudience: String?

    @Option(help: "Largest request body, assets included, in bytes [STRATA_SYNC_MAX_BODY_BYTES; default 16 MiB]")
    var maxBodyBytes: Int?

    @Option(help: "Most record changes per push and records per answer [STRATA_SYNC_MAX_RECORDS; default 400]")
    var maxRecords: Int?

    @Option(help: "Requests per second per user on this instance, 0 for no limit [STRATA_SYNC_RATE_LIMIT; default 50]")
    var rateLimit: Double?

    @Option(help: "Days tombstones are kept before clients behind them must resync [STRATA_SYNC_TOMBSTONE_DAYS; default 30]")
    var tombstoneDays: Double?

    @Option(help: "Database connections of this instance at most [STRATA_SYNC_MAX_DATABASE_CONNECTIONS; default 20]")
    var maxDatabaseConnections: Int?

    @Option(help: "Seconds a query's statement may run before it answers 400 [STRATA_SYNC_QUERY_TIMEOUT; default 10]")
    var queryTimeout: Double?

    @Option(help: "trace, debug, info, notice, warning, error or critical [LOG_LEVEL; default info]")
    var logLevel: String?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let url = databaseURL ?? environment["DATABASE_URL"], !url.isEmpty else {
            throw ValidationError("Give the database: --database-url or DATABASE_URL.")
        }
        var configuration = SyncServerConfiguration(databaseURL: url)
        configuration.port = try port ?? number(environment["PORT"], "PORT") ?? configuration.port
        configuration.hostname = hostname ?? environment["STRATA_SYNC_HOSTNAME"] ?? configuration.hostname
        configuration.jwt.hmacSecret = jwtSecret ?? environment["STRATA_SYNC_JWT_SECRET"]
        if let path = jwtPublicKeyFile ?? environment["STRATA_SYNC_JWT_PUBLIC_KEY_FILE"] {
            do {
                configuration.jwt.publicKeyPEM = try String(contentsOfFile: path, encoding: .utf8)
            } catch {
                throw ValidationError("Cannot read the JWT public key \(path): \(error.localizedDescription)")
            }
        }
        configuration.jwt.audience = jwtAudience ?? environment["STRATA_SYNC_JWT_AUDIENCE"] ?? configuration.jwt.audience
        configuration.maxBodyBytes =
            try maxBodyBytes ?? number(environment["STRATA_SYNC_MAX_BODY_BYTES"], "STRATA_SYNC_MAX_BODY_BYTES")
            ?? configuration.maxBodyBytes
        configuration.maxRecords =
            try maxRecords ?? number(environment["STRATA_SYNC_MAX_RECORDS"], "STRATA_SYNC_MAX_RECORDS")
            ?? configuration.maxRecords
        configuration.rateLimit =
            try rateLimit ?? number(environment["STRATA_SYNC_RATE_LIMIT"], "STRATA_SYNC_RATE_LIMIT")
            ?? configuration.rateLimit
        if let days = try tombstoneDays ?? number(environment["STRATA_SYNC_TOMBSTONE_DAYS"], "STRATA_SYNC_TOMBSTONE_DAYS") {
            configuration.tombstoneRetention = .seconds(days * 86_400)
        }
        configuration.maxDatabaseConnections =
            try maxDatabaseConnections
            ?? number(environment["STRATA_SYNC_MAX_DATABASE_CONNECTIONS"], "STRATA_SYNC_MAX_DATABASE_CONNECTIONS")
            ?? configuration.maxDatabaseConnections
        if let seconds = try queryTimeout ?? number(environment["STRATA_SYNC_QUERY_TIMEOUT"], "STRATA_SYNC_QUERY_TIMEOUT") {
            guard seconds > 0, seconds <= 86_400 else { throw ValidationError("The query timeout is 0…86400 seconds.") }
            configuration.queryTimeout = .milliseconds(Int64((seconds * 1000).rounded(.up)))
        }
        if let level = logLevel ?? environment["LOG_LEVEL"] {
            guard let parsed = Logger.Level(rawValue: level) else { throw ValidationError("Unknown log level \(level).") }
            configuration.logLevel = parsed
        }
        guard configuration.maxBodyBytes > 0, configuration.maxRecords > 0, configuration.rateLimit >= 0,
            configuration.maxDatabaseConnections > 0,
            (0...65535).contains(configuration.port)
        else { throw ValidationError("Limits must be positive and the port 0…65535.") }

        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        let server = try SyncServer(configuration: configuration)
        try await server.run()
    }

    private func number<Value: LosslessStringConvertible>(_ text: String?, _ name: String) throws -> Value? {
        guard let text, !text.isEmpty else { return nil }
        guard let value = Value(text) else { throw ValidationError("\(name) is not a number: \(text)") }
        return value
    }
}
