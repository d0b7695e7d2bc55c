import Foundation

/// Peak memory, measured per case in a child process: the program runs itself with
/// `--child memory:<case>:<stack>`, the child does the work and prints its peak resident
/// size (`VmHWM`), and a child that starts with the same arguments and does no work gives
/// the baseline to subtract.
enum Memory {
    /// The process's peak resident set size in kilobytes.
    static func peakKilobytes() -> Int {
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) {
            for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
                if let value = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) { return value }
            }
        }
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss
    }

    /// Runs this program as a child with `arguments`; returns the peak (kB) and checksum it prints.
    static func runChild(_ arguments: [String]) throws -> (kilobytes: Int, checksum: Int) {
        let process = Process()
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0,
            let line = text.split(separator: "\n").last(where: { $0.hasPrefix("peak-kb ") })
        else {
            throw BenchError("child \(arguments.joined(separator: " ")) failed (status \(process.terminationStatus)): \(text)")
        }
        let fields = line.split(separator: " ")
        return (Int(fields[1]) ?? 0, fields.count > 2 ? Int(fields[2]) ?? 0 : 0)
    }

    /// The child's side: runs one memory case (or nothing, for the baseline) and reports.
    static func child(_ name: String, fixtures: Fixtures?) throws {
        var checksum = 0
        let parts = name.split(separator: ":").map(String.init)
        if parts.count == 3, parts[0] == "memory", let index = Int(parts[1]), let stack = Stack(argument: parts[2]),
            let fixtures
        {
            let cases = Catalog.memory(fixtures.sizes)
            guard cases.indices.contains(index), let run = cases[index].runs[stack] else {
                throw BenchError("no memory case \(name)")
            }
            checksum = try run(fixtures)
        } else if name != "baseline" {
            throw BenchError("unknown child case \(name)")
        }
        print("peak-kb \(peakKilobytes()) \(checksum)")
    }
}
