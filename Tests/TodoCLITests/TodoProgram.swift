import Foundation
import TodoKit

/// The built `todo` program, run as a person or a script runs it, each time on a store in
/// a temporary folder of the test's own. Sendable so that a test can run it off Swift's
/// cooperative threads; each instance belongs to one test, which changes it between runs only.
final class TodoProgram: @unchecked Sendable {
    /// What one run printed and how it ended.
    struct Result {
        let status: Int32
        let output: String
        let error: String
    }

    /// Whether the command-line tests run: the program is built, or `STRATA_REQUIRE_CLI=1`
    /// (set by CI) says it must be, so that they fail rather than skip.
    static var isAvailable: Bool {
        executable != nil || ProcessInfo.processInfo.environment["STRATA_REQUIRE_CLI"] == "1"
    }

    /// The executable SwiftPM built beside the test runner (this target depends on it).
    static let executable: URL? = {
        let candidates = [Bundle.main.executableURL, CommandLine.arguments.first.map { URL(fileURLWithPath: $0) }]
        let directory = candidates.compactMap { $0?.resolvingSymlinksInPath().deletingLastPathComponent() }.first { directory in
            FileManager.default.fileExists(atPath: directory.appendingPathComponent("Modules").path)
        }
        guard let url = directory?.appendingPathComponent("todo"), FileManager.default.isExecutableFile(atPath: url.path) else {
            return nil
        }
        return url
    }()

    let folder: URL
    var store: URL { folder.appendingPathComponent("Todos.sqlite") }
    /// Variables every run gets besides the test's own (`TODO_SYNC_SERVER`, say).
    var environment: [String: String] = [:]

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("todo-cli-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    /// Runs `todo --store <folder>/Todos.sqlite <arguments>`.
    func run(_ arguments: String...) throws -> Result {
        try runBare(["--store", store.path] + arguments)
    }

    /// Runs `todo <arguments>` with the data directory (`XDG_DATA_HOME`) in the folder.
    func runBare(_ arguments: [String]) throws -> Result {
        guard let executable = Self.executable else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "the built todo program was not found"])
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment.merging(self.environment) { $1 }
        environment["XDG_DATA_HOME"] = folder.appendingPathComponent("data").path
        process.environment = environment
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            output: String(decoding: outputData, as: UTF8.self),
            error: String(decoding: errorData, as: UTF8.self)
        )
    }

    /// Starts `todo <arguments>` in the background (`serve`), with the data directory in the
    /// folder.
    func start(_ arguments: String...) throws -> RunningProgram {
        guard let executable = Self.executable else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "the built todo program was not found"])
        }
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = folder.appendingPathComponent("data").path
        return try RunningProgram(executable: executable, arguments: arguments, environment: environment)
    }

    /// Runs a command with `--json` that must succeed, and decodes what it printed.
    func json<Value: Decodable>(_ type: Value.Type, _ arguments: String...) throws -> Value {
        let result = try runBare(["--store", store.path] + arguments + ["--json"])
        guard result.status == 0 else {
            throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "todo failed: \(result.error)"])
        }
        return try TodoJSON.decoder().decode(Value.self, from: Data(result.output.utf8))
    }
}
