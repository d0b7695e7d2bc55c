import Foundation
import Synchronization

/// A `todo` that keeps running (`todo serve`), started in the background: what it prints is
/// collected as it comes, and signals stop it.
final class RunningProgram {
    /// Output gathered by the pipe's handler, on whatever thread it runs.
    private final class Collected: Sendable {
        let data = Mutex(Data())

        var text: String { data.withLock { String(decoding: $0, as: UTF8.self) } }
    }

    private let process = Process()
    private let output = Collected()
    private let error = Collected()

    init(executable: URL, arguments: [String], environment: [String: String]) throws {
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        process.standardOutput = Self.pipe(into: output)
        process.standardError = Self.pipe(into: error)
        try process.run()
    }

    deinit {
        if process.isRunning {
            process.terminate()
        }
    }

    /// A pipe read by a thread of its own until the program closes it. (A `readabilityHandler`
    /// runs on Dispatch's threads, which a busy test process can starve for a minute: the
    /// program had printed, but nobody had read it.)
    private static func pipe(into collected: Collected) -> Pipe {
        let pipe = Pipe()
        let reading = pipe.fileHandleForReading
        let reader = Thread {
            while true {
                let data = reading.availableData
                if data.isEmpty { break }
                collected.data.withLock { $0.append(data) }
            }
        }
        reader.start()
        return pipe
    }

    var outputText: String { output.text }
    var errorText: String { error.text }

    /// Waits for the output to hold a line with `text`, and returns that line. The output is
    /// looked at once more after the deadline: in a full test run this task may wait longer
    /// than the deadline for a thread, while the program printed long before.
    func line(containing text: String, within seconds: Double = 60) async throws -> String {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            if let line = outputText.split(separator: "\n").first(where: { $0.contains(text) }) {
                return String(line)
            }
            guard Date() < deadline, process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw CocoaError(
            .fileReadUnknown,
            userInfo: [NSLocalizedDescriptionKey: "todo never printed '\(text)'; output: \(outputText) error: \(errorText)"])
    }

    /// Sends the signal (SIGINT, SIGTERM) and waits for the program to end; returns its status.
    func stop(with signal: Int32, within seconds: Double = 60) async throws -> Int32 {
        kill(process.processIdentifier, signal)
        return try await exitStatus(within: seconds)
    }

    /// Waits for the program to end by itself; returns its status.
    func exitStatus(within seconds: Double = 60) async throws -> Int32 {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning {
            guard Date() < deadline else {
                process.terminate()
                throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "todo did not stop in \(seconds) s"])
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        // The last of the output may still be in the pipe.
        try await Task.sleep(for: .milliseconds(100))
        return process.terminationStatus
    }
}
