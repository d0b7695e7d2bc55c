import Foundation
import Logging
import PostgresNIO
import StrataSyncServer

/// A PostgreSQL for tests: the server at `DATABASE_URL` when that is set, else a throw-away
/// cluster this process starts on first use (Debian's PostgreSQL 15 binaries, a random port
/// on loopback, its files and socket in a temporary folder, durability off for speed) and
/// that is stopped when the process ends, even when it is killed: a watchdog process stops it
/// once this process is gone. Each test gets a fresh database of its own (`makeDatabase`).
///
/// Tests that need it are skipped, visibly, where PostgreSQL is absent (`isAvailable`);
/// `STRATA_REQUIRE_POSTGRES=1` (set in CI) makes them run, and fail when it cannot start.
///
/// ```swift
/// @Test(.enabled(if: TestPostgres.isAvailable, "PostgreSQL is absent"))
/// func pushes() async throws {
///     let url = try await TestPostgres.shared.makeDatabase()
/// ```
public actor TestPostgres {
    public static let shared = TestPostgres()

    /// Debian's place for PostgreSQL 15's programs, which are not on PATH.
    public static let binaries = "/usr/lib/postgresql/15/bin"

    private enum Server {
        case unavailable(String)
        case running(host: String, port: Int, username: String, password: String?)
    }

    private var server: Server?

    /// Whether the tests that need PostgreSQL run (the condition of their `.enabled(if:)`
    /// trait, so that a test run lists them as skipped where it is absent): when
    /// `STRATA_REQUIRE_POSTGRES=1` (they must run, and fail if no server starts), when
    /// `DATABASE_URL` names a server, or when PostgreSQL 15's programs are installed.
    public static var isAvailable: Bool {
        let environment = ProcessInfo.processInfo.environment
        if environment["STRATA_REQUIRE_POSTGRES"] == "1" { return true }
        if let url = environment["DATABASE_URL"], !url.isEmpty { return true }
        let available = ["initdb", "pg_ctl", "postgres"].allSatisfy {
            FileManager.default.isExecutableFile(atPath: "\(binaries)/\($0)")
        }
        if !available { noticeOnce("PostgreSQL 15 is not installed in \(binaries) (apt-get install postgresql-15)") }
        return available
    }

    /// A new empty database's URL. Throws when no server can be had: a test that calls this
    /// is enabled only where PostgreSQL is (`isAvailable`), so its absence then is a failure.
    public func makeDatabase(function: String = #function) async throws -> String {
        switch await start() {
        case .unavailable(let reason):
            throw TestPostgresError(message: "PostgreSQL is needed but \(reason)")
        case .running(let host, let port, let username, let password):
            let name = "strata_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
            let configuration = PostgresConnection.Configuration(
                host: host, port: port, username: username, password: password, database: "postgres", tls: .disable)
            let connection = try await PostgresConnection.connect(
                configuration: configuration, id: 1, logger: Logger(label: "test-postgres"))
            do {
                // A name we made (letters and digits): nothing to bind.
                try await connection.query(
                    PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: Logger(label: "test-postgres"))
            } catch {
                try? await connection.close()
                throw error
            }
            try await connection.close()
            let credentials = password.map { "\(username):\($0)" } ?? username
            return "postgresql://\(credentials)@\(host):\(port)/\(name)"
        }
    }

    /// Removes a database `makeDatabase` made (its connections ended first), so that runs of
    /// many databases do not fill the disk.
    public func dropDatabase(_ url: String) async throws {
        let name = try Self.databaseName(of: url)
        // A name `makeDatabase` made (letters, digits and underscores): nothing to bind.
        _ = try await Self.query("DROP DATABASE IF EXISTS \(name) WITH (FORCE)", databaseURL: url, in: "postgres")
    }

    /// Runs `sql` in the database at `url` (one of `makeDatabase`'s), or in the database
    /// `database` of the same server; the first column of each row, as text (NULL as nil).
    public static func query(_ sql: String, databaseURL url: String, in database: String? = nil) async throws -> [String?] {
        try await withConnection(to: url, database: database) { connection, logger in
            try await firstColumn(of: sql, on: connection, logger: logger)
        }
    }

    /// Runs `sql` in the database at `url` again and again on one connection, every
    /// millisecond, until its first row's first column is `true`: a test that must act the
    /// moment a server has written something. False when `seconds` pass first.
    public static func waitUntil(_ sql: String, databaseURL url: String, seconds: Double = 30) async throws -> Bool {
        try await withConnection(to: url, database: nil) { connection, logger in
            let deadline = ContinuousClock.now + .seconds(seconds)
            while ContinuousClock.now < deadline {
                if try await firstColumn(of: sql, on: connection, logger: logger).first == "true" { return true }
                try await Task.sleep(for: .milliseconds(1))
            }
            return false
        }
    }

    private static func firstColumn(
        of sql: String, on connection: PostgresConnection, logger: Logger
    ) async throws
        -> [String?]
    {
        var values: [String?] = []
        for try await value in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).decode(
            String?.self)
        {
            values.append(value)
        }
        return values
    }

    private static func withConnection<T>(
        to url: String, database: String?, _ body: (PostgresConnection, Logger) async throws -> T
    ) async throws -> T {
        guard let components = URLComponents(string: url), let host = components.host else {
            throw TestPostgresError(message: "Not a database URL: \(url)")
        }
        let configuration = PostgresConnection.Configuration(
            host: host, port: components.port ?? 5432, username: components.user ?? "postgres",
            password: components.password, database: try database ?? databaseName(of: url), tls: .disable)
        let logger = Logger(label: "test-postgres")
        // PostgresNIO's errors print a generic line; the test's report needs what failed.
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(configuration: configuration, id: 2, logger: logger)
        } catch {
            throw TestPostgresError(message: "Connecting to the test database failed: \(String(reflecting: error))")
        }
        do {
            let result = try await body(connection, logger)
            try await connection.close()
            return result
        } catch let error as PSQLError {
            try? await connection.close()
            throw TestPostgresError(message: String(reflecting: error))
        } catch {
            try? await connection.close()
            throw error
        }
    }

    private static func databaseName(of url: String) throws -> String {
        guard let path = URLComponents(string: url)?.path, path.count > 1,
            path.dropFirst().allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" })
        else { throw TestPostgresError(message: "No database name in \(url)") }
        return String(path.dropFirst())
    }

    private func start() async -> Server {
        if let server { return server }
        let started: Server
        if let url = ProcessInfo.processInfo.environment["DATABASE_URL"], !url.isEmpty,
            let components = URLComponents(string: url), let host = components.host
        {
            started = .running(
                host: host, port: components.port ?? 5432, username: components.user ?? "postgres",
                password: components.password)
        } else {
            do {
                started = try Self.startCluster()
            } catch {
                started = .unavailable("\(error)")
            }
        }
        server = started
        return started
    }

    private static func startCluster() throws -> Server {
        let initdb = "\(binaries)/initdb"
        guard FileManager.default.isExecutableFile(atPath: initdb) else {
            throw TestPostgresError(message: "PostgreSQL 15 is not installed (no \(initdb)); apt-get install postgresql-15")
        }
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("strata-test-pg-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8))")
            .path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let isRoot = getuid() == 0
        if isRoot {
            // initdb refuses to run as root: the cluster belongs to the postgres user.
            try run("/bin/chown", ["postgres:postgres", folder])
        }
        func asPostgres(_ program: String, _ arguments: [String]) throws {
            if isRoot {
                try run("/usr/sbin/runuser", ["-u", "postgres", "--", program] + arguments)
            } else {
                try run(program, arguments)
            }
        }
        try asPostgres(initdb, ["-D", "\(folder)/data", "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8"])
        var lastError: (any Error)?
        for _ in 0..<5 {
            let port = Int.random(in: 41_000..<49_000)
            let options =
                "-c listen_addresses=127.0.0.1 -p \(port) -k \(folder) -c fsync=off -c synchronous_commit=off "
                + "-c full_page_writes=off -c max_connections=300"
            do {
                try asPostgres(
                    "\(binaries)/pg_ctl",
                    ["-D", "\(folder)/data", "-l", "\(folder)/log", "-w", "-t", "30", "-o", options, "start"])
                startWatchdog(folder: folder, asRoot: isRoot)
                return .running(host: "127.0.0.1", port: port, username: "postgres", password: nil)
            } catch {
                lastError = error
            }
        }
        throw lastError ?? TestPostgresError(message: "PostgreSQL did not start")
    }

    /// A shell that waits for this process to end (however it ends), then stops the cluster
    /// and removes its folder. It is in its own session, so a signal to this process's group
    /// does not take it along before it has done its work.
    private static func startWatchdog(folder: String, asRoot: Bool) {
        let parent = ProcessInfo.processInfo.processIdentifier
        let stop = "\(binaries)/pg_ctl -D '\(folder)/data' -m immediate -w stop"
        let script = """
            while kill -0 \(parent) 2>/dev/null; do sleep 0.5; done
            \(asRoot ? "runuser -u postgres -- \(stop)" : stop) >/dev/null 2>&1
            rm -rf '\(folder)'
            """
        _ = try? spawn("/usr/bin/setsid", ["/bin/sh", "-c", script], output: "/dev/null")
    }

    /// Runs a program to its end; an error with what it printed when it fails.
    private static func run(_ program: String, _ arguments: [String]) throws {
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("strata-pg-\(UUID().uuidString).out").path
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        let pid = try spawn(program, arguments, output: outputPath)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let exited = status & 0x7f == 0
        let code = (status >> 8) & 0xff
        guard exited, code == 0 else {
            let printed = String(decoding: FileManager.default.contents(atPath: outputPath) ?? Data(), as: UTF8.self)
            throw TestPostgresError(message: "\(program) \(arguments.joined(separator: " ")) failed (\(status)): \(printed)")
        }
    }

    /// Starts a program with its output in a file, no input and no other descriptor of this
    /// process, with posix_spawn rather than
    /// Foundation's `Process`: on Linux, `Process` learns that a child ended when a pipe the
    /// child inherited closes, and the server `pg_ctl start` leaves running inherits it too,
    /// so `waitUntilExit()` would wait for the server to stop.
    private static func spawn(_ program: String, _ arguments: [String], output: String) throws -> pid_t {
        #if canImport(Darwin)
            var actions: posix_spawn_file_actions_t? = nil
        #else
            var actions = posix_spawn_file_actions_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        #if os(Linux)
            // Nothing else: descriptors lack close-on-exec where Foundation makes them (a `Pipe`
            // another test reads a child's output through), and the server `pg_ctl start` leaves
            // running would hold a pipe's writing end for the life of the test process, so the
            // reader never saw its end (a command-line test hung in CI that way).
            closeFrom3(&actions)
        #endif
        let argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { strdup($0) } + [nil]
        let environment: [UnsafeMutablePointer<CChar>?] =
            ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            environment.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, program, &actions, nil, argv, environment)
        guard result == 0 else {
            throw TestPostgresError(message: "Cannot start \(program): \(String(cString: strerror(result)))")
        }
        return pid
    }

    #if os(Linux)
        /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34), which Swift's Glibc
        /// module does not import; without it, each descriptor open now is closed.
        private static func closeFrom3(_ actions: inout posix_spawn_file_actions_t) {
            typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
            if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") {
                _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
                return
            }
            let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            for descriptor in open.compactMap(Int32.init) where descriptor > 2 {
                posix_spawn_file_actions_addclose(&actions, descriptor)
            }
        }
    #endif

    private static let noticed = Locked(false)

    private static func noticeOnce(_ reason: String) {
        let first = noticed.withLock { noticed -> Bool in
            defer { noticed = true }
            return !noticed
        }
        if first {
            print(
                "NOTICE: skipping the tests that need PostgreSQL: \(reason) (set STRATA_REQUIRE_POSTGRES=1 to fail instead)")
        }
    }
}

/// Why the test support could not do what it was asked.
public struct TestPostgresError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }

    public init(message: String) { self.message = message }
}
