import Foundation
import Logging
import PostgresNIO
import StrataSyncProtocol

/// The server's own tables, made or brought up to date when an instance starts.
///
/// Migrations run under a transaction-level advisory lock, so that two instances starting at
/// the same time on one database take turns: the second finds the work done. Each step is
/// recorded in `strata_sync_migrations` and never runs twice.
enum SyncSchema {
    /// Any number, fixed forever, that names "the sync server migrates" among advisory locks.
    static let advisoryLockKey: Int64 = 0x5374_7261_7461_5379  // "StrataSy"

    /// The steps, in order, each a list of statements; a step's number is its position plus one. Never edit a released
    /// step: add one.
    static let steps: [[String]] = [
        [
            """
            CREATE TABLE zones (
                id bigserial PRIMARY KEY,
                owner text NOT NULL,
                name text NOT NULL,
                next_seq bigint NOT NULL DEFAULT 0,
                tombstone_horizon bigint NOT NULL DEFAULT 0,
                epoch bigint NOT NULL DEFAULT 1,
                schema jsonb NOT NULL DEFAULT '{}',
                deleted boolean NOT NULL DEFAULT false,
                created_at timestamptz NOT NULL DEFAULT now(),
                UNIQUE (owner, name)
            )
            """,
            """
            CREATE TABLE records (
                zone_id bigint NOT NULL REFERENCES zones(id) ON DELETE CASCADE,
                record_type text NOT NULL,
                record_name text NOT NULL,
                fields jsonb NOT NULL DEFAULT '{}',
                clocks jsonb NOT NULL DEFAULT '{}',
                deleted boolean NOT NULL DEFAULT false,
                delete_clock text,
                server_seq bigint NOT NULL,
                changed_by text,
                updated_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (zone_id, record_type, record_name)
            )
            """,
            """
            CREATE UNIQUE INDEX records_by_sequence ON records (zone_id, server_seq)
            """,
            """
            CREATE INDEX records_by_type ON records (zone_id, record_type, record_name) WHERE NOT deleted
            """,
            """
            CREATE INDEX tombstones_by_age ON records (updated_at) WHERE deleted
            """,
            """
            CREATE TABLE clients (
                client_id text PRIMARY KEY,
                user_sub text NOT NULL,
                created_at timestamptz NOT NULL DEFAULT now()
            )
            """,
            """
            CREATE TABLE client_batches (
                client_id text NOT NULL REFERENCES clients(client_id) ON DELETE CASCADE,
                zone_id bigint NOT NULL REFERENCES zones(id) ON DELETE CASCADE,
                last_batch_seq bigint NOT NULL DEFAULT 0,
                last_seen timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (client_id, zone_id)
            )
            """,
            """
            CREATE TABLE assets (
                zone_id bigint NOT NULL REFERENCES zones(id) ON DELETE CASCADE,
                sha256 text NOT NULL,
                size bigint NOT NULL,
                bytes bytea NOT NULL,
                created_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (zone_id, sha256)
            )
            """,
        ],
        [
            // The one client that wrote every field and the delete of a record (NULL when
            // several did, or for rows written before this step): a pull by that client leaves
            // the record out, as it has it already.
            """
            ALTER TABLE records ADD COLUMN sole_writer text
            """
        ],
        [
            // Queries in SQL (issue 35): the `[cd]` folding of string fields, made in Swift by
            // the predicate evaluator's own folding where it differs from the value (filled for
            // older rows by `backfillFolded` in this step); the record names in the order
            // queries sort them (code points, whatever the database's collation); the indexes
            // `PUT /v1/schema` asked for.
            """
            ALTER TABLE records ADD COLUMN folded jsonb
            """,
            """
            DROP INDEX records_by_type
            """,
            """
            CREATE INDEX records_by_type ON records (zone_id, record_type, (record_name COLLATE "C")) WHERE NOT deleted
            """,
            """
            CREATE TABLE field_indexes (
                record_type text NOT NULL,
                field text NOT NULL,
                kind text NOT NULL,
                queryable boolean NOT NULL,
                sortable boolean NOT NULL,
                index_name text NOT NULL UNIQUE,
                state text NOT NULL DEFAULT 'building',
                failure text,
                created_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (record_type, field, kind)
            )
            """,
        ],
    ]

    /// Work in Swift that a step needs after its statements, in the same transaction, by the
    /// step's number.
    static let stepWork: [Int: @Sendable (PostgresConnection, Logger) async throws -> Void] = [
        3: { connection, logger in try await backfillFolded(on: connection, logger: logger) }
    ]

    /// Fills `folded` of the rows written before step 3, a thousand rows a statement in
    /// key order.
    static func backfillFolded(on connection: PostgresConnection, logger: Logger) async throws {
        var after: (Int64, String, String) = (Int64.min, "", "")
        while true {
            let rows = try await connection.query(
                """
                SELECT zone_id, record_type, record_name, fields::text FROM records
                WHERE (zone_id, record_type, record_name) > (\(after.0), \(after.1), \(after.2))
                ORDER BY zone_id, record_type, record_name LIMIT 1000
                """, logger: logger)
            var zones: [Int64] = []
            var types: [String] = []
            var names: [String] = []
            var folded: [String] = []
            for try await (zone, type, name, fields) in rows.decode((Int64, String, String, String).self) {
                zones.append(zone)
                types.append(type)
                names.append(name)
                folded.append(StoredRecord.foldedJSON(try WireJSON.decodeFields(from: fields)))
                after = (zone, type, name)
            }
            guard !zones.isEmpty else { return }
            try await connection.query(
                """
                UPDATE records SET folded = u.f::jsonb
                FROM unnest(\(zones)::int8[], \(types)::text[], \(names)::text[], \(folded)::text[]) AS u(z, t, n, f)
                WHERE records.zone_id = u.z AND records.record_type = u.t AND records.record_name = u.n
                """, logger: logger)
            if zones.count < 1000 { return }
        }
    }

    /// Brings the database up to the latest step.
    static func migrate(_ client: PostgresClient, logger: Logger) async throws {
        try await client.withConnection { connection in
            try await connection.inTransaction(logger: logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(\(advisoryLockKey))", logger: logger)
                try await connection.query(
                    """
                    CREATE TABLE IF NOT EXISTS strata_sync_migrations (
                        version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())
                    """, logger: logger)
                var applied = 0
                for try await version in try await connection.query(
                    "SELECT coalesce(max(version), 0) FROM strata_sync_migrations", logger: logger
                ).decode(Int.self) {
                    applied = version
                }
                for (index, step) in steps.enumerated() where index + 1 > applied {
                    logger.info("Migrating the sync database to version \(index + 1)")
                    // One statement per query: PostgresNIO's extended protocol takes no more.
                    for statement in step {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    try await stepWork[index + 1]?(connection, logger)
                    try await connection.query(
                        "INSERT INTO strata_sync_migrations (version) VALUES (\(index + 1))", logger: logger)
                }
            }
        }
    }
}

extension PostgresConnection {
    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws,
    /// and the body's own error rethrown as it is (PostgresNIO's `withTransaction` wraps it,
    /// which would hide a `SyncError` from the routes).
    func inTransaction<Result: Sendable>(
        logger: Logger, _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await query("BEGIN", logger: logger)
        let result: Result
        do {
            result = try await body(self)
        } catch {
            _ = try? await query("ROLLBACK", logger: logger)
            throw error
        }
        try await query("COMMIT", logger: logger)
        return result
    }
}
