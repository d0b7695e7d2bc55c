import Foundation

/// The products of the build that runs these tests: the `strata-codegen` executable, and
/// the modules and macro plugin needed to compile generated code.
enum BuildProducts {
    /// The directory holding the test runner, which SwiftPM shares with the other products.
    static let directory: URL? = {
        let candidates = [Bundle.main.executableURL, CommandLine.arguments.first.map { URL(fileURLWithPath: $0) }]
        return candidates.compactMap { $0?.resolvingSymlinksInPath().deletingLastPathComponent() }.first { directory in
            FileManager.default.fileExists(atPath: directory.appendingPathComponent("Modules").path)
        }
    }()

    /// The `strata-codegen` executable.
    static var codegenTool: URL? { product("strata-codegen") }

    /// The `@Managed` macro's compiler plugin.
    static var macroPlugin: URL? { product("StrataMacros-tool") }

    /// The directory of compiled modules, for `-I`.
    static var modules: URL? { directory?.appendingPathComponent("Modules") }

    /// `-I` paths for compiling against Strata: its modules, and the C module of SQLite that
    /// Strata's dependency GRDB brings (SwiftPM passes it to every client; a bare `swiftc`
    /// needs it named).
    static var includePaths: [String] {
        guard let modules else { return [] }
        var paths = ["-I", modules.path]
        let build = modules.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let sqlite = build.appendingPathComponent("checkouts/GRDB.swift/Sources/GRDBSQLite")
        if FileManager.default.fileExists(atPath: sqlite.appendingPathComponent("module.modulemap").path) {
            paths += ["-I", sqlite.path]
        }
        // Strata's own system library module (zlib), beside the build directory.
        let zlib = build.deletingLastPathComponent().appendingPathComponent("Sources/CZlib")
        if FileManager.default.fileExists(atPath: zlib.appendingPathComponent("module.modulemap").path) {
            paths += ["-I", zlib.path]
        }
        return paths
    }

    private static func product(_ name: String) -> URL? {
        guard let url = directory?.appendingPathComponent(name), FileManager.default.isExecutableFile(atPath: url.path) else {
            return nil
        }
        return url
    }
}

/// The outcome of running a program.
struct ProcessResult {
    let status: Int32
    let output: String
    let error: String

    /// Runs a program to completion, with its output captured.
    static func run(_ executable: URL, _ arguments: [String]) throws -> ProcessResult {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return ProcessResult(
            status: process.terminationStatus,
            output: String(decoding: outputData, as: UTF8.self),
            error: String(decoding: errorData, as: UTF8.self)
        )
    }
}

/// A fresh temporary directory, removed when the value is released.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-codegen-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}
