import Foundation
import SluiceCore

/// Where an ``HTTPCache`` keeps responses: heads by URL key, one per variant, and their bodies. Stores
/// are safe to use from many tasks at once, and bound their own size.
///
/// ``MemoryCacheStore`` is the one in this module.
public protocol HTTPCacheStore: Sendable {
    /// The stored responses for `key` (one per variant), in no particular order; empty when none.
    func responses(forKey key: String) -> [CachedResponse]

    /// The body of `response`, `nil` when the store no longer holds it (evicted meanwhile).
    func body(of response: CachedResponse) -> HTTPLayerBody?

    /// Starts storing `response` under `key`; the writer takes its body and, once committed, the
    /// response replaces the stored one with the same ``CachedResponse/variantKey``. `nil` when the store
    /// will not take it (too large for it).
    func makeWriter(for response: CachedResponse, key: String) -> (any CacheBodyWriter)?

    /// Replaces the head of the stored response with `response`'s id (after a revalidation); does
    /// nothing when it is gone.
    func update(_ response: CachedResponse, key: String)

    /// Removes every response stored under `key`.
    func remove(key: String)

    /// Removes everything.
    func removeAll()

    /// Bytes held now (bodies and heads, as the store counts them).
    var currentSize: Int { get }
}
