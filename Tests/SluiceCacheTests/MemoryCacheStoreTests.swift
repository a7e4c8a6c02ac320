import Foundation
import SluiceCore
import Testing

@testable import SluiceCache

@Suite("MemoryCacheStore")
struct MemoryCacheStoreTests {
    static func response(_ url: String, vary: [String: String] = [:]) -> CachedResponse {
        CachedResponse(
            url: URL(string: url)!, statusCode: 200, headers: HTTPHeaders(), varyingRequestHeaders: vary,
            requestDate: Date(), responseDate: Date())
    }

    static func put(_ store: MemoryCacheStore, _ url: String, bytes: Int, vary: [String: String] = [:]) -> CachedResponse {
        let response = response(url, vary: vary)
        let writer = store.makeWriter(for: response, key: url)!
        #expect(writer.write(Data(repeating: 7, count: bytes)))
        writer.commit()
        return response
    }

    @Test("LRU by bytes: the least recently used goes first; a read counts as use")
    func eviction() {
        let store = MemoryCacheStore(capacity: 3 * (1000 + MemoryCacheStore.headCost), maximumEntrySize: 1000)
        let a = Self.put(store, "http://x/a", bytes: 1000)
        _ = Self.put(store, "http://x/b", bytes: 1000)
        _ = Self.put(store, "http://x/c", bytes: 1000)
        #expect(store.body(of: a) != nil)  // a is now the most recent
        _ = Self.put(store, "http://x/d", bytes: 1000)
        #expect(store.responses(forKey: "http://x/b").isEmpty, "b was the least recently used")
        #expect(!store.responses(forKey: "http://x/a").isEmpty)
        #expect(store.currentSize <= store.capacity)
    }

    @Test("a body over the entry limit is refused and nothing stays")
    func tooLarge() {
        let store = MemoryCacheStore(capacity: 10_000, maximumEntrySize: 100)
        let response = Self.response("http://x/big")
        let writer = store.makeWriter(for: response, key: "http://x/big")!
        #expect(writer.write(Data(count: 60)))
        #expect(!writer.write(Data(count: 60)))
        writer.commit()
        #expect(store.responses(forKey: "http://x/big").isEmpty)
        #expect(store.currentSize == 0)
    }

    @Test("a variant replaces the one with the same Vary values, and keeps the others")
    func variants() {
        let store = MemoryCacheStore()
        _ = Self.put(store, "http://x/v", bytes: 1, vary: ["x-lang": "en"])
        _ = Self.put(store, "http://x/v", bytes: 2, vary: ["x-lang": "fr"])
        let newer = Self.put(store, "http://x/v", bytes: 3, vary: ["x-lang": "en"])
        let stored = store.responses(forKey: "http://x/v")
        #expect(stored.count == 2)
        #expect(stored.contains { $0.id == newer.id && $0.bodyLength == 3 })
    }

    @Test("an abandoned body leaves nothing; update keeps the body; remove and removeAll")
    func lifecycle() {
        let store = MemoryCacheStore()
        let writer = store.makeWriter(for: Self.response("http://x/z"), key: "http://x/z")!
        _ = writer.write(Data(count: 10))
        writer.abandon()
        #expect(store.responses(forKey: "http://x/z").isEmpty)
        var kept = Self.put(store, "http://x/k", bytes: 5)
        kept.statusCode = 203
        store.update(kept, key: "http://x/k")
        #expect(store.responses(forKey: "http://x/k").first?.statusCode == 203)
        #expect(store.body(of: kept)?.data?.count == 5)
        store.remove(key: "http://x/k")
        #expect(store.body(of: kept) == nil)
        _ = Self.put(store, "http://x/l", bytes: 5)
        store.removeAll()
        #expect(store.currentSize == 0)
    }

    @Test("8 threads on overlapping keys: within capacity, each body the one its key was written with")
    func concurrency() async {
        let store = MemoryCacheStore(capacity: 200_000, maximumEntrySize: 2_000)
        await withTaskGroup(of: Bool.self) { group in
            for thread in 0..<8 {
                group.addTask {
                    var ok = true
                    for round in 0..<2_000 {
                        let key = "http://x/\((round * 7 + thread) % 150)"
                        let marker = UInt8(truncatingIfNeeded: key.hashValue)
                        if let stored = store.responses(forKey: key).first, let body = store.body(of: stored)?.data {
                            ok = ok && body.allSatisfy { $0 == marker } && Int64(body.count) == stored.bodyLength
                        } else {
                            let response = Self.response(key)
                            if let writer = store.makeWriter(for: response, key: key) {
                                _ = writer.write(Data(repeating: marker, count: 500 + round % 1_000))
                                writer.commit()
                            }
                        }
                    }
                    return ok
                }
            }
            for await ok in group { #expect(ok) }
        }
        #expect(store.currentSize <= store.capacity)
    }
}
