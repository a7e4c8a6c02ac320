import Foundation

/// A value guarded by a lock, for state that many threads read and change.
///
/// Built on `NSLock` (a pthread mutex), which ThreadSanitizer understands, so the test suite can run
/// under `--sanitize=thread` without false reports. (The standard library's `Mutex` uses futexes
/// directly on Linux, which ThreadSanitizer cannot see.)
///
/// ```swift
/// let counter = Locked(0)
/// counter.withLock { $0 += 1 }
/// ```
public final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    /// Guards `value`.
    public init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value and returns what it returns.
    ///
    /// - Throws: What `body` throws; the lock is released either way.
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
