import Crypto
import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import StrataSyncProtocol

/// The field indexes of `PUT /v1/schema`: what CloudKit's schema marks *queryable* and
/// *sortable*, as PostgreSQL expression indexes on `records`.
///
/// One index per record type, field and kind, over every zone (the zone leads its columns):
/// `(zone_id, <typed value> NULLS FIRST, record_name COLLATE "C") WHERE record_type = … AND
/// NOT deleted`. The typed value is the very expression queries compare and sort by
/// (`QueryCompiler.expression`), so the planner finds the index for `==`, `<`, `BEGINSWITH`
/// (a range), `IN` and for a sort on the field with a limit, in either direction.
///
/// Indexes are built `CONCURRENTLY` (pushes go on meanwhile) by whichever instance takes the
/// index's advisory lock; the `field_indexes` row says `building`, `ready` or `failed`.
/// An instance that stops mid-build leaves `building`: every instance looks for such rows
/// when it starts and every few minutes, and builds them again (`IF NOT EXISTS`, and an
/// invalid leftover is dropped first).
extension SyncStore {
    /// The kinds an index can order: those `QueryCompiler` has a typed expression of.
    static let indexableKinds = Set(
        FieldValue.Kind.allCases.filter { QueryCompiler.expression(field: "field", kind: $0) != nil })

    func schemaIndexes() async throws -> SchemaIndexes {
        let rows = try await client.query(
            "SELECT record_type, field, kind, queryable, sortable, state FROM field_indexes ORDER BY record_type, field, kind",
            logger: logger)
        var indexes: [FieldIndex] = []
        for try await (type, field, kind, queryable, sortable, state) in rows.decode(
            (String, String, String, Bool, Bool, String).self)
        {
            guard let kind = FieldValue.Kind(rawValue: kind) else { continue }
            indexes.append(
                FieldIndex(
                    recordType: type, field: field, kind: kind, queryable: queryable, sortable: sortable,
                    state: FieldIndex.State(rawValue: state)))
        }
        return SchemaIndexes(indexes: indexes)
    }

    /// Adds the request's indexes (an index asked for again keeps its row; a failed one is
    /// tried again) and starts building the new ones; answers with every index.
    func addIndexes(_ request: SchemaIndexes) async throws -> SchemaIndexes {
        for index in request.indexes {
            guard RequestValidation.isIdentifier(index.recordType), RequestValidation.isIdentifier(index.field) else {
                throw SyncError.badRequest(
                    "Bad index \(index.recordType.prefix(64)).\(index.field.prefix(64)): letters, digits and '_'.")
            }
            guard Self.indexableKinds.contains(index.kind) else {
                throw SyncError.badRequest(
                    "\(index.recordType).\(index.field): \(index.kind.rawValue) values cannot be indexed (only \(Self.indexableKinds.map(\.rawValue).sorted().joined(separator: ", ")))."
                )
            }
            guard index.queryable || index.sortable else {
                throw SyncError.badRequest("\(index.recordType).\(index.field): an index is queryable, sortable or both.")
            }
        }
        let existing = try await schemaIndexes().indexes
        let known = Set(existing.map { "\($0.recordType).\($0.field).\($0.kind.rawValue)" })
        let added = Set(request.indexes.map { "\($0.recordType).\($0.field).\($0.kind.rawValue)" }).subtracting(known)
        guard existing.count + added.count <= configuration.maxIndexes else {
            throw SyncError(
                .limitExceeded, "The server keeps at most \(configuration.maxIndexes) indexes (\(existing.count) now).")
        }
        for index in request.indexes {
            try await client.query(
                """
                INSERT INTO field_indexes (record_type, field, kind, queryable, sortable, index_name)
                VALUES (\(index.recordType), \(index.field), \(index.kind.rawValue), \(index.queryable), \(index.sortable),
                        \(Self.indexName(index)))
                ON CONFLICT (record_type, field, kind) DO UPDATE SET
                    queryable = field_indexes.queryable OR excluded.queryable,
                    sortable = field_indexes.sortable OR excluded.sortable,
                    state = CASE WHEN field_indexes.state = 'failed' THEN 'building' ELSE field_indexes.state END,
                    failure = CASE WHEN field_indexes.state = 'failed' THEN NULL ELSE field_indexes.failure END
                """, logger: logger)
        }
        indexBuilder.wake()
        return try await schemaIndexes()
    }

    /// The index's name: the same on every instance, from what it indexes.
    static func indexName(_ index: FieldIndex) -> String {
        let digest = SHA256.hash(data: Data("\(index.recordType).\(index.field).\(index.kind.rawValue)".utf8))
        return "field_index_" + digest.prefix(10).map { String(format: "%02x", $0) }.joined()
    }

    /// `CREATE INDEX` of an index: identifiers only (checked when it was added), so the text
    /// holds nothing a request chose beyond them.
    static func indexStatement(_ index: FieldIndex, name: String) -> String? {
        guard RequestValidation.isIdentifier(index.recordType), RequestValidation.isIdentifier(index.field),
            let expression = QueryCompiler.expression(field: index.field, kind: index.kind)
        else { return nil }
        return """
            CREATE INDEX CONCURRENTLY IF NOT EXISTS \(name) ON records
            (zone_id, \(expression) NULLS FIRST, \(QueryOrder.recordName))
            WHERE record_type = '\(index.recordType)' AND NOT deleted
            """
    }

    /// Builds every index whose row says `building` and that no other instance is building.
    func buildPendingIndexes() async {
        let pending: [(FieldIndex, String)]
        do {
            let rows = try await client.query(
                "SELECT record_type, field, kind, index_name FROM field_indexes WHERE state = 'building'", logger: logger)
            var found: [(FieldIndex, String)] = []
            for try await (type, field, kind, name) in rows.decode((String, String, String, String).self) {
                guard let kind = FieldValue.Kind(rawValue: kind) else { continue }
                found.append((FieldIndex(recordType: type, field: field, kind: kind), name))
            }
            pending = found
        } catch {
            logger.warning("Reading the indexes to build failed: \(String(reflecting: error))")
            return
        }
        for (index, name) in pending {
            do {
                try await build(index, name: name)
            } catch {
                logger.warning("Building index \(name) failed: \(String(reflecting: error))")
            }
        }
    }

    private func build(_ index: FieldIndex, name: String) async throws {
        guard let statement = Self.indexStatement(index, name: name) else { return }
        let lockKey = Int64(
            bitPattern: UInt64(name.utf8.reduce(UInt64(14_695_981_039_346_656_037)) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 }))
        try await client.withConnection { connection in
            var locked = false
            for try await got in try await connection.query("SELECT pg_try_advisory_lock(\(lockKey))", logger: logger)
                .decode(Bool.self)
            {
                locked = got
            }
            // Another instance builds it: its row says so when it is done.
            guard locked else { return }
            do {
                try await build(index, name: name, statement: statement, on: connection)
            } catch {
                _ = try? await connection.query("SELECT pg_advisory_unlock(\(lockKey))", logger: logger)
                throw error
            }
            try await connection.query("SELECT pg_advisory_unlock(\(lockKey))", logger: logger)
        }
    }

    /// The build itself, under the index's advisory lock.
    private func build(
        _ index: FieldIndex, name: String, statement: String, on connection: PostgresConnection
    )
        async throws
    {
        // Still to build? (Another instance may have finished between the read and the lock.)
        var state = ""
        for try await value in try await connection.query(
            "SELECT state FROM field_indexes WHERE index_name = \(name)", logger: logger
        ).decode(String.self) {
            state = value
        }
        guard state == "building" else { return }
        // A build that stopped half way leaves an invalid index of this name: drop it first.
        if try await isValid(name, on: connection) == false {
            try await connection.query(PostgresQuery(unsafeSQL: "DROP INDEX CONCURRENTLY IF EXISTS \(name)"), logger: logger)
        }
        logger.notice("Building index \(name) of \(index.recordType).\(index.field) (\(index.kind.rawValue))")
        var failure: String?
        do {
            try await connection.query(PostgresQuery(unsafeSQL: "SET statement_timeout = 0"), logger: logger)
            try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
        } catch {
            failure = String(reflecting: error)
        }
        _ = try? await connection.query(PostgresQuery(unsafeSQL: "RESET statement_timeout"), logger: logger)
        if failure == nil, try await isValid(name, on: connection) != true {
            failure = "PostgreSQL left the index invalid."
        }
        if failure != nil {
            _ = try? await connection.query(
                PostgresQuery(unsafeSQL: "DROP INDEX CONCURRENTLY IF EXISTS \(name)"), logger: logger)
        }
        try await connection.query(
            """
            UPDATE field_indexes SET state = \(failure == nil ? "ready" : "failed"), failure = \(failure)
            WHERE index_name = \(name)
            """, logger: logger)
        logger.notice("Index \(name): \(failure == nil ? "ready" : "failed: \(failure ?? "")")")
    }

    /// Whether the index exists and is valid; nil when there is none.
    private func isValid(_ name: String, on connection: PostgresConnection) async throws -> Bool? {
        var valid: Bool?
        for try await value in try await connection.query(
            "SELECT i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = \(name)",
            logger: logger
        ).decode(Bool.self) {
            valid = value
        }
        return valid
    }
}

/// Builds pending indexes: once the instance has migrated its tables, when a `PUT /v1/schema` adds some, and
/// every `interval` (indexes another instance was asked for and did not finish).
final class IndexBuilder: Sendable {
    private let wakeups: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation
    let interval: Duration

    init(interval: Duration = .seconds(300)) {
        (wakeups, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.interval = interval
    }

    /// Asks for a pass over the pending indexes (asks while a pass runs make one more pass).
    func wake() { continuation.yield() }

    /// Passes over the pending indexes until cancelled.
    func run(store: SyncStore) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [continuation, interval] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: interval)
                    continuation.yield()
                }
            }
            group.addTask { [wakeups] in
                // The first wake comes once the instance has migrated its tables.
                for await _ in wakeups {
                    if Task.isCancelled { break }
                    await store.buildPendingIndexes()
                }
            }
            await group.next()
            group.cancelAll()
        }
    }
}

/// The index builder as one of the application's services, stopped by graceful shutdown.
struct IndexBuildService: Service {
    let store: SyncStore

    func run() async throws {
        await cancelWhenGracefulShutdown { await store.indexBuilder.run(store: store) }
    }
}
