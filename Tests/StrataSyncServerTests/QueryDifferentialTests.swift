import Foundation
import Strata
import StrataSyncProtocol
import SyncTestSupport
import Testing

/// The query endpoint against Strata's own evaluator (issue 35): thousands of generated
/// predicates, sorts and limits, sent over HTTP as a client sends them and paged through
/// with the cursor; each answer must hold exactly the live `CD_Item` records for which
/// `NSPredicate(format:).evaluate(with:)` holds on the record as the server shows it to a
/// predicate, each once, in the order of the sort rule (`QueryOracle.precedes`). Black-box,
/// so that it holds the server to the same answers whether it evaluates predicates in Swift
/// or compiles them to SQL.
///
/// `STRATA_QUERY_SEED` replays a run (every failure names its seed), `STRATA_QUERY_CASE` one
/// case of it, printed in full; `STRATA_QUERY_CASES`, `STRATA_QUERY_ZONES`,
/// `STRATA_QUERY_ITEMS` and `STRATA_QUERY_PAGES` change its size (`DifferentialSettings`).
@Suite("Sync query, differential", .enabled(if: TestPostgres.isAvailable, "PostgreSQL is absent"))
struct QueryDifferentialTests {
    @Test("generated queries answer the records Strata's evaluator matches, once each, in the sort rule's order")
    func differential() async throws {
        let settings = DifferentialSettings(environment: ProcessInfo.processInfo.environment)
        try await withSyncServer { fixture in
            let run = DifferentialRun(settings: settings, zones: try await load(settings, into: fixture))
            let start = ContinuousClock.now
            let cases = settings.only.map { [$0] } ?? Array(0..<settings.cases)
            // Half the cases before the fields have indexes and half after, where the server
            // has them (`PUT /v1/schema`): a server answers from either.
            let half = settings.only == nil ? cases.count / 2 : cases.count
            var totals = try await run.run(Array(cases[..<half]))
            let indexes = try await declareIndexes(fixture.alice)
            totals.add(try await run.run(settings.only == nil ? Array(cases[half...]) : cases))
            let seconds = (ContinuousClock.now - start) / .seconds(1)
            print(
                "Query differential: seed \(settings.seedText), \(totals.cases) cases, \(totals.pages) pages, "
                    + "\(totals.matches) matches, \(String(format: "%.1f", seconds)) s; \(totals.summary); indexes: \(indexes)")
            totals.recordIssues(settings)
        }
    }

    /// The zones, each filled with a dataset of its own: Alice's and Bob's in turn, each name
    /// used by both, so that a record of another zone or of another user would show in an
    /// answer (record names recur across datasets, with other fields).
    private func load(_ settings: DifferentialSettings, into fixture: SyncFixture) async throws -> [DifferentialZone] {
        let users = [("alice", fixture.alice), ("bob", try await fixture.client(for: "bob"))]
        var zones: [DifferentialZone] = []
        for index in 0..<settings.zones {
            let (user, client) = users[index % users.count]
            let zone = DifferentialZone(
                dataset: QueryDataset(seed: settings.seed &+ UInt64(index), items: settings.items), client: client,
                user: user, name: "query-differential-\(index / users.count)")
            try await client.createZone(zone.name)
            for (batch, changes) in zone.dataset.pushes.enumerated() {
                _ = try await client.push(push("query-differential-\(user)", [(Int64(batch + 1), changes)]), zone: zone.name)
                    .expectOK(PushResponse.self)
            }
            // The zone holds what the oracle thinks it holds.
            let live = try await client.pullAll(zone: zone.name).records.filter {
                $0.recordType == QueryDataset.recordType && !$0.deleted
            }
            #expect(
                Set(live.map(\.recordName)) == Set(zone.dataset.items.keys),
                "\(zone) does not hold the dataset's items (seed \(settings.seedText))")
            zones.append(zone)
        }
        return zones
    }

    /// Asks for an index of every field of `CD_Item` and waits until they are ready; what
    /// happened, in words. A server without `/v1/schema` answers every query without one.
    private func declareIndexes(_ client: SyncTestClient) async throws -> String {
        var declared = 0
        var refusals: [Int: [String]] = [:]
        for (field, kind) in QueryDataset.fields {
            let index = FieldIndex(recordType: QueryDataset.recordType, field: field, kind: kind)
            let reply = try await client.send("PUT", SyncPaths.schema, json: SchemaIndexes(indexes: [index]))
            if reply.status == 200 { declared += 1 } else { refusals[reply.status, default: []].append(field) }
        }
        let refused = refusals.keys.sorted().map { status in
            let fields = refusals[status] ?? []
            return "\(status) for " + (fields.count == QueryDataset.fields.count ? "every field" : fields.joined(separator: ", "))
        }.joined(separator: "; ")
        guard declared > 0 else { return "none (PUT /v1/schema answered \(refused))" }
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let reply = try await client.send("GET", SyncPaths.schema)
            guard reply.status == 200, let schema = try? reply.decode(SchemaIndexes.self) else {
                return "\(declared) declared, then GET /v1/schema answered \(reply.status)"
            }
            let ours = schema.indexes.filter { $0.recordType == QueryDataset.recordType }
            if ours.allSatisfy({ $0.state != .building }) {
                let ready = ours.filter { $0.state == .ready }.count
                return "\(declared) declared, \(ready) ready" + (refusals.isEmpty ? "" : ", refused: \(refused)")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        return "\(declared) declared, still building after 60 s"
    }
}

/// The run's settings, from the environment.
struct DifferentialSettings: Sendable {
    /// `STRATA_QUERY_SEED`: decimal or `0x` hex; `random` for a new seed.
    var seed: UInt64 = 0x35
    /// `STRATA_QUERY_CASES`: predicate cases per run.
    var cases = 10_000
    /// `STRATA_QUERY_CASE`: only this case of the seed, printed in full.
    var only: Int?
    /// `STRATA_QUERY_ITEMS`: live `CD_Item` records in each zone. (The server before issue
    /// 35 reads every record of the type for each page it answers: few records per zone
    /// keep 10,000 cases within a minute.)
    var items = 24
    /// `STRATA_QUERY_ZONES`: zones, Alice's and Bob's in turn; case `i` queries zone `i % zones`.
    var zones = 15
    /// Queries under way at once.
    var workers = 4
    /// `STRATA_QUERY_PAGES`: the most pages a case takes (its limit is at least its matches
    /// divided by this).
    var pages = 3

    init(environment: [String: String]) {
        if let text = environment["STRATA_QUERY_SEED"] {
            if text == "random" {
                seed = UInt64.random(in: 0...UInt64.max)
            } else if let value = text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text) {
                seed = value
            }
        }
        if let value = environment["STRATA_QUERY_CASES"].flatMap({ Int($0) }), value > 0 { cases = value }
        if let value = environment["STRATA_QUERY_ITEMS"].flatMap({ Int($0) }), value > 0 { items = value }
        if let value = environment["STRATA_QUERY_ZONES"].flatMap({ Int($0) }), value > 0 { zones = value }
        if let value = environment["STRATA_QUERY_PAGES"].flatMap({ Int($0) }), value > 0 { pages = value }
        only = environment["STRATA_QUERY_CASE"].flatMap { Int($0) }
    }

    var seedText: String { "0x" + String(seed, radix: 16) }

    /// How to run case `index` again (with the sizes that differ from the defaults).
    func replay(_ index: Int) -> String {
        let defaults = DifferentialSettings(environment: [:])
        var text = "STRATA_QUERY_SEED=\(seedText) STRATA_QUERY_CASE=\(index)"
        if zones != defaults.zones { text += " STRATA_QUERY_ZONES=\(zones)" }
        if items != defaults.items { text += " STRATA_QUERY_ITEMS=\(items)" }
        if pages != defaults.pages { text += " STRATA_QUERY_PAGES=\(pages)" }
        return text
    }
}

/// A zone of the run: its records, and whose it is.
struct DifferentialZone: Sendable, CustomStringConvertible {
    let dataset: QueryDataset
    let client: SyncTestClient
    let user: String
    let name: String

    var description: String { "\(user)'s zone \(name)" }
}

/// The cases of a run against one server, several at a time.
struct DifferentialRun: Sendable {
    let settings: DifferentialSettings
    let zones: [DifferentialZone]

    func run(_ cases: [Int]) async throws -> DifferentialTotals {
        try await withThrowingTaskGroup(of: DifferentialTotals.self) { group in
            for worker in 0..<settings.workers {
                let mine = cases.enumerated().filter { $0.offset % settings.workers == worker }.map(\.element)
                group.addTask {
                    let oracles = zones.map { Oracle($0.dataset) }
                    var totals = DifferentialTotals()
                    for index in mine {
                        let zone = index % zones.count
                        try await DifferentialCase(run: self, zone: zones[zone], oracle: oracles[zone]).check(
                            index, into: &totals)
                    }
                    return totals
                }
            }
            var totals = DifferentialTotals()
            for try await part in group { totals.add(part) }
            return totals
        }
    }

    /// The live items with the objects a predicate sees: one per worker, since the objects
    /// are Foundation values, not `Sendable`.
    struct Oracle {
        let objects: [(name: String, object: [String: Any])]

        init(_ dataset: QueryDataset) {
            objects = dataset.items.keys.sorted().map { name in
                (name, QueryOracle.predicateObject(name: name, fields: dataset.items[name] ?? [:]))
            }
        }

        func matches(_ predicate: NSPredicate) -> Set<String> {
            Set(objects.filter { predicate.evaluate(with: $0.object) }.map(\.name))
        }
    }
}

/// One case of a run, on one zone: generated from the seed and its index, answered page by
/// page, and compared with the oracle.
struct DifferentialCase {
    let run: DifferentialRun
    let zone: DifferentialZone
    let oracle: DifferentialRun.Oracle

    private var settings: DifferentialSettings { run.settings }
    private var dataset: QueryDataset { zone.dataset }
    private var client: SyncTestClient { zone.client }

    func check(_ index: Int, into totals: inout DifferentialTotals) async throws {
        var generator = QueryCaseGenerator(dataset: dataset, random: SplitMix64(seed: settings.seed, index: index))
        let tree = generator.predicate()
        let sort = generator.sortKeys()
        totals.cases += 1
        let text: String
        let predicate: NSPredicate
        do {
            text = try NSPredicate.parse(format: tree.format).predicateFormat
            predicate = try NSPredicate.parse(format: text)
        } catch {
            totals.problems["the generator's predicate does not parse", default: []].append(
                "case \(index) (\(settings.replay(index))): \(tree.format): \(error)")
            return
        }
        let expected = oracle.matches(predicate)
        let limit = generator.limit(matching: expected.count, pages: settings.pages)
        let label =
            "case \(index) (\(settings.replay(index))) on \(zone): predicate \(text)  sort \(Self.describe(sort))  "
            + "limit \(limit)"
        let answer = try await fetchAll(text, sort: sort, limit: limit)
        totals.pages += answer.pages
        totals.matches += expected.count
        let names = answer.records.map(\.recordName)
        if settings.only != nil {
            print("\(label)\n  expected \(expected.count): \(expected.sorted())\n  answered \(answer.pages) pages: \(names)")
        }
        if let failure = answer.failure {
            totals.problems["the server refused or broke the query", default: []].append("\(label): \(failure)")
            return
        }
        let answered = Set(names)
        if answered != expected {
            // Shrinking costs up to 16 queries: the first mismatches of each worker are enough.
            let smallest = totals.setMismatches.count < 5 ? try await shrink(tree) : "not looked for (a later mismatch)"
            totals.setMismatches.append(
                "\(label)\n  missing (the evaluator matches them, the server did not answer them): "
                    + describe(expected.subtracting(answered), answer.records)
                    + "\n  extra (answered, the evaluator does not match them): "
                    + describe(answered.subtracting(expected), answer.records) + "\n  smallest disagreeing part: \(smallest)")
        }
        if answered.count != names.count {
            let repeated = Dictionary(grouping: names, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
            totals.problems["a record answered twice across pages", default: []].append("\(label): \(repeated)")
        }
        for record in answer.records {
            let shown = record.fields.filter { $0.value != .null }
            let known = (dataset.items[record.recordName] ?? [:]).filter { $0.value != .null }
            // `==`, not bit for bit: PostgreSQL's JSONB has no negative zero, so a pushed -0.0
            // comes back as 0.0 (from every endpoint, not only this one).
            if record.recordType != QueryDataset.recordType || record.deleted || shown != known {
                totals.problems["an answered record is not the item as pushed", default: []].append(
                    "\(label): \(record.recordType) \(record.recordName) deleted \(record.deleted) "
                        + "fields \(Self.describe(shown)), pushed \(Self.describe(known))")
                break
            }
        }
        let rule = sort.isEmpty ? unsortedRule(of: names) : sort
        if sort.isEmpty, !rule.isEmpty { totals.fieldOrdered += 1 }
        try await checkOrder(names, sort: rule, label: label, into: &totals)
    }

    /// The order an unsorted answer follows: the server chooses the record name's, or one
    /// field's ascending then the record name's (the index of a field the predicate bounds);
    /// the record name's when no rule fits, so that the check reports it.
    private func unsortedRule(of names: [String]) -> [SortKey] {
        let rules = [[]] + QueryDataset.fields.map { [SortKey(field: $0.name, ascending: true)] }
        return rules.first { rule in
            zip(names, names.dropFirst()).allSatisfy { first, second in
                guard first != second, let a = dataset.items[first], let b = dataset.items[second] else { return true }
                return QueryOracle.precedes((first, a), (second, b), by: rule)
            }
        } ?? []
    }

    /// Every page of a query, following the cursor until there is none.
    private func fetchAll(_ predicate: String, sort: [SortKey], limit: Int?) async throws -> Answer {
        var answer = Answer()
        var cursor: String?
        repeat {
            let request = QueryRequest(
                recordType: QueryDataset.recordType, predicate: predicate, sort: sort, limit: limit, cursor: cursor)
            let reply = try await client.query(request, zone: zone.name)
            guard reply.status == 200 else {
                answer.failure = "page \(answer.pages + 1) answered \(reply.status): \(reply.text.prefix(400))"
                return answer
            }
            let page = try reply.decode(QueryResponse.self)
            answer.pages += 1
            answer.records += page.records
            if let limit, page.records.count > limit {
                answer.failure = "page \(answer.pages) holds \(page.records.count) records, more than the limit"
                return answer
            }
            guard answer.pages <= dataset.items.count + 10 else {
                answer.failure = "the cursor still goes on after \(answer.pages) pages"
                return answer
            }
            cursor = page.cursor
        } while cursor != nil
        return answer
    }

    struct Answer {
        var records: [RecordState] = []
        var pages = 0
        var failure: String?
    }

    /// The smallest part of the predicate (by length) whose answer, unsorted, still differs
    /// from the oracle's.
    private func shrink(_ tree: PredicateTree) async throws -> String {
        for part in tree.subtrees.sorted(by: { $0.format.count < $1.format.count }).prefix(16) {
            guard let text = try? NSPredicate.parse(format: part.format).predicateFormat,
                let predicate = try? NSPredicate.parse(format: text)
            else { continue }
            let expected = oracle.matches(predicate)
            let answer = try await fetchAll(text, sort: [], limit: nil)
            let answered = Set(answer.records.map(\.recordName))
            if answer.failure != nil || answered != expected {
                return "\(text)  (missing \(expected.subtracting(answered).sorted().prefix(5)), "
                    + "extra \(answered.subtracting(expected).sorted().prefix(5))\(answer.failure.map { ", \($0)" } ?? ""))"
            }
        }
        return "none alone (the whole predicate is needed, or the answer changed)"
    }

    // MARK: Order

    /// Checks each answered record against the next under the sort rule; a pair out of order
    /// is filed under the rule it breaks, with the two records alone as a smaller query.
    private func checkOrder(
        _ names: [String], sort: [SortKey], label: String, into totals: inout DifferentialTotals
    )
        async throws
    {
        var broken: Set<String> = []
        for (first, second) in zip(names, names.dropFirst()) where first != second {
            guard let a = dataset.items[first], let b = dataset.items[second],
                !QueryOracle.precedes((first, a), (second, b), by: sort)
            else { continue }
            let (rule, detail) = Self.diagnose((first, a), (second, b), sort: sort)
            guard broken.insert(rule).inserted else { continue }
            let pair = NSPredicate(format: "recordName IN %@", argumentArray: [[first, second]]).predicateFormat
            var example = "\(label)\n  \(detail)\n  smaller: predicate \(pair)  sort \(Self.describe(sort))"
            if totals.orderMismatches[rule, default: []].count < 3 {
                let again = try await fetchAll(pair, sort: sort, limit: nil).records.map(\.recordName)
                example += " answers \(again)"
            }
            totals.orderMismatches[rule, default: []].append(example)
        }
    }

    /// The rule the server broke by answering `first` before `second`.
    static func diagnose(
        _ first: (name: String, fields: [String: FieldValue]), _ second: (name: String, fields: [String: FieldValue]),
        sort: [SortKey]
    ) -> (rule: String, detail: String) {
        for key in sort {
            let (a, b) = (QueryOracle.sortValue(first, key.field), QueryOracle.sortValue(second, key.field))
            guard QueryOracle.compare(a, b) != .orderedSame else { continue }
            let rule: String
            switch (a, b) {
            case (.null, _), (_, .null): rule = "nil first when ascending, last when descending"
            case (.string(let x), .string(let y)), (.reference(let x), .reference(let y)), (.url(let x), .url(let y)):
                let canonical =
                    x.precomposedStringWithCanonicalMapping.unicodeScalars.elementsEqual(x.unicodeScalars)
                    && y.precomposedStringWithCanonicalMapping.unicodeScalars.elementsEqual(y.unicodeScalars)
                rule =
                    "strings by Unicode scalar (code point) order"
                    + (canonical ? "" : " (a string not in NFC: Swift's String < compares canonical equivalents)")
            case (.int(let x), .int(let y)):
                rule = "integers by exact value" + (Double(x) == Double(y) ? " (these are equal as Doubles)" : "")
            case (.decimal(let x), .decimal(let y)):
                rule = "decimals by exact value" + (Double(x) == Double(y) ? " (these are equal as Doubles)" : "")
            case (.double, _): rule = "doubles by value"
            case (.date, _): rule = "dates by time"
            case (.bool, _): rule = "false before true"
            case (.uuid, _): rule = "UUIDs by upper-case uuidString"
            default: rule = "values of \(a.kind.rawValue) fields"
            }
            return (
                rule,
                "by \(key.field) \(key.ascending ? "ascending" : "descending"): answered \(first.name) (\(show(a))) "
                    + "before \(second.name) (\(show(b)))"
            )
        }
        let ascending = sort.last?.ascending ?? true
        return (
            "ties after every key broken by record name \(ascending ? "ascending" : "descending") "
                + "(the direction of the last key)",
            "every key ties: answered \(first.name) before \(second.name)"
        )
    }

    // MARK: Reports

    private func describe(_ names: Set<String>, _ answered: [RecordState]) -> String {
        guard !names.isEmpty else { return "none" }
        let shown = names.sorted().prefix(6).map { name in
            if let fields = dataset.items[name] { return "\(name) \(Self.describe(fields))" }
            let record = answered.first { $0.recordName == name }
            var what = dataset.deletedItems[name] != nil ? "a deleted item" : "not an item of the zone"
            for other in run.zones where other.dataset.items[name] != nil && other.description != zone.description {
                what += ", an item of \(other)"
            }
            return "\(name) (\(what), answered as \(record?.recordType ?? "?") \(Self.describe(record?.fields ?? [:])))"
        }
        return "\(names.count): " + shown.joined(separator: "; ")
    }

    static func describe(_ fields: [String: FieldValue]) -> String {
        "{" + fields.keys.sorted().map { "\($0): \(show(fields[$0] ?? .null))" }.joined(separator: ", ") + "}"
    }

    static func describe(_ sort: [SortKey]) -> String {
        "[" + sort.map { "\($0.field) \($0.ascending ? "asc" : "desc")" }.joined(separator: ", ") + "]"
    }

    /// A value with its kind; strings with every scalar outside printable ASCII escaped, so
    /// that "é" and "e\u{301}" read differently.
    static func show(_ value: FieldValue) -> String {
        func escaped(_ text: String) -> String {
            "\""
                + text.unicodeScalars.map {
                    (0x20..<0x7F).contains($0.value) ? String($0) : "\\u{\(String($0.value, radix: 16))}"
                }
                .joined() + "\""
        }
        switch value {
        case .null: return "null"
        case .string(let text): return escaped(text)
        case .reference(let text): return "reference " + escaped(text)
        case .url(let text): return "url " + escaped(text)
        case .decimal(let text): return "decimal " + text
        case .int(let number): return "int \(number)"
        case .double(let number): return "double \(number)"
        case .date(let seconds): return "date \(seconds)"
        case .bool(let flag): return "\(flag)"
        case .uuid(let uuid): return "uuid \(uuid.uuidString)"
        case .bytes(let data): return "bytes \(data.base64EncodedString())"
        case .asset(let reference): return "asset \(reference.sha256)"
        }
    }
}

/// What a run found: its counts, and its disagreements by kind.
struct DifferentialTotals {
    var cases = 0
    var pages = 0
    var matches = 0
    /// Unsorted answers of two records or more in a field's order rather than the record name's.
    var fieldOrdered = 0
    /// Cases whose answer held other records than the oracle's, described.
    var setMismatches: [String] = []
    /// Examples of pairs out of order, by the rule they break (one per case).
    var orderMismatches: [String: [String]] = [:]
    /// Anything else, by kind.
    var problems: [String: [String]] = [:]

    mutating func add(_ other: DifferentialTotals) {
        cases += other.cases
        pages += other.pages
        matches += other.matches
        fieldOrdered += other.fieldOrdered
        setMismatches += other.setMismatches
        orderMismatches.merge(other.orderMismatches) { $0 + $1 }
        problems.merge(other.problems) { $0 + $1 }
    }

    var summary: String {
        let order = orderMismatches.isEmpty ? "" : " (" + orderMismatches.keys.sorted().joined(separator: "; ") + ")"
        return "set mismatches \(setMismatches.count), order mismatches "
            + "\(orderMismatches.values.reduce(0) { $0 + $1.count })\(order), other problems "
            + "\(problems.values.reduce(0) { $0 + $1.count }); unsorted answers in a field's order \(fieldOrdered)"
    }

    /// One issue per set mismatch (the first ten), per rule broken and per other kind of
    /// problem, each naming the seed and the case.
    func recordIssues(_ settings: DifferentialSettings) {
        for mismatch in setMismatches.prefix(10) {
            Issue.record("The answer is not the evaluator's (seed \(settings.seedText)): \(mismatch)")
        }
        if setMismatches.count > 10 { Issue.record("\(setMismatches.count - 10) more cases answered other records") }
        for (rule, examples) in orderMismatches.sorted(by: { $0.key < $1.key }) {
            let first = examples.prefix(3).joined(separator: "\n")
            Issue.record(
                "Order: the rule \"\(rule)\" broken in \(examples.count) cases (seed \(settings.seedText)); the first:\n\(first)")
        }
        for (kind, examples) in problems.sorted(by: { $0.key < $1.key }) {
            let first = examples.prefix(5).joined(separator: "\n")
            Issue.record("\(kind): \(examples.count) cases (seed \(settings.seedText)); the first:\n\(first)")
        }
    }
}
