import Foundation
import PostgresNIO

/// Reads `postgresql://user:password@host:port/database?sslmode=…` into PostgresNIO's client
/// configuration: the form `DATABASE_URL` has everywhere (libpq, Heroku, Fly, CI services).
enum DatabaseURL {
    static func configuration(_ text: String) throws -> PostgresClient.Configuration {
        guard let components = URLComponents(string: text),
            let scheme = components.scheme, ["postgres", "postgresql"].contains(scheme)
        else {
            throw SyncServerError.badConfiguration("DATABASE_URL is not a postgresql:// URL: \(redacted(text))")
        }
        let username = components.user?.removingPercentEncoding ?? "postgres"
        let password = components.password?.removingPercentEncoding
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        let database = path.isEmpty ? nil : path.removingPercentEncoding
        let query = Dictionary(
            (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last })
        let host = components.host ?? ""
        // libpq takes `port=` among the parameters too, over the authority's.
        let port = query["port"].flatMap { Int($0) } ?? components.port ?? 5432
        // libpq's `host=/dir` form: a Unix socket folder.
        if let socketFolder = query["host"], socketFolder.hasPrefix("/") {
            let socket = "\(socketFolder)/.s.PGSQL.\(port)"
            return .init(unixSocketPath: socket, username: username, password: password, database: database)
        }
        let tls: PostgresClient.Configuration.TLS
        switch query["sslmode"] ?? "disable" {
        case "disable", "allow": tls = .disable
        case "prefer": tls = .prefer(.makeClientConfiguration())
        case "require", "verify-ca", "verify-full": tls = .require(.makeClientConfiguration())
        case let mode: throw SyncServerError.badConfiguration("Unknown sslmode \(mode) in DATABASE_URL.")
        }
        return .init(
            host: host.isEmpty ? "127.0.0.1" : host, port: port, username: username,
            password: password, database: database, tls: tls)
    }

    /// The URL without its password, for messages and logs.
    static func redacted(_ text: String) -> String {
        guard var components = URLComponents(string: text), components.password != nil else { return text }
        components.password = "***"
        return components.string ?? "(unreadable URL)"
    }
}

/// Why a server could not start.
public enum SyncServerError: Error, Equatable, LocalizedError {
    case badConfiguration(String)
    case cannotListen(String)

    public var errorDescription: String? {
        switch self {
        case .badConfiguration(let message): message
        case .cannotListen(let message): message
        }
    }
}
