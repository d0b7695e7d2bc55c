import Foundation
import Testing

@testable import StrataSyncServer

/// `DATABASE_URL` as libpq and hosting services write it, read into the client's configuration.
@Suite("DATABASE_URL") struct DatabaseURLTests {
    @Test("user, percent-encoded password, host, port and database")
    func fullURL() throws {
        let configuration = try DatabaseURL.configuration("postgresql://alice:p%40ss%2Fword@db.example:6543/sync_db")
        #expect(configuration.host == "db.example")
        #expect(configuration.port == 6543)
        #expect(configuration.username == "alice")
        #expect(configuration.password == "p@ss/word")
        #expect(configuration.database == "sync_db")
        #expect(configuration.unixSocketPath == nil)
    }

    @Test("defaults: user postgres, port 5432, loopback, no database")
    func defaults() throws {
        let short = try DatabaseURL.configuration("postgres://db")
        #expect(short.host == "db" && short.port == 5432 && short.username == "postgres")
        #expect(short.password == nil && short.database == nil)
        let noHost = try DatabaseURL.configuration("postgresql:///app")
        #expect(noHost.host == "127.0.0.1" && noHost.database == "app")
        #expect(try DatabaseURL.configuration("postgresql://h:7000/app?port=7001").port == 7001)
    }

    @Test("libpq's host=/folder is a Unix socket in that folder, with the port in its name")
    func unixSocket() throws {
        let configuration = try DatabaseURL.configuration("postgresql://me@/app?host=/var/run/postgresql")
        #expect(configuration.unixSocketPath == "/var/run/postgresql/.s.PGSQL.5432")
        #expect(configuration.host == nil)
        #expect(configuration.database == "app" && configuration.username == "me")
        let port = try DatabaseURL.configuration("postgresql:///app?host=/tmp&port=6001")
        #expect(port.unixSocketPath == "/tmp/.s.PGSQL.6001")
        let withPort = try DatabaseURL.configuration("postgresql://me@:6000/app?host=/tmp")
        #expect(withPort.unixSocketPath == "/tmp/.s.PGSQL.6000")
    }

    @Test("sslmode: libpq's modes are taken, another is refused")
    func sslModes() throws {
        for mode in ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"] {
            #expect(throws: Never.self, "\(mode)") { try DatabaseURL.configuration("postgresql://h/d?sslmode=\(mode)") }
        }
        #expect(throws: SyncServerError.badConfiguration("Unknown sslmode sometimes in DATABASE_URL.")) {
            try DatabaseURL.configuration("postgresql://h/d?sslmode=sometimes")
        }
    }

    @Test("another scheme or no URL is refused, with the password left out of the message")
    func refused() throws {
        #expect(throws: SyncServerError.badConfiguration("DATABASE_URL is not a postgresql:// URL: mysql://u:***@h/d")) {
            try DatabaseURL.configuration("mysql://u:secret@h/d")
        }
        #expect(throws: SyncServerError.badConfiguration("DATABASE_URL is not a postgresql:// URL: not a url")) {
            try DatabaseURL.configuration("not a url")
        }
        #expect(DatabaseURL.redacted("postgresql://u:secret@h:5/d") == "postgresql://u:***@h:5/d")
        #expect(DatabaseURL.redacted("postgresql://u@h/d") == "postgresql://u@h/d")
    }
}
