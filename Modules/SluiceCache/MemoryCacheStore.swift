import Foundation
import SluiceCore

/// A cache store in memory, bounded by bytes: when a new body would pass ``capacity``, the least
/// recently used responses go first. Lost when the process ends.
///
/// Defaults: 20 MiB, as Alamofire's memory capacity (URLCache.shared: 512 KiB on iOS; NSURLCache's
/// former default, 4 MiB); a single body over a tenth of the capacity is not stored.
public final class MemoryCacheStore: HTTPCacheStore {
    /// The most bytes held (bodies plus a small count per head).
    public let capacity: Int
    /// The largest body stored.
    public let maximumEntrySize: Int

    /// Bytes counted for a head besides its body.
    static let headCost = 512

    private struct Stored: Sendable {
        var response: CachedResponse
        var key: String
        var body: Data
        var cost: Int { body.count + MemoryCacheStore.headCost }
    }

    private struct State: Sendable {
        var byID: [UUID: Stored] = [:]
        // Each key's stored responses, kept as the array a lookup returns, so a hit copies one reference.
        var variantsByKey: [String: [CachedResponse]] = [:]
        var lru = LRUList<UUID>()
        var size = 0

        mutating func insert(_ stored: Stored) {
            byID[stored.response.id] = stored
            variantsByKey[stored.key, default: []].append(stored.response)
            lru.touch(stored.response.id)
            size += stored.cost
        }

        mutating func remove(id: UUID) {
            guard let stored = byID.removeValue(forKey: id) else { return }
            size -= stored.cost
            lru.remove(id)
            variantsByKey[stored.key]?.removeAll { $0.id == id }
            if variantsByKey[stored.key]?.isEmpty == true { variantsByKey[stored.key] = nil }
        }

        mutating func evict(toFit capacity: Int) {
            while size > capacity, let oldest = lru.oldest { remove(id: oldest) }
        }
    }

    private let state = Locked(State())

    /// A store of at most `capacity` bytes.
    ///
    /// - Parameters:
    ///   - capacity: The most bytes held. Default 20 MiB.
    ///   - maximumEntrySize: The largest body stored. Default a tenth of `capacity`.
    public init(capacity: Int = 20 << 20, maximumEntrySize: Int? = nil) {
        self.capacity = max(0, capacity)
        self.maximumEntrySize = min(maximumEntrySize ?? self.capacity / 10, self.capacity)
    }

    public func responses(forKey key: String) -> [CachedResponse] {
        state.withLock { state in state.variantsByKey[key] ?? [] }
    }

    public func body(of response: CachedResponse) -> HTTPLayerBody? {
        state.withLock { state -> HTTPLayerBody? in
            guard let body = state.byID[response.id]?.body else { return nil }
            state.lru.touch(response.id)
            return .data(body)
        }
    }

    public func makeWriter(for response: CachedResponse, key: String) -> (any CacheBodyWriter)? {
        guard maximumEntrySize > 0 else { return nil }
        return Writer(store: self, response: response, key: key)
    }

    public func update(_ response: CachedResponse, key: String) {
        state.withLock { state in
            guard let key = state.byID[response.id]?.key else { return }
            state.byID[response.id]!.response = response
            if let index = state.variantsByKey[key]?.firstIndex(where: { $0.id == response.id }) {
                state.variantsByKey[key]![index] = response
            }
            state.lru.touch(response.id)
        }
    }

    public func remove(key: String) {
        state.withLock { state in
            for stored in state.variantsByKey[key] ?? [] { state.remove(id: stored.id) }
        }
    }

    public func removeAll() { state.withLock { $0 = State() } }

    public var currentSize: Int { state.withLock { $0.size } }

    /// Makes `response` with `body` servable under `key`, replacing its variant, evicting as needed.
    fileprivate func commit(_ response: CachedResponse, body: Data, key: String) {
        var response = response
        response.bodyLength = Int64(body.count)
        state.withLock { state in
            let variant = response.variantKey
            for stored in state.variantsByKey[key] ?? [] where stored.variantKey == variant { state.remove(id: stored.id) }
            state.insert(Stored(response: response, key: key, body: body))
            state.evict(toFit: capacity)
        }
    }

    private final class Writer: CacheBodyWriter, @unchecked Sendable {
        // Used by one task at a time (the protocol's contract), so the buffer needs no lock.
        private let store: MemoryCacheStore
        private let response: CachedResponse
        private let key: String
        private var body = Data()
        private var open = true

        init(store: MemoryCacheStore, response: CachedResponse, key: String) {
            self.store = store
            self.response = response
            self.key = key
        }

        func write(_ bytes: Data) -> Bool {
            guard open else { return false }
            guard body.count + bytes.count <= store.maximumEntrySize else {
                abandon()
                return false
            }
            body.append(bytes)
            return true
        }

        func commit() {
            guard open else { return }
            open = false
            store.commit(response, body: body, key: key)
            body = Data()
        }

        func abandon() {
            open = false
            body = Data()
        }
    }
}
