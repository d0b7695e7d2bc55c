import Foundation

/// Request times of one kind, and their percentiles (nearest rank).
struct Latencies: Sendable {
    private(set) var samples: [Duration] = []

    var count: Int { samples.count }

    mutating func add(_ duration: Duration) { samples.append(duration) }

    mutating func add(_ other: Latencies) { samples += other.samples }

    /// The sample at `fraction` (0.5 for the median) of the sorted samples, by nearest rank;
    /// nil when there is none.
    func percentile(_ fraction: Double, sorted: [Duration]) -> Duration? {
        guard !sorted.isEmpty else { return nil }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    /// p50, p90, p99 and max as table cells (milliseconds).
    var cells: [String] {
        let sorted = samples.sorted()
        return [0.5, 0.9, 0.99, 1.0].map { fraction in percentile(fraction, sorted: sorted).map(Format.milliseconds) ?? "-" }
    }

    var p99: Duration? { percentile(0.99, sorted: samples.sorted()) }
}

/// Numbers as the tables print them.
enum Format {
    static func seconds(_ duration: Duration) -> Double {
        let (whole, attoseconds) = duration.components
        return Double(whole) + Double(attoseconds) / 1e18
    }

    static func milliseconds(_ duration: Duration) -> String {
        let value = seconds(duration) * 1000
        return value < 10
            ? String(format: "%.2f ms", value)
            : value < 100 ? String(format: "%.1f ms", value) : "\(grouped(Int(value.rounded()))) ms"
    }

    static func duration(_ duration: Duration) -> String {
        String(format: "%.1f s", seconds(duration))
    }

    /// An integer with thousands separated by commas, as BENCHMARKS.md writes them.
    static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (index, character) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(character)
        }
        return value < 0 ? "-" + out : out
    }

    static func rate(_ count: Int, _ duration: Duration) -> String {
        let seconds = seconds(duration)
        guard seconds > 0 else { return "-" }
        return grouped(Int((Double(count) / seconds).rounded()))
    }

    static func bytes(_ value: Int) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var amount = Double(value)
        var unit = 0
        while amount >= 1024 && unit < units.count - 1 {
            amount /= 1024
            unit += 1
        }
        return unit == 0 ? "\(value) B" : String(format: "%.1f %@", amount, units[unit])
    }
}

/// A plain table, printed as Markdown with padded columns so that it reads in a terminal and
/// pastes into BENCHMARKS.md.
struct Table {
    let title: String
    let headers: [String]
    var rows: [[String]] = []

    init(_ title: String, headers: [String]) {
        self.title = title
        self.headers = headers
    }

    mutating func add(_ row: [String]) { rows.append(row) }

    var text: String {
        let widths = headers.indices.map { column in
            ([headers] + rows).map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            let padded = headers.indices.map { column in
                let cell = cells.indices.contains(column) ? cells[column] : ""
                return cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }
            return "| " + padded.joined(separator: " | ") + " |"
        }
        let rule = "|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|"
        return ([title, "", line(headers), rule] + rows.map(line)).joined(separator: "\n")
    }

    func show() { print("\n" + text + "\n") }
}

/// A small fast generator with a seed, so that a run's records and targets can be made again.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// `print` for this program: straight to standard output, unbuffered, so that a run whose
/// output goes to a file and that is stopped midway keeps every line it printed.
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    let text = items.map { "\($0)" }.joined(separator: separator) + terminator
    FileHandle.standardOutput.write(Data(text.utf8))
}
