import Foundation

/// A response body on its way into an ``HTTPCacheStore``: written in parts as it arrives, then
/// committed (the response becomes servable, whole) or abandoned (nothing of it stays). Used by one
/// task at a time.
public protocol CacheBodyWriter: Sendable {
    /// Appends `bytes`; returns `false` when the store will not keep the body (it grew past the
    /// store's limit for one entry), after which the writer is abandoned.
    func write(_ bytes: Data) -> Bool
    /// Makes the response and its body servable, replacing the variant it updates.
    func commit()
    /// Drops what was written.
    func abandon()
}
