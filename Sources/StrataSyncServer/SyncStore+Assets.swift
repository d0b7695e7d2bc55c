import Crypto
import Foundation
import NIOCore
import PostgresNIO

extension SyncStore {
    /// Keeps bytes in the zone under their SHA-256; 400 when the bytes do not hash to the
    /// name, so that an asset reference always names what it holds. Storing the same bytes
    /// again changes nothing.
    func putAsset(_ bytes: ByteBuffer, sha256: String, owner: String, zoneName: String) async throws {
        guard RequestValidation.isSHA256(sha256) else {
            throw SyncError.badRequest("An asset is named by the lower-case hex SHA-256 of its bytes.")
        }
        let digest = SHA256.hash(data: bytes.readableBytesView).map { String(format: "%02x", $0) }.joined()
        guard digest == sha256 else {
            throw SyncError.badRequest("The bytes hash to \(digest), not \(sha256).")
        }
        let zone = try await zone(owner: owner, name: zoneName)
        try await client.query(
            """
            INSERT INTO assets (zone_id, sha256, size, bytes) VALUES (\(zone.id), \(sha256), \(Int64(bytes.readableBytes)), \(bytes))
            ON CONFLICT (zone_id, sha256) DO NOTHING
            """, logger: logger)
    }

    /// The bytes of an asset of the user's zone; 404 for a zone or asset that is not theirs.
    func asset(sha256: String, owner: String, zoneName: String) async throws -> ByteBuffer {
        guard RequestValidation.isSHA256(sha256) else { throw SyncError(.notFound, "No asset \(sha256.prefix(64)).") }
        let zone = try await zone(owner: owner, name: zoneName)
        let rows = try await client.query(
            "SELECT bytes FROM assets WHERE zone_id = \(zone.id) AND sha256 = \(sha256)", logger: logger)
        for try await bytes in rows.decode(ByteBuffer.self) {
            return bytes
        }
        throw SyncError(.notFound, "No asset \(sha256) in zone \(zoneName).")
    }
}

extension SyncStore {
    /// Purges tombstones last changed before `age` ago, and moves each zone's tombstone
    /// horizon up to the newest sequence number purged: a token below it can no longer learn
    /// of those deletes and answers 410. One transaction per zone, taking the zone's row lock
    /// first, as pushes do, so that the two never wait on each other in opposite orders.
    /// Returns how many tombstones were purged.
    @discardableResult
    func purgeTombstones(olderThan age: Duration) async throws -> Int {
        let seconds = Double(age.components.seconds) + Double(age.components.attoseconds) / 1e18
        let zoneRows = try await client.query(
            """
            SELECT DISTINCT zone_id FROM records WHERE deleted AND updated_at < now() - make_interval(secs => \(seconds))
            """, logger: logger)
        var zoneIDs: [Int64] = []
        for try await id in zoneRows.decode(Int64.self) { zoneIDs.append(id) }
        var purged = 0
        for zoneID in zoneIDs {
            purged += try await client.withConnection { connection in
                try await connection.inTransaction(logger: logger) { connection in
                    try await connection.query("SELECT id FROM zones WHERE id = \(zoneID) FOR NO KEY UPDATE", logger: logger)
                    let rows = try await connection.query(
                        """
                        WITH purged AS (
                            DELETE FROM records WHERE zone_id = \(zoneID) AND deleted
                            AND updated_at < now() - make_interval(secs => \(seconds)) RETURNING server_seq)
                        SELECT count(*), coalesce(max(server_seq), 0) FROM purged
                        """, logger: logger)
                    var count: Int64 = 0
                    var newest: Int64 = 0
                    for try await (n, maximum) in rows.decode((Int64, Int64).self) {
                        count = n
                        newest = maximum
                    }
                    try await connection.query(
                        "UPDATE zones SET tombstone_horizon = greatest(tombstone_horizon, \(newest)) WHERE id = \(zoneID)",
                        logger: logger)
                    return Int(count)
                }
            }
        }
        if purged > 0 { logger.info("Purged \(purged) tombstones") }
        return purged
    }
}
