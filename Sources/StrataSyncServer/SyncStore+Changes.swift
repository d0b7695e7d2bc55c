import Foundation
import PostgresNIO
import ServiceLifecycle
import StrataSyncProtocol

extension SyncStore {
    /// The records changed after `since` (everything when nil), in sequence order, at most
    /// `limit`; with `wait` seconds and nothing new, holds the request until a push to the zone
    /// commits on any instance (`ChangeNotifier`) or the time is up.
    ///
    /// Each attempt reads in one REPEATABLE READ snapshot, so that the zone's `next_seq` it
    /// reads is the sequence of the last record it can see: a full answer's `nextToken` is
    /// that sequence, and no change is skipped. (Pushes commit in sequence order, because the
    /// zone's row lock serialises them, so no lower sequence number can appear later.)
    func changes(owner: String, zoneName: String, since: String?, limit: Int?, wait: Int?) async throws -> ChangesResponse {
        let token = try since.map(ChangeToken.init(decoding:))
        if let token, token.zone != zoneName {
            throw SyncError.badRequest("The since token belongs to another zone.")
        }
        let limit = min(max(limit ?? configuration.maxRecords, 1), configuration.maxRecords)
        let wait = min(max(wait ?? 0, 0), configuration.maxWaitSeconds)
        let deadline = ContinuousClock.now + .seconds(wait)
        let zoneID = try await zone(owner: owner, name: zoneName).id
        while true {
            let generation = notifier.generation(of: zoneID)
            let response = try await readChanges(owner: owner, zoneName: zoneName, token: token, limit: limit)
            guard response.records.isEmpty, ContinuousClock.now < deadline, !Task.isShuttingDownGracefully else {
                return response
            }
            // Graceful shutdown ends the wait at once, answering what there is.
            try? await cancelWhenGracefulShutdown {
                await self.notifier.wait(for: zoneID, after: generation, until: deadline)
            }
        }
    }

    private func readChanges(owner: String, zoneName: String, token: ChangeToken?, limit: Int) async throws -> ChangesResponse {
        try await client.withConnection { connection in
            try await connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: logger)
            do {
                let response = try await readChanges(
                    owner: owner, zoneName: zoneName, token: token, limit: limit, on: connection)
                try await connection.query("COMMIT", logger: logger)
                return response
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
        }
    }

    private func readChanges(
        owner: String, zoneName: String, token: ChangeToken?, limit: Int, on connection: PostgresConnection
    ) async throws -> ChangesResponse {
        let zone = try await zone(owner: owner, name: zoneName, on: connection)
        if let token {
            try checkFresh(token, zone: zone)
        }
        let since = token?.sequence ?? 0
        let rows = try await connection.query(
            """
            SELECT record_type, record_name, fields::text, clocks::text, deleted, delete_clock, server_seq, changed_by
            FROM records WHERE zone_id = \(zone.id) AND server_seq > \(since) ORDER BY server_seq LIMIT \(limit + 1)
            """, logger: logger)
        var records: [RecordState] = []
        var hasMore = false
        for try await row in rows.decode(RecordRow.self) {
            guard records.count < limit else {
                hasMore = true
                break
            }
            records.append(try Self.record(row).state)
        }
        let next: ChangeToken
        if hasMore, let last = records.last {
            // A pull that started from nothing (a first sync or a resync) keeps the horizon it
            // began under, so that its later pages, below the horizon, stay valid until the
            // horizon moves.
            let horizon = token == nil ? zone.tombstoneHorizon : token?.fullPullHorizon
            next = ChangeToken(zone: zone.name, sequence: last.serverSequence, epoch: zone.epoch, fullPullHorizon: horizon)
        } else {
            next = ChangeToken(zone: zone.name, sequence: zone.nextSequence, epoch: zone.epoch)
        }
        return ChangesResponse(records: records, nextToken: next.encoded, hasMore: hasMore)
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
