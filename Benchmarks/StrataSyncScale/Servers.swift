import Foundation
import StrataSyncProtocol
import StrataSyncServer
import SyncTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Two `strata-sync` instances in this process on one fresh database (DATABASE_URL's server,
/// else a throw-away PostgreSQL 15 that `TestPostgres` starts), as `strata-sync-load` runs them.
struct Servers {
    let databaseURL: String
    let instances: [TestSyncServer]
    let configuration: SyncServerConfiguration

    var urls: [URL] { instances.map(\.url) }

    static func start() async throws -> Servers {
        let url = try await TestPostgres.shared.makeDatabase()
        var configuration = TestSyncServer.configuration(databaseURL: url)
        // A server's own pool, not the few connections the tests give theirs.
        configuration.maxDatabaseConnections = SyncServerConfiguration(databaseURL: url).maxDatabaseConnections
        let first = try await TestSyncServer.start(configuration: configuration)
        let second = try await TestSyncServer.start(configuration: configuration)
        return Servers(databaseURL: url, instances: [first, second], configuration: configuration)
    }

    func stop() async {
        for instance in instances { await instance.stop() }
    }

    func describe() {
        print(
            "servers: 2 strata-sync instances in this process (\(urls.map(\.absoluteString).joined(separator: ", "))), "
                + "maxRecords \(configuration.maxRecords), maxDatabaseConnections \(configuration.maxDatabaseConnections) each, "
                + "rate limit off; clients in this process too, over loopback HTTP (URLSession)")
    }

    /// The first column of each row of `sql`, run in the servers' database.
    func sql(_ sql: String) async throws -> [String?] {
        try await TestPostgres.query(sql, databaseURL: databaseURL)
    }

    /// `ANALYZE records`, timed: the planner's statistics as autovacuum would leave them after
    /// a bulk load, made now so that runs are alike.
    func analyze() async throws {
        let started = ContinuousClock.now
        _ = try await sql("ANALYZE records")
        print("ANALYZE records (statistics as autovacuum leaves them after a load): \(Format.duration(.now - started))")
    }
}

/// What a request got back, and how long it took (from sending to the last byte of the answer).
struct Reply: Sendable {
    let status: Int
    let data: Data
    let elapsed: Duration

    var text: String { String(decoding: data.prefix(2000), as: UTF8.self) }
}

/// A device's HTTP: one URLSession (its own connections), a bearer token per request, a long
/// timeout (a query that scans a million records without an index takes a while).
struct HTTPClient: Sendable {
    let session: URLSession

    init(timeout: TimeInterval = 3600) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 4
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        session = URLSession(configuration: configuration)
    }

    func send(_ method: String, _ base: URL, _ path: String, token: String, body: Data? = nil) async throws -> Reply {
        guard let url = URL(string: base.absoluteString + path) else { throw ScaleError("Bad path \(path)") }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let started = ContinuousClock.now
        let (data, response) = try await session.data(for: request)
        let elapsed = ContinuousClock.now - started
        guard let http = response as? HTTPURLResponse else { throw ScaleError("Not an HTTP answer from \(url)") }
        return Reply(status: http.statusCode, data: data, elapsed: elapsed)
    }

    /// A request that must answer 200.
    func expectOK(_ method: String, _ base: URL, _ path: String, token: String, body: Data? = nil) async throws -> Reply {
        let reply = try await send(method, base, path, token: token, body: body)
        guard reply.status == 200 else { throw ScaleError("\(method) \(path): \(reply.status) \(reply.text)") }
        return reply
    }

    /// A query, its decoded answer and its time.
    func query(_ request: QueryRequest, _ base: URL, zone: String, token: String) async throws -> (QueryResponse, Duration) {
        let reply = try await expectOK(
            "POST", base, SyncPaths.query(zone), token: token, body: try JSONEncoder().encode(request))
        do {
            return (try JSONDecoder().decode(QueryResponse.self, from: reply.data), reply.elapsed)
        } catch {
            throw ScaleError("A query's answer is not a QueryResponse (\(error)): \(reply.text)")
        }
    }

    /// One page of a zone's changes (no `client=`: a new device pulls everything).
    func changes(_ base: URL, zone: String, since: String?, token: String) async throws -> (ChangesResponse, Duration) {
        // Tokens are base64url: safe in a query as they are.
        let query = since.map { "?since=\($0)" } ?? ""
        let reply = try await expectOK("GET", base, SyncPaths.changes(zone) + query, token: token)
        return (try WireJSON.decodeChangesResponse(from: reply.data), reply.elapsed)
    }
}

struct ScaleError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}
