import Foundation
import Hummingbird
import NIOCore
import PostgresNIO
import ServiceLifecycle
import StrataSyncProtocol

extension SyncStore {
    /// The records changed after `since` (everything when nil), in sequence order, at most
    /// `limit`; with `wait` seconds and nothing new, holds the request until a push to the zone
    /// commits on any instance (`ChangeNotifier`) or the time is up.
    ///
    /// With `requester` (a client ID), records that client alone wrote (every field's clock and the delete's
    /// are its own: `sole_writer`) are left out: it has them as the server does, and a device
    /// that uploads 100,000 objects need not download them again. The token still moves past
    /// them, and a pull that left out records answers at once rather than waiting.
    ///
    /// Each attempt reads in one REPEATABLE READ snapshot, so that the zone's `next_seq` it
    /// reads is the sequence of the last record it can see: a full answer's `nextToken` is
    /// that sequence, and no change is skipped. (Pushes commit in sequence order, because the
    /// zone's row lock serialises them, so no lower sequence number can appear later.)
    func changes(
        owner: String, zoneName: String, since: String?, limit: Int?, wait: Int?, requester: String? = nil
    ) async throws -> ChangesAnswer {
        let token = try since.map(ChangeToken.init(decoding:))
        if let token, token.zone != zoneName {
            throw SyncError.badRequest("The since token belongs to another zone.")
        }
        let limit = min(max(limit ?? configuration.maxRecords, 1), configuration.maxRecords)
        let wait = min(max(wait ?? 0, 0), configuration.maxWaitSeconds)
        let deadline = ContinuousClock.now + .seconds(wait)
        let zoneID = try await zone(owner: owner, name: zoneName).id
        let requester = try requester.map(RequestValidation.clientID)
        while true {
            let generation = notifier.generation(of: zoneID)
            let response = try await readChanges(
                owner: owner, zoneName: zoneName, token: token, limit: limit, requester: requester)
            let moved = token.map { response.sequence > $0.sequence } ?? false
            guard response.isEmpty, !moved, ContinuousClock.now < deadline, !Task.isShuttingDownGracefully else {
                return response
            }
            // Graceful shutdown ends the wait at once, answering what there is.
            try? await cancelWhenGracefulShutdown {
                await self.notifier.wait(for: zoneID, after: generation, until: deadline)
            }
        }
    }

    private func readChanges(
        owner: String, zoneName: String, token: ChangeToken?, limit: Int, requester: String?
    ) async throws -> ChangesAnswer {
        try await client.withConnection { connection in
            try await connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: logger)
            do {
                let response = try await readChanges(
                    owner: owner, zoneName: zoneName, token: token, limit: limit, requester: requester, on: connection)
                try await connection.query("COMMIT", logger: logger)
                return response
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
        }
    }

    private func readChanges(
        owner: String, zoneName: String, token: ChangeToken?, limit: Int, requester: String?,
        on connection: PostgresConnection
    ) async throws -> ChangesAnswer {
        let zone = try await zone(owner: owner, name: zoneName, on: connection)
        if let token {
            try checkFresh(token, zone: zone)
        }
        let since = token?.sequence ?? 0
        // Each record's JSON is made by PostgreSQL from the stored columns, whose `fields` and
        // `clocks` hold the wire format already: a page is answered without decoding and
        // encoding every record here. (`jsonb_strip_nulls` leaves out a live record's delete
        // clock and a missing `changedBy`, as the wire format does; field values hold no JSON
        // null of their own.)
        //
        // The page is chosen in a subquery of its own, so that the JSON is made for its rows
        // only: with the JSON in the same query, a plan that sorts (chosen while the table's
        // statistics still say it is small, after a large upload) made it for every row after
        // the token, on every page.
        let rows = try await connection.query(
            """
            SELECT server_seq, jsonb_strip_nulls(jsonb_build_object(
                'recordType', record_type, 'recordName', record_name, 'fields', fields, 'clocks', clocks,
                'deleted', deleted, 'deleteClock', delete_clock,
                'serverSequence', server_seq, 'changedBy', changed_by))::text
            FROM (
                SELECT * FROM records WHERE zone_id = \(zone.id) AND server_seq > \(since)
                    AND (\(requester)::text IS NULL OR sole_writer IS DISTINCT FROM \(requester))
                ORDER BY server_seq LIMIT \(limit + 1)
            ) AS page ORDER BY server_seq
            """, logger: logger)
        var records: [String] = []
        var lastSequence: Int64?
        var hasMore = false
        for try await (sequence, json) in rows.decode((Int64, String).self) {
            guard records.count < limit else {
                hasMore = true
                break
            }
            records.append(json)
            lastSequence = sequence
        }
        let next: ChangeToken
        if hasMore, let lastSequence {
            // A pull that started from nothing (a first sync or a resync) keeps the horizon it
            // began under, so that its later pages, below the horizon, stay valid until the
            // horizon moves.
            let horizon = token == nil ? zone.tombstoneHorizon : token?.fullPullHorizon
            next = ChangeToken(zone: zone.name, sequence: lastSequence, epoch: zone.epoch, fullPullHorizon: horizon)
        } else {
            next = ChangeToken(zone: zone.name, sequence: zone.nextSequence, epoch: zone.epoch)
        }
        return ChangesAnswer(records: records, nextToken: next.encoded, hasMore: hasMore, sequence: next.sequence)
    }

    /// 410 `resyncRequired` for a token of another epoch (the zone was deleted since), or one
    /// from before tombstones it never saw were purged.
    private func checkFresh(_ token: ChangeToken, zone: Zone) throws {
        guard token.epoch == zone.epoch else {
            throw SyncError(.resyncRequired, "The zone was deleted and made again since this token; resync it.")
        }
        if let horizon = token.fullPullHorizon {
            guard horizon >= zone.tombstoneHorizon else {
                throw SyncError(.resyncRequired, "Tombstones were purged during this full pull; start it again.")
            }
        } else if token.sequence < zone.tombstoneHorizon {
            throw SyncError(.resyncRequired, "Deletes older than this token were purged (the tombstone horizon); resync.")
        }
    }
}

/// A `ChangesResponse` whose records are JSON already (made by PostgreSQL): the answer's JSON is
/// put together around them.
struct ChangesAnswer: ResponseGenerator, Sendable {
    var records: [String]
    var nextToken: String
    var hasMore: Bool
    /// The sequence number `nextToken` stands for.
    var sequence: Int64

    var isEmpty: Bool { records.isEmpty }

    /// The answer's JSON: a `ChangesResponse`.
    func json() throws -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(records.reduce(64 + nextToken.utf8.count) { $0 + $1.utf8.count + 1 })
        buffer.writeString("{\"records\":[")
        for (index, record) in records.enumerated() {
            if index > 0 { buffer.writeString(",") }
            buffer.writeString(record)
        }
        buffer.writeString("],\"nextToken\":")
        buffer.writeBytes(try JSONEncoder().encode(nextToken))
        buffer.writeString(hasMore ? ",\"hasMore\":true}" : ",\"hasMore\":false}")
        return buffer
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: try json()))
    }
}
