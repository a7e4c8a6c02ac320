import Foundation
import SluiceCore

/// A cache store on disk that survives restarts: bodies in files, the index in SQLite, bounded by bytes
/// with least-recently-used eviction.
///
/// Crash-safe: a body is written to a temporary file, then renamed into place, and only then indexed, in
/// one transaction with the removal of the variant it replaces and any eviction; files are removed only
/// after the index no longer names them. A process killed at any moment leaves at worst a file the index
/// does not name (swept at the next open) — never an indexed entry with a torn body, which is also
/// checked by length when served. Several stores, in one process or several, may share a directory:
/// SQLite's write-ahead log and a busy timeout serialize their writes.
///
/// Defaults: 150 MiB, as Alamofire's disk capacity (URLCache.shared: 10 MiB on iOS, NSURLCache's former
/// default 20 MiB); a single body over 5% of the capacity is not stored, as NSURLCache's rule.
public final class DiskCacheStore: HTTPCacheStore {
    /// The store's folder: `index.sqlite`, `bodies/`, `partial/`.
    public let directory: URL
    /// The most bytes held (bodies plus heads).
    public let capacity: Int
    /// The largest body stored.
    public let maximumEntrySize: Int
    /// Bodies up to this size are read whole when served; larger ones are streamed from the file.
    static let wholeReadLimit = 256 << 10

    private let connection: Locked<SQLiteConnection>
    /// When bodies were last served, by id, not yet written to the index: a hit costs no write
    /// transaction. Written with the next stored body, or once 256 are waiting, or when the store goes.
    private let uses = Locked<[String: Double]>([:])
    private let bodies: URL
    private let partial: URL

    /// Opens (creating) the store in `directory`, sweeping what a killed process left there.
    ///
    /// - Parameters:
    ///   - directory: The folder; made when missing.
    ///   - capacity: The most bytes held. Default 150 MiB.
    ///   - maximumEntrySize: The largest body stored. Default 5% of `capacity`.
    /// - Throws: ``SluiceError/Code/cacheStoreFailed`` when the folder or its index cannot be made or opened.
    public init(directory: URL, capacity: Int = 150 << 20, maximumEntrySize: Int? = nil) throws(SluiceError) {
        self.directory = directory
        self.capacity = max(0, capacity)
        self.maximumEntrySize = min(maximumEntrySize ?? self.capacity / 20, self.capacity)
        bodies = directory.appendingPathComponent("bodies", isDirectory: true)
        partial = directory.appendingPathComponent("partial", isDirectory: true)
        do {
            for folder in [directory, bodies, partial] {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            }
        } catch {
            throw SluiceError(.cacheStoreFailed, "cannot make the cache folder \(directory.path): \(error)")
        }
        let index = try SQLiteConnection(path: directory.appendingPathComponent("index.sqlite").path)
        try index.retryingWhileLocked { () throws(SluiceError) in
            try index.execute(
            """
            CREATE TABLE IF NOT EXISTS entries (
                id TEXT PRIMARY KEY, key TEXT NOT NULL, variant TEXT NOT NULL, url TEXT NOT NULL,
                status INTEGER NOT NULL, headers TEXT NOT NULL, vary TEXT NOT NULL,
                request_date REAL NOT NULL, response_date REAL NOT NULL,
                body_length INTEGER NOT NULL, size INTEGER NOT NULL, last_used REAL NOT NULL);
            CREATE INDEX IF NOT EXISTS entries_key ON entries (key);
            CREATE INDEX IF NOT EXISTS entries_used ON entries (last_used);
            """)
        }
        connection = Locked(index)
        sweep()
    }

    // MARK: Reading

    public func responses(forKey key: String) -> [CachedResponse] {
        var found: [CachedResponse] = []
        withIndex { index throws(SluiceError) in
            try index.run(
                "SELECT id, url, status, headers, vary, request_date, response_date, body_length FROM entries WHERE key = ?",
                [.text(key)]
            ) { row throws(SluiceError) in
                if let response = Self.response(from: row) { found.append(response) }
            }
        }
        return found
    }

    public func body(of response: CachedResponse) -> HTTPLayerBody? {
        let file = bodyFile(response.id)
        // Opened before anything else: the file stays readable if it is evicted meanwhile.
        guard let handle = try? FileHandle(forReadingFrom: file) else {
            forget(ids: [response.id.uuidString])
            return nil
        }
        var indexed: Int64?
        withIndex { index throws(SluiceError) in
            try index.run("SELECT body_length FROM entries WHERE id = ?", [.text(response.id.uuidString)]) { row in
                indexed = row.integer(0)
            }
        }
        if indexed != nil {
            let waiting = uses.withLock { uses in
                uses[response.id.uuidString] = Date().timeIntervalSince1970
                return uses.count
            }
            if waiting >= 256 { withIndex { index throws(SluiceError) in try writeUses(index) } }
        }
        guard let indexed, let length = try? handle.seekToEnd(), Int64(length) == indexed, (try? handle.seek(toOffset: 0)) != nil
        else {
            try? handle.close()
            // A body whose length is not the indexed one is never served.
            if indexed != nil { forget(ids: [response.id.uuidString]) }
            return nil
        }
        if indexed <= Self.wholeReadLimit {
            defer { try? handle.close() }
            guard let data = try? handle.readToEnd() ?? Data(), Int64(data.count) == indexed else { return nil }
            return .data(data)
        }
        let reader = FileChunks(handle: handle)
        return .stream(ResponseBodyStream(AsyncThrowingStream<Data, any Error>(unfolding: { try reader.next() })))
    }

    // MARK: Writing

    public func makeWriter(for response: CachedResponse, key: String) -> (any CacheBodyWriter)? {
        guard maximumEntrySize > 0 else { return nil }
        let file = partial.appendingPathComponent("\(response.id.uuidString).\(getpid())")
        guard FileManager.default.createFile(atPath: file.path, contents: nil),
            let handle = try? FileHandle(forWritingTo: file)
        else { return nil }
        return Writer(store: self, response: response, key: key, file: file, handle: handle)
    }

    public func update(_ response: CachedResponse, key: String) {
        withIndex { index throws(SluiceError) in
            try index.run(
                "UPDATE entries SET status = ?, headers = ?, request_date = ?, response_date = ?, last_used = ? WHERE id = ?",
                [
                    .integer(Int64(response.statusCode)), .text(Self.text(of: response.headers)),
                    .real(response.requestDate.timeIntervalSince1970), .real(response.responseDate.timeIntervalSince1970),
                    .real(Date().timeIntervalSince1970), .text(response.id.uuidString),
                ])
        }
    }

    public func remove(key: String) {
        var removed: [String] = []
        withIndex { index throws(SluiceError) in
            try index.transaction { () throws(SluiceError) in
                try index.run("SELECT id FROM entries WHERE key = ?", [.text(key)]) { row in removed.append(row.text(0) ?? "") }
                try index.run("DELETE FROM entries WHERE key = ?", [.text(key)])
            }
        }
        unlinkBodies(removed)
    }

    public func removeAll() {
        var removed: [String] = []
        withIndex { index throws(SluiceError) in
            try index.transaction { () throws(SluiceError) in
                try index.run("SELECT id FROM entries") { row in removed.append(row.text(0) ?? "") }
                try index.run("DELETE FROM entries")
            }
        }
        unlinkBodies(removed)
    }

    public var currentSize: Int {
        var size: Int64 = 0
        withIndex { index throws(SluiceError) in
            try index.run("SELECT COALESCE(SUM(size), 0) FROM entries") { row in size = row.integer(0) }
        }
        return Int(size)
    }

    /// Moves a whole body into place and indexes it, replacing its variant and evicting the least
    /// recently used entries past the capacity, in one transaction; then removes the replaced files.
    fileprivate func commit(_ response: CachedResponse, key: String, file: URL, length: Int64) {
        var response = response
        response.bodyLength = length
        let id = response.id.uuidString
        let target = bodyFile(response.id)
        do {
            try FileManager.default.moveItem(at: file, to: target)
        } catch {
            try? FileManager.default.removeItem(at: file)
            return
        }
        let headers = Self.text(of: response.headers)
        let size = length + Int64(headers.utf8.count) + 256
        var removed: [String] = []
        let committed = withIndex { index throws(SluiceError) in
            try index.transaction { () throws(SluiceError) in
                try writeUses(index)
                try index.run(
                    "SELECT id FROM entries WHERE key = ? AND variant = ?", [.text(key), .text(response.variantKey)]
                ) { row in removed.append(row.text(0) ?? "") }
                try index.run("DELETE FROM entries WHERE key = ? AND variant = ?", [.text(key), .text(response.variantKey)])
                try index.run(
                    """
                    INSERT INTO entries (id, key, variant, url, status, headers, vary, request_date, response_date,
                        body_length, size, last_used) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        .text(id), .text(key), .text(response.variantKey), .text(response.url.absoluteString),
                        .integer(Int64(response.statusCode)), .text(headers), .text(Self.text(of: response.varyingRequestHeaders)),
                        .real(response.requestDate.timeIntervalSince1970), .real(response.responseDate.timeIntervalSince1970),
                        .integer(length), .integer(size), .real(Date().timeIntervalSince1970),
                    ])
                try evict(index, keeping: id, removed: &removed)
            }
        }
        if !committed { removed = [id] }
        unlinkBodies(removed)
    }

    /// Writes the waiting uses to the index (in the caller's transaction, if any).
    private func writeUses(_ index: SQLiteConnection) throws(SluiceError) {
        let waiting = uses.withLock { uses in
            defer { uses.removeAll(keepingCapacity: true) }
            return uses
        }
        for (id, time) in waiting {
            try index.run("UPDATE entries SET last_used = MAX(last_used, ?) WHERE id = ?", [.real(time), .text(id)])
        }
    }

    deinit { withIndex { index throws(SluiceError) in try index.transaction { () throws(SluiceError) in try writeUses(index) } } }

    /// Removes the least recently used entries (never `keeping`) until the total fits the capacity.
    private func evict(_ index: SQLiteConnection, keeping: String, removed: inout [String]) throws(SluiceError) {
        var total: Int64 = 0
        try index.run("SELECT COALESCE(SUM(size), 0) FROM entries") { row in total = row.integer(0) }
        while total > Int64(capacity) {
            var batch: [(String, Int64)] = []
            try index.run("SELECT id, size FROM entries WHERE id != ? ORDER BY last_used ASC LIMIT 32", [.text(keeping)]) { row in
                batch.append((row.text(0) ?? "", row.integer(1)))
            }
            if batch.isEmpty {
                // The new entry alone is over the capacity: it goes too.
                try index.run("DELETE FROM entries WHERE id = ?", [.text(keeping)])
                removed.append(keeping)
                return
            }
            for (id, size) in batch where total > Int64(capacity) {
                try index.run("DELETE FROM entries WHERE id = ?", [.text(id)])
                removed.append(id)
                total -= size
            }
        }
    }

    // MARK: Housekeeping

    /// Removes partial files a killed writer left (untouched for ten minutes), body files the index does
    /// not name (older than a minute: a writer in another process may be just about to index one), and
    /// index entries whose body file is gone.
    private func sweep() {
        let manager = FileManager.default
        let now = Date()
        func age(_ url: URL) -> TimeInterval {
            let modified = (try? manager.attributesOfItem(atPath: url.path)[.modificationDate] as? Date) ?? nil
            return now.timeIntervalSince(modified ?? now)
        }
        for name in (try? manager.contentsOfDirectory(atPath: partial.path)) ?? [] {
            let file = partial.appendingPathComponent(name)
            if age(file) > 600 { try? manager.removeItem(at: file) }
        }
        var indexed = Set<String>()
        withIndex { index throws(SluiceError) in
            try index.run("SELECT id FROM entries") { row in indexed.insert(row.text(0) ?? "") }
        }
        let present = Set((try? manager.contentsOfDirectory(atPath: bodies.path)) ?? [])
        for name in present where !indexed.contains(name) {
            let file = bodies.appendingPathComponent(name)
            if age(file) > 60 { try? manager.removeItem(at: file) }
        }
        forget(ids: Array(indexed.subtracting(present)))
    }

    /// Removes index entries, and their files.
    private func forget(ids: [String]) {
        guard !ids.isEmpty else { return }
        withIndex { index throws(SluiceError) in
            try index.transaction { () throws(SluiceError) in
                for id in ids { try index.run("DELETE FROM entries WHERE id = ?", [.text(id)]) }
            }
        }
        unlinkBodies(ids)
    }

    private func unlinkBodies(_ ids: [String]) {
        for id in ids where !id.isEmpty { unlink(bodies.appendingPathComponent(id).path) }
    }

    private func bodyFile(_ id: UUID) -> URL { bodies.appendingPathComponent(id.uuidString) }

    /// Runs `body` on the index; a failure of the index is a miss (or nothing stored), never a crash.
    /// Returns whether it succeeded.
    @discardableResult
    private func withIndex(_ body: (SQLiteConnection) throws(SluiceError) -> Void) -> Bool {
        connection.withLock { index in
            do {
                try body(index)
                return true
            } catch {
                return false
            }
        }
    }

    // MARK: Encoding heads

    private static func text(of headers: HTTPHeaders) -> String {
        headers.map { "\($0.name): \($0.value)\n" }.joined()
    }

    private static func text(of values: [String: String]) -> String {
        values.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)\n" }.joined()
    }

    private static func fields(_ text: String) -> [(String, String)] {
        text.split(separator: "\n").compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let value = line[line.index(after: colon)...].dropFirst()
            return (String(line[..<colon]), String(value))
        }
    }

    private static func response(from row: SQLiteConnection.Row) -> CachedResponse? {
        guard let idText = row.text(0), let id = UUID(uuidString: idText), let urlText = row.text(1),
            let url = URL(string: urlText)
        else { return nil }
        let headers = HTTPHeaders(fields(row.text(3) ?? "").compactMap { try? HTTPHeader(name: $0.0, value: $0.1) })
        var vary: [String: String] = [:]
        for (name, value) in fields(row.text(4) ?? "") { vary[name] = value }
        return CachedResponse(
            id: id, url: url, statusCode: Int(row.integer(2)), headers: headers, varyingRequestHeaders: vary,
            requestDate: Date(timeIntervalSince1970: row.real(5)), responseDate: Date(timeIntervalSince1970: row.real(6)),
            bodyLength: row.integer(7))
    }

    // MARK: Writer

    private final class Writer: CacheBodyWriter, @unchecked Sendable {
        // Used by one task at a time (the protocol's contract).
        private let store: DiskCacheStore
        private let response: CachedResponse
        private let key: String
        private let file: URL
        private var handle: FileHandle?
        private var length: Int64 = 0

        init(store: DiskCacheStore, response: CachedResponse, key: String, file: URL, handle: FileHandle) {
            self.store = store
            self.response = response
            self.key = key
            self.file = file
            self.handle = handle
        }

        deinit { abandon() }

        func write(_ bytes: Data) -> Bool {
            guard let handle else { return false }
            guard length + Int64(bytes.count) <= Int64(store.maximumEntrySize), (try? handle.write(contentsOf: bytes)) != nil else {
                abandon()
                return false
            }
            length += Int64(bytes.count)
            return true
        }

        func commit() {
            guard let handle else { return }
            self.handle = nil
            guard (try? handle.close()) != nil else {
                try? FileManager.default.removeItem(at: file)
                return
            }
            store.commit(response, key: key, file: file, length: length)
        }

        func abandon() {
            guard let handle else { return }
            self.handle = nil
            try? handle.close()
            try? FileManager.default.removeItem(at: file)
        }
    }
}

/// A file read in chunks by one reader at a time, from a handle opened before.
private final class FileChunks: @unchecked Sendable {
    private let handle: FileHandle
    private var done = false

    init(handle: FileHandle) { self.handle = handle }

    func next() throws -> Data? {
        guard !done else { return nil }
        let chunk = try handle.read(upToCount: 64 << 10) ?? Data()
        if chunk.isEmpty {
            done = true
            try? handle.close()
            return nil
        }
        return chunk
    }
}
