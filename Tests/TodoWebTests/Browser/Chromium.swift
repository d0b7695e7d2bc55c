import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Headless Chromium and its WebDriver, chromedriver, as Debian installs them (`apt-get
/// install chromium chromium-driver`), or wherever `STRATA_CHROMIUM` and `STRATA_CHROMEDRIVER`
/// say.
enum Chromium {
    static let browser = executable(environment: "STRATA_CHROMIUM", names: ["chromium", "chromium-browser", "google-chrome"])
    static let driver = executable(environment: "STRATA_CHROMEDRIVER", names: ["chromedriver"])

    static var isInstalled: Bool { browser != nil && driver != nil }

    /// `STRATA_REQUIRE_BROWSER=1` (CI): a missing browser fails the test instead of skipping it.
    static var isRequired: Bool { ProcessInfo.processInfo.environment["STRATA_REQUIRE_BROWSER"] == "1" }

    static let missingNotice =
        "NOTICE: the browser test is skipped: Chromium and chromedriver are not installed "
        + "(apt-get install chromium chromium-driver; STRATA_REQUIRE_BROWSER=1 makes this a failure)"

    private static func executable(environment name: String, names: [String]) -> URL? {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment[name], !path.isEmpty {
            return FileManager.default.isExecutableFile(atPath: path) ? URL(fileURLWithPath: path) : nil
        }
        let directories = (environment["PATH"] ?? "").split(separator: ":").map(String.init) + ["/usr/bin", "/usr/local/bin"]
        for directory in directories {
            for name in names {
                let path = URL(fileURLWithPath: directory).appendingPathComponent(name).path
                if FileManager.default.isExecutableFile(atPath: path) {
                    return URL(fileURLWithPath: path)
                }
            }
        }
        return nil
    }
}

/// A chromedriver process on a free port of 127.0.0.1. `stop()` ends it (and so every browser
/// it started).
final class ChromeDriverProcess {
    let port: Int
    private let process = Process()

    init(executable: URL) async throws {
        port = try Self.freePort()
        process.executableURL = executable
        process.arguments = ["--port=\(port)"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        do {
            try await waitUntilReady()
        } catch {
            await stop()
            throw error
        }
    }

    /// Asks chromedriver to shut down, and kills it if it has not after five seconds. (A
    /// SIGTERM would not do: the process inherits the test runner's blocked signals.)
    func stop() async {
        guard process.isRunning else { return }
        _ = try? await LoopbackHTTP.send("GET", port: port, path: "/shutdown", timeout: 5)
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning, Date() < deadline {
            try? await Task.sleep(for: .milliseconds(50))
        }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
        }
    }

    /// Polls `GET /status` until the driver answers that it is ready.
    private func waitUntilReady() async throws {
        struct Status: Decodable {
            struct Value: Decodable { let ready: Bool }
            let value: Value
        }
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, process.isRunning {
            if let reply = try? await LoopbackHTTP.send("GET", port: port, path: "/status", timeout: 5),
                let status = try? JSONDecoder().decode(Status.self, from: reply.body), status.value.ready
            {
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "chromedriver did not start"])
    }

    /// A port of 127.0.0.1 that no one listens on: the one the system gives a socket bound to
    /// port 0, closed again for chromedriver to take.
    private static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(descriptor, socketAddress, length) == 0 && getsockname(descriptor, socketAddress, &length) == 0
            }
        }
        guard bound else { throw POSIXError(.EADDRINUSE) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
