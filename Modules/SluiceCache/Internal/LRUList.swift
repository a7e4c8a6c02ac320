/// Keys in order of use, least recent first: touching, removing and finding the oldest are O(1).
struct LRUList<Key: Hashable & Sendable>: Sendable {
    private struct Links: Sendable {
        var older: Key?
        var newer: Key?
    }

    private var links: [Key: Links] = [:]
    private var oldestKey: Key?
    private var newestKey: Key?

    /// The least recently used key.
    var oldest: Key? { oldestKey }
    var count: Int { links.count }

    /// Makes `key` the most recently used, adding it when new.
    mutating func touch(_ key: Key) {
        if newestKey == key { return }
        remove(key)
        links[key] = Links(older: newestKey, newer: nil)
        if let newestKey { links[newestKey]?.newer = key }
        newestKey = key
        if oldestKey == nil { oldestKey = key }
    }

    /// Removes `key` if present.
    mutating func remove(_ key: Key) {
        guard let link = links.removeValue(forKey: key) else { return }
        if let older = link.older { links[older]?.newer = link.newer } else { oldestKey = link.newer }
        if let newer = link.newer { links[newer]?.older = link.older } else { newestKey = link.older }
    }

    /// Keys from least to most recently used.
    var keysOldestFirst: [Key] {
        var keys: [Key] = []
        var next = oldestKey
        while let key = next {
            keys.append(key)
            next = links[key]?.newer
        }
        return keys
    }
}
