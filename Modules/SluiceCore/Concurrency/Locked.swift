#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a lock, for state that many threads read and change. Machinery of Sluice's
/// modules (visible inside this package only); a client that needs a lock uses its own.
///
/// The value and a pthread mutex live in one allocation. ThreadSanitizer understands pthread
/// mutexes, so the test suite runs under `--sanitize=thread` without false reports (the standard
/// library's `Mutex` uses futexes directly on Linux, which ThreadSanitizer cannot see).
///
/// ```swift
/// let counter = Locked(0)
/// counter.withLock { $0 += 1 }
/// ```
///
/// A struct around the one heap block: copies share the value and the lock, as references to one
/// object would, and there is no object around the block. `@usableFromInline`: without it, the body of
/// `withLock` was not available to other modules (it is a `package` type), which called the generic
/// unspecialized, its result passed through its type's value witnesses.
@usableFromInline
package struct Locked<Value> {
    @usableFromInline let storage: LockedStorage<Value>

    /// Guards `value`.
    @inlinable
    package init(_ value: Value) { storage = LockedStorage.make(value) }

    /// The same for every copy of this value and for no other: copies share one heap block.
    package var identity: ObjectIdentifier { ObjectIdentifier(storage) }

    /// Runs `body` with exclusive access to the value and returns what it returns.
    ///
    /// - Throws: What `body` throws; the lock is released either way.
    @inlinable @inline(__always)
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        try storage.withLock(body)
    }
}

/// Sendable when its value is: the lock orders every access to it.
extension Locked: @unchecked Sendable where Value: Sendable {}

/// The value (header) and the mutex (element) of a ``Locked``, in one heap block. Some of the package's
/// per-request objects hold one directly.
@usableFromInline
package final class LockedStorage<Value>: ManagedBuffer<Value, pthread_mutex_t> {
    /// A new storage guarding `value`.
    @inlinable
    package static func make(_ value: consuming Value) -> LockedStorage {
        // Moved into the buffer: returning a captured `value` from the closure would copy it (a retain of
        // each of its fields, and a release when the parameter goes).
        var slot = Optional(value)
        let buffer = create(minimumCapacity: 1) { _ in slot.take()! }
        let storage = unsafeDowncast(buffer, to: LockedStorage.self)
        storage.withUnsafeMutablePointerToElements { mutex in
            mutex.initialize(to: pthread_mutex_t())
            pthread_mutex_init(mutex, nil)
        }
        return storage
    }

    deinit {
        withUnsafeMutablePointerToElements { mutex in
            pthread_mutex_destroy(mutex)
            mutex.deinitialize(count: 1)
        }
    }

    /// Runs `body` with exclusive access to the value and returns what it returns.
    @inlinable @inline(__always)
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        try withUnsafeMutablePointers { (value, mutex) throws(Failure) -> Result in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointee)
        }
    }
}
