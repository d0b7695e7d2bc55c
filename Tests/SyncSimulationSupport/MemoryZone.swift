import Foundation
import StrataSyncProtocol

@testable import Strata

/// The records of a zone as the server's contract keeps them, in memory.
final class MemoryZone: @unchecked Sendable {
    private(set) var records: [String: RecordState] = [:]
    private(set) var sequence: Int64 = 0
    private var lastBatch: [String: Int64] = [:]
    private var newestDelete: [String: HybridLogicalClock] = [:]
    /// Record changes applied (not counting retried batches).
    private(set) var appliedChanges = 0

    /// How the next push fails, if it does: before applying anything, or after applying
    /// all of it (its answer lost, as when a server is killed mid-push).
    enum PushFailure: Error { case beforeApplying, afterApplying }
    var failNextPush: PushFailure?

    /// Applies batches in order, once each; a gap is refused as the server does (409).
    func push(_ request: PushRequest) throws -> PushResponse {
        if failNextPush == .beforeApplying {
            failNextPush = nil
            throw PushFailure.beforeApplying
        }
        defer { failNextPush = nil }
        let response = try apply(request)
        if failNextPush == .afterApplying { throw PushFailure.afterApplying }
        return response
    }

    private func apply(_ request: PushRequest) throws -> PushResponse {
        var applied: [Int64] = []
        var already: [Int64] = []
        for batch in request.batches {
            let last = lastBatch[request.clientID] ?? 0
            if batch.batchSequence <= last {
                already.append(batch.batchSequence)
                continue
            }
            guard batch.batchSequence == last + 1 else {
                throw SyncServerError.from(
                    status: 409, answer: .init(code: .outOfOrder, message: "gap", lastBatchSequence: last),
                    path: "/push", retryAfter: nil)
            }
            for change in batch.changes { apply(change, from: request.clientID) }
            lastBatch[request.clientID] = batch.batchSequence
            applied.append(batch.batchSequence)
        }
        return PushResponse(
            applied: applied, alreadyApplied: already, lastBatchSequence: lastBatch[request.clientID] ?? 0,
            serverSequence: sequence)
    }

    /// The server's merge (see `StoredRecord` of the sync server): per field, last writer
    /// wins by clock; a delete drops the fields not newer than it, and later values not
    /// newer than the newest delete are ignored.
    private func apply(_ change: RecordChange, from client: String) {
        appliedChanges += 1
        var record =
            records[change.recordName]
            ?? RecordState(
                recordType: change.recordType, recordName: change.recordName, fields: [:], clocks: [:], deleted: false,
                deleteClock: nil, serverSequence: 0, changedBy: nil)
        var deleteClock = newestDelete[change.recordName]
        var changed = false
        switch change.operation {
        case .delete:
            guard let clock = change.deleteClock else { return }
            if let deleteClock, clock <= deleteClock { return }
            deleteClock = clock
            for (name, fieldClock) in record.clocks where fieldClock <= clock {
                record.clocks[name] = nil
                record.fields[name] = nil
            }
            if record.fields.isEmpty { record.deleted = true }
            changed = true
        case .upsert:
            for (name, value) in change.fields {
                guard let clock = change.clocks[name] else { continue }
                if let deleteClock, clock <= deleteClock { continue }
                if let stored = record.clocks[name], clock <= stored { continue }
                record.fields[name] = value
                record.clocks[name] = clock
                changed = true
            }
            if changed && record.deleted { record.deleted = false }
        }
        newestDelete[change.recordName] = deleteClock
        guard changed else { return }
        // The newest delete's clock, also on a record that came back (as the server answers).
        record.deleteClock = deleteClock
        sequence += 1
        record.serverSequence = sequence
        record.changedBy = client
        records[change.recordName] = record
    }

    /// The records changed after a token (a decimal sequence number here).
    func changes(since token: String?, limit: Int = 1000) -> ChangesResponse {
        let since = token.flatMap { Int64($0) } ?? 0
        let newer = records.values.filter { $0.serverSequence > since }.sorted { $0.serverSequence < $1.serverSequence }
        let page = Array(newer.prefix(limit))
        return ChangesResponse(
            records: page, nextToken: String(page.last?.serverSequence ?? max(since, 0)), hasMore: newer.count > limit)
    }
}

/// The simulation's in-memory server: its failure is a push refused before it is applied, or
/// applied with its answer lost (as when a server is killed mid-push).
extension MemoryZone: SimulatedServer {
    func makeDevice(at url: URL, model: NSManagedObjectModel) throws -> Device {
        try Device(at: url, model: model, historyValues: true)
    }

    func push(_ device: Device) throws { try device.push(to: self) }

    func pull(_ device: Device) throws { try device.pull(from: self) }

    func sync(_ device: Device) throws { try device.sync(with: self) }

    /// The device's next push fails; an offline device leaves the failure armed for the next
    /// push of any device.
    func fail(duringSyncOf device: Device, index: Int, choice: UInt64) throws -> String {
        let failure: PushFailure = choice % 2 == 0 ? .beforeApplying : .afterApplying
        failNextPush = failure
        do {
            try device.sync(with: self)
        } catch is PushFailure {
            failNextPush = nil
        }
        return "the server fails on device \(index)'s next push (\(failure))"
    }

    func absorbs(_ error: any Error) -> Bool {
        guard error is PushFailure else { return false }
        failNextPush = nil
        return true
    }

    func heal() { failNextPush = nil }

    func storedRecords() -> [RecordState] { Array(records.values) }

    var log: [String] { [] }
}
