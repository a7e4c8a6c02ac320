import Foundation
import SluiceCore

/// A ``PinningEvaluator``'s memory of the certificates it has seen: each certificate's public-key pin,
/// and each served chain's signed path.
final class PinningCache: Sendable {
    /// At most this many entries in each table; a full table is emptied before the next is added.
    static let limit = 256

    let pins = Table<Data, String>()
    let paths = Table<[Data], [Data]>()

    /// One bounded table of values worked out from their keys alone.
    final class Table<Key: Hashable & Sendable, Value: Sendable>: Sendable {
        private let entries = Locked<[Key: Value]>([:])

        /// The value kept for `key`, else `make()`'s, kept unless it is `nil`.
        func value(for key: Key, _ make: () -> Value?) -> Value? {
            if let known = entries.withLock({ $0[key] }) { return known }
            guard let value = make() else { return nil }
            entries.withLock { entries in
                if entries.count >= PinningCache.limit { entries.removeAll() }
                entries[key] = value
            }
            return value
        }
    }
}
