import Foundation

/// The three ways the same work is done, in the order the table shows them.
enum Stack: String, CaseIterable {
    case raw = "SQLite C"
    case grdb = "GRDB"
    case strata = "Strata"

    init?(argument: String) {
        switch argument.lowercased() {
        case "raw", "sqlite": self = .raw
        case "grdb": self = .grdb
        case "strata": self = .strata
        default: return nil
        }
    }
}

/// A goal of SPEC §5.
enum Goal {
    /// Strata's time at most this many times raw SQLite's.
    case ratio(Double)
    /// Strata's time per query at most raw SQLite's plus this many microseconds.
    case overRaw(microseconds: Double)
    /// Strata's peak memory at most this many megabytes above the baseline.
    case megabytes(Double)
    /// Strata's time per object at the full size at most this many times its time per object
    /// at a tenth of it (B11s, against B11).
    case perObjectGrowth(Double)
    /// Strata's time per operation under this many milliseconds, whatever raw SQLite's (B12).
    case perOperation(milliseconds: Double)
    /// Strata's time at most this many times Strata's time in the case of that id, in the
    /// same run (S1: a row through `ModelContext` against the same row through Core Data's API),
    /// its ratio to the cases of `also` shown beside.
    case ratioToCase(String, Double, also: [String] = [])

    var text: String {
        switch self {
        case .ratio(let limit): "≤ \(String(format: "%g", limit))×"
        case .overRaw(let microseconds): "≤ raw + \(String(format: "%g", microseconds)) µs"
        case .megabytes(let limit): "≤ \(String(format: "%g", limit)) MB"
        case .perObjectGrowth(let limit): "≤ \(String(format: "%g", limit))× per object"
        case .perOperation(let milliseconds): "< \(String(format: "%g", milliseconds)) ms each"
        case .ratioToCase(let id, let limit, _): "≤ \(String(format: "%g", limit))× \(id)"
        }
    }
}

/// A timed case: its SPEC number, what it does, its goal, and the work per stack.
struct TimedCase {
    var id: String
    var work: String
    var goal: Goal
    /// Operations per trial; times are reported per operation when it is more than one (B6).
    var operations = 1
    /// Objects per trial, for cases compared per object (B11s).
    var objects = 1
    var runs: [Stack: (Fixtures) throws -> Sample]
}

/// A memory case, run once per stack in a child process of its own.
struct MemoryCase {
    var id: String
    var work: String
    var goal: Goal
    var runs: [Stack: (Fixtures) throws -> Int]
}

/// Every case of SPEC §5.
enum Catalog {
    /// Cases that cannot run yet, printed as such (none now).
    static let unavailable: [(id: String, work: String, goal: Goal)] = []

    static func timed(_ sizes: Sizes) -> [TimedCase] {
        let n = Report.count
        return [
            TimedCase(
                id: "B1", work: "insert \(n(sizes.inserts)) objects, one save", goal: .ratio(2.5),
                runs: [.raw: RawCases.insert, .grdb: GRDBCases.insert, .strata: StrataCases.insert]),
            TimedCase(
                id: "B2", work: "batch insert \(n(sizes.inserts)) rows (dictionary handler)", goal: .ratio(1.3),
                runs: [.raw: RawCases.insert, .grdb: GRDBCases.insert, .strata: BatchCases.strataInsert]),
            TimedCase(
                id: "B3", work: "fetch \(n(sizes.fetched)), read every attribute", goal: .ratio(1.6),
                runs: [.raw: RawCases.fetch, .grdb: GRDBCases.fetch, .strata: StrataCases.fetch]),
            TimedCase(
                id: "B4", work: "B3 with fetchBatchSize \(sizes.batchSize), fetchLazily", goal: .ratio(2),
                runs: [.raw: RawCases.fetch, .grdb: GRDBCases.fetch, .strata: StrataCases.fetchBatched]),
            TimedCase(
                id: "B5", work: "fetch \(n(sizes.fetched)) object IDs", goal: .ratio(1.3),
                runs: [.raw: RawCases.fetchIDs, .grdb: GRDBCases.fetchIDs, .strata: StrataCases.fetchIDs]),
            TimedCase(
                id: "B6", work: "predicate+sort+limit 20 of \(n(sizes.large)), per query", goal: .overRaw(microseconds: 50),
                operations: sizes.queries,
                runs: [.raw: RawCases.query, .grdb: GRDBCases.query, .strata: StrataCases.query]),
            TimedCase(
                id: "B7", work: "\(n(sizes.owners))×\(sizes.children) to-many, lazy (raw: 1 join)", goal: .ratio(2),
                runs: [.raw: RawCases.traverse, .grdb: GRDBCases.traverseLazily, .strata: StrataCases.traverseLazily]),
            TimedCase(
                id: "B7", work: "\(n(sizes.owners))×\(sizes.children) to-many, prefetched", goal: .ratio(2),
                runs: [
                    .raw: RawCases.traverse, .grdb: GRDBCases.traversePrefetched, .strata: StrataCases.traversePrefetched,
                ]),
            TimedCase(
                id: "B7t", work: "B7 lazy through a typed Set<Item> accessor", goal: .ratio(2),
                runs: [
                    .raw: RawCases.traverse, .grdb: GRDBCases.traverseLazily, .strata: StrataCases.traverseTypedLazily,
                ]),
            TimedCase(
                id: "B7t", work: "B7 prefetched through a typed Set<Item> accessor", goal: .ratio(2),
                runs: [
                    .raw: RawCases.traverse, .grdb: GRDBCases.traversePrefetched,
                    .strata: StrataCases.traverseTypedPrefetched,
                ]),
            TimedCase(
                id: "B8", work: "modify \(n(sizes.fetched)) objects, one save", goal: .ratio(2.5),
                runs: [.raw: RawCases.modify, .grdb: GRDBCases.modify, .strata: StrataCases.modify]),
            TimedCase(
                id: "B9", work: "batch update \(n(sizes.fetched)) rows (price * 1.1)", goal: .ratio(1.1),
                runs: [.raw: BatchCases.rawUpdate, .grdb: BatchCases.grdbUpdate, .strata: BatchCases.strataUpdate]),
            TimedCase(
                id: "B9", work: "batch delete \(n(sizes.fetched)) rows", goal: .ratio(1.1),
                runs: [.raw: BatchCases.rawDelete, .grdb: BatchCases.grdbDelete, .strata: BatchCases.strataDelete]),
            TimedCase(
                id: "B9c",
                work: "batch delete \(n(sizes.owners)) owners, cascade to \(n(sizes.owners * sizes.children))",
                goal: .ratio(1.5),
                runs: [.raw: BatchCases.rawCascade, .grdb: BatchCases.grdbCascade, .strata: BatchCases.strataCascade]),
            TimedCase(
                id: "B10", work: "delete \(n(sizes.owners)) owners, cascade to \(n(sizes.owners * sizes.children))",
                goal: .ratio(3),
                runs: [.raw: RawCases.delete, .grdb: GRDBCases.delete, .strata: StrataCases.delete]),
            TimedCase(
                id: "B11", work: "\(n(sizes.tagged)) to-dos × 3 of 20 tags + 1 of 1k places", goal: .ratio(3),
                objects: sizes.tagged, runs: tagged(sizes.tagged)),
            TimedCase(
                id: "B11s", work: "B11 per object: \(n(sizes.tagged / 10)) → \(n(sizes.tagged)) to-dos",
                goal: .perObjectGrowth(1.3), objects: sizes.tagged / 10, runs: tagged(sizes.tagged / 10)),
        ] + OrderedCases.timed(sizes) + fetchedResults(sizes) + MigrationCases.timed(sizes) + HistoryCases.timed(sizes)
            + SwiftDataCases.timed(sizes)
    }

    private static func tagged(_ count: Int) -> [Stack: (Fixtures) throws -> Sample] {
        [.raw: TaggedCases.raw(count: count), .grdb: TaggedCases.grdb(count: count), .strata: TaggedCases.strata(count: count)]
    }

    static func memory(_ sizes: Sizes) -> [MemoryCase] {
        let n = Report.count
        return [
            MemoryCase(
                id: "M1", work: "peak, \(n(sizes.fetched)) objects loaded", goal: .megabytes(50),
                runs: [.raw: RawCases.holdAll, .grdb: GRDBCases.holdAll, .strata: StrataCases.holdAll]),
            MemoryCase(
                id: "M2", work: "peak, \(n(sizes.large)) rows, fetchBatchSize \(sizes.batchSize), fetchLazily",
                goal: .megabytes(10),
                runs: [.raw: RawCases.iterate, .grdb: GRDBCases.iterate, .strata: StrataCases.iterateBatched]),
            MemoryCase(
                id: "M2", work: "peak, \(n(sizes.large)) rows, fetchBatchSize \(sizes.batchSize), fetch (an array)",
                goal: .megabytes(10),
                runs: [.raw: RawCases.iterate, .grdb: GRDBCases.iterate, .strata: StrataCases.iterateBatchedArray]),
            MemoryCase(
                id: "M2", work: "peak, \(n(sizes.large)) rows, pages of \(n(sizes.pageSize)) + reset",
                goal: .megabytes(10),
                runs: [.raw: RawCases.iterate, .grdb: GRDBCases.iterate, .strata: StrataCases.iteratePaged]),
            MemoryCase(
                id: "M3", work: "peak, batch insert \(n(sizes.large)) rows (dictionary handler)", goal: .megabytes(20),
                runs: [
                    .raw: { try RawCases.insert($0.inserting($0.sizes.large)).checksum },
                    .grdb: { try GRDBCases.insert($0.inserting($0.sizes.large)).checksum },
                    .strata: { try BatchCases.strataInsert($0.inserting($0.sizes.large)).checksum },
                ]),
        ] + MigrationCases.memory(sizes)
    }
}
