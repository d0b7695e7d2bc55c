import Foundation
import PostgresNIO
import StrataSyncProtocol

extension SyncStore {
    /// Applies a client's batches in order, each in one PostgreSQL transaction that:
    ///
    /// 1. locks the client's row of `client_batches` and skips the batch when its number is
    ///    not past the last applied one (a retried push changes nothing), or answers 409
    ///    `outOfOrder` when it is not the next one;
    /// 2. locks the zone's row (`SELECT … FOR NO KEY UPDATE`), which serialises the pushes of a
    ///    zone across every instance, so commit order is sequence order and a pull never sees
    ///    a gap that fills later;
    /// 3. checks the zone's schema (409 `schemaConflict`), merges each change into the stored
    ///    record (`StoredRecord.apply`), and gives every record that changed the next
    ///    sequence number; the zone's `next_seq` moves by exactly that many, so the sequence
    ///    numbers of a zone have no gaps (a change that loses every field takes none);
    /// 4. notifies the other instances (`pg_notify`, delivered at commit) so long polls wake.
    ///
    /// A batch is all or nothing: an instance killed in the middle leaves either the whole
    /// batch or none of it, and the client's retry finds which.
    func push(_ request: PushRequest, owner: String, zoneName: String) async throws -> PushResponse {
        try RequestValidation.validate(request, maxRecords: configuration.maxRecords)
        let zone = try await zone(owner: owner, name: zoneName)
        try await registerClient(request.clientID, owner: owner)
        var response = PushResponse(applied: [], alreadyApplied: [], lastBatchSequence: 0, serverSequence: zone.nextSequence)
        if request.batches.isEmpty {
            let rows = try await client.query(
                """
                SELECT last_batch_seq FROM client_batches WHERE client_id = \(request.clientID) AND zone_id = \(zone.id)
                """, logger: logger)
            for try await last in rows.decode(Int64.self) { response.lastBatchSequence = last }
            return response
        }
        for batch in request.batches {
            let outcome = try await client.withConnection { connection in
                try await connection.inTransaction(logger: logger) { connection in
                    try await apply(batch, clientID: request.clientID, zone: zone, on: connection)
                }
            }
            if outcome.applied {
                response.applied.append(batch.batchSequence)
            } else {
                response.alreadyApplied.append(batch.batchSequence)
            }
            response.lastBatchSequence = outcome.lastBatchSequence
            response.serverSequence = outcome.serverSequence
        }
        return response
    }

    struct BatchOutcome: Sendable {
        var applied: Bool
        var lastBatchSequence: Int64
        var serverSequence: Int64
    }

    private func apply(
        _ batch: ChangeBatch, clientID: String, zone: Zone, on connection: PostgresConnection
    ) async throws -> BatchOutcome {
        let last = try await lockClientBatches(clientID: clientID, zoneID: zone.id, on: connection)
        let (nextSequence, schema) = try await lockZone(zone, on: connection)
        if batch.batchSequence <= last {
            return BatchOutcome(applied: false, lastBatchSequence: last, serverSequence: nextSequence)
        }
        guard batch.batchSequence == last + 1 else {
            throw SyncError(
                .outOfOrder, "Batch \(batch.batchSequence) of \(clientID) is not the next one: the last applied is \(last).",
                lastBatchSequence: last)
        }
        let newSchema = try Self.checkedSchema(schema, adding: batch.changes)
        var records = try await storedRecords(for: batch.changes, zoneID: zone.id, on: connection)
        var changedKeys: [RecordKey] = []
        for change in batch.changes {
            let key = RecordKey(type: change.recordType, name: change.recordName)
            var record = records[key] ?? StoredRecord(recordType: key.type, recordName: key.name)
            let isNew = records[key] == nil
            if record.apply(change) || isNew {
                if !changedKeys.contains(key) { changedKeys.append(key) }
            }
            records[key] = record
        }
        var sequence = nextSequence
        var changed: [StoredRecord] = []
        for key in changedKeys {
            guard var record = records[key] else { continue }
            sequence += 1
            record.serverSequence = sequence
            record.changedBy = clientID
            changed.append(record)
        }
        try await write(changed, zoneID: zone.id, clientID: clientID, on: connection)
        try await connection.query(
            """
            UPDATE client_batches SET last_batch_seq = \(batch.batchSequence), last_seen = now()
            WHERE client_id = \(clientID) AND zone_id = \(zone.id)
            """, logger: logger)
        if !changed.isEmpty || newSchema != schema {
            let schemaJSON = try RecordJSON.encode(newSchema)
            try await connection.query(
                "UPDATE zones SET next_seq = \(sequence), schema = \(schemaJSON)::jsonb WHERE id = \(zone.id)",
                logger: logger)
            try await connection.query(
                "SELECT pg_notify(\(Self.notificationChannel), \(String(zone.id)))", logger: logger)
        }
        return BatchOutcome(applied: true, lastBatchSequence: batch.batchSequence, serverSequence: sequence)
    }

    /// The client's last applied batch in the zone, its row locked until the transaction ends
    /// (so that the same client pushing through two instances at once applies a batch once).
    private func lockClientBatches(clientID: String, zoneID: Int64, on connection: PostgresConnection) async throws -> Int64 {
        try await connection.query(
            """
            INSERT INTO client_batches (client_id, zone_id) VALUES (\(clientID), \(zoneID))
            ON CONFLICT (client_id, zone_id) DO NOTHING
            """, logger: logger)
        let rows = try await connection.query(
            """
            SELECT last_batch_seq FROM client_batches WHERE client_id = \(clientID) AND zone_id = \(zoneID) FOR UPDATE
            """, logger: logger)
        for try await last in rows.decode(Int64.self) { return last }
        throw SyncError(.internalError, "The client's batch row vanished.")
    }

    /// The zone's next sequence number and schema, its row locked until the transaction ends.
    /// A zone deleted since the request began answers 404. `FOR NO KEY UPDATE`, not `FOR
    /// UPDATE`: it still serialises pushes, but does not wait on the key-share locks that
    /// inserting a `client_batches` row (a foreign key to the zone) takes, which would
    /// deadlock two clients' first pushes.
    private func lockZone(
        _ zone: Zone, on connection: PostgresConnection
    ) async throws -> (Int64, [String: [String: FieldValue.Kind]]) {
        let rows = try await connection.query(
            "SELECT next_seq, schema::text, deleted, epoch FROM zones WHERE id = \(zone.id) FOR NO KEY UPDATE", logger: logger)
        for try await (next, schema, deleted, epoch) in rows.decode((Int64, String, Bool, Int64).self) {
            guard !deleted, epoch == zone.epoch else { throw SyncError.zoneNotFound(zone.name) }
            return (next, try RecordJSON.decode([String: [String: FieldValue.Kind]].self, schema))
        }
        throw SyncError.zoneNotFound(zone.name)
    }

    /// The zone's schema with the batch's fields added; 409 `schemaConflict` when a field
    /// arrives with another kind than the one the zone has for it. `null` fits every kind and
    /// teaches none.
    static func checkedSchema(
        _ schema: [String: [String: FieldValue.Kind]], adding changes: [RecordChange]
    ) throws -> [String: [String: FieldValue.Kind]] {
        var schema = schema
        for change in changes where change.operation == .upsert {
            for (name, value) in change.fields where value.kind != .null {
                if let known = schema[change.recordType]?[name] {
                    guard known == value.kind else {
                        throw SyncError(
                            .schemaConflict,
                            "\(change.recordType).\(name) holds \(known.rawValue) values in this zone, not \(value.kind.rawValue)."
                        )
                    }
                } else {
                    schema[change.recordType, default: [:]][name] = value.kind
                }
            }
        }
        return schema
    }

    struct RecordKey: Hashable, Sendable {
        var type: String
        var name: String
    }

    /// The stored state of every record the changes touch, read in one query.
    private func storedRecords(
        for changes: [RecordChange], zoneID: Int64, on connection: PostgresConnection
    ) async throws -> [RecordKey: StoredRecord] {
        let keys = Array(Set(changes.map { RecordKey(type: $0.recordType, name: $0.recordName) }))
        let rows = try await connection.query(
            """
            SELECT record_type, record_name, fields::text, clocks::text, deleted, delete_clock, server_seq, changed_by
            FROM records WHERE zone_id = \(zoneID)
            AND (record_type, record_name) IN (SELECT * FROM unnest(\(keys.map(\.type))::text[], \(keys.map(\.name))::text[]))
            """, logger: logger)
        var records: [RecordKey: StoredRecord] = [:]
        for try await row in rows.decode(RecordRow.self) {
            let record = try Self.record(row)
            records[RecordKey(type: record.recordType, name: record.recordName)] = record
        }
        return records
    }

    typealias RecordRow = (String, String, String, String, Bool, String?, Int64, String?)

    static func record(_ row: RecordRow) throws -> StoredRecord {
        StoredRecord(
            recordType: row.0, recordName: row.1,
            fields: try WireJSON.decodeFields(from: row.2), clocks: try WireJSON.decodeClocks(from: row.3),
            deleted: row.4, deleteClock: row.5.flatMap(HybridLogicalClock.init), serverSequence: row.6, changedBy: row.7)
    }

    /// Inserts or replaces the changed records in one statement (arrays unnested into rows).
    private func write(_ records: [StoredRecord], zoneID: Int64, clientID: String, on connection: PostgresConnection) async throws
    {
        guard !records.isEmpty else { return }
        let types = records.map(\.recordType)
        let names = records.map(\.recordName)
        let fields = try records.map { try WireJSON.encode(fields: $0.fields) }
        let folded = records.map { StoredRecord.foldedJSON($0.fields) }
        let clocks = records.map { WireJSON.encode(clocks: $0.clocks) }
        let deleted = records.map(\.deleted)
        let deleteClocks = records.map { $0.deleteClock?.description ?? "" }
        let sequences = records.map(\.serverSequence)
        let soleWriters = records.map { $0.soleWriter ?? "" }
        try await connection.query(
            """
            INSERT INTO records (zone_id, record_type, record_name, fields, clocks, deleted, delete_clock, server_seq,
                                 changed_by, sole_writer, updated_at, folded)
            SELECT \(zoneID), t, n, f::jsonb, c::jsonb, d, NULLIF(dc, ''), s, \(clientID), NULLIF(w, ''), now(), fo::jsonb
            FROM unnest(\(types)::text[], \(names)::text[], \(fields)::text[], \(clocks)::text[], \(deleted)::bool[],
                        \(deleteClocks)::text[], \(sequences)::int8[], \(soleWriters)::text[], \(folded)::text[])
                AS u(t, n, f, c, d, dc, s, w, fo)
            ON CONFLICT (zone_id, record_type, record_name) DO UPDATE SET
                fields = excluded.fields, clocks = excluded.clocks, deleted = excluded.deleted, folded = excluded.folded,
                delete_clock = excluded.delete_clock, server_seq = excluded.server_seq,
                changed_by = excluded.changed_by, sole_writer = excluded.sole_writer, updated_at = excluded.updated_at
            """, logger: logger)
    }
}
