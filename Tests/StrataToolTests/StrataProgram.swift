import Foundation

/// The built `strata` program, run as a person or a script runs it.
enum StrataProgram {
    /// What one run printed and how it ended.
    struct Result {
        let status: Int32
        let output: String
        let error: String
    }

    /// The executable SwiftPM built beside the test runner (`swift build` builds it).
    static let executable: URL? = {
        let candidates = [Bundle.main.executableURL, CommandLine.arguments.first.map { URL(fileURLWithPath: $0) }]
        let directory = candidates.compactMap { $0?.resolvingSymlinksInPath().deletingLastPathComponent() }.first { directory in
            FileManager.default.fileExists(atPath: directory.appendingPathComponent("Modules").path)
        }
        guard let url = directory?.appendingPathComponent("strata"), FileManager.default.isExecutableFile(atPath: url.path)
        else { return nil }
        return url
    }()

    /// Runs `strata <arguments>` with `input` on its standard input.
    static func run(_ arguments: [String], input: Data? = nil, environment: [String: String] = [:]) throws -> Result {
        guard let executable else {
            throw CocoaError(
                .fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "the built strata program was not found (swift build)"])
        }
        // Standard input and error go through files, so that neither side waits on a full pipe.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let inputFile = folder.appendingPathComponent("stdin")
        let errorFile = folder.appendingPathComponent("stderr")
        try (input ?? Data()).write(to: inputFile)
        try Data().write(to: errorFile)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = try FileHandle(forReadingFrom: inputFile)
        process.standardError = try FileHandle(forWritingTo: errorFile)
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let errorData = try Data(contentsOf: errorFile)
        return Result(
            status: process.terminationStatus,
            output: String(decoding: outputData, as: UTF8.self),
            error: String(decoding: errorData, as: UTF8.self)
        )
    }
}
