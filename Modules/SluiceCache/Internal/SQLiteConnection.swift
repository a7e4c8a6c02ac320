import CSQLite
import Foundation
import SluiceCore

/// One connection to an SQLite database: the only place SluiceCache touches SQLite's C API. Not
/// thread-safe: its owner serializes its use. Statements are prepared once and kept.
final class SQLiteConnection: @unchecked Sendable {
    // Sendable only to live in its store's lock, which is its one caller at a time.
    private let db: OpaquePointer
    private var statements: [String: OpaquePointer] = [:]

    /// Opens (creating) the database at `path`, in WAL mode with a busy timeout, so several connections,
    /// in this process or others, share it.
    init(path: String) throws(SluiceError) {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let handle { sqlite3_close_v2(handle) }
            throw SluiceError(.cacheStoreFailed, "cannot open the cache index at \(path): \(message)")
        }
        db = handle
        sqlite3_busy_timeout(db, 10_000)
        // Switching to the write-ahead log needs a moment alone with the file, and SQLite answers "locked"
        // at once, without its busy handler, while another process is setting the same database up: asked
        // again for up to ten seconds.
        try retryingWhileLocked { () throws(SluiceError) in try execute("PRAGMA journal_mode=WAL") }
        try execute("PRAGMA synchronous=NORMAL")
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(db)
    }

    /// Runs `body` until it does not fail with a locked database, for up to ten seconds.
    func retryingWhileLocked(_ body: () throws(SluiceError) -> Void) throws(SluiceError) {
        var attempts = 0
        while true {
            do throws(SluiceError) {
                return try body()
            } catch {
                let code = sqlite3_errcode(db)
                guard code == SQLITE_BUSY || code == SQLITE_LOCKED, attempts < 1_000 else { throw error }
                attempts += 1
                usleep(10_000)
            }
        }
    }

    /// Runs `sql` (one or more statements without parameters).
    func execute(_ sql: String) throws(SluiceError) {
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(db, sql, nil, nil, &message) == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? "unknown error"
            sqlite3_free(message)
            throw SluiceError(.cacheStoreFailed, "the cache index failed: \(text) (\(sql.prefix(60)))")
        }
    }

    /// A value bound to a statement's parameter.
    enum Value {
        case text(String)
        case integer(Int64)
        case real(Double)
        case null
    }

    /// One result row's columns.
    struct Row {
        fileprivate let statement: OpaquePointer
        func text(_ column: Int32) -> String? {
            guard let bytes = sqlite3_column_text(statement, column) else { return nil }
            return String(cString: bytes)
        }
        func integer(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }
        func real(_ column: Int32) -> Double { sqlite3_column_double(statement, column) }
    }

    /// Runs `sql` with `values` bound in order, calling `row` for each result row.
    func run(_ sql: String, _ values: [Value] = [], row: (Row) throws(SluiceError) -> Void = { _ in }) throws(SluiceError) {
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (index, value) in values.enumerated() {
            let position = Int32(index + 1)
            let status: Int32 = switch value {
            case .text(let text): sqlite3_bind_text(statement, position, text, -1, sluice_sqlite_transient())
            case .integer(let number): sqlite3_bind_int64(statement, position, number)
            case .real(let number): sqlite3_bind_double(statement, position, number)
            case .null: sqlite3_bind_null(statement, position)
            }
            guard status == SQLITE_OK else { throw failure(sql) }
        }
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { return }
            guard status == SQLITE_ROW else { throw failure(sql) }
            try row(Row(statement: statement))
        }
    }

    /// Runs `body` in one write transaction (taken at once, so two writers wait for each other instead
    /// of failing); rolled back when it throws.
    func transaction<Result>(_ body: () throws(SluiceError) -> Result) throws(SluiceError) -> Result {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    private func prepared(_ sql: String) throws(SluiceError) -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else { throw failure(sql) }
        statements[sql] = statement
        return statement
    }

    private func failure(_ sql: String) -> SluiceError {
        SluiceError(.cacheStoreFailed, "the cache index failed: \(String(cString: sqlite3_errmsg(db))) (\(sql.prefix(60)))")
    }
}
