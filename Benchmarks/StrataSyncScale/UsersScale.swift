import ArgumentParser
import Foundation
import StrataSyncProtocol
import SyncTestSupport

/// `users`: `--users` users (1,000 by default) with a zone each of `--records-per-user` to-dos
/// (10k), pushed by `--clients` concurrent clients (100) in batches of 400, then pulled from
/// scratch by as many; throughput, latency per request, and the database's size per record.
struct UsersScale: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "Many users with a zone each: push and pull throughput and latency, and the database's size.")

    @Option(help: "Users, each with a zone of their own.")
    var users = 1000

    @Option(help: "Records in each user's zone.")
    var recordsPerUser = 10_000

    @Option(help: "Concurrent clients; each works through its share of the users, one user at a time.")
    var clients = 100

    func validate() throws {
        guard users > 0, recordsPerUser > 0, clients > 0 else { throw ValidationError("Counts must be positive.") }
    }

    func run() async throws {
        let total = users * recordsPerUser
        Machine.printHeader(
            mode: "users: \(Format.grouped(users)) users × \(Format.grouped(recordsPerUser)) records "
                + "= \(Format.grouped(total)) records, \(clients) clients")
        let servers = try await Servers.start()
        do {
            try await measure(servers)
        } catch {
            await servers.stop()
            throw error
        }
        await servers.stop()
    }

    private func measure(_ servers: Servers) async throws {
        try await Machine.printDatabase(servers.databaseURL)
        servers.describe()
        let total = users * recordsPerUser
        let clients = min(self.clients, users)
        let signing = ContinuousClock.now
        var tokens: [String] = []
        for user in 0..<users {
            tokens.append(try await TestTokens.token(for: Self.user(user), expires: Date().addingTimeInterval(7 * 24 * 3600)))
        }
        print("tokens: \(users) signed in \(Format.duration(.now - signing))")
        var checks = Checks()

        // Push.
        let push = try await pushAll(bases: servers.urls, tokens: tokens, clients: clients)
        print(
            "push: \(Format.grouped(total)) records in \(Format.grouped(push.latencies.count)) pushes by \(clients) clients: "
                + "\(Format.duration(push.elapsed)) = \(Format.rate(total, push.elapsed)) records/s "
                + "(the \(Format.grouped(users)) zones made before that, in \(Format.duration(push.zoneTime)))")
        try await servers.analyze()

        // Pull.
        let pull = try await pullAll(bases: servers.urls, tokens: tokens, clients: clients)
        print(
            "pull: \(Format.grouped(pull.records)) records in \(Format.grouped(pull.latencies.count)) pages by \(clients) clients: "
                + "\(Format.duration(pull.elapsed)) = \(Format.rate(pull.records, pull.elapsed)) records/s")
        for (user, count) in pull.counts.enumerated() {
            checks.expect(
                count.records == recordsPerUser, "user \(user)'s zone pulled \(count.records) records of \(recordsPerUser)")
            checks.expect(count.distinct == recordsPerUser, "user \(user)'s zone pulled \(count.distinct) distinct names")
        }

        // Size.
        let rows = Int(try await servers.sql("SELECT count(*)::text FROM records").first.flatMap { $0 } ?? "") ?? -1
        checks.expect(rows == total, "the records table holds \(rows) rows, not \(total)")
        let sizes = try await servers.sql(
            """
            SELECT pg_total_relation_size('records')::text UNION ALL SELECT pg_relation_size('records')::text
            UNION ALL SELECT pg_indexes_size('records')::text UNION ALL SELECT pg_database_size(current_database())::text
            """
        ).map { Int($0 ?? "") ?? 0 }
        let totalSize = sizes.count == 4 ? sizes[0] : 0
        let heap = sizes.count == 4 ? sizes[1] : 0
        let indexes = sizes.count == 4 ? sizes[2] : 0
        let database = sizes.count == 4 ? sizes[3] : 0

        var table = Table(
            "\(Format.grouped(users)) users × \(Format.grouped(recordsPerUser)) records, \(clients) concurrent clients "
                + "(\(Machine.buildConfiguration) build)",
            headers: ["figure", "requests", "records/s", "p50", "p90", "p99", "max"])
        table.add(
            ["push of 400 records", Format.grouped(push.latencies.count), Format.rate(total, push.elapsed)]
                + push.latencies.cells)
        table.add(
            [
                "pull page (≤ 400 records, from scratch)", Format.grouped(pull.latencies.count),
                Format.rate(pull.records, pull.elapsed),
            ]
                + pull.latencies.cells)
        table.add(
            ["a whole zone pulled (\(Format.grouped(recordsPerUser)) records)", Format.grouped(pull.zones.count), "-"]
                + pull.zones.cells)
        table.show()

        var size = Table("Database size (\(Format.grouped(rows)) rows in records)", headers: ["what", "bytes", "per record"])
        let perRecord = { (bytes: Int) in rows > 0 ? Format.grouped(bytes / rows) + " B" : "-" }
        size.add([
            "pg_total_relation_size('records')", "\(Format.grouped(totalSize)) (\(Format.bytes(totalSize)))",
            perRecord(totalSize),
        ])
        size.add(["  of which the table (pg_relation_size)", "\(Format.grouped(heap)) (\(Format.bytes(heap)))", perRecord(heap)])
        size.add([
            "  of which its indexes (pg_indexes_size)", "\(Format.grouped(indexes)) (\(Format.bytes(indexes)))",
            perRecord(indexes),
        ])
        size.add([
            "pg_database_size(current_database())", "\(Format.grouped(database)) (\(Format.bytes(database)))",
            perRecord(database),
        ])
        size.show()
        print("phases: push \(Format.duration(push.elapsed)), pull \(Format.duration(pull.elapsed))")
        print("load average at the end: \(Machine.loadAverage)")
        try checks.finish()
    }

    static func user(_ index: Int) -> String { "scale-user-\(index)" }

    /// Each client takes users `client`, `client + clients`…: makes the user's zone, then
    /// pushes its records in batches of 400 as the user's device (`device-<user>`), each push
    /// through the other instance than the last.
    private func pushAll(
        bases: [URL], tokens: [String], clients: Int
    ) async throws -> (
        latencies: Latencies, elapsed: Duration, zoneTime: Duration
    ) {
        let users = self.users
        let recordsPerUser = self.recordsPerUser
        let zone = SyncPaths.defaultZone
        let wall = Int64(Date().timeIntervalSince1970 * 1000)
        let progress = Progress(total: users * recordsPerUser, label: "push")
        let started = ContinuousClock.now
        // Every zone first, concurrently: the push phase then measures pushes alone.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for client in 0..<clients {
                group.addTask {
                    let http = HTTPClient()
                    for user in stride(from: client, to: users, by: clients) {
                        _ = try await http.expectOK("PUT", bases[user % 2], SyncPaths.zone(zone), token: tokens[user])
                    }
                }
            }
            try await group.waitForAll()
        }
        let zoneTime = ContinuousClock.now - started
        let pushStarted = ContinuousClock.now
        let latencies = try await withThrowingTaskGroup(of: Latencies.self) { group in
            for client in 0..<clients {
                group.addTask {
                    let http = HTTPClient()
                    var latencies = Latencies()
                    for user in stride(from: client, to: users, by: clients) {
                        let device = "device-\(user)"
                        var sequence: Int64 = 0
                        for start in stride(from: 0, to: recordsPerUser, by: TodoRecords.batchSize) {
                            sequence += 1
                            let numbers = start..<min(start + TodoRecords.batchSize, recordsPerUser)
                            let changes = numbers.map { TodoRecords.change($0, node: device, wall: wall) }
                            let body = try TodoRecords.pushBody(clientID: device, batchSequence: sequence, changes: changes)
                            let reply = try await http.expectOK(
                                "POST", bases[(user + Int(sequence)) % 2], SyncPaths.push(zone), token: tokens[user],
                                body: body)
                            latencies.add(reply.elapsed)
                            progress.advance(by: numbers.count)
                        }
                    }
                    return latencies
                }
            }
            var all = Latencies()
            for try await latencies in group { all.add(latencies) }
            return all
        }
        return (latencies, .now - pushStarted, zoneTime)
    }

    /// Each client takes users as in the push, and pulls each user's zone from scratch, page
    /// after page until `hasMore` is false, alternating instances.
    private func pullAll(
        bases: [URL], tokens: [String], clients: Int
    ) async throws -> (
        latencies: Latencies, zones: Latencies, elapsed: Duration, records: Int, counts: [(records: Int, distinct: Int)]
    ) {
        let users = self.users
        let zone = SyncPaths.defaultZone
        let progress = Progress(total: users * recordsPerUser, label: "pull")
        let started = ContinuousClock.now
        let results = try await withThrowingTaskGroup(of: (Latencies, Latencies, [(Int, Int, Int)]).self) { group in
            for client in 0..<clients {
                group.addTask {
                    let http = HTTPClient()
                    var pages = Latencies()
                    var zones = Latencies()
                    var counts: [(Int, Int, Int)] = []
                    for user in stride(from: client, to: users, by: clients) {
                        let zoneStarted = ContinuousClock.now
                        var token: String?
                        var count = 0
                        var names = Set<String>()
                        var page = 0
                        while true {
                            let (answer, elapsed) = try await http.changes(
                                bases[(user + page) % 2], zone: zone, since: token, token: tokens[user])
                            pages.add(elapsed)
                            page += 1
                            count += answer.records.count
                            for record in answer.records { names.insert(record.recordName) }
                            progress.advance(by: answer.records.count)
                            token = answer.nextToken
                            if !answer.hasMore { break }
                        }
                        zones.add(.now - zoneStarted)
                        counts.append((user, count, names.count))
                    }
                    return (pages, zones, counts)
                }
            }
            var pages = Latencies()
            var zones = Latencies()
            var counts = [(records: Int, distinct: Int)](repeating: (0, 0), count: users)
            for try await (clientPages, clientZones, clientCounts) in group {
                pages.add(clientPages)
                zones.add(clientZones)
                for (user, records, distinct) in clientCounts { counts[user] = (records, distinct) }
            }
            return (pages, zones, counts)
        }
        let records = results.2.reduce(0) { $0 + $1.records }
        return (results.0, results.1, .now - started, records, results.2)
    }
}
