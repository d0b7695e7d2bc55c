// strata-bench: SPEC §5's benchmarks. The same work runs, in one process and in rotation,
// through SQLite's C API, GRDB and Strata; the table gives medians and ratios to raw SQLite,
// and peak memory measured in child processes.
//
//   swift run -c release strata-bench            the full sizes (what BENCHMARKS.md reports)
//   swift run strata-bench --quick               1/100 of the sizes, two rounds (CI)
//   options: --scale N (sizes / N)  --rounds N  --queries N (B6)  --only B1,B6,M1
//            --stacks raw,grdb,strata  --no-memory  --keep (keep the scratch folder)
//            --samples FILE (every round's time, tab-separated)
import CSQLite
import Foundation

struct Options {
    var sizes = Sizes.full
    var only: Set<String>? = nil
    var stacks = Stack.allCases
    var memory = true
    var keep = false
    var child: String? = nil
    var fixtures: String? = nil
    var scale = 1
    var quick = false
    /// Where to write every sample (`--samples FILE`), for a closer look than the medians.
    var samples: String? = nil

    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        func value(_ option: String) throws -> String {
            guard let next = rest.popFirst() else { throw BenchError("\(option) needs a value") }
            return next
        }
        var rounds: Int?
        var queries: Int?
        while let argument = rest.popFirst() {
            switch argument {
            case "--quick": quick = true
            case "--scale": scale = max(1, Int(try value(argument)) ?? 1)
            case "--rounds": rounds = Int(try value(argument))
            case "--queries": queries = Int(try value(argument))
            case "--only": only = Set(try value(argument).uppercased().split(separator: ",").map(String.init))
            case "--stacks": stacks = try value(argument).split(separator: ",").compactMap { Stack(argument: String($0)) }
            case "--no-memory": memory = false
            case "--keep": keep = true
            case "--child": child = try value(argument)
            case "--fixtures": fixtures = try value(argument)
            case "--samples": samples = try value(argument)
            default: throw BenchError("unknown argument \(argument)")
            }
        }
        sizes = quick ? .quick : Self.scaled(.full, by: scale)
        if let rounds { sizes.rounds = max(1, rounds) }
        if let queries { sizes.queries = max(1, queries) }
    }

    /// The arguments a child needs to see the same sizes and fixtures.
    var childArguments: [String] {
        (quick ? ["--quick"] : ["--scale", "\(scale)"]) + ["--fixtures", fixtures ?? ""]
    }

    static func scaled(_ sizes: Sizes, by divisor: Int) -> Sizes {
        guard divisor > 1 else { return sizes }
        var scaled = sizes
        scaled.inserts = max(10, sizes.inserts / divisor)
        scaled.fetched = max(10, sizes.fetched / divisor)
        scaled.large = max(100, sizes.large / divisor)
        scaled.owners = max(10, sizes.owners / divisor)
        scaled.tagged = max(100, sizes.tagged / divisor)
        scaled.queries = max(10, sizes.queries / divisor)
        scaled.pageSize = max(10, sizes.pageSize / divisor)
        return scaled
    }

    /// Whether the case runs; a growth row (B11s, B11os) compares itself with its full-size
    /// case (B11, B11o), and an S1 row (S1-B1) with its Core Data rows (B1, and B1h, which
    /// records history as SwiftData's stores do), which run with it.
    func includes(_ id: String) -> Bool {
        let id = id.uppercased()
        let history = id.hasSuffix("H") ? "S1-" + id.dropLast() : nil
        return only.map { only in
            only.contains(id) || only.contains(id + "S") || only.contains("S1-" + id)
                || history.map { only.contains($0) } == true
        } ?? true
    }
}

/// The machine, for the table's header and BENCHMARKS.md.
func machineDescription() -> String {
    let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
    let model =
        cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
        .map { $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" } ?? "?"
    let memory = Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824
    #if DEBUG
        let build = "debug"
    #else
        let build = "release"
    #endif
    return "\(ProcessInfo.processInfo.activeProcessorCount) CPUs (\(model)), \(Report.number(memory)) GB, "
        + "SQLite \(String(cString: sqlite3_libversion())), \(build) build"
}

func log(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

/// Runs every timed case `rounds` times, the stacks in a different order each round, and
/// returns the median seconds per case and stack; stops on a checksum mismatch.
/// Each case's samples: its seconds per stack, one per round, in the order of the rounds.
func runTimed(_ cases: [TimedCase], options: Options, fixtures: Fixtures) throws -> [[Stack: [Double]]] {
    var samples = Array(repeating: [Stack: [Double]](), count: cases.count)
    for round in 0..<options.sizes.rounds {
        log("round \(round + 1) of \(options.sizes.rounds)")
        for (index, item) in cases.enumerated() {
            let order = options.stacks.indices.map { options.stacks[($0 + round) % options.stacks.count] }
            var checksums: [Stack: Int] = [:]
            for stack in order {
                guard let run = item.runs[stack] else { continue }
                let sample = try run(fixtures)
                samples[index][stack, default: []].append(sample.seconds)
                checksums[stack] = sample.checksum
            }
            if Set(checksums.values).count > 1 {
                throw BenchError("\(item.id) \(item.work): the stacks disagree: \(checksums)")
            }
        }
    }
    return samples
}

/// Writes every sample (case, stack, round, seconds; tab-separated) to the file of `--samples`.
func writeSamples(_ cases: [TimedCase], _ samples: [[Stack: [Double]]], to path: String) throws {
    var text = "case\tstack\tround\tseconds\n"
    for (item, perStack) in zip(cases, samples) {
        for stack in Stack.allCases {
            for (round, seconds) in (perStack[stack] ?? []).enumerated() {
                text += "\(item.id)\t\(stack.rawValue)\t\(round + 1)\t\(seconds)\n"
            }
        }
    }
    try text.write(toFile: path, atomically: true, encoding: .utf8)
}

func runMemory(_ cases: [(index: Int, item: MemoryCase)], options: Options) throws -> [[Stack: Int]] {
    guard !cases.isEmpty else { return [] }
    // The baseline child gets the same arguments and opens the same fixtures as the cases'
    // children, so that what is subtracted is everything but the work (parsing the options and
    // resolving the fixtures' paths touches 1.6 MB of Foundation's code here).
    let baseline = try Memory.runChild(["--child", "baseline"] + options.childArguments).kilobytes
    log("memory baseline: \(baseline) kB")
    return try cases.map { index, item in
        var peaks: [Stack: Int] = [:]
        var checksums: [Stack: Int] = [:]
        for stack in options.stacks where item.runs[stack] != nil {
            let argument = stack == .raw ? "raw" : stack == .grdb ? "grdb" : "strata"
            let result = try Memory.runChild(["--child", "memory:\(index):\(argument)"] + options.childArguments)
            peaks[stack] = result.kilobytes - baseline
            checksums[stack] = result.checksum
        }
        if Set(checksums.values).count > 1 { throw BenchError("\(item.id) \(item.work): the stacks disagree: \(checksums)") }
        return peaks
    }
}

func main() throws {
    var options = try Options(Array(CommandLine.arguments.dropFirst()))
    if let child = options.child {
        let fixtures = try options.fixtures.map {
            try Fixtures(directory: URL(fileURLWithPath: $0), sizes: options.sizes, create: false)
        }
        try Memory.child(child, fixtures: fixtures)
        return
    }
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "strata-bench-\(ProcessInfo.processInfo.processIdentifier)")
    options.fixtures = directory.path
    defer { if !options.keep { try? FileManager.default.removeItem(at: directory) } }

    print("strata-bench — \(machineDescription())")
    print("medians of \(options.sizes.rounds) rounds; ratios to SQLite's C API in the same run\n")
    log("making fixtures in \(directory.path)")
    let fixtures = try Fixtures(directory: directory, sizes: options.sizes, create: true)

    let timed = Catalog.timed(options.sizes).filter { options.includes($0.id) }
    let samples = try runTimed(timed, options: options, fixtures: fixtures)
    if let path = options.samples { try writeSamples(timed, samples, to: path) }
    let medians = samples.map { $0.mapValues(\.median) }
    let memoryCases = Array(Catalog.memory(options.sizes).enumerated())
        .filter { options.memory && options.includes($0.element.id) }
        .map { (index: $0.offset, item: $0.element) }
    let peaks = try runMemory(memoryCases, options: options)

    let results = Array(zip(timed, medians))
    let strataSamples = Dictionary(zip(timed.map(\.id), samples.map { $0[.strata] ?? [] }), uniquingKeysWith: { a, _ in a })
    var lines = results.map { item, medians in
        // An S1 row's goal is a ratio to the Strata time of the Core Data row it names, round
        // by round.
        if case .ratioToCase(let id, _, let also) = item.goal {
            return Report.relative(
                item, medians: medians, samples: strataSamples[item.id] ?? [],
                base: strataSamples[id].map { (id, $0) },
                others: also.compactMap { other in strataSamples[other].map { (other, $0) } })
        }
        // A growth row's full-size case is the one named without its last letter.
        guard case .perObjectGrowth = item.goal, let full = results.first(where: { $0.0.id == item.id.dropLast() }) else {
            return Report.timed(item, medians: medians)
        }
        return Report.growth(item, medians: medians, full: full)
    }
    for entry in Catalog.unavailable where options.includes(entry.id) {
        lines.append(
            Report.Line(
                id: entry.id, work: entry.work, cells: ["n/a (no batch requests yet)", "", ""], goal: entry.goal.text,
                verdict: "–"))
    }
    lines += zip(memoryCases, peaks).map { Report.memory($0.item, kilobytes: $1) }
    let order = [
        "B1", "B2", "B3", "B4", "B5", "B6", "B7", "B7t", "B8", "B9", "B9c", "B10", "B11", "B11s", "B11o", "B11os", "B12", "B13",
        "S1-B1", "S1-B3", "S1-B8", "M1",
        "M2",
        "M3",
    ]
    lines = lines.enumerated().sorted { a, b in
        let x = order.firstIndex(of: a.element.id) ?? 99
        let y = order.firstIndex(of: b.element.id) ?? 99
        return x != y ? x < y : a.offset < b.offset
    }.map(\.element)
    print(Report.header())
    for line in lines { print(Report.render(line)) }
    print("\nB6: time per query, and Strata's and GRDB's microseconds over raw. B7: raw is the best SQL (one join).")
    print("B11s: each stack's time per to-do at a tenth of B11's size and at B11's, and their ratio.")
    print("B11o: inserts at random positions of one ordered to-many, one save; B11os: time per insert, as B11s.")
    print("B12: Strata's time per changed object a fetched results controller handles (no SQL counterpart).")
    print("B13: raw copies the Item table once (INSERT … SELECT); Strata opens the store with model version 2 and migrates it.")
    print(
        "S1: B1, B3 and B8 through SwiftData's ModelContext, over the Core Data rows doing the same work: S1-B1 and S1-B8"
            + " over B1h and B8h (SwiftData's stores record history), their ratios to B1 and B8 beside; each ratio the"
            + " median of the rounds' ratios.")
    print("M1, M2, M3: peak resident memory above a child process that starts alike and does no work.")
}

do {
    try main()
} catch {
    log("strata-bench: \(error)")
    exit(1)
}
