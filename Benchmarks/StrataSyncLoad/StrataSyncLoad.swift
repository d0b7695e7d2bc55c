import Foundation
import StrataSyncProtocol
import StrataSyncServer
import SyncTestSupport

/// `strata-sync-load`: N clients pushing M changes each through two server instances on one
/// database (issue 24's figure: 50 × 100 = 5,000 changes), then a pull that checks every
/// change was applied exactly once with gap-free sequence numbers, and the rate.
///
///     swift run -c release strata-sync-load [--clients 50] [--changes 100] [--batch 10]
///     swift run -c release strata-sync-load --figures 100000   # upload and download figures
///
/// Uses DATABASE_URL's server when set (a fresh database on it), else starts a throw-away
/// PostgreSQL 15 cluster. Both instances and the clients run in this process, on loopback.
@main
struct StrataSyncLoad {
    static func main() async {
        do {
            try await run()
        } catch {
            print("strata-sync-load: \(error)")
            exit(1)
        }
    }

    static func option(_ name: String, default value: Int) -> Int {
        let arguments = CommandLine.arguments
        guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count, let number = Int(arguments[index + 1]),
            number > 0
        else { return value }
        return number
    }

    static func run() async throws {
        if CommandLine.arguments.contains("--figures") {
            try await SyncFigures.run(count: option("--figures", default: 100_000))
            return
        }
        let clients = option("--clients", default: 50)
        let changesPerClient = option("--changes", default: 100)
        let batchSize = min(option("--batch", default: 10), changesPerClient)
        let url = try await TestPostgres.shared.makeDatabase()
        var configuration = TestSyncServer.configuration(databaseURL: url)
        configuration.maxRecords = max(400, batchSize)
        // A server's own default, not the tests' few.
        configuration.maxDatabaseConnections = SyncServerConfiguration(databaseURL: url).maxDatabaseConnections
        let first = try await TestSyncServer.start(configuration: configuration)
        let second = try await TestSyncServer.start(configuration: configuration)
        let token = try await TestTokens.token(for: "load")
        let instances = [first, second].map { SyncTestClient(base: $0.url, token: token) }
        try await instances[0].createZone()

        let started = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for c in 0..<clients {
                group.addTask {
                    let instance = instances[c % 2]
                    var batch: Int64 = 0
                    for start in stride(from: 0, to: changesPerClient, by: batchSize) {
                        batch += 1
                        let changes = (start..<min(start + batchSize, changesPerClient)).map { i in
                            RecordChange(
                                recordType: "CD_Todo", recordName: "client\(c)-\(i)", operation: .upsert,
                                fields: ["CD_title": .string("Change \(i) of client \(c)"), "CD_n": .int(Int64(i))],
                                clocks: [
                                    "CD_title": HybridLogicalClock(wallMilliseconds: Int64(i), counter: 0, node: "c\(c)"),
                                    "CD_n": HybridLogicalClock(wallMilliseconds: Int64(i), counter: 0, node: "c\(c)"),
                                ])
                        }
                        let request = PushRequest(
                            clientID: "client-\(c)", batches: [ChangeBatch(batchSequence: batch, changes: changes)])
                        let reply = try await instance.push(request)
                        guard reply.status == 200 else {
                            throw TestPostgresError(message: "push failed: \(reply.status) \(reply.text)")
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let total = clients * changesPerClient

        let records = try await instances[1].pullAll().records
        let names = Set(records.map(\.recordName))
        let sequences = records.map(\.serverSequence)
        let exact = records.count == total && names.count == total && sequences == Array(1...Int64(total))
        await first.stop()
        await second.stop()
        print(
            "strata-sync-load: \(clients) clients × \(changesPerClient) changes (batches of \(batchSize)) through 2 instances: "
                + "\(total) changes in \(String(format: "%.2f", seconds)) s = \(Int(Double(total) / seconds)) changes/s; "
                + "pulled \(records.count) records, \(names.count) distinct, sequences 1…\(sequences.last ?? 0) "
                + (exact ? "gap-free: every change applied exactly once" : "WRONG"))
        if !exact { exit(1) }
    }
}
