import Foundation
import SyncTestSupport

/// What the figures were measured on, printed before them.
enum Machine {
    static var buildConfiguration: String {
        #if DEBUG
            "debug"
        #else
            "release"
        #endif
    }

    /// `/proc/cpuinfo`'s first "model name".
    static var cpuModel: String {
        let text = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        for line in text.split(separator: "\n") where line.hasPrefix("model name") {
            if let colon = line.firstIndex(of: ":") {
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return "unknown"
    }

    /// `/proc/loadavg`'s 1, 5 and 15 minute averages.
    static var loadAverage: String {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }

    /// The command line as typed (arguments with spaces quoted).
    static var commandLine: String {
        CommandLine.arguments.map { $0.contains(" ") ? "'\($0)'" : $0 }.joined(separator: " ")
    }

    static func printHeader(mode: String) {
        print("strata-sync-scale \(mode)")
        print("command: \(commandLine)")
        print("build: \(buildConfiguration)")
        print("CPU: \(cpuModel) × \(ProcessInfo.processInfo.activeProcessorCount) (as the process sees them)")
        print("memory: \(Format.bytes(Int(ProcessInfo.processInfo.physicalMemory)))")
        print("date: \(ISO8601DateFormatter().string(from: Date()))")
        print("load average at start: \(loadAverage) (the machine is shared: other builds count)")
    }

    /// PostgreSQL's version and the settings that bear on the figures.
    static func printDatabase(_ url: String) async throws {
        let version = try await TestPostgres.query("SELECT version()", databaseURL: url).first ?? nil
        let settings =
            try await TestPostgres.query(
                """
                SELECT 'shared_buffers ' || current_setting('shared_buffers') || ', work_mem ' || current_setting('work_mem')
                    || ', fsync ' || current_setting('fsync') || ', synchronous_commit ' || current_setting('synchronous_commit')
                    || ', max_connections ' || current_setting('max_connections')
                """, databaseURL: url
            ).first ?? nil
        print("PostgreSQL: \(version ?? "?") (\(settings ?? "?")), on loopback")
    }
}

/// The process's resident memory (`/proc/self/status`): the servers, the clients and their
/// HTTP all run in this process, so this is their sum.
struct Memory: CustomStringConvertible {
    /// VmRSS, bytes.
    var resident: Int
    /// VmHWM, the peak of VmRSS since the process started or `resetPeak()`, bytes.
    var peak: Int

    static func read() -> Memory? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        var values: [String: Int] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") || line.hasPrefix("VmHWM:") {
            let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if parts.count >= 2, let kilobytes = Int(parts[1]) { values[String(parts[0])] = kilobytes * 1024 }
        }
        guard let resident = values["VmRSS:"], let peak = values["VmHWM:"] else { return nil }
        return Memory(resident: resident, peak: peak)
    }

    /// Sets VmHWM back to the present VmRSS (Linux: `5` written to `/proc/self/clear_refs`), so
    /// that the next reading's peak is the peak of what ran in between. False where refused.
    static func resetPeak() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        do {
            try handle.write(contentsOf: Data("5".utf8))
            return true
        } catch {
            return false
        }
    }

    var description: String { "VmRSS \(Format.bytes(resident)), VmHWM \(Format.bytes(peak))" }
}
