import Foundation
import Logging
import PostgresNIO
import StrataSyncProtocol

/// The server's state in PostgreSQL, and every read and write of it. Stateless itself: any
/// number of instances may share one database, because every decision that orders or
/// deduplicates changes is taken inside a PostgreSQL transaction (see `push`).
///
/// Every value that comes from a request is bound as a query parameter (PostgresNIO's
/// interpolation binds, it never splices text); no SQL is built from user data.
final class SyncStore: Sendable {
    let client: PostgresClient
    let logger: Logger
    let configuration: SyncServerConfiguration
    let notifier: ChangeNotifier
    /// Builds the indexes of `PUT /v1/schema` in the background.
    let indexBuilder = IndexBuilder()

    /// The channel of `NOTIFY` that carries "zone N changed" between instances.
    static let notificationChannel = "strata_sync_changes"

    init(client: PostgresClient, configuration: SyncServerConfiguration, notifier: ChangeNotifier, logger: Logger) {
        self.client = client
        self.configuration = configuration
        self.notifier = notifier
        self.logger = logger
    }

    // MARK: Zones

    /// A zone's row as requests need it.
    struct Zone: Sendable {
        var id: Int64
        var name: String
        var nextSequence: Int64
        var tombstoneHorizon: Int64
        var epoch: Int64
        var schema: [String: [String: FieldValue.Kind]]

        var info: ZoneInfo {
            ZoneInfo(
                name: name, serverSequence: nextSequence, tombstoneHorizon: tombstoneHorizon, epoch: epoch,
                schema: schema)
        }
    }

    typealias ZoneRow = (Int64, String, Int64, Int64, Int64, String)

    private static func zone(_ row: ZoneRow) throws -> Zone {
        Zone(
            id: row.0, name: row.1, nextSequence: row.2, tombstoneHorizon: row.3, epoch: row.4,
            schema: try RecordJSON.decode([String: [String: FieldValue.Kind]].self, row.5))
    }

    func zones(owner: String) async throws -> [ZoneInfo] {
        let rows = try await client.query(
            """
            SELECT id, name, next_seq, tombstone_horizon, epoch, schema::text FROM zones
            WHERE owner = \(owner) AND NOT deleted ORDER BY name
            """, logger: logger)
        var zones: [ZoneInfo] = []
        for try await row in rows.decode(ZoneRow.self) {
            zones.append(try Self.zone(row).info)
        }
        return zones
    }

    /// The user's zone of that name; 404 when there is none, it was deleted, or it is another
    /// user's (the query only looks among the user's own).
    func zone(owner: String, name: String, on connection: PostgresConnection? = nil) async throws -> Zone {
        let query: PostgresQuery = """
            SELECT id, name, next_seq, tombstone_horizon, epoch, schema::text FROM zones
            WHERE owner = \(owner) AND name = \(name) AND NOT deleted
            """
        let rows =
            if let connection { try await connection.query(query, logger: logger) } else {
                try await client.query(query, logger: logger)
            }
        for try await row in rows.decode(ZoneRow.self) {
            return try Self.zone(row)
        }
        throw SyncError.zoneNotFound(name)
    }

    /// Makes the zone for the user, or brings back one they deleted (in a new epoch); the
    /// zone as it is when it exists already.
    func createZone(owner: String, name: String) async throws -> ZoneInfo {
        let rows = try await client.query(
            """
            INSERT INTO zones (owner, name) VALUES (\(owner), \(name))
            ON CONFLICT (owner, name) DO UPDATE SET deleted = false
            RETURNING id, name, next_seq, tombstone_horizon, epoch, schema::text
            """, logger: logger)
        for try await row in rows.decode(ZoneRow.self) {
            return try Self.zone(row).info
        }
        throw SyncError(.internalError, "The zone was not made.")
    }

    /// Deletes the zone's records and assets and moves its epoch, so that every client's
    /// token answers 410 and the client resyncs. Client batch numbers are kept: a client
    /// goes on counting where it was.
    func deleteZone(owner: String, name: String) async throws {
        try await client.withConnection { connection in
            try await connection.inTransaction(logger: logger) { connection in
                let rows = try await connection.query(
                    """
                    UPDATE zones SET deleted = true, epoch = epoch + 1, tombstone_horizon = next_seq, schema = '{}'
                    WHERE owner = \(owner) AND name = \(name) AND NOT deleted RETURNING id
                    """, logger: logger)
                var zoneID: Int64?
                for try await id in rows.decode(Int64.self) { zoneID = id }
                guard let zoneID else { throw SyncError.zoneNotFound(name) }
                try await connection.query("DELETE FROM records WHERE zone_id = \(zoneID)", logger: logger)
                try await connection.query("DELETE FROM assets WHERE zone_id = \(zoneID)", logger: logger)
                try await connection.query(
                    "SELECT pg_notify(\(Self.notificationChannel), \(String(zoneID)))", logger: logger)
            }
        }
    }

    // MARK: Clients

    /// Registers the client ID to the user on first sight; a client ID registered to another
    /// user answers 404, like everything else of another user's.
    func registerClient(_ clientID: String, owner: String) async throws {
        // Two statements, not one: the insert waits for a concurrent registration of the same
        // ID to commit, and only a new statement sees that row.
        try await client.query(
            "INSERT INTO clients (client_id, user_sub) VALUES (\(clientID), \(owner)) ON CONFLICT (client_id) DO NOTHING",
            logger: logger)
        let rows = try await client.query("SELECT user_sub FROM clients WHERE client_id = \(clientID)", logger: logger)
        var owners: [String] = []
        for try await user in rows.decode(String.self) { owners.append(user) }
        guard owners.first == owner else { throw SyncError(.notFound, "No client with ID \(clientID).") }
    }
}
