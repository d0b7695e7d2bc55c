import Foundation

/// The table: one line per case, the median time of each stack with its ratio to raw
/// SQLite, the goal, and whether Strata meets it.
enum Report {
    /// A result line's cells, filled as cases finish.
    struct Line {
        var id: String
        var work: String
        var cells: [String]
        var goal: String
        var verdict: String
    }

    static let widths = [5, 46, 10, 20, 20, 18, 5]

    static func header() -> String {
        row(["", "work", Stack.raw.rawValue, Stack.grdb.rawValue, Stack.strata.rawValue, "goal (Strata)", "met"])
    }

    static func row(_ cells: [String]) -> String {
        zip(cells, widths).map { cell, width in cell.padding(toLength: max(width, cell.count), withPad: " ", startingAt: 0) }
            .joined(separator: " ").replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
    }

    static func render(_ line: Line) -> String {
        row([line.id, line.work] + line.cells + [line.goal, line.verdict])
    }

    /// A timed case's line from the median seconds per stack.
    static func timed(_ item: TimedCase, medians: [Stack: Double]) -> Line {
        let raw = medians[.raw] ?? .nan
        let perOperation = item.operations > 1
        func time(_ seconds: Double) -> String {
            let value = seconds / Double(item.operations)
            return perOperation ? "\(number(value * 1e6)) µs" : "\(number(value * 1e3)) ms"
        }
        var cells: [String] = []
        for stack in Stack.allCases {
            guard let seconds = medians[stack] else {
                cells.append("–")
                continue
            }
            if stack == .raw || !raw.isFinite {
                cells.append(time(seconds))
            } else if case .overRaw = item.goal {
                let extra = (seconds - raw) / Double(item.operations) * 1e6
                cells.append("\(time(seconds)) \(extra >= 0 ? "+" : "")\(number(extra))")
            } else {
                cells.append("\(time(seconds)) \(number(seconds / raw))×")
            }
        }
        var verdict = "–"
        if let strata = medians[.strata], case .perOperation(let milliseconds) = item.goal {
            verdict = strata / Double(item.operations) * 1e3 < milliseconds ? "yes" : "no"
        } else if let strata = medians[.strata], raw.isFinite {
            switch item.goal {
            case .ratio(let limit): verdict = strata / raw <= limit ? "yes" : "no"
            case .overRaw(let microseconds):
                verdict = (strata - raw) / Double(item.operations) * 1e6 <= microseconds ? "yes" : "no"
            case .megabytes, .perObjectGrowth, .perOperation, .ratioToCase: break
            }
        }
        return Line(id: item.id, work: item.work, cells: cells, goal: item.goal.text, verdict: verdict)
    }

    /// A line comparing each stack's time per object in `item` (the smaller size) and in
    /// `full` (the full size): both times in microseconds, and the full size's over the small's.
    static func growth(_ item: TimedCase, medians: [Stack: Double], full: (TimedCase, [Stack: Double])) -> Line {
        var cells: [String] = []
        var ratios: [Stack: Double] = [:]
        for stack in Stack.allCases {
            guard let small = medians[stack], let large = full.1[stack] else {
                cells.append("–")
                continue
            }
            let smallPer = small / Double(item.objects) * 1e6
            let largePer = large / Double(full.0.objects) * 1e6
            ratios[stack] = largePer / smallPer
            cells.append("\(number(smallPer)) → \(number(largePer)) µs \(number(largePer / smallPer))×")
        }
        var verdict = "–"
        if case .perObjectGrowth(let limit) = item.goal, let ratio = ratios[.strata] {
            verdict = ratio <= limit ? "yes" : "no"
        }
        return Line(id: item.id, work: item.work, cells: cells, goal: item.goal.text, verdict: verdict)
    }

    /// A line whose goal is a ratio to another case's Strata time in the same run (S1): raw's
    /// time as usual, and Strata's with its ratio to `base`'s Strata time instead of raw's, and
    /// in parentheses its ratios to the goal's other cases (`others`, those that ran).
    ///
    /// A ratio is the median of the rounds' ratios: each round runs both cases within seconds
    /// of each other, so that a slower minute of a shared machine slows both of a pair, where a
    /// ratio of the two medians would compare times taken minutes apart.
    static func relative(
        _ item: TimedCase, medians: [Stack: Double], samples: [Double], base: (id: String, samples: [Double])?,
        others: [(id: String, samples: [Double])] = []
    ) -> Line {
        var line = timed(item, medians: medians)
        guard case .ratioToCase(let id, let limit, _) = item.goal, let strata = medians[.strata],
            let index = Stack.allCases.firstIndex(of: .strata)
        else { return line }
        func ratio(to reference: [Double]) -> Double? {
            let ratios = zip(samples, reference).map { $0 / $1 }
            return ratios.isEmpty ? nil : ratios.median
        }
        let beside = others.compactMap { other in ratio(to: other.samples).map { "\(number($0))× \(other.id)" } }
        let aside = beside.isEmpty ? "" : " (\(beside.joined(separator: ", ")))"
        guard let reference = base, let ratio = ratio(to: reference.samples) else {
            line.cells[index] = "\(number(strata * 1e3)) ms (no \(id))\(aside)"
            return line
        }
        line.cells[index] = "\(number(strata * 1e3)) ms \(number(ratio))× \(id)\(aside)"
        line.verdict = ratio <= limit ? "yes" : "no"
        return line
    }

    /// A memory case's line from each stack's peak above the baseline, in kilobytes.
    static func memory(_ item: MemoryCase, kilobytes: [Stack: Int]) -> Line {
        let cells = Stack.allCases.map { stack in kilobytes[stack].map { "\(number(Double($0) / 1024)) MB" } ?? "–" }
        var verdict = "–"
        if case .megabytes(let limit) = item.goal, let strata = kilobytes[.strata] {
            verdict = Double(strata) / 1024 <= limit ? "yes" : "no"
        }
        return Line(id: item.id, work: item.work, cells: cells, goal: item.goal.text, verdict: verdict)
    }

    /// Three significant digits at most, and no more than two decimals.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "?" }
        let magnitude = abs(value)
        let decimals = magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : 2
        return String(format: "%.\(decimals)f", value)
    }

    /// `100k`, `1M`, or the number itself.
    static func count(_ value: Int) -> String {
        if value >= 1_000_000 && value % 1_000_000 == 0 { return "\(value / 1_000_000)M" }
        if value >= 1_000 && value % 1_000 == 0 { return "\(value / 1_000)k" }
        return "\(value)"
    }
}
