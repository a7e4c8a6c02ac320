import Foundation
import SluiceCore
import SluiceTestSupport
import Testing

@testable import SluiceCache

@Suite("DiskCacheStore", .serialized)
struct DiskCacheStoreTests {
    static func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("sluice-disk-cache-\(UUID().uuidString)")
    }

    static func response(_ key: String, _ fields: [(String, String)] = [], vary: [String: String] = [:]) -> CachedResponse {
        CachedResponse(
            url: URL(string: key)!, statusCode: 200, headers: HTTPHeaders(fields.map { try! HTTPHeader(name: $0.0, value: $0.1) }),
            varyingRequestHeaders: vary, requestDate: Date(timeIntervalSince1970: 1_000), responseDate: Date(timeIntervalSince1970: 2_000))
    }

    @discardableResult
    static func put(_ store: DiskCacheStore, _ key: String, _ body: Data, _ fields: [(String, String)] = [], vary: [String: String] = [:])
        -> CachedResponse
    {
        let response = response(key, fields, vary: vary)
        let writer = store.makeWriter(for: response, key: key)!
        var offset = 0
        while offset < body.count {
            let end = min(body.count, offset + 10_000)
            #expect(writer.write(body.subdata(in: offset..<end)))
            offset = end
        }
        writer.commit()
        return response
    }

    static func read(_ body: HTTPLayerBody?) async throws -> Data? {
        guard let body else { return nil }
        switch body.content {
        case .data(let data): return data
        case .file(let url): return try Data(contentsOf: url)
        case .stream(let stream):
            var data = Data()
            for try await chunk in stream { data.append(chunk) }
            return data
        }
    }

    static func digest(_ data: Data) -> String {
        var digest: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data { digest = (digest ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return String(digest, radix: 16)
    }

    /// Every response the store serves for the writer probe's keys: whole (length and digest as its head
    /// says). Returns how many were checked.
    static func verifyWriterEntries(_ store: DiskCacheStore) async throws -> Int {
        var checked = 0
        for index in 0..<40 {
            for response in store.responses(forKey: "http://writer.test/\(index)") {
                guard let body = try await read(store.body(of: response)) else { continue }
                #expect(String(body.count) == response.headers.first("X-Length"), "a torn body was served")
                #expect(digest(body) == response.headers.first("X-Digest"), "a body that is not its head's was served")
                #expect(Int64(body.count) == response.bodyLength)
                checked += 1
            }
        }
        return checked
    }

    @Test("entries, heads and bodies survive a reopen; a variant replaces its own")
    func persistence() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            let store = try DiskCacheStore(directory: folder)
            Self.put(store, "http://x/a", Data("alpha".utf8), [("ETag", "\"1\""), ("X-Multi", "1"), ("X-Multi", "2")], vary: ["x-lang": "en"])
            Self.put(store, "http://x/a", Data("alpha-fr".utf8), vary: ["x-lang": "fr"])
            Self.put(store, "http://x/a", Data("alpha-en-2".utf8), vary: ["x-lang": "en"])
        }
        let reopened = try DiskCacheStore(directory: folder)
        let stored = reopened.responses(forKey: "http://x/a")
        #expect(stored.count == 2)
        let english = try #require(stored.first { $0.varyingRequestHeaders["x-lang"] == "en" })
        #expect(try await Self.read(reopened.body(of: english)) == Data("alpha-en-2".utf8))
        #expect(english.requestDate == Date(timeIntervalSince1970: 1_000))
        let first = try #require(reopened.responses(forKey: "http://x/a").first { $0.varyingRequestHeaders["x-lang"] == "fr" })
        #expect(try await Self.read(reopened.body(of: first)) == Data("alpha-fr".utf8))
        // Heads keep repeated fields in order.
        Self.put(reopened, "http://x/m", Data("m".utf8), [("X-Multi", "1"), ("X-Multi", "2"), ("Empty", "")])
        let multi = try #require(reopened.responses(forKey: "http://x/m").first)
        #expect(multi.headers.values(for: "X-Multi") == ["1", "2"])
        #expect(multi.headers.first("Empty") == "")
    }

    @Test("bounded by bytes: the least recently used go first, a read counts as use")
    func eviction() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try DiskCacheStore(directory: folder, capacity: 35_000, maximumEntrySize: 10_000)
        let a = Self.put(store, "http://x/a", Data(count: 10_000))
        Self.put(store, "http://x/b", Data(count: 10_000))
        Self.put(store, "http://x/c", Data(count: 10_000))
        _ = store.body(of: a)
        Self.put(store, "http://x/d", Data(count: 10_000))
        #expect(store.responses(forKey: "http://x/b").isEmpty)
        #expect(!store.responses(forKey: "http://x/a").isEmpty)
        #expect(store.currentSize <= 35_000)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("bodies").path)
        #expect(files.count == 3, "the evicted body's file is gone")
    }

    @Test("a large body is streamed from its file; one over the entry limit is not kept, and leaves no file")
    func largeBodies() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try DiskCacheStore(directory: folder, capacity: 100 << 20, maximumEntrySize: 2 << 20)
        let large = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let response = Self.put(store, "http://x/large", large)
        let body = try #require(store.body(of: response))
        if case .stream = body.content {} else { Issue.record("a 1 MiB body was read whole") }
        #expect(try await Self.read(body) == large)
        let tooLarge = Self.response("http://x/huge")
        let writer = try #require(store.makeWriter(for: tooLarge, key: "http://x/huge"))
        #expect(writer.write(Data(count: 1 << 20)))
        #expect(!writer.write(Data(count: 2 << 20)))
        writer.commit()
        #expect(store.responses(forKey: "http://x/huge").isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("partial").path).isEmpty)
    }

    @Test("a body file cut short is never served, and its entry goes; orphans and old partial files are swept at open")
    func tornAndOrphans() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try DiskCacheStore(directory: folder)
        let response = Self.put(store, "http://x/t", Data(count: 5_000))
        let file = folder.appendingPathComponent("bodies/\(response.id.uuidString)")
        try Data(count: 100).write(to: file)
        #expect(store.body(of: response) == nil)
        #expect(store.responses(forKey: "http://x/t").isEmpty)
        // An orphan body and a partial file a killed writer left, both old.
        let orphan = folder.appendingPathComponent("bodies/\(UUID().uuidString)")
        let partial = folder.appendingPathComponent("partial/\(UUID().uuidString).1")
        for leftover in [orphan, partial] {
            try Data(count: 10).write(to: leftover)
            try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-3_600)], ofItemAtPath: leftover.path)
        }
        // A recent orphan stays: another process may be about to index it.
        let recent = folder.appendingPathComponent("bodies/\(UUID().uuidString)")
        try Data(count: 10).write(to: recent)
        _ = try DiskCacheStore(directory: folder)
        #expect(!FileManager.default.fileExists(atPath: orphan.path))
        #expect(!FileManager.default.fileExists(atPath: partial.path))
        #expect(FileManager.default.fileExists(atPath: recent.path))
    }

    @Test("a folder that cannot be made: cacheStoreFailed")
    func unusableFolder() {
        let error = #expect(throws: SluiceError.self) {
            _ = try DiskCacheStore(directory: URL(fileURLWithPath: "/proc/sluice-cannot-be-here"))
        }
        #expect(error?.code == .cacheStoreFailed)
    }

    @Test("a writer killed with SIGKILL at random points of 200 writes: the reopened store serves only whole, matching entries", .tags(.slow), .runsLong)
    func killedWriter() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let tool = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("sluice-cache-writer")
        try #require(FileManager.default.isExecutableFile(atPath: tool.path), "sluice-cache-writer is not built: swift build --build-tests")
        var generator = SystemRandomNumberGenerator()
        let bodies = folder.appendingPathComponent("bodies").path
        for round in 0..<6 {
            let before = Set((try? FileManager.default.contentsOfDirectory(atPath: bodies)) ?? [])
            let process = Process()
            process.executableURL = tool
            process.arguments = [folder.path, "200", String(round + 1)]
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            if round == 5 {
                // The last writer is killed only after it has moved a second body into place: it indexes each
                // body before it writes the next, so at least one entry is whole however slow the machine.
                var seen = Set<String>()
                try await Wait.until("the last writer has stored two bodies") {
                    seen.formUnion(Set((try? FileManager.default.contentsOfDirectory(atPath: bodies)) ?? []).subtracting(before))
                    return seen.count >= 2
                }
            }
            // Somewhere in the middle of its writes (its first open included, in the first rounds): the random
            // pause is what shakes out the crash points.
            try await Task.sleep(for: .milliseconds(Int.random(in: 20...400, using: &generator)))
            kill(process.processIdentifier, SIGKILL)
            try await Wait.until("the killed writer has exited") { !process.isRunning }
        }
        let store = try DiskCacheStore(directory: folder)
        let checked = try await Self.verifyWriterEntries(store)
        #expect(checked > 0, "no entry survived six writers: the test proves nothing")
    }

    @Test("two processes writing to one folder at once, then a third reading: nothing corrupt, within capacity")
    func twoProcesses() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let capacity = 8 << 20
        async let first = ChildProcess.run("sluice-cache-writer", arguments: [folder.path, "300", "11", String(capacity)])
        async let second = ChildProcess.run("sluice-cache-writer", arguments: [folder.path, "300", "12", String(capacity)])
        let outcomes = try await [first, second]
        for outcome in outcomes { #expect(outcome.status == 0, "\(outcome.errors)") }
        let store = try DiskCacheStore(directory: folder, capacity: capacity)
        #expect(try await Self.verifyWriterEntries(store) > 0)
        #expect(store.currentSize <= capacity)
    }

    @Test("two stores of one process on one folder, writing and reading at once: each serves whole bodies the other stored")
    func twoStoresOneProcess() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let stores = [try DiskCacheStore(directory: folder, capacity: 2 << 20), try DiskCacheStore(directory: folder, capacity: 2 << 20)]
        let wrong = Locked(0)
        await withTaskGroup(of: Void.self) { group in
            for (number, store) in stores.enumerated() {
                group.addTask {
                    for round in 0..<1_500 {
                        let key = "http://x/\(round % 60)"
                        let marker = UInt8(truncatingIfNeeded: round % 60)
                        if round % 3 == number, let writer = store.makeWriter(for: Self.response(key), key: key) {
                            _ = writer.write(Data(repeating: marker, count: 2_000 + round % 5_000))
                            writer.commit()
                        } else if let stored = store.responses(forKey: key).first, let body = try? await Self.read(store.body(of: stored)) {
                            if !(body.allSatisfy { $0 == marker } && Int64(body.count) == stored.bodyLength) { wrong.withLock { $0 += 1 } }
                        }
                    }
                }
            }
        }
        #expect(wrong.withLock { $0 } == 0)
        let reopened = try DiskCacheStore(directory: folder, capacity: 2 << 20)
        #expect(reopened.currentSize <= 2 << 20)
        var served = 0
        for index in 0..<60 {
            for response in reopened.responses(forKey: "http://x/\(index)") {
                let body = try #require(try await Self.read(reopened.body(of: response)))
                #expect(body.allSatisfy { $0 == UInt8(index) })
                served += 1
            }
        }
        #expect(served > 0)
    }

    @Test("8 tasks × 10,000 operations on overlapping keys: within capacity, every body the one its key was written with", .tags(.slow), .runsLong)
    func concurrency() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try DiskCacheStore(directory: folder, capacity: 400_000, maximumEntrySize: 20_000)
        let wrong = Locked(0)
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for round in 0..<10_000 {
                        let key = "http://x/\((round * 13 + worker * 7) % 200)"
                        let marker = UInt8(truncatingIfNeeded: key.utf8.reduce(0) { $0 &+ Int($1) })
                        if round % 10 != 0, let stored = store.responses(forKey: key).first,
                            let body = try? await Self.read(store.body(of: stored))
                        {
                            if !(body.allSatisfy { $0 == marker } && Int64(body.count) == stored.bodyLength) { wrong.withLock { $0 += 1 } }
                        } else if let writer = store.makeWriter(for: Self.response(key), key: key) {
                            _ = writer.write(Data(repeating: marker, count: 1_000 + (round * 37) % 9_000))
                            writer.commit()
                        }
                    }
                }
            }
        }
        #expect(wrong.withLock { $0 } == 0)
        #expect(store.currentSize <= 400_000)
        // Within 1%: the index's count and the bodies on disk agree.
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("bodies").path)
            .reduce(0) { $0 + ((try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("bodies/\($1)").path)[.size] as? Int) ?? 0) }
        #expect(onDisk <= 400_000)
    }
}
