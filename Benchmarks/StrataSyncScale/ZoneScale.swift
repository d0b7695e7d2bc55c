import ArgumentParser
import Foundation
import Strata
import StrataSyncProtocol
import SyncTestSupport
import Synchronization

/// `zone`: one user, one zone of `--records` to-dos (1M by default), loaded through both
/// instances; then the field indexes (`PUT /v1/schema`) and the queries of issue 35: an
/// indexed equality, a prefix, a sorted query with its next pages, and a non-indexed query
/// paged to the end with the process's memory read around it.
struct ZoneScale: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "zone", abstract: "A zone of 1M records: load, field indexes, query latencies and a streaming scan.")

    @Option(help: "Records in the zone.")
    var records = 1_000_000

    @Option(help: "Clients pushing batches of 400 at once (a zone takes one push at a time; more pipeline).")
    var loaders = 4

    @Option(help: "Runs of each query kind, each with a random target.")
    var runs = 200

    @Option(help: "Seconds each query kind may take: it stops after this, once it has --min-runs runs.")
    var budget: Double = 120

    @Option(help: "Runs of each query kind at least, whatever the budget.")
    var minRuns = 3

    @Option(help: "Pages after the first that the sorted query fetches by cursor in each run.")
    var nextPages = 2

    @Option(help: "Records per page of the non-indexed query paged to the end.")
    var scanLimit = 100

    @Option(help: "Seconds to wait for the field indexes to be ready.")
    var indexTimeout: Double = 1800

    @Option(help: "Seed of the query targets.")
    var seed: UInt64 = 35

    func validate() throws {
        guard records > 0, loaders > 0, runs > 0, minRuns > 0, nextPages >= 0, scanLimit > 0 else {
            throw ValidationError("Counts must be positive.")
        }
    }

    func run() async throws {
        Machine.printHeader(mode: "zone: \(Format.grouped(records)) records in one zone")
        let startMemory = Memory.read()
        let servers = try await Servers.start()
        do {
            try await measure(servers, startMemory: startMemory)
        } catch {
            await servers.stop()
            throw error
        }
        await servers.stop()
    }

    private func measure(_ servers: Servers, startMemory: Memory?) async throws {
        try await Machine.printDatabase(servers.databaseURL)
        servers.describe()
        print("memory at start (before the servers): \(startMemory.map(String.init(describing:)) ?? "unreadable")")
        let token = try await TestTokens.token(for: "scale-zone", expires: Date().addingTimeInterval(7 * 24 * 3600))
        let zone = SyncPaths.defaultZone
        let bases = servers.urls
        let admin = HTTPClient()
        _ = try await admin.expectOK("PUT", bases[0], SyncPaths.zone(zone), token: token)
        var checks = Checks()
        var table = Table(
            "Zone of \(Format.grouped(records)) records (one user, one zone; \(Machine.buildConfiguration) build)",
            headers: ["figure", "runs", "p50", "p90", "p99", "max", "goal (issue 35)"])

        // Load.
        var phases: [String] = []
        var mark = ContinuousClock.now
        let (pushes, loadTime) = try await load(bases: bases, zone: zone, token: token)
        phases.append("load \(Format.duration(.now - mark))")
        mark = .now
        print(
            "load: \(Format.grouped(records)) records in \(Format.grouped(pushes.count)) pushes of ≤ \(TodoRecords.batchSize) "
                + "by \(loaders) clients alternating between the 2 instances: \(Format.duration(loadTime)) = "
                + "\(Format.rate(records, loadTime)) records/s")
        table.add(["push of 400 records (load, \(loaders) clients)", Format.grouped(pushes.count)] + pushes.cells + ["-"])
        print("memory after the load: \(Memory.read().map(String.init(describing:)) ?? "unreadable")")
        try await servers.analyze()
        phases.append("ANALYZE \(Format.duration(.now - mark))")
        mark = .now

        // Field indexes.
        let schema = try await declareIndexes(admin: admin, base: bases[0], token: token)
        phases.append("field indexes \(Format.duration(.now - mark))")
        mark = .now
        print("field indexes: \(schema)")

        // Queries. The scan first, while the process holds only what the load left: its peak
        // then shows what the scan itself needs, not memory an earlier query freed.
        let scan = try await scanQuery(bases: bases, zone: zone, token: token, checks: &checks)
        phases.append("(d) \(Format.duration(.now - mark))")
        mark = .now
        var generator = SplitMix64(seed: seed)
        let equality = try await equalityQueries(bases: bases, zone: zone, token: token, generator: &generator, checks: &checks)
        phases.append("(a) \(Format.duration(.now - mark))")
        mark = .now
        let p50Met = equality.latencies.percentile(0.5, sorted: equality.latencies.samples.sorted()).map {
            $0 <= .milliseconds(20)
        }
        let p99Met = equality.latencies.p99.map { $0 <= .milliseconds(100) }
        table.add(
            ["(a) indexed equality, limit 10", Format.grouped(equality.latencies.count)] + equality.latencies.cells + [
                "p50 ≤ 20 ms: \(verdict(p50Met)); p99 ≤ 100 ms: \(verdict(p99Met))"
            ])
        let prefix = try await prefixQueries(bases: bases, zone: zone, token: token, generator: &generator, checks: &checks)
        phases.append("(b) \(Format.duration(.now - mark))")
        mark = .now
        let prefixMet = prefix.latencies.percentile(0.5, sorted: prefix.latencies.samples.sorted()).map {
            $0 <= .milliseconds(50)
        }
        table.add(
            ["(b) prefix (BEGINSWITH), limit 10", Format.grouped(prefix.latencies.count)] + prefix.latencies.cells + [
                "p50 ≤ 50 ms: \(verdict(prefixMet))"
            ])
        let sorted = try await sortedQueries(bases: bases, zone: zone, token: token, checks: &checks)
        phases.append("(c) \(Format.duration(.now - mark))")
        table.add(["(c) sorted, limit 50: first page", Format.grouped(sorted.first.count)] + sorted.first.cells + ["-"])
        table.add(["(c) sorted, limit 50: next page by cursor", Format.grouped(sorted.next.count)] + sorted.next.cells + ["-"])
        table.add(
            ["(d) non-indexed, paged to the end: a page", Format.grouped(scan.pages.count)] + scan.pages.cells + [
                "memory bounded: see below"
            ])

        table.show()
        print("field indexes during the queries: \(schema)")
        print("predicates (as the client sends them, NSPredicate(format:).predicateFormat):")
        print("  (a) \(equality.example)  [n random in 0..<\(records)]")
        print(
            "  (b) \(prefix.example)  [prefix random in 10000..<\(min(100_000, records)), 5 digits, where the zone has that many]"
        )
        print("  (c) \(sorted.predicate), sort CD_title ascending, limit 50, then \(nextPages) pages by cursor")
        print("  (d) \(scan.predicate), limit \(scanLimit), every page by cursor to the end")
        print(
            "(d) scan: \(Format.grouped(scan.found)) records found (expected \(Format.grouped(TodoRecords.markerCount(below: records)))) "
                + "in \(scan.pages.count) pages, \(Format.duration(scan.total)) in all")
        print("(d) memory (the scan ran first of the queries, right after the load): \(scan.memory)")
        print("phases: " + phases.joined(separator: ", "))
        print("load average at the end: \(Machine.loadAverage)")
        try checks.finish()
    }

    // MARK: Load

    /// Pushes `records` to-dos in batches of 400: batch `b` through instance `b % 2`, by
    /// client `b % loaders`, each client's batches numbered 1, 2, 3… in its order.
    private func load(bases: [URL], zone: String, token: String) async throws -> (Latencies, Duration) {
        let batches = (records + TodoRecords.batchSize - 1) / TodoRecords.batchSize
        let loaders = min(self.loaders, batches)
        let records = self.records
        let wall = Int64(Date().timeIntervalSince1970 * 1000)
        let progress = Progress(total: records, label: "load")
        let started = ContinuousClock.now
        let latencies = try await withThrowingTaskGroup(of: Latencies.self) { group in
            for loader in 0..<loaders {
                group.addTask {
                    let http = HTTPClient()
                    let clientID = "scale-loader-\(loader)"
                    var latencies = Latencies()
                    var sequence: Int64 = 0
                    for batch in stride(from: loader, to: batches, by: loaders) {
                        sequence += 1
                        let numbers = (batch * TodoRecords.batchSize)..<min((batch + 1) * TodoRecords.batchSize, records)
                        let changes = numbers.map { TodoRecords.change($0, node: clientID, wall: wall) }
                        let body = try TodoRecords.pushBody(clientID: clientID, batchSequence: sequence, changes: changes)
                        let reply = try await http.expectOK(
                            "POST", bases[batch % 2], SyncPaths.push(zone), token: token, body: body)
                        latencies.add(reply.elapsed)
                        progress.advance(by: numbers.count)
                    }
                    return latencies
                }
            }
            var all = Latencies()
            for try await latencies in group { all.add(latencies) }
            return all
        }
        return (latencies, .now - started)
    }

    // MARK: Field indexes

    /// `PUT /v1/schema` with the indexes of `CD_title` and `CD_priority`, then `GET` until each
    /// is ready. Says what happened, in words for the report.
    private func declareIndexes(admin: HTTPClient, base: URL, token: String) async throws -> String {
        let wanted = SchemaIndexes(indexes: [
            FieldIndex(recordType: TodoRecords.recordType, field: "CD_title", kind: .string, queryable: true, sortable: true),
            FieldIndex(recordType: TodoRecords.recordType, field: "CD_priority", kind: .int, queryable: true, sortable: true),
        ])
        let started = ContinuousClock.now
        let put = try await admin.send("PUT", base, SyncPaths.schema, token: token, body: try JSONEncoder().encode(wanted))
        if put.status == 404 {
            print("schema endpoint absent (PUT \(SyncPaths.schema) answered 404): the query figures are without field indexes")
            return "schema endpoint absent (404): no field indexes, the before-figures"
        }
        guard put.status == 200 else {
            print("PUT \(SyncPaths.schema) answered \(put.status): \(put.text)")
            return "PUT \(SyncPaths.schema) answered \(put.status): no field indexes"
        }
        let deadline = ContinuousClock.now + .seconds(indexTimeout)
        var last = ""
        while true {
            let reply = try await admin.send("GET", base, SyncPaths.schema, token: token)
            guard reply.status == 200, let answer = try? JSONDecoder().decode(SchemaIndexes.self, from: reply.data) else {
                return "GET \(SyncPaths.schema) answered \(reply.status): \(reply.text)"
            }
            let states = answer.indexes.map {
                "\($0.recordType).\($0.field) (\($0.kind.rawValue)) \($0.state?.rawValue ?? "no state")"
            }
            last = states.joined(separator: ", ")
            let ours = answer.indexes.filter { index in
                wanted.indexes.contains { $0.recordType == index.recordType && $0.field == index.field }
            }
            if ours.contains(where: { $0.state == .failed }) {
                return "an index build failed after \(Format.duration(.now - started)): \(last)"
            }
            if ours.count >= wanted.indexes.count, answer.indexes.allSatisfy({ $0.state == .ready }) {
                return "declared and ready in \(Format.duration(.now - started)) (PUT, then GET every 0.5 s): \(last)"
            }
            if ContinuousClock.now >= deadline {
                print("GAVE UP waiting for the field indexes after \(Int(indexTimeout)) s: \(last)")
                return "not ready after \(Int(indexTimeout)) s (gave up; queries measured anyway): \(last)"
            }
            try await Task.sleep(for: .milliseconds(500))
        }
    }

    // MARK: Queries

    /// Runs `body` (run index) up to `runs` times, stopping once `budget` seconds have passed
    /// after at least `minRuns` runs.
    private func repeatRuns(_ label: String, _ body: (Int) async throws -> Void) async throws {
        let started = ContinuousClock.now
        var done = 0
        for run in 0..<runs {
            try await body(run)
            done += 1
            if done >= minRuns, Format.seconds(.now - started) > budget { break }
        }
        let note = done < runs ? " (stopped by the \(Int(budget)) s budget)" : ""
        print("\(label): \(done) runs in \(Format.duration(.now - started))\(note)")
    }

    private func equalityQueries(
        bases: [URL], zone: String, token: String, generator: inout SplitMix64, checks: inout Checks
    ) async throws -> (latencies: Latencies, example: String) {
        let http = HTTPClient()
        var latencies = Latencies()
        var example = ""
        var localGenerator = generator
        var localChecks = checks
        try await repeatRuns("(a) equality") { run in
            let number = Int(localGenerator.next() % UInt64(records))
            let predicate = NSPredicate(format: "CD_title == %@", TodoRecords.title(number)).predicateFormat
            if run == 0 { example = predicate }
            let request = QueryRequest(recordType: TodoRecords.recordType, predicate: predicate, limit: 10)
            let (answer, elapsed) = try await http.query(request, bases[run % 2], zone: zone, token: token)
            latencies.add(elapsed)
            localChecks.expect(
                answer.records.map(\.recordName) == [TodoRecords.recordName(number)] && answer.cursor == nil,
                "(a) \(predicate) answered \(answer.records.map(\.recordName))")
        }
        generator = localGenerator
        checks = localChecks
        return (latencies, example)
    }

    private func prefixQueries(
        bases: [URL], zone: String, token: String, generator: inout SplitMix64, checks: inout Checks
    ) async throws -> (latencies: Latencies, example: String) {
        let http = HTTPClient()
        var latencies = Latencies()
        var example = ""
        var localGenerator = generator
        var localChecks = checks
        // 5-digit prefixes that exist in the zone (10000…99999, fewer in a smaller zone).
        let upper = min(100_000, records)
        try await repeatRuns("(b) prefix") { run in
            let prefix =
                upper > 10_000
                ? 10_000 + Int(localGenerator.next() % UInt64(upper - 10_000)) : Int(localGenerator.next() % UInt64(upper))
            let text = TodoRecords.title(prefix)
            let predicate = NSPredicate(format: "CD_title BEGINSWITH %@", text).predicateFormat
            if run == 0 { example = predicate }
            let request = QueryRequest(recordType: TodoRecords.recordType, predicate: predicate, limit: 10)
            let (answer, elapsed) = try await http.query(request, bases[run % 2], zone: zone, token: token)
            latencies.add(elapsed)
            let expected = min(10, TodoRecords.prefixMatches(prefix, below: records))
            let titles = answer.records.compactMap { record -> String? in
                if case .string(let title) = record.fields["CD_title"] { return title }
                return nil
            }
            localChecks.expect(
                titles.count == expected && titles.allSatisfy { $0.hasPrefix(text) },
                "(b) \(predicate) answered \(titles.count) titles (expected \(expected)): \(titles.prefix(3))")
        }
        generator = localGenerator
        checks = localChecks
        return (latencies, example)
    }

    private func sortedQueries(
        bases: [URL], zone: String, token: String, checks: inout Checks
    ) async throws -> (first: Latencies, next: Latencies, predicate: String) {
        let http = HTTPClient()
        var first = Latencies()
        var next = Latencies()
        var localChecks = checks
        let predicate = NSPredicate(format: "CD_priority == %d", 3).predicateFormat
        try await repeatRuns("(c) sorted") { run in
            var request = QueryRequest(
                recordType: TodoRecords.recordType, predicate: predicate, sort: [SortKey(field: "CD_title", ascending: true)],
                limit: 50)
            var titles: [String] = []
            for page in 0...nextPages {
                let (answer, elapsed) = try await http.query(request, bases[(run + page) % 2], zone: zone, token: token)
                if page == 0 { first.add(elapsed) } else { next.add(elapsed) }
                for record in answer.records {
                    localChecks.expect(record.fields["CD_priority"] == .int(3), "(c) \(record.recordName) is not of priority 3")
                    if case .string(let title) = record.fields["CD_title"] { titles.append(title) }
                }
                guard let cursor = answer.cursor else { break }
                request.cursor = cursor
            }
            localChecks.expect(titles == titles.sorted(), "(c) the pages are not in CD_title order")
        }
        checks = localChecks
        return (first, next, predicate)
    }

    private func scanQuery(
        bases: [URL], zone: String, token: String, checks: inout Checks
    ) async throws -> (pages: Latencies, total: Duration, found: Int, predicate: String, memory: String) {
        let http = HTTPClient()
        var pages = Latencies()
        let predicate = NSPredicate(format: "CD_notes CONTAINS %@", TodoRecords.marker).predicateFormat
        var request = QueryRequest(recordType: TodoRecords.recordType, predicate: predicate, limit: scanLimit)
        let before = Memory.read()
        let reset = Memory.resetPeak()
        let started = ContinuousClock.now
        var found = 0
        var names = Set<String>()
        while true {
            let (answer, elapsed) = try await http.query(request, bases[pages.count % 2], zone: zone, token: token)
            pages.add(elapsed)
            found += answer.records.count
            for record in answer.records {
                names.insert(record.recordName)
                if case .string(let notes) = record.fields["CD_notes"] {
                    checks.expect(notes.contains(TodoRecords.marker), "(d) \(record.recordName)'s notes lack the marker")
                } else {
                    checks.expect(false, "(d) \(record.recordName) has no notes")
                }
            }
            guard let cursor = answer.cursor else { break }
            request.cursor = cursor
        }
        let total = ContinuousClock.now - started
        let after = Memory.read()
        let expected = TodoRecords.markerCount(below: records)
        checks.expect(
            found == expected && names.count == expected, "(d) found \(found) (\(names.count) distinct), expected \(expected)")
        let memory =
            "before the scan \(before.map(String.init(describing:)) ?? "unreadable"); "
            + (reset ? "peak reset, then " : "peak NOT reset (clear_refs refused), so VmHWM is the process's; ")
            + "after the scan \(after.map(String.init(describing:)) ?? "unreadable")"
            + {
                guard let before, let after, reset else { return "" }
                return "; peak during the scan − before = \(Format.bytes(after.peak - before.resident))"
            }()
        return (pages, total, found, predicate, memory)
    }
}

/// A progress line on standard error every 10% (the figures go to standard output).
final class Progress: Sendable {
    private let state = Mutex<(done: Int, printed: Int)>((0, 0))
    private let total: Int
    private let label: String
    private let started = ContinuousClock.now

    init(total: Int, label: String) {
        self.total = total
        self.label = label
    }

    func advance(by count: Int) {
        let line: String? = state.withLock { state in
            state.done += count
            let tenth = total > 0 ? state.done * 10 / total : 10
            guard tenth > state.printed else { return nil }
            state.printed = tenth
            let elapsed = ContinuousClock.now - started
            return "\(label): \(Format.grouped(state.done)) of \(Format.grouped(total)) in \(Format.duration(elapsed)) "
                + "(\(Format.rate(state.done, elapsed))/s)\n"
        }
        if let line { FileHandle.standardError.write(Data(line.utf8)) }
    }
}
