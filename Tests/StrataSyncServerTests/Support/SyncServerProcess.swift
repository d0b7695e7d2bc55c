import Foundation
import StrataSyncServer
import SyncTestSupport

/// The built `strata-sync` program run as its own process, configured through the
/// environment as a deployment would be.
final class SyncServerProcess: Sendable {
    /// The executable SwiftPM built beside the test runner (this target depends on it).
    static let executable: URL? = {
        let candidates = [Bundle.main.executableURL, CommandLine.arguments.first.map { URL(fileURLWithPath: $0) }]
        let directory = candidates.compactMap { $0?.resolvingSymlinksInPath().deletingLastPathComponent() }.first { directory in
            FileManager.default.fileExists(atPath: directory.appendingPathComponent("Modules").path)
        }
        guard let url = directory?.appendingPathComponent("strata-sync"), FileManager.default.isExecutableFile(atPath: url.path)
        else { return nil }
        return url
    }()

    /// What the server writes to standard error, gathered as it comes.
    private final class Output: Sendable {
        let text = Locked("")
    }

    let process: Process
    let url: URL
    private let output: Output

    private init(process: Process, url: URL, output: Output) {
        self.process = process
        self.url = url
        self.output = output
    }

    /// What the server wrote to standard error so far.
    var log: String { output.text.withLock { $0 } }

    /// Starts the program and returns once it listens (it logs its address): on `port`, or
    /// on any free one.
    static func start(databaseURL: String, port: Int = 0, extraArguments: [String] = []) async throws -> SyncServerProcess {
        guard let executable else { throw TestPostgresError(message: "strata-sync is not built beside the tests") }
        let process = Process()
        process.executableURL = executable
        // Few connections: the whole suite's servers share the test cluster's 100.
        process.arguments = ["--port", String(port), "--max-database-connections", "4"] + extraArguments
        var environment = ProcessInfo.processInfo.environment
        environment["DATABASE_URL"] = databaseURL
        environment["STRATA_SYNC_JWT_SECRET"] = TestTokens.secret
        environment["STRATA_SYNC_RATE_LIMIT"] = "0"
        environment["LOG_LEVEL"] = "notice"
        process.environment = environment
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = FileHandle.nullDevice
        let output = Output()
        let found = AsyncStream<URL>.makeStream()
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            guard !data.isEmpty else {
                handle.readabilityHandler = nil
                found.continuation.finish()
                return
            }
            let text = output.text.withLock { log -> String in
                log += String(decoding: data, as: UTF8.self)
                return log
            }
            if let range = text.range(of: #"listening on http://[0-9.]+:[0-9]+"#, options: .regularExpression),
                let url = URL(string: String(text[range].dropFirst("listening on ".count)))
            {
                found.continuation.yield(url)
            }
        }
        process.terminationHandler = { _ in found.continuation.finish() }
        try process.run()
        let timeout = Task {
            try await Task.sleep(for: .seconds(60))
            found.continuation.finish()
        }
        defer { timeout.cancel() }
        for await url in found.stream {
            return SyncServerProcess(process: process, url: url, output: output)
        }
        process.terminate()
        throw TestPostgresError(message: "strata-sync did not start: \(output.text.withLock { $0 })")
    }

    func signal(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Waits until the server's log contains `text` (an event it logs); false after `seconds`.
    func waitForLog(containing text: String, seconds: Double = 60) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while !log.contains(text) {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return true
    }

    /// Waits for the process to end; its exit status (nil if it did not end within `seconds`).
    func waitForExit(seconds: Double = 30) async -> Int32? {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while process.isRunning {
            guard ContinuousClock.now < deadline else { return nil }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return process.terminationStatus
    }
}
