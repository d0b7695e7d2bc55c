import CSQLite
import Foundation

/// A thin layer over SQLite's C API for the raw baseline: nothing but `sqlite3_*` calls, so
/// that the baseline costs what hand-written C would cost.
final class RawDatabase {
    let handle: OpaquePointer

    init(path: String) throws {
        var handle: OpaquePointer?
        let code = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil)
        guard code == SQLITE_OK, let handle else {
            sqlite3_close(handle)
            throw BenchError("cannot open \(path): SQLite error \(code)")
        }
        self.handle = handle
        sqlite3_busy_timeout(handle, 10_000)
    }

    deinit { sqlite3_close_v2(handle) }

    func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(handle, sql, nil, nil, &message) == SQLITE_OK else {
            defer { sqlite3_free(message) }
            throw BenchError("\(sql): \(message.map { String(cString: $0) } ?? "error")")
        }
    }

    func prepare(_ sql: String) throws -> RawStatement { try RawStatement(self, sql) }

    /// The single integer a query returns.
    func integer(_ sql: String) throws -> Int64 {
        let statement = try prepare(sql)
        return try statement.step() ? statement.int64(0) : 0
    }
}

/// A prepared statement; columns are read and parameters bound by position.
final class RawStatement {
    let handle: OpaquePointer
    private let database: RawDatabase

    /// SQLite copies bound text and blobs (`SQLITE_TRANSIENT`, a macro Swift cannot import).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(_ database: RawDatabase, _ sql: String) throws {
        var handle: OpaquePointer?
        guard sqlite3_prepare_v2(database.handle, sql, -1, &handle, nil) == SQLITE_OK, let handle else {
            throw BenchError("\(sql): \(String(cString: sqlite3_errmsg(database.handle)))")
        }
        self.handle = handle
        self.database = database
    }

    deinit { sqlite3_finalize(handle) }

    /// Steps once: `true` for a row, `false` when done.
    @discardableResult
    func step() throws -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw BenchError(String(cString: sqlite3_errmsg(database.handle)))
        }
    }

    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    func bind(_ value: Int64, at index: Int32) { sqlite3_bind_int64(handle, index, value) }
    func bind(_ value: Double, at index: Int32) { sqlite3_bind_double(handle, index, value) }
    func bind(_ value: String, at index: Int32) { sqlite3_bind_text(handle, index, value, -1, Self.transient) }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
    func string(_ column: Int32) -> String? {
        guard let text = sqlite3_column_text(handle, column) else { return nil }
        return String(cString: text)
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
